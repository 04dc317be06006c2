"""The sustained scenario: window statistics against numpy on the raw samples, the curve's rules, and a 12 s run
(2 s windows) on a board tree that heats up and steps its clock down at a known time (tests/agent/fakes/heating.py),
whose onset window, sustained ratio and steady state are known in advance."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from edgeprof.evaluation.sustained import STEADY_TOL, curve, last_n, onset, summarize, window_rows
from edgeprof_agent import windows
from edgeprof_agent.messages import ScenarioSpec, SustainedReply, SustainedWindow
from edgeprof_agent.sysfs import SysfsRoot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent" / "fakes"))
from heating import HeatingBoard  # noqa: E402

S = 1_000_000_000


def _reply(counts: list[int], window_s: float = 2.0, **state: list[float | None]) -> SustainedReply:
    rows, first = [], 0
    for k, c in enumerate(counts):
        extra = {name: values[k] for name, values in state.items()}
        rows.append(SustainedWindow(index=k, start_ns=int(k * window_s * S), end_ns=int((k + 1) * window_s * S),
                                    first=first, count=c, **extra))
        first += c
    return SustainedReply(duration_s=window_s * len(counts), window_s=window_s, read_period_s=0.5, windows=rows)


def test_window_statistics_are_numpys_on_each_windows_raw_samples() -> None:
    rng = random.Random(7)
    counts = [137, 1, 0, 250, 64]
    samples = [rng.lognormvariate(1.5, 0.4) for _ in range(sum(counts))]
    reply = _reply(counts, energy_j=[1.0, 0.5, None, 2.0, 0.25])
    rows = window_rows(reply, samples, per_query=2, period_ms=6.0)
    assert [r.n for r in rows] == counts
    first = 0
    for row, c in zip(rows, counts, strict=True):
        part = np.asarray(samples[first:first + c])
        first += c
        if not c:
            assert row.p50_ms is None and row.qps == 0 and row.mj_per_inference is None
            continue
        for q, got in ((50, row.p50_ms), (90, row.p90_ms), (99, row.p99_ms)):
            assert got == pytest.approx(np.percentile(part, q), abs=1e-4)
        assert row.max_ms == pytest.approx(part.max(), abs=1e-4)
        assert row.mean_ms == pytest.approx(part.mean(), abs=1e-4)
        assert row.qps == pytest.approx(c / 2.0) and row.ips == pytest.approx(2 * c / 2.0)
        assert row.misses == int((part > 6.0).sum())
        assert row.mj_per_inference == pytest.approx(1000 * (row.energy_j or 0) / (2 * c), abs=1e-5)


def test_onset_is_the_first_window_with_a_clock_drop_or_new_throttle_bits() -> None:
    counts = [100] * 6
    rows = window_rows(_reply(counts, cpu_mhz=[2400, 2390, 2300, 2000, 2000, 2000]), [1.0] * 600, 1, None)
    w, why = onset(rows)
    assert w is not None and w.index == 3 and why is not None and "17 %" in why  # 2300 is within 5 %
    rows = window_rows(_reply(counts, cpu_mhz=[2400] * 6, throttled=[8, 8, 8, 12, 12, 12]), [1.0] * 600, 1, None)
    w, why = onset(rows)
    assert w is not None and w.index == 3 and why is not None and "0xc" in why  # bit 2 is new; bit 3 was there
    assert onset(window_rows(_reply(counts, cpu_mhz=[2400] * 6), [1.0] * 600, 1, None)) == (None, None)


def test_steady_state_ratio_and_the_warning_when_none_is_reached() -> None:
    # throughput 100, 90, 60, 50, 51, 49 per window of 1 s: the tail of last_n(6) = 2 windows agrees at 50 ± 5 %
    counts = [100, 90, 60, 50, 51, 49]
    samples = [1000.0 / c for c in counts for _ in range(c)]
    reply = _reply(counts, window_s=1.0, temp_c=[50.0, 55.0, 60.0, 64.5, 65.0, 65.2])
    s = curve(reply, window_rows(reply, samples, 1, None), samples)
    assert last_n(6) == s.last_n == 2
    assert s.sustained_ratio == pytest.approx(50 / 100) and s.p50_ratio == pytest.approx((1000 / 51 + 1000 / 49) / 2 / 10,
                                                                                          abs=1e-3)
    assert s.steady_window == 3 and s.time_to_steady_s == 3.0  # window 2 (60/s) is not within 5 % of 50
    assert s.steady_qps == pytest.approx(50.0) and s.steady_temp_c == pytest.approx(64.9, abs=0.01)
    pooled = samples[sum(counts[:3]):]
    assert s.steady_p99_ms == pytest.approx(np.percentile(pooled, 99), abs=1e-4)
    # still falling at the end: no steady state, and a warning saying so
    counts = [100, 90, 80, 70, 60, 50]
    reply = _reply(counts, window_s=1.0)
    section, warnings = summarize(reply, [1.0] * sum(counts), 1, None)
    assert section.steady_window is None and section.steady_qps is None
    assert [w.code for w in warnings] == ["sustained_not_steady"] and f"{STEADY_TOL:.0%}" in warnings[0].message


def test_a_heating_board_throttles_where_it_was_driven_to(tmp_path: Path) -> None:
    """12 s, 2 s windows. The tree heats 50 → 68 °C at 3 °C/s (plateau from 6 s) and its clock steps 2.4 → 1.2 GHz
    at 5 s; a query takes 10 ms × 2.4 GHz / the clock it reads. So: onset in window 2 ([4, 6) s, the step), the
    last windows run at half the first's rate (ratio 0.5, p50 ratio 2), steady from window 3 (6 s: both settled)."""
    board = HeatingBoard(tmp_path / "rpi5", trip_s=5.0)
    root = SysfsRoot(str(board.dir))
    freq = board.freqs[0]

    def run() -> None:
        time.sleep(0.010 * 2400000 / int(freq.read_text()))

    sc = ScenarioSpec(name="sustained", duration_s=12.0, sustained_window_s=2.0)
    board.start()
    try:
        sched, reply = windows.sustained_loop(run, sc, root, None, progress=False)
    finally:
        board.stop()
    assert len(reply.windows) == 6 and reply.read_period_s == 0.5
    assert all(w.n_readings >= 3 for w in reply.windows)
    assert sum(w.count for w in reply.windows) == sched.queries == len(sched.latencies)
    samples_ms = [ns / 1e6 for ns in sched.latencies]
    section, warnings = summarize(reply, samples_ms, 1, None)
    rows = section.windows
    assert [r.cpu_mhz for r in rows[:2]] == [2400.0, 2400.0] and [r.cpu_mhz for r in rows[3:]] == [1200.0] * 3
    assert section.onset_window == 2 and section.onset_s == 4.0
    assert section.onset_temp_c == rows[2].temp_c and 62.0 <= (section.onset_temp_c or 0) <= 68.0
    # the plateau from 6 s (a reading just after a window opens may still see the last tick's 67.9x °C)
    assert [r.temp_c for r in rows[3:]] == pytest.approx([68.0] * 3, abs=0.3)
    assert section.sustained_ratio == pytest.approx(0.5, abs=0.07)
    assert section.p50_ratio == pytest.approx(2.0, abs=0.25)
    assert section.steady_window == 3 and section.time_to_steady_s == 6.0
    assert section.steady_p50_ms == pytest.approx(20.0, abs=3.0) and section.steady_cpu_mhz == 1200.0
    assert "sustained_not_steady" not in [w.code for w in warnings]


def test_bad_sustained_inputs_are_one_line_errors_before_connecting(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.main import main

    db = str(tmp_path / "r.sqlite")
    base = ["deploy", "--device", "local", "--runtime", "null", "--model", "none", "--db", db]
    for extra, said in ((["--scenario", "sustained", "--duration", "10", "--window", "5"],
                         "--window 5 s leaves fewer than 3 windows in --duration 10 s — a shorter --window (at most 3.3s)"),
                        (["--duration", "10"], "--duration applies to --scenario sustained, not single-stream"),
                        (["--scenario", "fixed-rate", "--rate", "5", "--window", "2"],
                         "--window applies to --scenario sustained"),
                        (["--scenario", "sustained", "--window", "0.5", "--duration", "10"], "--window 0.5: must be >= 1")):
        assert main(base + extra) != 0
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
    sweep = tmp_path / "s.yaml"
    sweep.write_text("models: [ds_cnn]\ndevices: [local]\nscenarios: [single-stream, sustained]\n"
                     "settings: {duration_s: 10s, sustained_window_s: 5s}\n")
    assert main(["sweep", str(sweep), "--dry-run", "--db", db]) != 0
    err = capsys.readouterr().err
    assert "s.yaml:4 settings.sustained_window_s: sustained cell" in err and "fewer than 3 windows" in err, err


def test_the_run_deadline_knows_the_duration() -> None:
    """A 30-minute sustained run is not ended by --min-duration's settle time: the agent's progress reaches the
    phase's end only at the duration, and the measure phase's bound covers it."""
    from edgeprof.records import RunSpec
    from edgeprof.run.limits import QUERY_SILENCE_S, run_deadline
    from edgeprof_agent.messages import ProgressEvent

    spec = RunSpec(device="local", model="none", runtime="null", scenario="sustained", duration_s=1800.0)
    d = run_deadline(spec)
    assert d.phase_s["measure"] >= 1800.0 + QUERY_SILENCE_S and d.total_s > 1800.0
    assert d.min_duration_s == 1800.0 and "duration 1800 s" in d.why
    d.start(0.0)
    d.see(ProgressEvent(phase="measure", elapsed_s=0.0, total_s=1800.0, n=0), 0.0)
    d.see(ProgressEvent(phase="measure", elapsed_s=11.0, total_s=1800.0, n=5000), 11.0)  # past --min-duration
    assert d.due()[0] > 1800.0
    plain = run_deadline(RunSpec(device="local", model="none", runtime="null"))
    assert plain.min_duration_s == spec.min_duration_s == 10.0


def test_max_queries_does_not_end_a_sustained_run_s_deadline() -> None:
    """max_queries (200000 by default) does not bound a sustained run: its progress past 200000 queries at
    20 s of a 90 s run is not the phase's end, the deadline stays past 90 s, and the reply that packs every
    sample gets a tenth of the duration beyond a query's time, in the deadline and in the measure phase's
    silence; a single-stream run's deadline still ends at max_queries."""
    from edgeprof.records import RunSpec
    from edgeprof.run.limits import QUERY_SILENCE_S, phase_silences, run_deadline
    from edgeprof_agent.messages import ProgressEvent

    spec = RunSpec(device="local", model="none", runtime="null", scenario="sustained", duration_s=90.0,
                   sustained_window_s=10.0, max_queries=200_000)
    d = run_deadline(spec)
    assert d.max_queries is None and "max_queries" not in d.why and d.settle_s == QUERY_SILENCE_S + 9.0
    assert phase_silences(spec)["measure"] == QUERY_SILENCE_S + 9.0
    d.start(0.0)
    d.see(ProgressEvent(phase="measure", elapsed_s=0.0, total_s=90.0, n=0), 0.0)
    d.see(ProgressEvent(phase="measure", elapsed_s=20.0, total_s=90.0, n=240_000), 20.0)
    assert d.due()[0] > 90.0 + QUERY_SILENCE_S
    single = run_deadline(RunSpec(device="local", model="none", runtime="null", max_queries=1000))
    single.start(0.0)
    single.see(ProgressEvent(phase="measure", elapsed_s=0.0, total_s=10.0, n=0), 0.0)
    single.see(ProgressEvent(phase="measure", elapsed_s=1.0, total_s=10.0, n=1000), 1.0)
    assert single.due()[0] == 1.0 + QUERY_SILENCE_S


def test_the_duration_rules_a_sustained_run_not_a_query_count(tmp_path: Path) -> None:
    """A sustained run asked for 1.2 s in 0.4 s windows with max_queries 50 runs its whole duration (a query
    that does nothing: tens of thousands of queries), every window holds queries, and every latency is kept in
    an int64 array that crosses the wire packed and comes back exactly."""
    import array
    import types

    from edgeprof_agent import worker
    from edgeprof_agent.messages import RunReply, RunRequest, ScenarioReply

    req = RunRequest(runtime="null", max_queries=50,
                     scenario=ScenarioSpec(name="sustained", duration_s=1.2, sustained_window_s=0.4))
    backend = types.SimpleNamespace(run=lambda: None)
    starts: array.array[int] = array.array("q")
    samples, t_first, t_last, stopped_by, sc, _n = worker.run_scenario(req, [backend], starts,
                                                                       SysfsRoot(str(tmp_path)), None)
    assert isinstance(samples, array.array) and samples.typecode == "q" and isinstance(sc, ScenarioReply)
    assert stopped_by == "duration reached" and t_last - t_first >= 1.1 * S  # not 50 queries in
    assert len(samples) > 1000 and sc.queries == len(samples) == len(starts) == len(sc.issued_ns)
    sus = sc.sustained
    assert sus is not None and len(sus.windows) == 3 and all(w.count > 0 for w in sus.windows)
    assert sum(w.count for w in sus.windows) == len(samples)
    wire = sc.to_dict()
    assert set(wire["issued_ns"]) == {"dtype", "codec", "n", "b64"}
    back = ScenarioReply.from_dict(wire)
    assert back.issued_ns == list(sc.issued_ns) and back.scheduled_ns == []
    reply = RunReply.from_dict(dict(_REPLY, samples_ns=RunReply(**dict(_REPLY, samples_ns=samples)).to_dict()[
        "samples_ns"]))
    assert reply.samples_ns == samples.tolist()


_REPLY = {"clock": "monotonic", "samples_ns": [1], "t_first_ns": 0, "t_last_ns": 1, "window_s": 1.0,
          "stopped_by": "duration reached", "finished_at_unix": 0.0, "load_s": 0.1,
          "warmup": {"iterations": 0, "duration_s": 0.0, "steady": True, "reason": "none"},
          "memory": {"peak_source": "none"}, "runtime": {"runtime": "null"}}


@pytest.mark.parametrize("step_ns", [700, 900, 1100, 1300, 1700, 2300])
def test_no_query_starts_after_the_duration(tmp_path: Path, step_ns: int) -> None:
    """Back to back, the loop reads the clock at the top (is the duration over?) and again as the query starts:
    a query whose start falls past the duration is in no window, so it is not run. On a clock that moves step_ns
    per read, every query kept lies in a window and the windows' counts add up to the samples."""
    now = [10**9]

    def clock() -> int:
        now[0] += step_ns
        return now[0]

    sc = ScenarioSpec(name="sustained", duration_s=20e-6, sustained_window_s=5e-6)
    sched, reply = windows.sustained_loop(lambda: None, sc, SysfsRoot(str(tmp_path)), None, clock=clock,
                                          progress=False)
    assert len(reply.windows) == 4
    assert max(sched.issued) < 20_000 and sum(w.count for w in reply.windows) == len(sched.latencies) >= 3
