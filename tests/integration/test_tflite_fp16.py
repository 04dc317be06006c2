"""`--precision fp16 --runtime tflite` end to end with real litert-torch, ai-edge-quantizer and LiteRT: a bundled
model through `edgeprof deploy --device local` (stored labelled fp16, fidelity against torch, the file's weights
float16 in its flatbuffer), a user's float .tflite converted and then given back as fp16 (as given), a sweep
cell, and a board behind a real sshd (boardlab.py).

Fidelity tolerance: float16 keeps an 11-bit significand, so each weight moves by at most 2^-11 (4.9e-4) of
itself; ds_cnn's outputs measured 1.9e-4 max abs error on a 0.80 scale (cosine 1 - 5e-8). The tests ask for
cosine >= 0.9999 (ten times tighter than the stored fp16 threshold, 0.999) and a max abs error within 1 % of the
reference's scale, and for the error to exceed the fp32 file's (the weights really changed). mobilenet_v2 (53
layers deep, random weights) measured 5.2e-3 on 0.64 (0.8 %, cosine 0.99997): its bound is 2 %."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edgeprof.cli.main import main
from edgeprof.store import Store

pytest.importorskip("ai_edge_litert")
pytest.importorskip("litert_torch")
pytest.importorskip("ai_edge_quantizer")

pytestmark = pytest.mark.slow

FAST = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--idle", "0", "--quiet",
        "--threads", "1"]


def deploy(args: list[str], db: str, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["deploy", "--device", "local", *args, "--db", db, "--json", str(out), *FAST])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(out.read_text())


def weights_in_file(path: str) -> tuple[int, int]:
    """(float16 constants that feed a DEQUANTIZE, weight inputs of CONV/DEPTHWISE/FC ops fed by neither a
    DEQUANTIZE of a float16 constant): read from the flatbuffer with LiteRT's own schema."""
    from ai_edge_litert import schema_py_generated as s
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = fu.read_model(path)
    sg = model.subgraphs[0]
    kinds = {v: k for k, v in vars(s.BuiltinOperator).items() if not k.startswith("_")}
    opname = [kinds[max(c.builtinCode, c.deprecatedBuiltinCode)] for c in model.operatorCodes]
    deq = {int(op.outputs[0]): int(op.inputs[0]) for op in sg.operators if opname[op.opcodeIndex] == "DEQUANTIZE"}
    data = [model.buffers[sg.tensors[i].buffer].data for i in deq.values() if sg.tensors[i].type == s.TensorType.FLOAT16]
    f16 = sum(1 for d in data if d is not None and len(d))
    float_weights = sum(1 for op in sg.operators
                        if opname[op.opcodeIndex] in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
                        and not (int(op.inputs[1]) in deq and sg.tensors[deq[int(op.inputs[1])]].type
                                 == s.TensorType.FLOAT16))
    return int(f16), float_weights


def assert_fp16_fidelity(f: dict[str, Any], fp32_error: float) -> None:
    assert f["ok"] and f["threshold"] == {"cosine_similarity_min": 0.999, "precision": "fp16"}
    assert f["cosine_similarity"] >= 0.9999
    assert fp32_error < f["max_abs_error"] <= 0.01 * f["outputs"][0]["max_abs_reference"]


def test_ds_cnn_fp16_is_stored_as_fp16_with_float16_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.sqlite")
    r32 = deploy(["--model", "ds_cnn", "--runtime", "tflite"], db, tmp_path / "a.json", capsys)
    r = deploy(["--model", "ds_cnn", "--runtime", "tflite", "--precision", "fp16"], db, tmp_path / "b.json", capsys)
    a = r["artifact"]
    assert r["precision"] == "fp16" and a["precision"] == "fp16" and a["format"] == "tflite"
    assert a["export_options"]["fp32_sha256"] == r32["artifact"]["sha256"] != a["sha256"]
    assert a["export_options"]["weights"].startswith("float16 (10 weight tensors, DEQUANTIZE to float32")
    census = a["export_options"]["weight_census"]
    assert census["ops_cast"] == {"CONV_2D": 4, "DEPTHWISE_CONV_2D": 5, "FULLY_CONNECTED": 1}
    assert census["ops_left"] == {} and census["fp32_tensors"] == 10  # the biases
    assert a["export_options"]["op_counts"]["DEQUANTIZE"] == 10
    assert [i["dtype"] for i in a["inputs"]] == ["float32"]
    assert weights_in_file(a["path"]) == (10, 0) and weights_in_file(r32["artifact"]["path"]) == (0, 10)
    assert 0.6 < a["size_bytes"] / r32["artifact"]["size_bytes"] < 0.7  # weights halved, biases and graph kept
    assert_fp16_fidelity(r["fidelity"], r32["fidelity"]["max_abs_error"])
    assert any(w["code"] == "precision_emulated" and "compute is float32" in w["message"] for w in r["warnings"])
    stored = Store(db).get(r["run_id"])
    assert stored.precision == "fp16" and stored.artifact is not None and stored.artifact.precision == "fp16"
    assert main(["results", "show", r["run_id"], "--db", db]) == 0
    assert "tflite fp16 [float16 weights, float32 compute]" in capsys.readouterr().out
    # the second run takes the cached fp16 file
    again = deploy(["--model", "ds_cnn", "--runtime", "tflite", "--precision", "fp16"], db, tmp_path / "c.json",
                   capsys)
    assert again["artifact"]["sha256"] == a["sha256"] and again["artifact"]["cache_hit"]


def test_a_users_float_tflite_is_converted_then_runs_as_given(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.sqlite")
    r32 = deploy(["--model", "ds_cnn", "--runtime", "tflite"], db, tmp_path / "a.json", capsys)
    mine = tmp_path / "kws.tflite"
    mine.write_bytes(Path(r32["artifact"]["path"]).read_bytes())
    r = deploy(["--model", str(mine), "--precision", "fp16"], db, tmp_path / "b.json", capsys)
    a = r["artifact"]
    assert r["precision"] == "fp16" and a["path"] != str(mine) and weights_in_file(a["path"]) == (10, 0)
    f = r["fidelity"]
    assert f["reference"] == "fp32 tflite file kws.tflite on the host (CPU)" and f["ok"]
    assert f["cosine_similarity"] >= 0.9999 and 0 < f["max_abs_error"] <= 0.01 * f["outputs"][0]["max_abs_reference"]
    given = tmp_path / "kws16.tflite"
    given.write_bytes(Path(a["path"]).read_bytes())
    g = deploy(["--model", str(given), "--precision", "fp16"], db, tmp_path / "c.json", capsys)
    assert g["precision"] == "fp16 (as given)" and g["artifact"]["path"] == str(given)
    assert g["artifact"]["sha256"] == a["sha256"]


def test_a_sweep_has_tflite_fp16_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.yaml").write_text(
        "name: fp16\nmodels: [ds_cnn]\ndevices: [local]\nruntimes: [tflite]\nprecisions: [fp32, fp16, int8]\nthreads: [1]\n"
        "settings: {min_duration_s: 0.2, min_queries: 10, warmup_s: 0.1, idle_s: 0}\n")
    db = str(tmp_path / "r.sqlite")
    assert main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")]) == 0
    capsys.readouterr()
    results = {r.precision: r for r in (Store(db).get(x.run_id) for x in Store(db).list())}
    assert set(results) == {"fp32", "fp16", "int8"}
    fp16 = results["fp16"]
    assert fp16.artifact is not None and fp16.artifact.precision == "fp16" and fp16.fidelity is not None
    assert fp16.artifact.size_bytes < results["fp32"].artifact.size_bytes  # type: ignore[union-attr]
    md = tmp_path / "r.md"
    assert main(["report", "--sweep", "last", "--out", str(md), "--db", db]) == 0
    assert "fp16" in md.read_text()


@pytest.fixture(scope="module")
def lab(ssh_lab: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from boardlab import board_lab

    with board_lab(ssh_lab, tmp_path_factory.mktemp("fp16-ssh"), "fp16-lab") as bl:
        yield bl


@pytest.mark.ssh
def test_fp16_tflite_on_a_board_over_sshd(lab: Any, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("rpi5", drive=False) as b:
        code, _, err, r = lab.deploy(b, "ds_cnn", "--runtime", "tflite", "--precision", "fp16", *FAST,
                                     monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0, err
    assert r is not None and r["precision"] == "fp16" and r["device"] == b.device
    assert r["runtime"] == "tflite" and r["fidelity"]["ok"]
    assert r["fidelity"]["cosine_similarity"] >= 0.9999
    assert weights_in_file(r["artifact"]["path"]) == (10, 0)


def test_mobilenet_v2_fp16_halves_the_file_and_keeps_top1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.sqlite")
    r = deploy(["--model", "mobilenet_v2", "--runtime", "tflite", "--precision", "fp16"], db, tmp_path / "m.json",
               capsys)
    a, f = r["artifact"], r["fidelity"]
    assert r["precision"] == "fp16" and f["ok"] and f["top1_rows"] == 1 and f["top1_agreement"] == 1.0
    assert f["cosine_similarity"] >= 0.9999 and 0 < f["max_abs_error"] <= 0.02 * f["outputs"][0]["max_abs_reference"]
    f16, left = weights_in_file(a["path"])
    assert left == 0 and f16 == sum(a["export_options"]["weight_census"]["ops_cast"].values()) == 53
    assert a["size_bytes"] < 8e6  # float16 weights: ~7 MB instead of ~14 MB
