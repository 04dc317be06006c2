"""regress.py: budgets, Potts step detection over a history, and the findings check turns into JUnit."""

from __future__ import annotations

import numpy as np
import pytest

from edgeprof.analysis.regress import (
    baseline_findings,
    budget_findings,
    cell_status_finding,
    detect_step,
    history_findings,
    parse_budget,
    segment,
    summarize,
)
from edgeprof.analysis.stats import latency_summary
from edgeprof.records import Environment, Memory, Result


def res(samples, run_id, *, status="ok", created="2026-01-01T00:00:00+00:00", reason=None,
        stderr_tail=None) -> Result:
    lat = latency_summary(samples) if status == "ok" else None
    return Result(run_id=run_id, status=status, created_at=created, device="beta", model="/x/tiny.onnx",
                  runtime="onnxruntime", precision="fp32", batch=1, threads=2,
                  latency_ms=lat,
                  throughput_ips=1000.0 / lat.mean if lat else None,
                  memory_mb=Memory(peak_rss=40.0) if lat else None, power=None, thermal=None, fidelity=None,
                  environment=Environment(), warnings=[], samples_ms=list(samples) if lat else [], reason=reason,
                  stderr_tail=stderr_tail)


@pytest.mark.parametrize("text,metric,op,value", [("p99_ms < 50", "p99_ms", "<", 50.0),
                                                  ("throughput_ips>=100", "throughput_ips", ">=", 100.0),
                                                  (" mj_per_inference <= 2.5e1 ", "mj_per_inference", "<=", 25.0)])
def test_parse_budget(text, metric, op, value):
    b = parse_budget(text)
    assert (b.metric, b.op, b.value) == (metric, op, value)


@pytest.mark.parametrize("text,needle", [("p99 < 50", "unknown metric"), ("p99_ms = 50", "METRIC OP NUMBER"),
                                         ("p99_ms < fast", "METRIC OP NUMBER")])
def test_parse_budget_errors(text, needle):
    with pytest.raises(ValueError, match=needle):
        parse_budget(text)


def test_budget_findings():
    r = res([10.0, 20.0, 30.0, 40.0], "r1")
    f = budget_findings(r, [parse_budget("p99_ms < 50"), parse_budget("p50_ms < 20"),
                            parse_budget("mj_per_inference < 3")])
    assert [x.outcome for x in f] == ["passed", "failed", "skipped"]
    assert "p50_ms = 25.0 ms" in f[1].message and "tiny.onnx on beta" in f[1].message


def test_segment_finds_steps():
    x = [0.0] * 5 + [1.0] * 4 + [0.2] * 3
    assert segment(x, 0.1) == [(0, 5), (5, 9), (9, 12)]
    assert segment([0.0] * 6, 0.1) == [(0, 6)]


def noisy(levels, sd=0.02, seed=0):
    rng = np.random.default_rng(seed)
    return [lv * (1 + rng.normal(0, sd)) for lv in levels]


def test_step_detection_one_noisy_night_is_only_suspect():
    s = detect_step(noisy([10.0] * 9 + [14.0]))
    assert s.status == "suspect" and s.change == pytest.approx(0.4, abs=0.08)


def test_step_detection_persistent_step_is_a_regression():
    s = detect_step(noisy([10.0] * 8 + [14.0] * 3))
    assert s.status == "regressed" and s.start == 8
    assert s.before == pytest.approx(10.0, rel=0.05) and s.after == pytest.approx(14.0, rel=0.05)


def test_step_detection_noise_recovery_improvement_and_short_history():
    for seed in range(10):  # 2 % noise never alarms
        assert detect_step(noisy([10.0] * 12, seed=seed)).status in ("ok", "suspect")
        assert detect_step(noisy([10.0] * 12, seed=seed)).status != "regressed"
    assert detect_step(noisy([10.0] * 5 + [15.0] * 3 + [10.0] * 3)).status in ("ok", "improved")
    assert detect_step(noisy([10.0] * 5 + [7.0] * 3)).status == "improved"
    assert detect_step([10.0, 20.0]).status == "too_few"
    # throughput: higher is better, so a drop is the regression
    assert detect_step(noisy([100.0] * 6 + [60.0] * 3), better="higher").status == "regressed"


def test_baseline_findings_name_cell_and_metric():
    rng = np.random.default_rng(0)
    base = res(rng.normal(1.0, 0.05, 200), "base")
    slow = res(rng.normal(2.0, 0.05, 200), "slow")
    same = res(rng.normal(1.0, 0.05, 200), "same")
    bad = [f for f in baseline_findings(slow, base) if f.bad]
    assert {f.metric for f in bad} >= {"p50_ms", "p99_ms", "throughput_ips"}
    f = next(x for x in bad if x.metric == "p50_ms")
    assert f.name == "tiny.onnx on beta · onnxruntime fp32 · batch 1 · 2 threads · p50_ms"
    assert "regressed +" in f.message and "vs run base" in f.message and f.classname == "edgeprof.beta"
    assert not [f for f in baseline_findings(same, base) if f.bad]
    none = baseline_findings(same, None)
    assert len(none) == 1 and none[0].outcome == "passed" and none[0].warning


def test_history_findings():
    rng = np.random.default_rng(3)
    hist = [res(rng.normal(1.0, 0.03, 100), f"r{i}", created=f"2026-01-{i + 1:02d}T00:00:00+00:00")
            for i in range(6)]
    one_slow = hist + [res(rng.normal(1.6, 0.03, 100), "slow1", created="2026-01-07T00:00:00+00:00")]
    f = {x.metric: x for x in history_findings(one_slow)}
    assert f["p50_ms"].outcome == "passed" and f["p50_ms"].warning and "suspect" in f["p50_ms"].message
    two_slow = one_slow + [res(rng.normal(1.6, 0.03, 100), "slow2", created="2026-01-08T00:00:00+00:00")]
    f = {x.metric: x for x in history_findings(two_slow)}
    assert f["p50_ms"].outcome == "failed" and "since run slow1" in f["p50_ms"].message
    assert f["throughput_ips"].outcome == "failed"
    assert f["peak_rss_mb"].outcome == "passed"
    short = {x.metric: x for x in history_findings(hist[:2])}
    assert "needs 3" in short["p50_ms"].message


def test_cell_status_findings_and_summary():
    failed = res([], "f1", status="failed", reason="device beta: connection refused",
                 stderr_tail="Traceback...")
    skipped = res([], "s1", status="skipped", reason="onnxruntime is not installed on beta")
    ff, fs = cell_status_finding(failed), cell_status_finding(skipped)
    assert ff is not None and ff.outcome == "error" and "connection refused" in ff.message
    assert ff.detail == "Traceback..."
    assert fs is not None and fs.outcome == "skipped"
    assert cell_status_finding(res([1.0, 2.0], "ok")) is None
    s = summarize([ff, fs])
    assert s["tests"] == 2 and s["error"] == 1 and s["skipped"] == 1
