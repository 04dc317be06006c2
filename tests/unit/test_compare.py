"""compare.py: Mann-Whitney U against scipy, metric extraction, A/B verdicts, environment differences."""

from __future__ import annotations

import numpy as np
import pytest

from edgeprof.analysis.compare import (
    METRIC_BY_NAME,
    compare_metric,
    compare_results,
    device_fingerprint,
    environment_changes,
    mann_whitney_u,
    metric_values,
)
from edgeprof.analysis.stats import latency_summary
from edgeprof.records import Environment, Memory, Power, Result


def make_result(samples, *, run_id="r1", power=None, peak=50.0, env=None, batch=1) -> Result:
    lat = latency_summary(samples)
    return Result(run_id=run_id, status="ok", created_at="2026-01-01T00:00:00+00:00", device="alpha",
                  model="ds_cnn", runtime="onnxruntime", precision="fp32", batch=batch, threads=1,
                  latency_ms=lat, throughput_ips=1000.0 / lat.mean * batch,
                  memory_mb=Memory(peak_rss=peak, rss_after_load=peak - 5),
                  power=Power.from_dict(power) if power else None, thermal=None,
                  fidelity=None, environment=Environment.from_dict(env or {}), warnings=[],
                  samples_ms=list(samples))


@pytest.mark.parametrize("n1,n2,shift,ties", [(30, 40, 0.0, False), (50, 50, 0.3, False), (200, 150, 0.05, True),
                                              (20, 25, 1.0, True), (1000, 1000, 0.01, False)])
def test_mann_whitney_matches_scipy(n1, n2, shift, ties):
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(n1 * 7 + n2)
    a = rng.lognormal(0.0, 0.2, n1)
    b = rng.lognormal(shift, 0.2, n2)
    if ties:
        a, b = np.round(a, 1), np.round(b, 1)
    u, p = mann_whitney_u(a, b)
    ref = scipy_stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
    assert u == pytest.approx(ref.statistic)
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


def test_mann_whitney_degenerate_inputs():
    assert mann_whitney_u([1.0, 1.0], [1.0, 1.0, 1.0])[1] == 1.0
    with pytest.raises(ValueError):
        mann_whitney_u([], [1.0])


def test_metric_values_reads_every_section():
    power = {"mean_w": 5.0, "p95_w": 6.0, "energy_mj_per_inference": 2.5, "inferences_per_joule": 400.0,
             "gflops_per_watt": 3.0}
    r = make_result([1.0, 2.0, 3.0, 4.0], power=power)
    v = metric_values(r)
    assert v["p50_ms"] == pytest.approx(2.5)
    assert v["peak_rss_mb"] == 50.0 and v["mean_w"] == 5.0 and v["mj_per_inference"] == 2.5
    assert v["throughput_ips"] == pytest.approx(400.0)
    assert metric_values(make_result([1.0, 2.0]))["mj_per_inference"] is None


def test_big_slowdown_is_a_significant_regression_and_throughput_drops():
    rng = np.random.default_rng(1)
    base = make_result(rng.normal(2.0, 0.1, 300), run_id="base")
    new = make_result(rng.normal(3.0, 0.1, 300), run_id="new")
    deltas = {d.metric.name: d for d in compare_results(base, new)}
    assert deltas["p50_ms"].verdict == "regressed"
    assert deltas["p50_ms"].ratio == pytest.approx(1.5, rel=0.05)
    assert deltas["p50_ms"].p_value < 1e-10
    assert deltas["throughput_ips"].verdict == "regressed"  # higher is better: a drop is a regression
    assert deltas["peak_rss_mb"].verdict == "unchanged"
    assert deltas["mj_per_inference"].verdict == "n/a"
    assert "+5" in deltas["p50_ms"].describe() or "+4" in deltas["p50_ms"].describe()


def test_small_or_insignificant_changes_are_unchanged():
    rng = np.random.default_rng(2)
    base = make_result(rng.normal(2.0, 0.1, 300))
    same = make_result(rng.normal(2.0, 0.1, 300))
    tiny = make_result(rng.normal(2.06, 0.1, 300))  # 3 %: significant but below the 5 % minimum effect
    for d in compare_results(base, same) + compare_results(base, tiny):
        assert d.verdict in ("unchanged", "n/a"), d.describe()
    # a 30 % shift on 5 noisy samples each is not significant at p < 0.002
    few_a = make_result([1.0, 3.0, 2.0, 5.0, 1.5])
    few_b = make_result([1.3, 3.9, 2.6, 6.5, 1.95])
    d = {x.metric.name: x for x in compare_results(few_a, few_b)}["p50_ms"]
    assert d.verdict == "unchanged" and "not significant" in d.note


def test_improvement_and_single_value_metrics():
    m = METRIC_BY_NAME["mj_per_inference"]
    assert compare_metric(m, 10.0, 7.0).verdict == "improved"
    assert compare_metric(m, 10.0, 13.0).verdict == "regressed"
    assert compare_metric(m, 10.0, 10.4).verdict == "unchanged"
    mem = METRIC_BY_NAME["peak_rss_mb"]
    assert compare_metric(mem, 10.0, 11.5).verdict == "unchanged"  # +15 % but only 1.5 MB
    assert compare_metric(METRIC_BY_NAME["inferences_per_joule"], 100.0, 80.0).verdict == "regressed"
    assert compare_metric(m, 0.0, 1.0).verdict == "n/a"


def test_fingerprint_and_environment_changes():
    dev = {"kind": "board", "board_model": "NVIDIA Orin Nano", "cpu": "ARMv8", "arch": "aarch64", "cores": 6,
           "memory_mb": 7620.0, "os": "Ubuntu 22.04", "kernel": "5.15"}
    a = make_result([1.0, 2.0], env={"device": dev, "runtime": {"runtime": "onnxruntime", "version": "1.22.0"}})
    b = make_result([1.0, 2.0], env={"device": {**dev, "kernel": "5.15.1", "memory_mb": 7600.0},
                                     "runtime": {"runtime": "onnxruntime", "version": "1.23.0"}})
    c = make_result([1.0, 2.0], env={"device": {**dev, "cores": 4}})
    assert device_fingerprint(a) == device_fingerprint(b) != device_fingerprint(c)
    changes = {k: (x, y) for k, x, y in environment_changes(a, b)}
    assert changes == {"kernel": ("5.15", "5.15.1"), "runtime version": ("1.22.0", "1.23.0")}
    assert device_fingerprint(make_result([1.0])) is None
    # the GPU of a multi-GPU machine a run named (--gpu): the same configuration on another board, said
    g0 = make_result([1.0], env={"device": dev, "runtime": {"runtime": "onnxruntime", "version": "1.22.0", "gpu": {
        "index": 0, "name": "Tesla T4", "uuid": "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70"}}})
    g1 = make_result([1.0], env={"device": dev, "runtime": {"runtime": "onnxruntime", "version": "1.22.0", "gpu": {
        "index": 1, "name": "NVIDIA A10", "uuid": "GPU-0b1c2d3e-21c4-9b3e-1f0d-3c0a4b5e6f71"}}})
    changes = {k: (x, y) for k, x, y in environment_changes(g0, g1)}
    assert changes == {"gpu": ("0 Tesla T4 GPU-6a5f0e44", "1 NVIDIA A10 GPU-0b1c2d3e")}
    assert environment_changes(a, g0) == [("gpu", None, "0 Tesla T4 GPU-6a5f0e44")]


@pytest.mark.parametrize(("precision", "options", "detail"), [
    ("fp32", {"quantizer": "onnxruntime.quantization ..."}, None),
    ("fp16 (as given)", {"precision_as_given": True,
                         "weights": "float16 (3 tensors, DEQUANTIZE to float32: compute in float32)"},
     "float16 weights, float32 compute"),
    ("int8 (as given)", {"precision_as_given": True, "quantized_tensors": 12, "quantized_inputs": {}},
     "int8 tensors (12 with scales), float I/O"),
    ("int8 (as given)", {"precision_as_given": True, "quantized_by": "QDQ (int8 weights and activations): "
                         "DequantizeLinear, QuantizeLinear"}, "QDQ (int8 weights and activations)"),
    ("int8", {"quantizer": "ai_edge_quantizer static int8 (...)"},
     "static int8 (weights per channel, activations per tensor), float I/O"),
    ("fp16", {"converter": "onnxconverter_common.float16.convert_float_to_float16(keep_io_types=True)",
              "ops_kept_fp32": ["Resize"]}, "float16 graph, float32 I/O, 1 op types kept float32"),
    ("fp16", {}, None),  # TensorRT builds fp16 from the fp32 file: nothing to say
])
def test_the_precision_detail_is_read_from_export_options_and_leaves_the_key(precision, options, detail):
    import dataclasses

    from edgeprof.analysis.compare import cell_label, precision_detail
    from edgeprof.records import Artifact
    from edgeprof.records.options import export_options_from_dict
    from edgeprof.store import config_key

    r = dataclasses.replace(make_result([1.0, 1.1, 1.2]), precision=precision)
    kind = "tflite" if {"weights", "quantized_tensors", "quantized_inputs"} & set(options) else "onnx"
    art = Artifact(path="m.onnx", format="onnx", sha256="ab" * 32, size_bytes=1, inputs=(), outputs=("y",),
                   model_name="m", source="file:/m.onnx", precision=precision.split()[0],
                   export_options=export_options_from_dict({"kind": kind, **options}))
    with_detail = dataclasses.replace(r, artifact=art)
    bare = dataclasses.replace(r, artifact=dataclasses.replace(art, export_options=None))
    assert precision_detail(with_detail) == detail
    assert config_key(with_detail) == config_key(bare)
    assert (f"onnxruntime {precision} [{detail}] · batch 1" if detail else f"onnxruntime {precision} · batch 1") \
        in cell_label(with_detail)
