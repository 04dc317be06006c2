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
