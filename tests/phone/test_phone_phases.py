"""Energy per phase on a phone from a tool's printed durations (edgeprof/phone/phases.py), without a phone: the
durations laid from the process's start on the phone clock, the fit check both ways, the battery trace integrated
over each window (a power that steps exactly at the phase edges gives each phase its own W), what has no trace (the
rails, no power), and the coarse warnings. The stand-in phone's end-to-end runs are in test_phone_litertlm.py."""

from __future__ import annotations

import pytest

from edgeprof.phone import phases
from edgeprof.phone.phases import Turns
from edgeprof.phone.power import PowerReading

MS = 1_000_000
START = 1_733_380_000_000_000_000  # the phone clock (date +%s%N) in ns: a real wall-clock size, not 0


def battery(points: list[tuple[int, float]]) -> PowerReading:
    return PowerReading(source="battery", covers="the whole phone", mean_w=0.0, samples=len(points),
                        duration_s=(points[-1][0] - points[0][0]) / 1e9, clock="phone (date +%s%N)",
                        trace_ns=tuple(t for t, _ in points), trace_w=tuple(w for _, w in points))


# a warm-up and two timed iterations: init 200 ms, prefill 300 / 250 / 260 ms, decode 800 / 700 / 720 ms of 8 tokens
ITERS = [Turns(300 * MS, 800 * MS, 8), Turns(250 * MS, 700 * MS, 8), Turns(260 * MS, 720 * MS, 8)]
INIT = 200 * MS
ACCOUNTED = INIT + sum(i.prefill_ns + i.decode_ns for i in ITERS)  # 3.23 s


def test_the_durations_laid_end_to_end_from_the_start():
    laid = phases.lay_out((START, START + ACCOUNTED + 40 * MS), INIT, ITERS)
    assert isinstance(laid, phases.Layout) and laid.unaccounted_ns == 40 * MS
    first = START + INIT
    assert laid.windows[0] == (first, first + 300 * MS, first + 300 * MS + 100 * MS, first + 1100 * MS)
    assert laid.windows[1][0] == laid.windows[0][3]  # back to back
    a, b, c, d = laid.windows[2]
    assert (b - a, c - b, d - b) == (260 * MS, 90 * MS, 720 * MS)  # first token: decode turn / tokens


def test_durations_that_do_not_fit_the_span():
    too_long = phases.lay_out((START, START + ACCOUNTED - 5 * MS), INIT, ITERS)
    assert isinstance(too_long, str) and "longer than the process's" in too_long
    assert isinstance(phases.lay_out((START, START + ACCOUNTED - MS // 2), INIT, ITERS), phases.Layout)  # slack
    gap = round(ACCOUNTED * phases.FIT_FRACTION / (1 - phases.FIT_FRACTION)) + MS  # just over the tolerance
    loose = phases.lay_out((START, START + ACCOUNTED + gap), INIT, ITERS)
    assert isinstance(loose, str) and "more than the 10% tolerance" in loose
    assert isinstance(phases.lay_out((START, START + ACCOUNTED + gap - 2 * MS), INIT, ITERS), phases.Layout)


def test_constant_power_gives_w_times_phase_time_over_tokens():
    w = 2.75
    points = [(START - 50 * MS + k * 100 * MS, w) for k in range(36)]  # every 100 ms, covering the process
    f = phases.phase_figures("tool", battery(points), None, (START, START + ACCOUNTED + 20 * MS), INIT, ITERS,
                             warmups=1, prompt_tokens=64, gen_tokens=8)
    e = f.energy
    assert e is not None and f.reason is None, f.reason
    ttft_s = (0.250 + 0.700 / 8) + (0.260 + 0.720 / 8)
    decode_s = 0.700 * 7 / 8 + 0.720 * 7 / 8
    assert e.prefill_s == pytest.approx(ttft_s, rel=1e-9) and e.decode_s == pytest.approx(decode_s, rel=1e-9)
    assert e.j_per_prompt_token == pytest.approx(w * ttft_s / (2 * 64), rel=1e-9)
    assert e.j_per_token == pytest.approx(w * decode_s / (2 * 7), rel=1e-9)
    tpot_s = (0.700 / 8 + 0.720 / 8) / 2
    assert e.j_per_token == pytest.approx(w * tpot_s, rel=1e-9)  # W x TPOT, the tool's TPOT
    assert e.prefill_mean_w == pytest.approx(w) and e.decode_mean_w == pytest.approx(w)
    assert e.tokens_per_j == pytest.approx(14 / (w * decode_s), rel=1e-9)
    assert e.source == ("battery, phases from tool's durations anchored at the process start on the phone clock; "
                        "samples every 0.1 s; 0.020 s of the 3.250 s process outside the durations")
    assert f.windows_ns[0][0] == 0 and f.windows_ns[1][0] == (250 + 700) * MS
    assert f.warnings == []  # 0.34 s and 0.61 s windows: over 3 x 0.1 s


def test_power_that_steps_between_phases_gives_each_phase_its_own_w():
    """Samples 1 ns either side of each phase edge: the trapezoids see the step, each phase its own W."""
    span = (START, START + ACCOUNTED)
    laid = phases.lay_out(span, INIT, ITERS)
    assert isinstance(laid, phases.Layout)
    level = {"init": 0.9, "prefill": 4.0, "decode": 1.5}
    points: list[tuple[int, float]] = [(START - MS, level["init"])]
    current = "init"
    for t, phase in [edge for a, b, _, _ in laid.windows for edge in ((a, "prefill"), (b, "decode"))]:
        points += [(t - 1, level[current]), (t + 1, level[phase])]
        current = phase
    points.append((span[1] + MS, level[current]))
    f = phases.phase_figures("tool", battery(points), None, span, INIT, ITERS, warmups=1, prompt_tokens=64,
                             gen_tokens=8)
    e = f.energy
    assert e is not None, f.reason
    # the TTFT window: the prefill turn at prefill W, then the first token (decode turn / 8) at decode W
    pre = [(0.250, 0.700 / 8), (0.260, 0.720 / 8)]
    want_prefill_j = sum(p * level["prefill"] + t * level["decode"] for p, t in pre)
    assert e.prefill_j == pytest.approx(want_prefill_j, rel=1e-6)
    assert e.prefill_mean_w == pytest.approx(want_prefill_j / sum(p + t for p, t in pre), rel=1e-6)
    assert e.decode_mean_w == pytest.approx(level["decode"], rel=1e-6)
    assert e.j_per_token == pytest.approx(level["decode"] * (0.700 + 0.720) / 16, rel=1e-6)


def test_what_gives_no_energy_per_phase_says_why():
    rails = PowerReading(source="rails", covers="rails", mean_w=1.0, samples=2, duration_s=3.0, clock="meters")
    points = [(START - MS, 1.0), (START + ACCOUNTED + 30 * MS, 1.0)]
    span = (START, START + ACCOUNTED + 20 * MS)
    cases = [
        (rails, span, "the rails reading is two counter reads around the whole tool process"),
        (None, span, "no power was measured (the phone is charging)"),
        (battery(points), None, "the phone clock was not read around tool"),
        (battery(points), (START, START + 2 * ACCOUNTED), "do not fit its process on the phone clock"),
        # a trace that stops before the last decode window ends: never extrapolated
        (battery([(START - MS, 1.0), (START + ACCOUNTED - 100 * MS, 1.0)]), span, "does not cover the window"),
    ]
    for power, sp, words in cases:
        f = phases.phase_figures("tool", power, "the phone is charging", sp, INIT, ITERS, warmups=1,
                                 prompt_tokens=64, gen_tokens=8)
        assert f.energy is None and f.reason is not None and words in f.reason, (words, f.reason)


def test_windows_shorter_than_a_few_sample_intervals_are_coarse():
    points = [(START - 50 * MS + k * 200 * MS, 1.0) for k in range(19)]  # every 200 ms
    f = phases.phase_figures("tool", battery(points), None, (START, START + ACCOUNTED + 20 * MS), INIT, ITERS,
                             warmups=1, prompt_tokens=64, gen_tokens=8)
    assert f.energy is not None and len(f.warnings) == 1  # the 0.34 s TTFT windows, not the 0.61 s decode ones
    assert "the prefill (TTFT) window is 0.338 s, under 3 x 0.200 s" in f.warnings[0]
    assert "J per prompt token is coarse" in f.warnings[0]
    single = [Turns(i.prefill_ns, i.decode_ns, 1) for i in ITERS]  # one token: the decode turn is the first token
    one = phases.phase_figures("tool", battery(points), None, (START, START + ACCOUNTED + 20 * MS), INIT, single,
                               warmups=1, prompt_tokens=64, gen_tokens=1)
    assert one.energy is not None and one.energy.j_per_token is None  # one token: no decode step to warn about
