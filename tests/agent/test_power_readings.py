"""power.readings_of: the raw power readings a generation's reply carries (messages.PowerReadings), from which the
host cuts each repetition's prefill and decode windows; they must span the sampling window for every source."""

import pytest

from edgeprof_agent import power

MS = 1000000


def _trapezoid(ts, ws, t0, t1):
    return power.trapezoid_j(ts, ws, t0, t1)


def test_a_power_source_s_positive_readings_as_they_were():
    samples = [(0, 5.0, (5.0,), None), (10 * MS, 0.0, (0.0,), None), (20 * MS, 6.0, (6.0,), None)]
    assert power.readings_of(samples, "trapezoid") == ([0, 20 * MS], [5.0, 6.0])  # <= 0 W dropped, as summarize


def test_a_counter_s_intervals_span_the_window_and_integrate_to_its_energy():
    """An energy counter (J) read every 10 ms: 5 W, then 10 W, then 10 W. The interval powers sit at their
    midpoints and the first and last are held to the window's edges: the trapezoid over the whole window is the
    counter's own difference."""
    samples = [(0, 0.0, (0.0,), None), (10 * MS, 0.05, (0.05,), None), (20 * MS, 0.15, (0.15,), None),
               (30 * MS, 0.25, (0.25,), None)]
    ts, ws = power.readings_of(samples, "counter")
    assert ts == [0, 5 * MS, 15 * MS, 25 * MS, 30 * MS] and ws == pytest.approx([5.0, 5.0, 10.0, 10.0, 10.0])
    assert _trapezoid(ts, ws, 0, 30 * MS) == pytest.approx(power.counter_j([s[0] for s in samples],
                                                                           [s[1] for s in samples], 0, 30 * MS))


def test_a_counter_with_instantaneous_power_uses_its_readings():
    samples = [(0, 0.0, (0.0,), 4.0), (10 * MS, 0.05, (0.05,), 6.0)]
    assert power.readings_of(samples, "counter") == ([0, 10 * MS], [4.0, 6.0])
