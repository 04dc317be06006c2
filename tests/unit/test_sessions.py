"""deploy --sessions N: the model timed in N fresh runtime sessions (the agent's sessions.py, the host's
evaluation/sessions.py, records/sessions.py). End to end on the local device with real onnxruntime; the verdict
(do the sessions differ past their own spread?) on the agent's own records with latencies laid out as a 2-core
VM gave them (GWSkyNet at 2 threads: 1.2 ms in one session, 7 ms in the next)."""

import json

import numpy as np
import pytest
import sqlalchemy as sa

from edgeprof import session as seam
from edgeprof.cli.main import main
from edgeprof.evaluation.sessions import CODE, DIFFER, sessions_line, summarize
from edgeprof.records import Device, Result, RunSpec
from edgeprof.records.phases import Phases
from edgeprof.records.samples import Samples
from edgeprof.run.limits import phase_silences, run_deadline
from edgeprof.store import Store
from edgeprof.store.schema import runs
from edgeprof_agent import sessions as agent_sessions
from edgeprof_agent.messages import PACKED_INT64, RunRequest, ScenarioSpec, SessionRun, Warmup
from edgeprof_agent.protocol import OpError


def _session(index, ms, seed=0):
    rng = np.random.default_rng(seed)
    ns = [int(v * 1e6) for v in ms * (1 + 0.01 * rng.standard_normal(400))]
    return SessionRun(index=index, load_s=0.01, warmup=Warmup(iterations=20, duration_s=0.1, steady=True,
                                                              reason="latency steady"),
                      samples_ns=ns, t_first_ns=0, t_last_ns=sum(ns), stopped_by="min_duration and min_queries met")


def _first(ms, seed=9):
    rng = np.random.default_rng(seed)
    return Samples(ms * (1 + 0.01 * rng.standard_normal(400))), {"load_s": 0.02, "window_s": 0.5}


def test_sessions_at_two_speeds_differ_and_the_warning_names_every_p50():
    first, about = _first(6.95)
    s, warnings = summarize(first, about, [_session(2, 1.21), _session(3, 1.19, seed=1)], "onnxruntime", 2)
    assert s.n == 3 and s.differ and s.spread == pytest.approx(6.95 / 1.19, rel=0.02)
    assert s.fastest_p50_ms == pytest.approx(1.19, rel=0.01) and s.median_p50_ms == pytest.approx(1.21, rel=0.01)
    assert [r.index for r in s.runs] == [1, 2, 3] and s.runs[0].samples_ms is None  # the result's own samples
    assert len(s.runs[1].samples_ms) == 400 and s.runs[1].p50_ms == pytest.approx(np.median(s.runs[1].samples_ms))
    (w,) = warnings
    assert w.code == CODE and "3 sessions" in w.message and "onnxruntime with 2 intra-op threads" in w.message
    assert "p50 " + ", ".join(f"{p:.4g}" for p in s.p50_ms) + " ms" in w.message
    assert "they differ past their own spread" in sessions_line(s)


def test_alike_sessions_and_a_gap_inside_the_sessions_own_spread_give_no_warning():
    first, about = _first(2.0)
    s, warnings = summarize(first, about, [_session(2, 2.02), _session(3, 1.99, seed=2)], "onnxruntime", 2)
    assert not s.differ and not warnings and s.spread < DIFFER
    # 12 % apart, but each session's queries spread over ×3: their medians' intervals overlap
    rng = np.random.default_rng(3)
    wide = Samples(1.0 + 2.0 * rng.random(41))
    other = SessionRun(index=2, load_s=0.01, warmup=Warmup(iterations=0, duration_s=0.0, steady=False,
                                                           reason="warm-up disabled"),
                       samples_ns=[int(v * 1.12e6) for v in 1.0 + 2.0 * rng.random(41)], t_first_ns=0,
                       t_last_ns=1, stopped_by="min_duration and min_queries met")
    s, warnings = summarize(wide, {}, [other], "tflite", 1)
    assert not s.differ and not warnings


def test_a_threads_hint_only_for_onnxruntime_with_more_than_one_thread():
    first, about = _first(5.0)
    _, (w,) = summarize(first, about, [_session(2, 1.0)], "tflite", 4)
    assert "intra-op" not in w.message


def test_deploy_times_every_session_and_the_store_keeps_their_samples(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    out = tmp_path / "r.json"
    assert main(["deploy", "--device", "local", "--model", "ds_cnn", "--threads", "2", "--sessions", "3",
                 "--min-duration", "0.2", "--min-queries", "30", "--warmup", "0.1", "--idle", "0", "--db", db,
                 "--json", str(out), "--quiet"]) == 0
    d = json.loads(out.read_text())
    s = d["sessions"]
    assert s["n"] == 3 and len(s["runs"]) == 3 and d["settings"]["sessions"] == 3
    assert s["runs"][0]["samples_ms"] is None and s["runs"][0]["p50_ms"] == pytest.approx(d["latency_ms"]["p50"])
    for run in s["runs"][1:]:  # every query of the more sessions, each session loaded afresh
        assert run["n"] == len(run["samples_ms"]) >= 30 and run["load_s"] > 0 and run["window_s"] >= 0.2
        assert run["p50_ms"] == pytest.approx(float(np.percentile(run["samples_ms"], 50)))
    assert s["p50_ms"] == [r["p50_ms"] for r in s["runs"]] and s["fastest_p50_ms"] == min(s["p50_ms"])
    assert d["phases"]["sessions_s"] > 0.4
    # every session's samples on one line of the export, as samples_ms (a long run's would be a line a number)
    lines = [line for line in out.read_text().splitlines() if '"samples_ms": [' in line]
    assert len(lines) == 3 and all(line.rstrip(",").endswith("]") for line in lines)
    r = Result.from_dict(d)
    store = Store(db)
    stored = store.get(r.run_id)
    with store.engine.connect() as conn:
        raw = conn.execute(sa.select(runs.c.result_json).where(runs.c.run_id == r.run_id)).scalar_one()
    assert stored.sessions is not None and list(stored.sessions.runs[2].samples_ms) == s["runs"][2]["samples_ms"]
    assert stored.sessions == r.sessions
    packed = json.loads(raw)["sessions"]["runs"][1]["samples_ms"]  # the store packs them as it packs samples_ms
    assert set(packed) == {"encoding", "per_ms", "n", "b64"}
    capsys.readouterr()
    assert main(["results", "show", r.run_id, "--db", db]) == 0
    assert "sessions: 3 fresh runtime sessions" in capsys.readouterr().out


def test_a_run_of_one_session_writes_no_sessions_key(tmp_path):
    r = seam.deploy(RunSpec(device="bench-1", model="none", runtime="null", min_duration_s=0.05, min_queries=20,
                            warmup_s=0.0, idle_s=0.0),
                    Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd")))
    d = r.to_dict()
    assert r.sessions is None and "sessions" not in d and "sessions_s" not in d["phases"]
    assert d["settings"]["sessions"] is None  # the default, not stored


@pytest.mark.parametrize("argv, message", [
    (["--sessions", "0"], "--sessions 0: must be >= 1"),
    (["--sessions", "51"], "--sessions 51: must be <= 50"),
    (["--sessions", "2", "--scenario", "offline", "--streams", "2"],
     "--sessions 2: more sessions time the single-stream loop only, not --scenario offline"),
])
def test_bad_sessions_are_one_line_errors_before_anything_runs(argv, message, capsys):
    assert main(["deploy", "--device", "local", "--model", "ds_cnn", *argv]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_agent_refuses_what_the_host_refuses():
    def req(**kw):
        return RunRequest(runtime="null", **kw)

    agent_sessions.check(req(sessions=3))
    for bad, text in ((req(sessions=0), "sessions must be 1 to 50"), (req(sessions=51), "sessions must be 1 to 50"),
                      (req(sessions=2, scenario=ScenarioSpec(name="server", rate=10.0)), "not scenario server")):
        with pytest.raises(OpError, match=text):
            agent_sessions.check(bad)


def test_the_deadline_and_the_silences_make_room_for_every_session():
    one = RunSpec(device="d", model="m", runtime="onnxruntime", min_duration_s=2.0, warmup_s=1.0)
    three = RunSpec(device="d", model="m", runtime="onnxruntime", min_duration_s=2.0, warmup_s=1.0, sessions=3)
    assert "session" not in run_deadline(one).phase_s
    assert run_deadline(three).total_s - run_deadline(one).total_s == pytest.approx(
        run_deadline(three).phase_s["session"]) and run_deadline(three).phase_s["session"] > 2 * (1.0 + 2.0)
    assert phase_silences(three)["session"] > 2.0 + 1.0


def test_phases_count_the_sessions_on_the_device_and_write_them_only_when_made():
    p = Phases(load_s=0.1, warmup_s=0.2, measure_s=1.0, window_s=1.0, device_s=3.4, run_s=3.5, sessions_s=2.0,
               total_s=3.6)
    parts = dict(p.parts())
    assert parts["sessions"] == 2.0 and parts["reply"] == pytest.approx(0.1)
    assert sum(parts.values()) == pytest.approx(3.6)
    assert "sessions_s" not in Phases(load_s=0.1).to_dict() and Phases.from_dict(p.to_dict()) == p


def test_packed_session_samples_round_trip_exactly():
    first, about = _first(1.0)
    s, _ = summarize(first, about, [_session(2, 1.5)], "onnxruntime", 1)
    stored = s.stored()
    assert set(stored["runs"][1]["samples_ms"]) == {"encoding", "per_ms", "n", "b64"}
    back = type(s).from_dict(json.loads(json.dumps(stored)))
    assert list(back.runs[1].samples_ms) == list(s.runs[1].samples_ms) and back == s
    assert PACKED_INT64  # the agent's packing is the wire's; the store's is Samples.packed
