"""A generation's load scenarios on the host (edgeprof/generative/scenario.py, session/generation.py): LoadGen's
percentile, the server verdict against --ttft-bound / --tpot-bound (MLPerf LoadGen results.cc PerfConstraintsMet
with use_token_latencies), TTFT and latency counted from the scheduled arrival, a sustained run's windows, the
section's round trip, and the one-line refusals before anything connects."""

from __future__ import annotations

import json

import pytest

from edgeprof.cli.main import main
from edgeprof.generative.records import Generation, GenScenario
from edgeprof.generative.scenario import (
    judge,
    loadgen_percentile,
    scenario_of,
    server_requests,
    sustained_windows,
)
from edgeprof_agent.messages import (
    GenRepetition,
    GenTokenWindow,
    ScenarioReply,
    SustainedReply,
    SustainedWindow,
)


def rep(start: int, prefill: int, tokens: list[int]) -> GenRepetition:
    """A request starting at `start` (ns): its prefill, then its tokens back to back (stamps as the loop takes)."""
    first_end = start + prefill + tokens[0]
    return GenRepetition(prefill_ns=prefill, token_ns=tokens, t_prefill_start_ns=start,
                         t_prefill_end_ns=start + prefill, t_first_token_end_ns=first_end,
                         t_end_ns=start + prefill + sum(tokens), tokens=[5] * len(tokens))


def test_loadgen_percentile_is_the_sorted_element_at_floor_n_p():
    assert loadgen_percentile(list(range(1, 101)), 0.99) == 100  # index 99: no interpolation
    assert loadgen_percentile(list(range(1, 201)), 0.99) == 199  # index 198
    assert loadgen_percentile([3.0, 1.0, 2.0], 0.99) == 3.0  # n < 100: the largest
    assert loadgen_percentile([7.0, 1.0, 2.0, 4.0], 0.5) == 4.0  # index 2 of [1, 2, 4, 7]
    assert loadgen_percentile([], 0.99) is None


@pytest.mark.parametrize("ttft, tpot, tb, pb, valid, words", [
    (10.0, 1.0, 20.0, 2.0, True, "p99 TTFT 10.000 ms <= --ttft-bound 20 ms; p99 TPOT 1.000 ms <= --tpot-bound 2 ms"),
    (10.0, 1.0, 0.001, 2.0, False, "p99 TTFT 10.000 ms > --ttft-bound 0.001 ms"),
    (10.0, 1.0, 20.0, 0.001, False, "p99 TPOT 1.000 ms > --tpot-bound 0.001 ms"),
    (10.0, 1.0, 10.0, 1.0, True, "<= --ttft-bound 10 ms"),  # within: <= (LoadGen fails only on >)
    (10.0, 1.0, None, None, None, "no verdict: give --ttft-bound and --tpot-bound"),
    (10.0, 1.0, 20.0, None, True, "TPOT not judged (no --tpot-bound)"),
    (10.0, None, 20.0, 2.0, None, "no verdict: no TPOT was measured"),
])
def test_the_verdict_is_both_p99s_within_their_bounds(ttft, tpot, tb, pb, valid, words):
    v, reason = judge(ttft, tpot, tb, pb)
    assert v is valid and words in reason


def test_server_figures_count_from_the_scheduled_arrival():
    t0 = 1_000_000
    # arrivals at 0 and 1 ms; the first request takes 3 ms, so the second waits 2 ms before it starts
    reps = [rep(t0, 1_000_000, [500_000, 500_000, 500_000, 500_000]),
            rep(t0 + 3_000_000, 1_000_000, [500_000, 500_000, 500_000, 500_000])]
    f = server_requests(t0, [0, 1_000_000], reps)
    assert f["scheduled_ms"] == [0.0, 1.0] and f["start_ms"] == [0.0, 3.0]
    assert f["ttft_ms"] == [1.5, 3.5]  # the second: 2 ms queued + 1.5 ms
    assert f["latency_ms"] == [3.0, 5.0]
    assert f["tpot_ms"] == [0.5, 0.5]  # (latency - TTFT) / (tokens - 1): queueing does not enter it
    with pytest.raises(ValueError, match="2 requests for 1 arrivals"):
        server_requests(t0, [0], reps)


def _server_reply(rate: float = 100.0):
    from edgeprof_agent.messages import GenerateReply

    t0 = 5_000
    reps = [rep(t0 + i * 2_000_000, 1_000_000, [200_000] * 3) for i in range(5)]
    sc = ScenarioReply(name="server", rate=rate, queries=5, samples=5, t0_ns=t0,
                       scheduled_ns=[i * 1_000_000 for i in range(5)],
                       issued_ns=[i * 2_000_000 for i in range(5)], mode="m", seed=0)
    return GenerateReply.from_dict({
        "clock": "c", "runtime": {"runtime": "llama.cpp"}, "prompt_tokens": 4, "gen_tokens": 3, "depth": 0,
        "n_ctx": 7, "seed": 0, "sampling": "s", "ids": "i", "repetitions": [r.to_dict() for r in reps],
        "load_ns": 1, "memory": {}, "kv_cache": {"bytes": 1, "per_token_bytes": 1, "n_ctx": 7,
                                                 "bytes_per_element": 2, "layers": 1, "kv_heads": 1,
                                                 "head_dim": 1, "how": "h"},
        "finished_at_unix": 1.0, "scenario": sc.to_dict()})


def test_the_server_section_has_the_p99s_verdict_and_raw_times_and_round_trips():
    from edgeprof.generative.reply import generation_of

    reply = _server_reply()
    sc = scenario_of(reply, 100.0, 1.0)
    assert sc is not None and sc.requests == 5
    # request i arrives at i ms, starts at 2i ms: TTFT = i ms queued + 1.2 ms
    assert sc.ttft_ms == pytest.approx([1.2, 2.2, 3.2, 4.2, 5.2]) and sc.ttft_p99_ms == pytest.approx(5.2)
    assert sc.tpot_p99_ms == pytest.approx(0.2) and sc.valid is True
    bad = scenario_of(reply, 0.001, 1.0)
    assert bad is not None and bad.valid is False and "--ttft-bound 0.001 ms" in (bad.valid_reason or "")
    g = generation_of(reply, 100.0, 1.0)
    again = Generation.from_dict(json.loads(json.dumps(g.to_dict())))
    assert again == g and isinstance(again.scenario, GenScenario)


def test_a_single_stream_section_is_written_as_before_and_loads():
    reply = _server_reply()
    reply.scenario = None
    from edgeprof.generative.reply import generation_of

    g = generation_of(reply)
    assert g.scenario is None and "scenario" not in g.to_dict()  # older readers' shape
    assert Generation.from_dict(g.to_dict()).scenario is None


def test_sustained_windows_hold_every_token_and_rate_the_decode_steps():
    reps = [rep(0, 100, [10, 20, 20]), rep(200, 100, [10, 40, 40]), rep(400, 100, [10, 50, 50])]
    windows = [SustainedWindow(index=k, start_ns=k * 300, end_ns=(k + 1) * 300, first=f, count=c, n_readings=1,
                               temp_c=t, cpu_mhz=1800.0) for k, (f, c, t) in enumerate([(0, 2, 50.0), (2, 1, 61.5)])]
    # tokens in order: [10 20 20 | 10 40 40 | 10 50 50]; window 0 holds the first 5, window 1 the last 4
    tw = [GenTokenWindow(first=0, count=5), GenTokenWindow(first=5, count=4)]
    w0, w1 = sustained_windows(windows, tw, reps)
    assert (w0.tokens, w0.decode_tokens, w1.tokens, w1.decode_tokens) == (5, 3, 4, 3)
    assert w0.decode_tps == pytest.approx(3 * 1e9 / (20 + 20 + 40))  # the request's first token is no decode step
    assert w1.decode_tps == pytest.approx(3 * 1e9 / (40 + 50 + 50))
    assert w0.tokens + w1.tokens == sum(len(r.token_ns) for r in reps)
    assert w0.ttft_p50_ms == pytest.approx(110 / 1e6) and w1.requests == 1
    assert (w0.temp_c, w1.temp_c, w1.cpu_mhz) == (50.0, 61.5, 1800.0)
    with pytest.raises(ValueError, match="1 token ranges for 2 windows"):
        sustained_windows(windows, tw[:1], reps)
    su = SustainedReply(duration_s=0.6, window_s=0.3, read_period_s=0.1, windows=windows)
    assert su.windows[1].first == 2


BASE = ["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp", "--no-store"]


@pytest.mark.parametrize("extra, words", [
    (["--ttft-bound", "50"], "--ttft-bound: for a generative model's server scenario, not single-stream"),
    (["--scenario", "sustained", "--tpot-bound", "5"], "--tpot-bound: for a generative model's server scenario"),
    (["--scenario", "server"], "--scenario server needs --rate R"),
    (["--scenario", "offline"], "--scenario offline: a generative model runs single-stream, server, sustained"),
    (["--scenario", "server", "--rate", "1", "--repetitions", "3"], "--repetitions: for a generative model's "
                                                                       "single-stream scenario, not server"),
    (["--scenario", "server", "--rate", "1", "--duration", "60"], "--duration: for a generative model's sustained"),
    (["--scenario", "sustained", "--rate", "1"], "--rate: for a generative model's server scenario, not sustained"),
    (["--scenario", "sustained", "--duration", "10", "--window", "5"], "leaves fewer than 3 windows"),
    (["--scenario", "server", "--rate", "1", "--depth", "4000"], "--depth 4000 + 512 prompt + 128 generated = 4640 "
                                                                   "tokens is past the context of llama_tiny"),
    (["--scenario", "sustained", "--depth", "4000"], "is past the context of llama_tiny (4096 tokens)"),
    (["--scenario", "server", "--rate", "1", "--latency-bound", "50"], "--latency-bound: applies to a forward pass"),
    (["--min-queries", "5"], "--min-queries: for a generative model's server scenario, not single-stream"),
])
def test_bad_scenario_flags_are_one_line_errors_before_connecting(extra, words, capsys):
    assert main(BASE + extra) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_bound_on_a_forward_pass_model_is_refused(capsys):
    assert main(["deploy", "--device", "local", "--model", "mobilenet_v2", "--tpot-bound", "5", "--no-store"]) == 2
    assert "--tpot-bound: for generative models only" in capsys.readouterr().err


def test_the_scenario_p99s_are_metrics_for_budgets_and_check():
    import dataclasses
    from pathlib import Path

    from edgeprof.analysis.compare import absent_reason, metric_values
    from edgeprof.generative.reply import generation_of
    from edgeprof.records import Result
    from edgeprof.session.generation import scenario_section

    golden = Path(__file__).resolve().parents[1] / "data" / "golden" / "results" / "v10" / "ok_local_generation.json"
    single = Result.from_dict(json.loads(golden.read_text()))
    assert metric_values(single)["ttft_p99_ms"] is None
    assert "single-stream generation" in (absent_reason(single, "ttft_p99_ms") or "")
    g = generation_of(_server_reply(), 100.0, 1.0)
    server = dataclasses.replace(single, generation=g, scenario=scenario_section(g))
    v = metric_values(server)
    assert v["ttft_p99_ms"] == pytest.approx(5.2) and v["tpot_p99_ms"] == pytest.approx(0.2) and v["valid"] == 1
    assert server.identity.scenario == "server 100/s"  # compared with server runs at that rate only
    deep = dataclasses.replace(server, generation=dataclasses.replace(g, depth=512))
    assert deep.identity.scenario == "server 100/s @ d512"  # at a depth: another configuration
    assert deep.identity.key() != server.identity.key()
    stored = json.loads(server.to_json(packed=True))
    packed = stored["generation"]["token_ns"]  # every token time, one packed list (a long sustained run's millions)
    assert packed["encoding"] == "int64-shuffle8-zlib-ragged" and packed["lengths"] == [3] * 5
    again = Result.from_dict(stored)
    assert again == server and again.generation is not None and again.generation.token_ns == g.token_ns
    from edgeprof.report.tabular import generation_markdown

    md = "\n".join(generation_markdown([server]))  # the Markdown report names the run and gives its verdict
    assert "server 100/s**" in md and "VALID: p99 TTFT 5.200 ms <= --ttft-bound 100 ms" in md
    assert json.loads(server.to_json())["generation"]["token_ns"] == g.token_ns  # --json: numbers
    packed["lengths"] = [3] * 4
    from edgeprof.errors import StoreError

    with pytest.raises(StoreError, match="holds 15 times for 12 tokens"):
        Result.from_dict(stored)
    assert "token_ns" in json.loads(single.to_json(packed=True))["generation"]
    assert isinstance(json.loads(single.to_json(packed=True))["generation"]["token_ns"], list)  # as schema 10 wrote


def test_a_bound_reaching_a_forward_pass_spec_is_refused():
    from edgeprof.errors import ConfigError
    from edgeprof.records import RunSpec
    from edgeprof.run.validate import validate_scenario

    spec = RunSpec(device="local", model="mobilenet_v2", runtime="onnxruntime", precision="fp32", ttft_bound_ms=50.0)
    with pytest.raises(ConfigError, match="--ttft-bound 50: judges a generative model's server run"):
        validate_scenario(spec)


def test_a_board_throttling_during_a_long_answer_shows_in_the_windows(tmp_path):
    """One long answer on a Pi 5 tree that steps its clock from 2.4 to 1.2 GHz at 1 s (tests/agent/fakes/heating.py),
    each decode step sleeping 1 ms × 2.4 GHz / the clock it reads: 3 s in 1 s windows, the first at full clock, the
    last two after the step. The windows' decode tokens/s halve and their CPU MHz say why, inside one request."""
    import sys
    import time
    from pathlib import Path

    from edgeprof.generative.scenario import sustained_curve, sustained_windows
    from edgeprof_agent.generation import base, loop
    from edgeprof_agent.messages import GenRepetition, GenTokenWindow, ScenarioSpec
    from edgeprof_agent.sysfs import SysfsRoot

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent" / "fakes"))
    from heating import HeatingBoard

    board = HeatingBoard(tmp_path / "rpi5", trip_s=1.0)
    freq = board.freqs[0]

    class ClockBound(base.GenerationBackend):
        name = "clock-bound"
        vocab_size = 50

        def start(self):
            pass

        def append(self, ids):
            pass

        def next_token(self):
            time.sleep(0.001 * 2400000 / int(freq.read_text()))
            return 7

    sc = ScenarioSpec(name="sustained", duration_s=3.0, sustained_window_s=1.0)
    board.start()
    try:
        out = loop.measure_scenario(ClockBound(), 4, 1800, sc, warmup=False, root=SysfsRoot(str(board.dir)))
    finally:
        board.stop()
    reps = [GenRepetition(**r) for r in out["repetitions"]]
    t0 = out["schedule"].t0
    assert reps[0].t_end_ns - t0 > 2e9  # one answer runs into every window
    w = sustained_windows(out["sustained"].windows, [GenTokenWindow(**t) for t in out["token_windows"]], reps)
    assert w[0].cpu_mhz == 2400.0 and w[2].cpu_mhz == 1200.0
    assert w[0].decode_tps and w[2].decode_tps and w[2].decode_tps < 0.7 * w[0].decode_tps
    assert sum(x.tokens for x in w) == sum(len(r.token_ns) for r in reps)
    # the forward pass's onset rule on these windows: the first whose clock read more than 5 % below window 0's
    cv = sustained_curve(GenScenario(name="sustained", requests=len(reps), windows=w))
    slow = next(x.index for x in w if x.cpu_mhz is not None and x.cpu_mhz < 0.95 * (w[0].cpu_mhz or 0))
    assert cv is not None and cv.shape is not None and cv.shape.onset is not None
    assert cv.shape.onset.index == slow <= 2 and cv.shape.onset_reason is not None and "CPU clock" in cv.shape.onset_reason
