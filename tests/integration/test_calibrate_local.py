"""`edgeprof calibrate --device local` end to end, as a new user runs it: real onnxruntime, real agent, the ordinary
measurement path; the table then predicts a user's ONNX file, and a stored measured run shows beside it."""

import json
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.cli.main import main
from edgeprof.predict.table import load_table

pytestmark = pytest.mark.slow


def _model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 28, 28])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 28, 28])
    w = numpy_helper.from_array(np.full((32, 16, 3, 3), 0.01, np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], [w]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


@pytest.mark.timeout(240)
def test_calibrate_local_within_its_budget_then_predict_and_see_the_measured_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    budget = 25
    assert main(["calibrate", "--device", "local", "--budget", f"{budget}s", "--threads", "1",
                 "--out", str(tmp_path / "local.json")]) == 0
    err = capsys.readouterr().err
    assert "calibrating local" in err and "written to" in err
    # stderr is not a terminal here (a log file's case): the bar is also a plain line, the first at the start
    assert re.search(r"^calibrating local: \d+ of 25 s, \d+ models, \d+ kernels", err, re.M), err
    table = load_table(tmp_path / "local.json")
    assert table.key.device_name == "local" and table.key.threads == 1 and table.key.runtime == "onnxruntime"
    assert table.key.runtime_version and table.key.device.get("cores")
    assert len(table.models) >= 2 and table.spent_s is not None
    assert table.spent_s <= budget * 1.5  # stops starting models once the next would not fit (one may overrun)
    assert sum(1 for m in table.models for k in m.kernels if k.us is not None) >= 10
    # the speed probe: timed before the first model and after the last (the budget kept its time), each model's time
    # in between; the fit divides each model's times by the probe's speed then
    assert table.probe is not None and table.probe.model == "edgeprof-probe-1" and len(table.probe.samples) >= 2
    at = [m.at_s for m in table.models]
    assert all(a is not None for a in at) and at == sorted(at)
    assert table.probe.samples[0][0] < at[0] and table.probe.samples[-1][0] > at[-1]
    assert all(ms > 0 for ms in table.probe.p50s())
    assert re.search(r"^speed probe edgeprof-probe-1: \d+ probes, p50 [\d.]+–[\d.]+ ms", err, re.M), err
    # read again by this same edgeprof (calibrate --reread): every model found where it was written, as it was
    assert main(["calibrate", "--reread", str(tmp_path / "local.json"), "--out", str(tmp_path / "again.json")]) == 0
    assert load_table(tmp_path / "again.json").models == table.models

    model = _model(tmp_path / "m.onnx")
    db = str(tmp_path / "r.sqlite")
    assert main(["deploy", "--device", "local", "--model", str(model), "--threads", "1", "--min-duration", "0.3",
                 "--warmup", "0", "--idle", "0", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["predict", str(model), "--device", "local", "--measured", "--db", db, "--json"]) == 0
    p = json.loads(capsys.readouterr().out)["predictions"][0]
    assert p["p50_ms"] > 0 and p["low_ms"] < p["p50_ms"] < p["high_ms"]
    assert p["measured"] is not None and p["measured"]["p50_ms"] > 0
    assert p["measured"]["error"] == pytest.approx(p["p50_ms"] / p["measured"]["p50_ms"] - 1)


@pytest.mark.timeout(300)
def test_int8_calibration_measures_the_quantised_graphs_kernels_and_predicts_an_int8_model(tmp_path, monkeypatch,
                                                                                          capsys):
    """calibrate --precision int8: each generated model goes through deploy --precision int8 (export/quantize.py
    quantises it as it would a user's) and the quantised graph's kernels are profiled; the table then prices the
    quantised kernels of the bundled ds_cnn read as deploy quantises it."""
    from edgeprof.predict.service import model_graph, predictor

    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))  # nothing quantised yet: the budget pays for it
    budget = 30
    assert main(["calibrate", "--device", "local", "--precision", "int8", "--budget", f"{budget}s", "--threads", "1",
                 "--out", str(tmp_path / "int8.json")]) == 0
    capsys.readouterr()
    table = load_table(tmp_path / "int8.json")
    assert table.key.precision == "int8" and table.key.runtime == "onnxruntime"
    assert table.spent_s is not None and table.spent_s <= budget * 1.5  # quantising counts inside the budget
    profiled = [mk for m in table.models for mk in m.kernels if mk.us is not None]
    quantised = [mk for mk in profiled if "@" in mk.kernel.key]
    assert quantised and {mk.kernel.dtype for mk in quantised} <= {"int8", "uint8"}
    assert any(mk.kernel.op.startswith(("QLinear", "QGemm")) for mk in profiled), sorted(
        {mk.kernel.key for mk in profiled})
    assert any(mk.kernel.op == "QuantizeLinear" for mk in profiled)
    assert (tmp_path / "tables" / "local-onnxruntime-int8-t1.json").exists()

    assert main(["predict", "ds_cnn", "--device", "local", "--precision", "int8", "--json", "--no-store"]) == 0
    p = json.loads(capsys.readouterr().out)["predictions"][0]
    assert p["p50_ms"] > 0 and p["low_ms"] < p["p50_ms"] < p["high_ms"] and p["covered_ops"] > 0
    ks = model_graph("ds_cnn", precision="int8").kernels
    fitted = predictor(table)
    priced = [k for k in ks if "@" in k.key and fitted.cost(k)[1] != "roofline"]
    assert priced, [(k.key, fitted.cost(k)[1]) for k in ks]  # some quantised kernel priced from the int8 samples
    # the int8 table is not an fp32 one
    assert main(["predict", "ds_cnn", "--table", str(tmp_path / "int8.json"), "--no-store"]) == 2
    assert "precision int8, not fp32" in capsys.readouterr().err
