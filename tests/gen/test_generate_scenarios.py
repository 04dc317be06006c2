"""A generation's server and sustained scenarios on the real agent (a subprocess, tests/gen/test_generate_op.py's
Agent) with llama.cpp on the bundled tiny Llama (Q4_0, extra buffers off, one thread, 16 prompt + 8 generated
tokens), its sysfs root the Raspberry Pi 4 + INA219 tree (a thermal zone at 49.173 °C, an INA219 reading a fixed
3.2768 W), and each through `edgeprof deploy --device local`."""

from __future__ import annotations

import json

import pytest
from test_generate_op import WATTS, Agent
from test_generate_op import agent as op_agent  # noqa: F401 (the agent fixture)

from edgeprof.cli.main import main
from edgeprof.generative.reply import generation_of
from edgeprof_agent.messages import GenerateReply
from edgeprof_agent.scenarios import poisson_offsets

pytestmark = pytest.mark.gen
pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
PROMPT, GEN = 16, 8


def _generate(agent: Agent, path, **extra) -> GenerateReply:
    r = agent.call("generate", {"runtime": "llama.cpp", "artifact": {"path": str(path), "format": "gguf"},
                                "precision": "q4_0", "prompt_tokens": PROMPT, "gen_tokens": GEN, "threads": 1,
                                "extra_buffers": False, "seed": 3, "power": {"source": "hwmon", "rate_hz": 50.0},
                                "idle_s": 0.0, **extra})
    assert r["ok"], r
    return GenerateReply.from_dict(r["result"])


def test_server_far_above_capacity_queues_and_counts_it(request, tiny_gguf):
    agent = request.getfixturevalue("op_agent")
    # 5000 requests/s (a gap of 0.2 ms on average) against requests of several ms: each one waits for all before it
    reply = _generate(agent, tiny_gguf("q4_0"), scenario={"name": "server", "rate": 5000.0, "seed": 7},
                      min_duration_s=0.0, min_queries=12)
    sc, reps = reply.scenario, reply.repetitions
    assert sc is not None and sc.name == "server" and sc.seed == 7 and len(reps) == 12
    assert list(sc.scheduled_ns) == poisson_offsets(5000.0, 0.0, 12, None, 7)  # the forward-pass server's schedule
    due = [sc.t0_ns + int(o) for o in sc.scheduled_ns]
    assert all(r.t_prefill_start_ns >= d for r, d in zip(reps, due, strict=True))  # none before its arrival
    assert all(b.t_prefill_start_ns > a.t_end_ns for a, b in zip(reps, reps[1:], strict=False))  # one at a time
    ttft = [r.t_first_token_end_ns - d for r, d in zip(reps, due, strict=True)]
    assert all(b > a for a, b in zip(ttft, ttft[1:], strict=False))  # from the arrival: TTFT grows request by request
    assert all(len(r.token_ns) == GEN for r in reps)
    g = generation_of(reply, 1e6, 1e6)
    s = g.scenario
    assert s is not None and s.valid is True and s.ttft_p99_ms == pytest.approx(max(ttft) / 1e6)
    assert s.ttft_ms[-1] > s.ttft_ms[0] + (s.end_ms[0] - s.start_ms[0]) * 0.9  # the queue is in it
    bad = generation_of(reply, 0.001, 1e6).scenario
    assert bad is not None and bad.valid is False and "> --ttft-bound 0.001 ms" in (bad.valid_reason or "")
    bad = generation_of(reply, 1e6, 0.001).scenario
    assert bad is not None and bad.valid is False and "> --tpot-bound 0.001 ms" in (bad.valid_reason or "")
    # the power window is the schedule's duty cycle, on the same clock
    assert reply.power is not None and reply.power.t0_ns == sc.t0_ns


def test_sustained_windows_cover_the_duration_with_tokens_temperature_and_power(request, tiny_gguf):
    agent = request.getfixturevalue("op_agent")
    reply = _generate(agent, tiny_gguf("q4_0"), scenario={"name": "sustained", "duration_s": 3.0,
                                                           "sustained_window_s": 1.0})
    sc = reply.scenario
    assert sc is not None and sc.sustained is not None
    ws = sc.sustained.windows
    assert [(w.start_ns, w.end_ns) for w in ws] == [(0, 10**9), (10**9, 2 * 10**9), (2 * 10**9, 3 * 10**9)]
    reps = reply.repetitions
    assert sum(w.count for w in ws) == len(reps) > 3
    assert sum(t.count for t in reply.token_windows) == sum(len(r.token_ns) for r in reps) == len(reps) * GEN
    assert reps[-1].t_prefill_start_ns - sc.t0_ns < 3 * 10**9  # no request starts after the duration
    for w in ws:  # the board tree's thermal zone and its INA219, read inside each window
        assert w.n_readings >= 1 and w.temp_c == pytest.approx(49.173)
        assert w.mean_w == pytest.approx(WATTS)
    windows = [e for e in agent.events if e.get("window")]
    assert [e["window"] for e in windows] == [1, 2, 3] and windows[0]["temp_c"] == pytest.approx(49.173)
    g = generation_of(reply)
    s = g.scenario
    assert s is not None and [w.tokens for w in s.windows] == [t.count for t in reply.token_windows]
    assert all(w.decode_tps and w.decode_tps > 0 and w.ttft_p50_ms for w in s.windows)


def test_deploy_server_prints_and_stores_the_verdict(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    code = main(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp", "--precision",
                 "q4_0", "--prompt-tokens", str(PROMPT), "--gen-tokens", str(GEN), "--threads", "1", "--idle", "0",
                 "--scenario", "server", "--rate", "20", "--min-queries", "10", "--min-duration", "0",
                 "--ttft-bound", "100000", "--tpot-bound", "100000", "--db", db, "--json", "-", "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    r = json.loads(cap.out)
    sc = r["generation"]["scenario"]
    assert (sc["name"], sc["rate_rps"], sc["requests"], sc["valid"]) == ("server", 20.0, 10, True)
    assert len(sc["scheduled_ms"]) == len(sc["ttft_ms"]) == 10
    assert (r["scenario"]["name"], r["scenario"]["rate_qps"], r["scenario"]["valid"]) == ("server", 20.0, True)
    assert r["settings"]["ttft_bound_ms"] == 100000.0
    assert main(["results", "show", r["run_id"], "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "server at 20 requests/s" in shown and "VALID: p99 TTFT" in shown


def test_deploy_sustained_prints_the_window_table(tmp_path, capsys):
    code = main(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp", "--precision",
                 "q4_0", "--prompt-tokens", str(PROMPT), "--gen-tokens", str(GEN), "--threads", "1", "--idle", "0",
                 "--scenario", "sustained", "--duration", "3", "--window", "1", "--no-store", "--json",
                 str(tmp_path / "r.json")])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    r = json.loads((tmp_path / "r.json").read_text())
    g = r["generation"]
    ws = g["scenario"]["windows"]
    assert [w["index"] for w in ws] == [0, 1, 2] and r["scenario"]["name"] == "sustained"
    assert sum(w["tokens"] for w in ws) == sum(len(t) for t in g["token_ns"])
    assert "sustained for 3.00 s in 1.00 s windows" in cap.out and "decode t/s" in cap.out
    # what the windows say, by the forward pass's rules: an onset (or none) and a steady state (or not reached),
    # or that too few windows hold a decode step (this machine's clocks decide which)
    assert "throttling onset" in cap.out and ("steady state" in cap.out or "fewer than the 3 windows" in cap.out)
