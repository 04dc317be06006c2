"""`edgeprof predict` and `edgeprof calibrate --import` as a user runs them: a table from another machine predicts
for a board with no devices.yaml entry, with no network and no device reachable; mismatches end in one line."""

import json

import numpy as np
import onnx
import pytest
from offline import no_device_or_network
from onnx import TensorProto, helper, numpy_helper

from edgeprof.cli.main import main
from edgeprof.predict.graph import Kernel
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey, save_table


def _kern(key, fam, flops, nbytes, i):
    return Kernel(name=f"k{i}", op=key.split("/")[0], key=key, family=fam, dtype="float32", flops=flops,
                  bytes=nbytes, out_elems=1.0)


def _table(threads=2):
    rng = np.random.default_rng(0)
    models = []
    for m in range(10):
        ks = []
        for i in range(8):
            f, b = float(rng.uniform(1e5, 1e8)), float(rng.uniform(1e4, 1e6))
            k = _kern("FusedConv/kxk", "conv/kxk", f, b, i) if i % 2 else _kern("Add", "binary", f / 1e3, b, i)
            ks.append(MeasuredKernel(k, 3.0 + f * 1e-6 if i % 2 else 1.0 + b * 1e-5))
        models.append(CalibrationModel(name=f"m{m}", role="kernels", p50_ms=sum(k.us for k in ks) / 1e3 + 0.01,
                                       profiled_run_ms=None, unmatched_us=0.0, kernels=tuple(ks)))
    key = TableKey(device_name="vendor-board", device={"cpu": "Cortex-A55", "cores": 4}, runtime="onnxruntime",
                   runtime_version="1.32.0", precision="fp32", threads=threads, host_ort_version="1.32.0")
    return CalibrationTable(key=key, models=tuple(models), created_at="")


def _model(tmp_path, extra_unknown=False):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 32, 32])
    w = numpy_helper.from_array(np.ones((16, 8, 3, 3), np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Add", ["r", "r"], ["a"], name="add"),
             helper.make_node("Einsum" if extra_unknown else "Identity", ["a"], ["y"], name="last",
                              **({"equation": "nchw->nchw"} if extra_unknown else {}))]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], [w]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    p = tmp_path / "m.onnx"
    onnx.save(m, str(p))
    return p


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network, no device: any socket connect or any deploy fails the test."""
    no_device_or_network(monkeypatch)
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    monkeypatch.chdir(tmp_path)  # no devices.yaml here


def test_a_table_from_another_machine_predicts_for_a_board_not_in_devices_yaml(offline, tmp_path, capsys):
    exported = save_table(_table(), tmp_path / "vendor.json")
    assert main(["calibrate", "--import", str(exported)]) == 0
    assert "vendor-board" in capsys.readouterr().err
    model = _model(tmp_path, extra_unknown=True)
    assert main(["predict", str(model), "--device", "vendor-board", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    p = out["predictions"][0]
    assert p["board"] == "vendor-board" and p["p50_ms"] > 0 and p["low_ms"] <= p["p50_ms"] <= p["high_ms"]
    assert p["level"] == 0.9 and 0 < p["covered_ops"] < 1
    assert [u["op"] for u in p["uncovered"]] == ["Einsum"] and p["uncovered"][0]["assumed_ms"] > 0
    assert any("Einsum" in w for w in p["warnings"])
    assert main(["predict", str(model), "--table", str(exported)]) == 0  # the file itself, text output
    text = capsys.readouterr().out
    assert "predicted p50" in text and "interval" in text and "not in the table: Einsum" in text


def test_an_assumption_under_a_microsecond_is_printed_in_microseconds_never_as_zero():
    """A roofline fallback is never 0 ms; a GlobalAveragePool's ReduceMean of 1280 floats, assumed 0.3 µs by a
    2-thread table, had printed "assumed 0.000 ms"."""
    from edgeprof.cli.predicted import assumed

    assert assumed(0.00031) == "0.31 µs" and assumed(0.0123) == "0.012 ms" and assumed(12.5) == "12.500 ms"
    assert assumed(0.0) == "0.000 ms"


def test_a_table_of_another_thread_count_or_runtime_version_is_refused_in_one_line(offline, tmp_path, capsys):
    exported = save_table(_table(threads=2), tmp_path / "vendor.json")
    model = _model(tmp_path)
    assert main(["predict", str(model), "--table", str(exported), "--threads", "4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "threads 2, not 4" in err[0]
    assert main(["predict", str(model), "--table", str(exported), "--runtime-version", "1.18.0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "runtime version 1.32.0, not 1.18.0" in err[0]


def test_predict_without_a_table_says_how_to_get_one(offline, tmp_path, capsys):
    assert main(["predict", str(_model(tmp_path)), "--device", "nowhere"]) == 2
    line = capsys.readouterr().err.strip()
    assert "no onnxruntime fp32 calibration table" in line and "edgeprof calibrate --device nowhere" in line


def test_a_mistyped_model_is_said_before_a_missing_table(offline, tmp_path, capsys):
    """A path that is not there, or a name that is no bundled model, is the one line, not "calibrate first" (a
    15-minute answer to a typo)."""
    assert main(["predict", str(tmp_path / "missing.onnx"), "--device", "nowhere"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "missing.onnx not found" in line and "calibration table" not in line
    assert main(["predict", "mobilenet_v9", "--device", "nowhere"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "mobilenet_v9" in line and "calibration table" not in line


def test_what_is_not_built_yet_is_said_in_one_line(offline, tmp_path, capsys):
    save_table(_table(), tmp_path / "vendor.json")
    (tmp_path / "m.tflite").write_bytes(b"TFL3")
    assert main(["predict", "m.tflite", "--table", "vendor.json"]) == 2  # a TFLite model needs a LiteRT table
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "runtime onnxruntime, not tflite" in line
    assert main(["calibrate", "--device", "local", "--runtime", "tensorrt"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "built for onnxruntime and tflite only" in line
    assert main(["calibrate", "--device", "local", "--runtime", "tflite", "--precision", "int8"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "tflite tables are built for fp32 only" in line


def test_a_bad_speed_probe_is_one_line_before_anything_is_measured(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    assert main(["calibrate", "--device", "local", "--probe", "mobilenet_v3", "--budget", "20s"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "unknown model 'mobilenet_v3'" in line and "mobilenet_v2" in line
    assert main(["calibrate", "--device", "local", "--probe", str(tmp_path / "gone.onnx"), "--budget", "20s"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "gone.onnx: no such file" in line
    assert main(["calibrate", "--device", "local", "--probe-every", "2s", "--budget", "20s"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "--probe-every 2s: at least 5 s" in line and "--probe none" in line
    assert main(["calibrate", "--device", "local", "--probe-every", "soon", "--budget", "20s"]) == 2
    assert "--probe-every 'soon'" in capsys.readouterr().err
    assert not (tmp_path / "tables").exists()  # nothing was measured or written


def test_activations_holding_denormal_floats_on_deploys_inputs_are_warned(offline, tmp_path, capsys):
    """Round 5: two detectors ran 3-4x slower than predicted because layers' outputs held denormal floats (x86
    computes on them many times slower; no graph shows it). predict now runs a float ONNX model once on this host,
    fed deploy's own seeded inputs, and says so: here a Mul by 1e-39 makes every element of its output denormal
    before a Conv reads it; the same model scaled by 0.5 has none."""
    exported = save_table(_table(), tmp_path / "vendor.json")

    def model(scale: float, name: str, weights=None):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 32, 32])
        w = np.ones((16, 8, 3, 3), np.float32) if weights is None else weights
        inits = [numpy_helper.from_array(w, "w"),
                 numpy_helper.from_array(np.array(scale, np.float32), "s")]
        nodes = [helper.make_node("Mul", ["x", "s"], ["tiny"], name="scale"),
                 helper.make_node("Conv", ["tiny", "w"], ["y"], pads=[1, 1, 1, 1], name="conv")]
        m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits),
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / name))
        return tmp_path / name

    assert main(["predict", str(model(1e-39, "dn.onnx")), "--table", str(exported), "--json", "--no-store"]) == 0
    (p,) = json.loads(capsys.readouterr().out)["predictions"]
    (w,) = [w for w in p["warnings"] if "denormal" in w]
    assert "on deploy's inputs 1 of the model's activations hold denormal floats (up to 100 % of tiny)" in w
    assert main(["predict", str(model(0.5, "ok.onnx")), "--table", str(exported), "--json", "--no-store"]) == 0
    (p,) = json.loads(capsys.readouterr().out)["predictions"]
    assert not [w for w in p["warnings"] if "denormal" in w]
    # round 6: the two detectors' slowness came from their WEIGHTS (PP-OCRv6_det_small: 10 % of them denormal) — a
    # quarter of this convolution's weights below 1.2e-38 is said whatever the input (its products underflow to 0
    # here, so no activation is denormal)
    w = np.ones((16, 8, 3, 3), np.float32)
    w[:4] = 1e-39
    assert main(["predict", str(model(0.5, "dw.onnx", w)), "--table", str(exported), "--json", "--no-store"]) == 0
    (p,) = json.loads(capsys.readouterr().out)["predictions"]
    (w,) = [w for w in p["warnings"] if "denormal" in w]
    assert "25 % of the model's float weights are denormal floats (1 tensor(s), up to 25 % of w)" in w
    assert "depends on the input values" not in w


def _sliced(tmp_path):
    """A model whose shapes come from data: an input `k` ends a Slice, and the Add after it works on k rows."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 256])
    k = helper.make_tensor_value_info("k", TensorProto.INT64, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "rows", 256])
    inits = [numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([1], np.int64), "axis")]
    nodes = [helper.make_node("Slice", ["x", "zero", "k", "axis"], ["s"], name="slice"),
             helper.make_node("Add", ["s", "s"], ["y"], name="add")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x, k], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "sliced.onnx"))
    return tmp_path / "sliced.onnx"


def test_input_ranges_and_data_feed_the_host_run_as_deploy_feeds_the_device(offline, tmp_path, capsys):
    """Round 14's review: predict had no --input-range (deploy has), so its one host run (which reads the shapes
    that come from data) was fed every integer input its only safe default, 0. Here an input `k` ends a Slice: the
    Add after it works on k rows, so a prediction fed k=0 costs an empty tensor, one fed k=64 (--input-range
    k=64:65, or --input-data holding 64) the full one, as deploy would run it."""
    exported = save_table(_table(), tmp_path / "vendor.json")
    _sliced(tmp_path)

    def p50(*extra):
        assert main(["predict", str(tmp_path / "sliced.onnx"), "--table", str(exported), "--json", "--no-store",
                     *extra]) == 0
        (p,) = json.loads(capsys.readouterr().out)["predictions"]
        return p["p50_ms"]

    unranged, ranged = p50(), p50("--input-range", "k=64:65")
    assert ranged > unranged
    np.savez(tmp_path / "k.npz", k=np.array([64], np.int64), x=np.ones((1, 64, 256), np.float32))
    assert p50("--input-data", str(tmp_path / "k.npz")) == pytest.approx(ranged)
    assert main(["predict", str(tmp_path / "sliced.onnx"), "--table", str(exported), "--input-range", "k=9"]) == 2
    assert "--input-range" in capsys.readouterr().err
