"""agents/edgeprof_agent/generation/loop.py measure_scenario: a generation's server and sustained scenarios against
the scripted backend of tests/agent/test_generation_loop.py (each prompt token 10 ns, each decode step 100 ns on a
scripted clock, or free on the real one), so the schedule, the queueing and the windows are checked exactly; the
real runtimes run them in tests/gen/test_generate_scenarios.py."""

import shutil
from pathlib import Path

import pytest
from test_generation_loop import Clock, Scripted

from edgeprof_agent.generation import loop
from edgeprof_agent.messages import ScenarioSpec
from edgeprof_agent.protocol import OpError
from edgeprof_agent.scenarios import poisson_offsets
from edgeprof_agent.sysfs import SysfsRoot


class _Yielding(Scripted):
    """Scripted, giving up the GIL at each token as a real runtime's call does: a loop of 30 000 zero-cost requests
    a window otherwise holds it so long on a slow 2-core host that the thermal sampler's thread reads nothing in a
    0.4 s window (seen in round 17, with or without a parallel suite)."""

    def next_token(self):
        import time

        time.sleep(0)
        return super().next_token()

BOARDS = Path(__file__).resolve().parents[1] / "data" / "boards"


def test_server_issues_requests_in_arrival_order_and_the_queue_grows_above_capacity():
    clock = Clock()
    be = Scripted(clock)
    sc = ScenarioSpec(name="server", rate=1e8, seed=5)  # an arrival every ~10 ns; a request takes ~1 µs
    out = loop.measure_scenario(be, 32, 8, sc, seed=1, min_duration_s=0.0, min_queries=20, clock=clock)
    s, reps = out["schedule"], out["repetitions"]
    assert list(s.scheduled) == poisson_offsets(1e8, 0.0, 20, None, 5)  # the forward-pass server's schedule
    assert len(reps) == 20 and len(s.issued) == 20
    ttft = [r["t_first_token_end_ns"] - (s.t0 + off) for r, off in zip(reps, s.scheduled, strict=True)]
    assert all(b > a for a, b in zip(ttft, ttft[1:], strict=False))  # from the scheduled arrival: each waits longer
    assert all(r["t_prefill_start_ns"] >= s.t0 + off for r, off in zip(reps, s.scheduled, strict=True))  # never before arrival
    starts = [r["t_prefill_start_ns"] for r in reps]
    ends = [r["t_end_ns"] for r in reps]
    assert all(b > a for a, b in zip(ends, starts[1:], strict=False))  # one at a time, in order
    assert all(len(r["token_ns"]) == 8 for r in reps) and out["sustained"] is None


def test_server_below_capacity_starts_each_request_at_its_arrival():
    clock = Clock()
    be = Scripted(clock)
    sc = ScenarioSpec(name="server", rate=2e5, seed=0)  # every ~5 µs on average; a request takes ~1 µs
    out = loop.measure_scenario(be, 32, 8, sc, min_queries=30, clock=clock)
    s = out["schedule"]
    late = [r["t_prefill_start_ns"] - (s.t0 + off) for r, off in zip(out["repetitions"], s.scheduled, strict=True)]
    assert min(late) >= 0
    # most requests find the board free: started within the few clock reads the issue takes
    assert sorted(late)[len(late) // 2] < 50


@pytest.mark.alone  # on the real clock: a 0.4 s stall beside a parallel suite's workers can leave a window without a token
def test_sustained_windows_cover_the_duration_and_hold_every_token(tmp_path):
    board = tmp_path / "rpi5"
    shutil.copytree(BOARDS / "rpi5", board, symlinks=True)
    be = _Yielding(Clock(), per_token_ns=0, per_prompt_token_ns=0)
    sc = ScenarioSpec(name="sustained", duration_s=1.2, sustained_window_s=0.4)
    out = loop.measure_scenario(be, 8, 4, sc, root=SysfsRoot(str(board)), tools=None)  # the real clock
    su, tw, reps = out["sustained"], out["token_windows"], out["repetitions"]
    assert [(w.start_ns, w.end_ns) for w in su.windows] == [(0, 400000000), (400000000, 800000000),
                                                            (800000000, 1200000000)]
    assert sum(w.count for w in su.windows) == len(reps) > 0  # every request in the window it started in
    assert [t["first"] for t in tw] == [0, tw[0]["count"], tw[0]["count"] + tw[1]["count"]]
    assert sum(t["count"] for t in tw) == sum(len(r["token_ns"]) for r in reps)  # every token in a window
    assert all(t["count"] > 0 for t in tw)
    for w in su.windows:  # the board's thermal zones read during each window
        assert w.n_readings >= 1 and w.temp_c is not None


def test_server_at_a_depth_fills_each_request_s_context_ahead_of_it_untimed():
    clock = Clock()
    be = Scripted(clock)
    sc = ScenarioSpec(name="server", rate=1e3, seed=2)  # an arrival every ~1 ms; a request and a fill take ~2 µs
    out = loop.measure_scenario(be, 32, 8, sc, min_duration_s=0.0, min_queries=6, clock=clock, depth=64)
    s, reps = out["schedule"], out["repetitions"]
    assert len(reps) == 6 and loop.check_scenario(sc, 64) is None  # depth is no longer refused
    # after the warm-up: a fresh sequence filled with 64 tokens before each request's prompt, the next one's filled
    # right after it (so the last fill follows the last request)
    calls = be.calls[be.calls.index(("start",), 1):]
    request = [("start",), ("append", 64), ("append", 32)] + [("next",)] * 8
    assert calls == request * 6 + [("start",), ("append", 64)]
    assert all(r["depth_fill_ns"] == 64 * 10 + 1 for r in reps)  # the fill's time, kept apart from the prefill
    assert all(r["prefill_ns"] == 32 * 10 + 1 for r in reps)
    # below capacity every request starts at its arrival: its context was ready before it came, not in its TTFT
    late = [r["t_prefill_start_ns"] - (s.t0 + off) for r, off in zip(reps, s.scheduled, strict=True)]
    assert min(late) >= 0 and max(late) < 50


def test_a_single_stream_repetition_still_fills_its_depth_first():
    clock = Clock()
    be = Scripted(clock)
    out = loop.measure(be, 16, 4, depth=40, repetitions=2, warmup=False, clock=clock)
    assert be.calls == ([("start",), ("append", 40), ("append", 16)] + [("next",)] * 4) * 2
    assert [r["depth_fill_ns"] for r in out["repetitions"]] == [40 * 10 + 1] * 2


@pytest.mark.parametrize("sc, depth, words", [
    (ScenarioSpec(name="offline"), 0, "not supported"),
    (ScenarioSpec(name="server"), 0, "needs a rate"),
    (ScenarioSpec(name="sustained", rate=3.0), 0, "at a rate is not supported yet"),
])
def test_a_scenario_a_generation_cannot_run_is_refused(sc, depth, words):
    with pytest.raises(OpError) as e:
        loop.check_scenario(sc, depth)
    assert words in str(e.value)


def test_token_windows_place_tokens_by_their_end_and_keep_the_overrun_in_the_last():
    ends = [100, 150, 199, 200, 250, 420, 999]
    assert loop.token_windows(100, 100, 3, ends) == [{"first": 0, "count": 3}, {"first": 3, "count": 2},
                                                     {"first": 5, "count": 2}]
