"""Runtimes and precisions end to end through `edgeprof deploy --device local`: real onnxruntime and LiteRT,
fidelity next to latency, the per-op profile pass, user files with several inputs and dynamic dims, the
capability matrix's one-line skip for TensorRT without a GPU, achieved GFLOPS, and ops side by side."""

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof.cli.main import main
from edgeprof.store import Store

pytest.importorskip("ai_edge_litert")
pytest.importorskip("litert_torch")

FAST = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--quiet", "--threads", "1"]


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "results.sqlite")


def deploy(args, db, tmp_path, capsys, name="r.json"):
    out = tmp_path / name
    code = main(["deploy", "--device", "local", *args, "--db", db, "--json", str(out), *FAST])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(out.read_text()), cap.out


def test_ds_cnn_onnxruntime_int8_with_fidelity_and_op_profile(tmp_path, db, capsys):
    r, out = deploy(["--model", "ds_cnn", "--precision", "int8", "--profile-ops"], db, tmp_path, capsys)
    assert r["precision"] == "int8" and r["artifact"]["precision"] == "int8"
    assert r["artifact"]["export_options"]["calibration"]["kind"] == "seeded-random"
    f = r["fidelity"]
    assert f["reference"] == "torch (bundled ds_cnn)" and f["inputs"]["seed"] == 0
    assert 0.9 < f["cosine_similarity"] <= 1.0 + 1e-9 and f["max_abs_error"] > 0 and f["mean_abs_error"] > 0
    assert f["top1_rows"] == 1 and f["top1_agreement"] in (0.0, 1.0)
    assert r["null_reasons"]["fidelity"] is None
    ops = r["ops"]
    assert ops["available"] and ops["iterations"] == 20 and ops["source"].startswith("onnxruntime profiling")
    assert abs(sum(n["share"] for n in ops["nodes"]) - 1.0) < 1e-6
    assert {"Conv", "QuantizeLinear"} & {t["op_type"] for t in ops["op_types"]}
    assert "fidelity vs torch" in out and "top ops" in out and "by op type" in out
    # the timed loop never ran with profiling on: its samples are the normal ones
    assert r["latency_ms"]["n"] == len(r["samples_ms"]) >= 10


def test_ds_cnn_tflite_fp32_and_int8(tmp_path, db, capsys):
    r, out = deploy(["--model", "ds_cnn", "--runtime", "tflite", "--profile-ops"], db, tmp_path, capsys)
    assert r["artifact"]["format"] == "tflite" and r["environment"]["runtime"]["module"] == "ai_edge_litert"
    assert r["fidelity"]["ok"] and r["fidelity"]["max_abs_error"] < 1e-4
    assert r["ops"]["available"] is False and r["ops"]["op_counts"]["CONV_2D"] >= 1
    assert "no per-op timings" in out
    q, _ = deploy(["--model", "ds_cnn", "--runtime", "tflite", "--precision", "int8", "--xnnpack", "off"], db,
                  tmp_path, capsys, "q.json")
    assert q["artifact"]["precision"] == "int8" and q["environment"]["runtime"]["options"]["xnnpack"] is False
    assert q["fidelity"]["cosine_similarity"] > 0.9 and q["fidelity"]["threshold"]["cosine_similarity_min"] == 0.99
    # the same model across runtimes, op type by op type
    ort_run, _ = deploy(["--model", "ds_cnn", "--profile-ops"], db, tmp_path, capsys, "o.json")
    code = main(["results", "ops", r["run_id"], ort_run["run_id"], "--db", db])
    text = capsys.readouterr().out
    assert code == 0 and "ops side by side" in text and "Conv" in text and "no per-op timings" in text


def test_fp16_on_cpu_warns_it_runs_as_fp32(tmp_path, db, capsys):
    r, _ = deploy(["--model", "ds_cnn", "--precision", "fp16"], db, tmp_path, capsys)
    assert r["artifact"]["precision"] == "fp16"
    assert any(w["code"] == "precision_emulated" for w in r["warnings"])
    assert r["fidelity"]["cosine_similarity"] > 0.999


def test_gemm_microbenchmark_reports_achieved_gflops_on_both_runtimes(tmp_path, db, capsys):
    for runtime in ("onnxruntime", "tflite"):
        r, out = deploy(["--model", "gemm:64x8x32", "--runtime", runtime], db, tmp_path, capsys, f"{runtime}.json")
        c = r["compute"]
        assert c["flops_per_inference"] == 2 * 64 * 8 * 32
        assert c["achieved_gflops"] == pytest.approx(c["flops_per_inference"] * r["throughput_ips"] / 1e9)
        assert "GFLOPS achieved" in out


def write_two_input_onnx(path):
    w = np.random.RandomState(0).standard_normal((16, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["feat", "w"], ["h"]), helper.make_node("Cast", ["mask"], ["m"], to=1),
         helper.make_node("Mul", ["h", "m"], ["out"])], "two",
        [helper.make_tensor_value_info("feat", TensorProto.FLOAT, ["batch", "seq", 16]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq", 1])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", 4])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_user_onnx_several_inputs_dynamic_dims_int8_against_fp32(tmp_path, db, capsys):
    model = write_two_input_onnx(tmp_path / "two.onnx")
    shapes = ["--input", "feat=2x7x16", "--input", "mask=2x7x1"]
    plain, _ = deploy(["--model", str(model), *shapes], db, tmp_path, capsys)
    assert plain["fidelity"] is None and "ran as given" in plain["null_reasons"]["fidelity"]
    q, _ = deploy(["--model", str(model), "--precision", "int8", *shapes], db, tmp_path, capsys, "q.json")
    assert q["fidelity"]["reference"].startswith("fp32 onnx file two.onnx")
    assert q["fidelity"]["outputs"][0]["shape"] == [2, 7, 4] and q["fidelity"]["top1_agreement"] is None


def test_user_tflite_several_inputs_dynamic_dims(tmp_path, db, capsys):
    from tflite_fixtures import export_two_inputs

    model = export_two_inputs(tmp_path)
    r, _ = deploy(["--model", str(model), "--runtime", "tflite", "--input", "a=1x9x3", "--input", "b=1x9x4"],
                  db, tmp_path, capsys)
    assert [i["name"] for i in r["artifact"]["inputs"]] == ["a", "b"]
    assert r["artifact"]["inputs"][0]["shape"] == [1, None, 3]
    assert r["artifact"]["inputs"][1]["dtype"] == "int32" and {i["name"]: i["shape"] for i in r["settings"]["inputs"]}["b"] == [1, 9, 4]
    assert sorted(r["environment"]["runtime"]["options"]["resized_inputs"]) == ["a", "b"]
    assert r["fidelity"] is None


def test_tensorrt_without_gpu_is_a_one_line_skip(tmp_path, db, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["deploy", "--device", "local", "--model", "ds_cnn", "--runtime", "tensorrt", "--db", db, *FAST])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1
    assert err[0].startswith("edgeprof: error: tensorrt needs an NVIDIA GPU; device local has none")
    assert Store(db).count() == 0
    code = main(["deploy", "--device", "local", "--model", "ds_cnn", "--runtime", "null", "--precision", "fp16",
                 "--db", db, *FAST])
    assert code == 2 and "precision fp16 is not supported for null" in capsys.readouterr().err


@pytest.mark.slow
def test_mobilenet_v2_int8_on_tflite(tmp_path, db, capsys):
    r, out = deploy(["--model", "mobilenet_v2", "--runtime", "tflite", "--precision", "int8"], db, tmp_path, capsys)
    f = r["fidelity"]
    assert r["artifact"]["precision"] == "int8" and f["top1_rows"] == 1
    assert 0.9 < f["cosine_similarity"] < 1.0 and f["outputs"][0]["shape"] == [1, 1000]
    assert r["artifact"]["size_bytes"] < 6e6  # int8 weights: ~4 MB instead of ~14 MB
    assert "fidelity vs torch (bundled mobilenet_v2)" in out
