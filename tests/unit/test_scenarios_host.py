"""Load scenarios on the host: the verdict (VALID / INVALID with LoadGen's early stopping), the scenario summary
(energy per frame at the duty cycle, battery hours, lateness), identity and metrics, budgets, the --find-max-rate
search, the sweep axes, the deploy flags' one-line errors, and a real local deploy of each scenario (null
runtime with a known service time)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from edgeprof.analysis.compare import metric_values
from edgeprof.analysis.maxrate import find_max_rate
from edgeprof.analysis.regress import parse_budget
from edgeprof.analysis.stats import judge_latency, min_queries_for, scenario_summary
from edgeprof.cli.main import main
from edgeprof.errors import ConfigError
from edgeprof.lab.spec import expand, parse_sweep
from edgeprof.records import Device, Result, RunSpec, Scenario
from edgeprof.run import validate_spec

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"


def test_server_validity_follows_loadgen_early_stopping():
    assert min_queries_for(0.99) == 662
    fast = [10.0] * 700
    ok, why, est = judge_latency("server", fast, 50.0)
    assert ok is True and est == 10.0 and "<= --latency-bound 50 ms" in why
    # 8 slow queries of 700: the early-stopping estimate is the (t+1)-th largest, t small: it lands on a slow one
    slow = [10.0] * 692 + [80.0] * 8
    ok, why, est = judge_latency("server", slow, 50.0)
    assert ok is False and est == 80.0 and "> --latency-bound 50 ms" in why
    # too few queries: INVALID, with what to do
    ok, why, est = judge_latency("server", [1.0] * 300, 50.0)
    assert ok is False and est is None and "needs >= 662" in why and "--min-queries" in why


def test_fixed_rate_is_judged_against_the_period_unless_a_bound_is_given():
    ok, why, _ = judge_latency("fixed-rate", [20.0] * 100, None, rate=30.0)  # 33.3 ms period
    assert ok is True and "the period 33.3 ms" in why and "too few for early stopping" in why
    ok, why, _ = judge_latency("fixed-rate", [20.0] * 100, None, rate=60.0)  # 16.7 ms period
    assert ok is False and "> the period 16.7 ms" in why
    ok, why, _ = judge_latency("fixed-rate", [20.0] * 100, 25.0, rate=60.0)
    assert ok is True and "--latency-bound 25 ms" in why
    assert judge_latency("offline", [5.0] * 10, None)[0] is None  # nothing to judge


def test_scenario_summary_energy_per_frame_includes_idle_gaps():
    # 30 frames/s for 2 s: 60 frames; 5 J over the window, idle 2 W -> 1 J above idle
    s = scenario_summary(name="fixed-rate", samples_ms=[5.0] * 60, window_s=2.0, queries=60, samples=60,
                         rate=30.0, misses=3, scheduled_ns=[i * 33_333_333 for i in range(60)],
                         issued_ns=[i * 33_333_333 + 200_000 for i in range(60)], energy_j=5.0, idle_w=2.0,
                         mean_w=2.5, battery_wh=10.0)
    assert s.j_per_frame == pytest.approx(5.0 / 60)
    assert s.j_above_idle_per_frame == pytest.approx(1.0 / 60)
    assert s.battery_hours == pytest.approx(4.0)
    assert s.miss_rate == pytest.approx(5.0) and s.sustained_qps == pytest.approx(30.0)
    assert s.lateness_ms == pytest.approx({"p50": 0.2, "p99": 0.2, "max": 0.2})
    assert s.scheduled_ms[1] == pytest.approx(33.3333, abs=1e-4) and s.label == "fixed-rate 30/s"
    no_power = scenario_summary(name="offline", samples_ms=[5.0], window_s=1.0, queries=1, samples=4, streams=2)
    assert no_power.j_per_frame is None and no_power.samples_per_s == 4.0 and no_power.label == "offline 2 streams"


def _result(**scenario) -> Result:
    raw = json.loads((GOLDEN / "v4" / "ok_local_fixed_rate.json").read_text())
    raw["scenario"] = {**raw["scenario"], **scenario}
    return Result.from_dict(raw)


def test_metrics_and_budgets_read_the_scenario():
    r = _result(misses=2, miss_rate=2.0, valid=False, j_per_frame=0.05, j_above_idle_per_frame=0.01,
                battery_hours=7.5)
    v = metric_values(r)
    assert (v["misses"], v["miss_rate"], v["valid"], v["j_per_frame"]) == (2.0, 2.0, 0.0, 0.05)
    assert v["sustained_qps"] == 100.0 and v["battery_hours"] == 7.5
    assert parse_budget("misses < 1").evaluate(v) == (False, 2.0)
    assert parse_budget("valid >= 1").evaluate(v) == (False, 0.0)
    assert parse_budget("j_per_frame <= 0.1").evaluate(v) == (True, 0.05)
    single = Result.from_dict(json.loads((GOLDEN / "v4" / "ok_local_ds_cnn.json").read_text()))
    assert metric_values(single)["misses"] is None  # not measured: a budget on it is "not measured", not ok


def test_identity_single_stream_key_unchanged_other_scenarios_distinct():
    base = Result.from_dict(json.loads((GOLDEN / "v2" / "ok_local_ds_cnn.json").read_text()))
    from edgeprof.vocab import ConfigIdentity
    i = base.identity
    old = ConfigIdentity(base.device, base.model, base.runtime, base.precision, base.batch, base.threads,
                         base.artifact.source if base.artifact else None, i.content, i.shapes)
    assert i.scenario is None and i.key() == old.key()  # single-stream: the key has no scenario in it
    keys = {_result(rate_qps=r).identity.key() for r in (10.0, 30.0)}
    keys.add(_result(name="server", rate_qps=10.0).identity.key())
    assert len(keys) == 3
    # the bound judges a run: same configuration
    assert _result(latency_bound_ms=50.0).identity.key() == _result().identity.key()


def _probe_with_capacity(capacity: float, calls: list[float]):
    def probe(rate: float) -> Result:
        calls.append(rate)
        return _result(rate_qps=rate, valid=rate <= capacity)
    return probe


def test_find_max_rate_brackets_then_bisects():
    calls: list[float] = []
    s = find_max_rate(_probe_with_capacity(47.0, calls), start=10.0, tolerance=0.05)
    assert calls[:4] == [10.0, 20.0, 40.0, 80.0]  # doubles while VALID
    assert s.best_rate is not None and 47.0 * 0.95 <= s.best_rate <= 47.0
    lo, hi = s.bracket
    assert lo == s.best_rate and hi is not None and (hi - lo) / lo <= 0.05
    assert len(s.probes) == len(calls) and s.best is not None and s.best.scenario.rate_qps == s.best_rate
    calls.clear()
    s = find_max_rate(_probe_with_capacity(3.0, calls), start=10.0, tolerance=0.1)
    assert calls[:3] == [10.0, 5.0, 2.5] and 2.7 <= (s.best_rate or 0) <= 3.0  # halves while INVALID
    calls.clear()
    s = find_max_rate(_probe_with_capacity(0.0, calls), start=1.0)
    assert s.best is None and "no rate" in s.stopped_by and min(calls) >= 0.1


SWEEP = """
version: 1
models: [ds_cnn]
devices: [local]
runtimes: ["null"]
scenarios: [single-stream, fixed-rate, offline]
rates: [10, 30, 60]
settings: {streams: 2, latency_bound_ms: 40}
exclude: [{scenario: fixed-rate, rate: 60}]
budgets: [{match: {scenario: fixed-rate}, limits: ["misses < 1"]}]
"""


def test_sweep_scenarios_and_rates_axes():
    spec = parse_sweep(SWEEP)
    cells = expand(spec, [Device(name="local", kind="local")])
    ids = [c.cell_id for c in cells]
    assert ids == ["local/ds_cnn/null/fp32/b1/tauto", "local/ds_cnn/null/fp32/b1/tauto/fixed-rate@10",
                   "local/ds_cnn/null/fp32/b1/tauto/fixed-rate@30", "local/ds_cnn/null/fp32/b1/tauto/offline"]
    fixed = cells[1]
    assert fixed.budgets == ["misses < 1"] and cells[0].budgets == []
    rs = fixed.run_spec()
    assert (rs.scenario, rs.rate, rs.latency_bound_ms, rs.streams) == ("fixed-rate", 10.0, 40.0, 2)
    assert cells[3].run_spec().streams == 2


@pytest.mark.parametrize("text, message", [
    ("scenarios: [fixed-rate]\n", "add `rates:`"),
    ("scenarios: [single-stream]\nrates: [10]\n", "rates apply to the server and fixed-rate"),
    ("scenarios: [camera]\n", "unknown scenario 'camera'"),
    ("scenarios: [fixed-rate]\nrates: [0]\n", "a rate in queries per second"),
    ("scenarios: [fixed-rate]\nrates: [10, 10]\n", "listed twice"),
])
def test_sweep_axes_errors_name_the_line(text: str, message: str):
    with pytest.raises(ConfigError, match=message) as e:
        parse_sweep("version: 1\nmodels: [ds_cnn]\ndevices: [local]\n" + text)
    assert "sweep.yaml:" in e.value.one_line() and "\n" not in e.value.one_line()


def _spec(**kw) -> RunSpec:
    return RunSpec(device="local", model="none", runtime="null", **kw)


@pytest.mark.parametrize("kw, message", [
    ({"scenario": "fixed-rate"}, "needs --rate"),
    ({"scenario": "single-stream", "rate": 5.0}, "only server and fixed-rate"),
    ({"scenario": "server", "rate": 5.0}, "needs --latency-bound"),
    ({"scenario": "fixed-rate", "rate": -1.0}, "must be > 0"),
    ({"scenario": "multi-stream", "batch": 3}, "multiple of --batch 3"),
    ({"scenario": "single-stream", "streams": 2}, "only the offline scenario"),
    ({"scenario": "offline", "streams": 100}, "between 1 and 64"),
    ({"scenario": "offline", "battery_wh": 0.0}, "--battery-wh 0: must be > 0"),
])
def test_scenario_flags_are_checked_before_connecting(kw, message):
    with pytest.raises(ConfigError, match=message):
        validate_spec(_spec(**kw))


def test_samples_per_query_is_only_checked_for_multi_stream():
    validate_spec(_spec(batch=3))  # the default 8 samples per query does not concern single-stream
    validate_spec(_spec(scenario="multi-stream", batch=4))


def _deploy(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict, str]:
    out = tmp_path / "r.json"
    rc = main(["deploy", "--device", "local", "--model", "none", "--runtime", "null", "--warmup", "0",
               "--idle", "0", "--no-store", "--quiet", "--json", str(out), *args])
    assert rc == 0
    return json.loads(out.read_text()), " ".join(capsys.readouterr().out.split())


def test_deploy_fixed_rate_and_server_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    d, text = _deploy(tmp_path, capsys, "--scenario", "fixed-rate", "--rate", "100", "--min-duration", "0.5",
                      "--min-queries", "10")
    sc = d["scenario"]
    # the null runtime costs nothing: a miss is only a stall of this (niced, shared) machine longer than 10 ms
    assert sc["name"] == "fixed-rate" and sc["queries"] == 50
    assert sc["misses"] == sum(1 for v in d["samples_ms"] if v > 10.0) <= 5
    assert len(sc["scheduled_ms"]) == 50 and sc["scheduled_ms"][1] == 10.0
    assert d["settings"]["min_queries"] == 10 and d["throughput_ips"] == pytest.approx(100, rel=0.02)
    assert "scenario fixed-rate 100/s: 50 queries" in text and f"deadline misses: {sc['misses']} of 50" in text
    assert "VALID" in text and "latency counted from the scheduled time" in text
    # server: min_queries defaults to what early stopping needs; INVALID reasons are printed
    d, text = _deploy(tmp_path, capsys, "--scenario", "server", "--rate", "500", "--latency-bound", "50",
                      "--min-duration", "0.1")
    sc = d["scenario"]
    assert sc["queries"] >= 662 == d["settings"]["min_queries"] and sc["seed"] == 0
    est = sc["early_stop_p99_ms"]
    assert est is not None and sc["valid"] is (est <= 50.0)  # at 500/s of nothing: VALID unless stalls pile up
    assert ("VALID: early-stopping p99" if sc["valid"] else "INVALID: early-stopping p99") in text


def test_deploy_offline_and_multi_stream_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    d, text = _deploy(tmp_path, capsys, "--scenario", "offline", "--streams", "2", "--min-duration", "0.3")
    sc = d["scenario"]
    assert sc["streams"] == 2 and sc["samples"] == sc["queries"] and "samples/s" in text
    assert d["throughput_ips"] == pytest.approx(sc["samples_per_s"])
    d, text = _deploy(tmp_path, capsys, "--scenario", "multi-stream", "--samples-per-query", "4",
                      "--min-duration", "0.1")
    sc = d["scenario"]
    assert sc["samples_per_query"] == 4 and sc["samples"] == 4 * sc["queries"]
    assert "multi-stream 4/query" in text


def test_find_max_rate_flag_refuses_a_back_to_back_scenario(capsys: pytest.CaptureFixture[str]):
    assert main(["deploy", "--device", "local", "--model", "none", "--runtime", "null", "--find-max-rate"]) != 0
    assert "--find-max-rate searches a rate: it needs --scenario server or fixed-rate" in capsys.readouterr().err


def test_scenario_section_round_trips_and_refuses_unknown_fields():
    s = Scenario(name="server", rate_qps=40.0, latency_bound_ms=50.0, valid=False, valid_reason="x")
    assert Scenario.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    from edgeprof.errors import StoreError
    with pytest.raises(StoreError, match="section 'scenario' has unknown field.*'fps'"):
        Scenario.from_dict({"name": "fixed-rate", "fps": 30})


def test_find_max_rate_end_to_end_stores_every_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch):
    """--find-max-rate on the null runtime with a 10 ms busy service (capacity 100/s, runtime option set by a
    wrapper: the deploy flags have no generic runtime option): the answer is at most 100/s and every probe is
    stored."""
    import dataclasses as dc

    from edgeprof import session as seam
    from edgeprof.store import Store, runs

    real = seam.deploy

    def deploy(spec, device, **kw):
        return real(dc.replace(spec, runtime_options={"service_ms": 10.0}), device, **kw)
    monkeypatch.setattr(seam, "deploy", deploy)
    from edgeprof.agentlink.link import AgentLink

    opens: list[int] = []
    real_open = AgentLink.open.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(AgentLink, "open", classmethod(lambda cls, *a, **k: opens.append(1) or real_open(cls, *a, **k)))
    db = str(tmp_path / "db.sqlite")
    assert main(["deploy", "--device", "local", "--model", "none", "--runtime", "null", "--warmup", "0", "--idle",
                 "0", "--quiet", "--db", db, "--scenario", "fixed-rate", "--min-duration", "0.3", "--min-queries",
                 "10", "--find-max-rate"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    probes = [(float(r), v) for r, v in re.findall(r"probe ([\d.]+)/s: (VALID|INVALID)", text)]
    assert probes[0][0] == 10.0
    best = max(r for r, v in probes if v == "VALID")
    assert 10.0 <= best <= 100.0  # 10 ms a frame: above 100/s every frame misses
    assert all(v == "INVALID" for r, v in probes if r > 100.0)
    assert f"max rate: {best:g}/s VALID (fixed-rate)" in text
    with Store(db).engine.connect() as conn:
        n = conn.execute(sa.select(sa.func.count()).select_from(runs)).scalar_one()
    assert n == len(probes) >= 5  # doubling to 160/s (INVALID) takes five probes, bisection more
    assert opens == [1]  # one agent for every probe (each a child process of it), facts read once


def test_compare_adds_the_scenario_metrics_both_runs_have():
    from edgeprof.analysis.compare import compare_results

    a = _result(misses=0, miss_rate=0.0, valid=True, j_per_frame=0.10)
    b = _result(misses=9, miss_rate=9.0, valid=False, j_per_frame=0.16)
    d = {x.metric.name: x for x in compare_results(a, b)}
    assert d["misses"].base == 0.0 and d["misses"].new == 9.0
    assert d["valid"].verdict == "regressed" and d["j_per_frame"].verdict == "regressed"
    assert d["sustained_qps"].verdict == "unchanged"
    single = Result.from_dict(json.loads((GOLDEN / "v4" / "ok_local_ds_cnn.json").read_text()))
    assert "misses" not in {x.metric.name for x in compare_results(single, single)}


def test_terminal_summary_names_energy_per_frame_and_battery():
    from edgeprof.cli.ui import scenario_lines

    r = _result(j_per_frame=0.139, j_above_idle_per_frame=0.072, battery_wh=10.0, battery_hours=3.5, misses=2,
                miss_rate=2.0, valid=False, valid_reason="p99 40 ms > the period 10 ms")
    text = "\n".join(scenario_lines(r))
    assert "energy per frame 139 mJ (idle gaps included), above idle 72.0 mJ" in text
    assert "on a 10 Wh battery: 3.50 h at this duty cycle" in text
    assert "deadline misses: 2 of 100 (2.00 %)" in text and "INVALID: p99 40 ms > the period 10 ms" in text
    off = _result(name="offline", rate_qps=None, streams=2, j_per_frame=0.05, misses=None, valid=None)
    assert "energy per sample 50.0 mJ (at this load)" in "\n".join(scenario_lines(off))
    single = Result.from_dict(json.loads((GOLDEN / "v4" / "ok_local_ds_cnn.json").read_text()))
    assert scenario_lines(single) == []
