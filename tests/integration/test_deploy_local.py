"""`edgeprof deploy --device local` end to end: CLI → export → agent subprocess → stats → SQLite → results."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof.cli.main import main
from edgeprof.store import Store

FAST = ["--min-duration", "0.3", "--min-queries", "20", "--warmup", "0.2", "--quiet"]


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "results.sqlite")


def write_model(path: Path, batch_dim="batch", extra_dynamic=False):
    w = np.random.RandomState(0).standard_normal((32, 8)).astype(np.float32)
    dims = [batch_dim, "seq" if extra_dynamic else 4, 32]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["tokens", "w"], ["logits"])], "user",
        [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch_dim, dims[1], 8])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def run_cli(args, capsys):
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_user_onnx_deploy_stores_a_complete_result(tmp_path, db, capsys):
    model = write_model(tmp_path / "user model.onnx")
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(["deploy", "--device", "local", "--model", str(model), "--batch", "3", "--threads", "1",
                              "--db", db, "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    assert "p99.9" in out and "inferences/s" in out
    r = json.loads(out_json.read_text())
    assert r["status"] == "ok" and r["batch"] == 3 and r["threads"] == 1
    assert r["settings"]["inputs"] == [{"name": "tokens", "shape": [3, 4, 32], "dtype": "float32"}]
    lat = r["latency_ms"]
    assert lat["n"] == len(r["samples_ms"]) >= 20
    assert lat["p50"] == pytest.approx(float(np.percentile(r["samples_ms"], 50)))
    assert r["throughput_ips"] == pytest.approx(3 * lat["n"] / r["settings"]["window_s"])
    assert r["memory_mb"]["peak_rss"] >= r["memory_mb"]["rss_before_load"] > 0
    assert r["memory_mb"]["artifact_size"] > 0
    env = r["environment"]
    assert env["device"]["arch"] and env["device"]["cores"] and env["runtime"]["runtime"] == "onnxruntime"
    assert env["runtime"]["options"]["threads"] == 1
    assert env["model_sha256"] == r["artifact"]["sha256"]
    assert r["power"] is None and r["null_reasons"]["power"]
    stored = Store(db).get(r["run_id"])
    assert stored.to_dict() == r
    code, out, _ = run_cli(["results", "list", "--db", db], capsys)
    assert code == 0 and r["run_id"] in out
    code, out, _ = run_cli(["results", "show", r["run_id"][:17], "--db", db, "--json"], capsys)
    assert json.loads(out)["run_id"] == r["run_id"]


def test_dynamic_dim_needs_input_then_runs(tmp_path, db, capsys):
    model = write_model(tmp_path / "dyn.onnx", extra_dynamic=True)
    code, _, err = run_cli(["deploy", "--device", "local", "--model", str(model), "--db", db, *FAST], capsys)
    assert code == 2
    line = err.strip().splitlines()[0]
    assert "dynamic dimension" in line and "--input tokens=" in line
    assert Store(db).count() == 0
    code, _, err = run_cli(["deploy", "--device", "local", "--model", str(model), "--input", "tokens=2x7x32",
                            "--db", db, *FAST], capsys)
    assert code == 0, err
    assert Store(db).count() == 1


@pytest.mark.parametrize("args,expect", [
    (["--device", "nosuchboard", "--model", "mobilenet_v2"], "unknown device 'nosuchboard'"),
    (["--device", "local", "--model", "mobilenet_v3"], "mobilenet_v2"),
    (["--device", "local", "--model", "missing.onnx"], "missing.onnx"),
    (["--device", "local", "--model", "mobilenet_v2", "--batch", "0"], "--batch 0"),
    (["--device", "local", "--model", "mobilenet_v2", "--runtime", "tvm"], "not supported"),
    (["--device", "local", "--model", "mobilenet_v2", "--input", "oops"], "NAME=DxDx"),
])
def test_bad_inputs_are_one_line_errors(args, expect, db, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["deploy", *args, "--db", db, *FAST], capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgeprof: error:"), err
    assert expect in lines[0]
    assert "Traceback" not in err


def test_corrupt_and_non_onnx_files(tmp_path, db, capsys):
    bad = tmp_path / "corrupt.onnx"
    bad.write_bytes(b"\x08\x07garbage" * 20)
    txt = tmp_path / "notes.onnx"
    txt.write_text("this is a text file\n")
    for path in (bad, txt):
        code, _, err = run_cli(["deploy", "--device", "local", "--model", str(path), "--db", db, *FAST], capsys)
        assert code == 2 and "not a valid ONNX model" in err and len(err.strip().splitlines()) == 1
    assert Store(db).count() == 0


def test_unknown_input_name(tmp_path, db, capsys):
    model = write_model(tmp_path / "m.onnx")
    code, _, err = run_cli(["deploy", "--device", "local", "--model", str(model), "--input", "image=1x4x32",
                            "--db", db, *FAST], capsys)
    assert code == 2 and "no input named 'image'" in err and "tokens" in err


@pytest.mark.slow
def test_bundled_bert_tiny_via_console_script(tmp_path, db):
    exe = shutil.which("edgeprof", path=str(Path(sys.executable).parent))
    assert exe, "the edgeprof console script is installed"
    p = subprocess.run([exe, "deploy", "--device", "local", "--model", "bert_tiny", "--db", db, "--threads", "2",
                        "--min-duration", "1", "--min-queries", "30", "--warmup", "0.5",
                        "--json", str(tmp_path / "b.json")], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    r = json.loads((tmp_path / "b.json").read_text())
    assert [i["name"] for i in r["artifact"]["inputs"]] == ["input_ids", "attention_mask"]
    assert all(i["dtype"] == "int64" for i in r["artifact"]["inputs"])
    assert r["artifact"]["export_check"]["max_abs_error"] < 1e-3
    assert r["latency_ms"]["n"] >= 30
    # a second deploy reuses the exported artifact
    p2 = subprocess.run([exe, "deploy", "--device", "local", "--model", "bert_tiny", "--db", db,
                         "--min-duration", "0.2", "--min-queries", "5", "--warmup", "0",
                         "--json", str(tmp_path / "b2.json")], capture_output=True, text=True, timeout=600)
    assert p2.returncode == 0, p2.stderr
    r2 = json.loads((tmp_path / "b2.json").read_text())
    assert r2["artifact"]["cache_hit"] is True and r2["artifact"]["sha256"] == r["artifact"]["sha256"]
