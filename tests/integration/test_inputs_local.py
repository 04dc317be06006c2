"""Models users bring, end to end on `--device local` (issue 11): a scalar int64 input that must be the sample
rate, a static model asked for --batch 4, a sequence model whose dim 0 is `sequence_length`, shared symbols,
input data from an .npz and from a directory of .npy, and the model's own refusal of its inputs."""

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx_fixtures import sample_rate_model  # tests/ is on sys.path via its conftest

from edgeprof.cli.main import main
from edgeprof.store import Store

FAST = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--quiet"]


def _save(graph, path, initializers=()):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return str(path)


def static_model(path):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "static",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
    return _save(graph, path)


def sequence_model(path):
    """frames[sequence_length, 16] + mask[sequence_length, 16] (a shared symbol); dim 0 is no batch."""
    graph = helper.make_graph([helper.make_node("Add", ["frames", "mask"], ["y"])], "seq",
                              [helper.make_tensor_value_info("frames", TensorProto.FLOAT, ["sequence_length", 16]),
                               helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["sequence_length", 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["sequence_length", 16])])
    return _save(graph, path)


def run(args, capsys):
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "r.sqlite")


def test_scalar_sample_rate_input_is_the_models_error_then_runs_with_its_value(tmp_path, db, capsys):
    model = sample_rate_model(tmp_path / "vad.onnx")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--db", db, *FAST], capsys)
    assert code != 0
    first = err.strip().splitlines()[0]
    assert first.startswith("edgeprof: error: the model rejected these inputs: ") and "Reshape" in first
    assert "sr: int64[] ← generated randint[0, 1) seed 0" in first  # the I/O summary of what was fed
    assert "--input-value" in first and "--input-data" in first
    assert "bug in edgeprof" not in err and Store(db).count() == 0
    out_json = tmp_path / "r.json"
    code, out, err = run(["deploy", "--device", "local", "--model", model, "--input-value", "sr=16000", "--db", db,
                          "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out_json.read_text())
    ins = {i["name"]: i for i in r["io"]["inputs"]}
    assert ins["sr"]["source"] == "value" and ins["sr"]["value"] == 16000 and ins["sr"]["shape"] == []
    assert ins["x"]["source"] == "generated" and ins["x"]["seed"] == 0 and ins["x"]["shape"] == [1, 4]
    assert r["io"]["outputs"] == [{"name": "y", "shape": [4, 1], "dtype": "float32", "declared": None,
                                   "source": None, "seed": None, "low": None, "high": None, "value": None,
                                   "file": None, "sha256": None}]
    assert r["io"]["first_run_ms"] > 0 and r["io"]["load_s"] > 0
    assert "in  sr: int64[] ← value 16000" in out and "out y: float32[4, 1]" in out and "first inference" in out
    code, out, _ = run(["results", "show", r["run_id"], "--db", db], capsys)
    assert code == 0 and "in  sr: int64[] ← value 16000" in out and "out y: float32[4, 1]" in out


def test_input_data_from_npz_and_from_a_directory_of_npy(tmp_path, db, capsys):
    model = sample_rate_model(tmp_path / "vad.onnx")
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    npz = tmp_path / "audio.npz"
    np.savez(npz, x=x, sr=np.array(16000, dtype=np.int64))
    d = tmp_path / "samples"
    d.mkdir()
    np.save(d / "x.npy", x)
    np.save(d / "sr.npy", np.array(16000, dtype=np.int64))
    for given, file_of_x in ((npz, str(npz.resolve())), (d, str((d / "x.npy").resolve()))):
        out_json = tmp_path / "r.json"
        code, out, err = run(["deploy", "--device", "local", "--model", model, "--input-data", str(given),
                              "--batch", "2", "--no-store", "--json", str(out_json), *FAST], capsys)
        assert code == 0, err
        r = json.loads(out_json.read_text())
        ins = {i["name"]: i for i in r["io"]["inputs"]}
        assert ins["x"]["source"] == "data" and ins["x"]["file"] == file_of_x and ins["x"]["shape"] == [2, 4]
        assert len(ins["x"]["sha256"]) == 64 and ins["sr"]["source"] == "data"
        assert r["io"]["outputs"][0]["shape"] == [4, 2] and r["batch"] == 2
        assert r["transfer"]["artifact_bytes"] > 0
    # data that does not fit the model: one line before anything runs
    np.savez(tmp_path / "bad.npz", sr=np.array(16000, dtype=np.int32))
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--input-data", str(tmp_path / "bad.npz"),
                        "--no-store", *FAST], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "array 'sr' is int32, the model's input is int64" in err


def test_static_model_with_batch_4_is_refused_not_stored_as_batch_4(tmp_path, db, capsys):
    model = static_model(tmp_path / "static.onnx")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "4", "--db", db, *FAST], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--batch 4: the model is static" in err and "fixed at 1" in err
    assert Store(db).count() == 0


def test_input_fixing_dim0_contradicting_batch_is_refused(tmp_path, db, capsys):
    model = sample_rate_model(tmp_path / "vad.onnx")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "4", "--input", "x=1x4",
                        "--input-value", "sr=16000", "--db", db, *FAST], capsys)
    assert code == 2 and "dimension 0 is the batch (1) but --batch is 4" in err
    assert Store(db).count() == 0


def test_sequence_length_dim0_must_be_given_and_shared_symbols_are_given_once(tmp_path, db, capsys):
    model = sequence_model(tmp_path / "seq.onnx")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--db", db, *FAST], capsys)
    assert code == 2
    line = err.strip().splitlines()[0]
    assert "frames[sequence_length, 16] dim 0 (sequence_length)" in line
    assert "mask[sequence_length, 16] dim 0 (sequence_length)" in line  # every input, in one error
    out_json = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--input", "frames=50x16", "--db", db,
                        "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out_json.read_text())
    assert {i["name"]: i["shape"] for i in r["io"]["inputs"]} == {"frames": [50, 16], "mask": [50, 16]}
    assert r["io"]["batched"] == [] and r["batch"] == 1
    assert r["io"]["outputs"][0]["shape"] == [50, 16]


def test_sweep_files_take_the_same_input_keys(tmp_path, db, capsys):
    from edgeprof.inventory.devices import Inventory
    from edgeprof.lab.spec import expand, parse_sweep, resolve_devices
    from edgeprof.records import local_device

    model = sample_rate_model(tmp_path / "vad.onnx")
    np.savez(tmp_path / "audio.npz", x=np.ones((1, 4), np.float32))
    text = ("name: inputs\nmodels: [vad.onnx]\ndevices: [local]\n"
            "settings: {min_duration_s: 0.2, min_queries: 10, warmup_s: 0, timeout_s: 120,\n"
            "           input_values: {sr: 16000}, input_data: audio.npz}\n")
    sweep = tmp_path / "s.yaml"
    sweep.write_text(text)
    spec = parse_sweep(text, str(sweep))
    inv = Inventory(path="devices.yaml", by_name={"local": local_device()})
    run_spec = expand(spec, resolve_devices(spec, inv))[0].run_spec()
    assert run_spec.input_values == {"sr": 16000} and run_spec.input_data == str(tmp_path / "audio.npz")
    code, _, err = run(["sweep", str(sweep), "--db", db, "--quiet"], capsys)
    assert code == 0, err
    store = Store(db)
    (row,) = store.list()
    r = store.get(row.run_id)
    assert r.status == "ok" and r.io is not None and r.settings.input_values == {"sr": 16000}
    assert {t.name: t.source for t in r.io.inputs} == {"x": "data", "sr": "value"}
    assert model.endswith("vad.onnx")
    # a bad value names the file, line and path
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: [vad.onnx]\ndevices: [local]\nsettings:\n  input_ranges: {x: '5:1'}\n")
    code, _, err = run(["sweep", str(bad), "--db", db, "--quiet"], capsys)
    assert code == 2 and "bad.yaml:4" in err and "settings.input_ranges.x" in err


def test_tflite_file_with_a_constant_input_and_the_io_summary(tmp_path, db, capsys):
    pytest.importorskip("ai_edge_litert")
    pytest.importorskip("litert_torch")
    from tflite_fixtures import export_two_inputs

    model = export_two_inputs(tmp_path)
    out_json = tmp_path / "r.json"
    code, out, err = run(["deploy", "--device", "local", "--model", str(model), "--runtime", "tflite",
                          "--input", "a=1x9x3", "--input", "b=1x9x4", "--input-value", "b=3", "--no-store",
                          "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out_json.read_text())
    ins = {i["name"]: i for i in r["io"]["inputs"]}
    assert ins["b"]["source"] == "value" and ins["b"]["value"] == 3 and ins["b"]["dtype"] == "int32"
    assert ins["a"]["declared"] == "[1, ?, 3]" and ins["a"]["shape"] == [1, 9, 3]
    assert r["io"]["outputs"][0]["shape"] == [1, 9, 4] and r["io"]["first_run_ms"] > 0
    assert "in  a: float32[1, 9, 3] (model [1, ?, 3])" in out and "in  b: int32[1, 9, 4] (model [1, ?, 4]) ← value 3" in out
    # int8 of the same file calibrates with what the run feeds: b the constant 3, a drawn from its range
    code, out, err = run(["deploy", "--device", "local", "--model", str(model), "--runtime", "tflite",
                          "--precision", "int8", "--input", "a=1x9x3", "--input", "b=1x9x4", "--input-value", "b=3",
                          "--input-range", "a=-2:2", "--no-store", "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    q = json.loads(out_json.read_text())
    fed = q["artifact"]["export_options"]["calibration"]["inputs"]
    assert fed["b"] == {"feed": "value", "value": 3} and fed["a"] == {"feed": "generated", "low": -2.0, "high": 2.0}


def test_the_batch_fed_by_input_is_the_batch_stored_and_counted(tmp_path, capsys):
    model = sample_rate_model(tmp_path / "vad.onnx")
    out_json = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--input", "x=3x4", "--input-value",
                        "sr=16000", "--no-store", "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out_json.read_text())
    assert r["batch"] == 3 and r["io"]["batch"] == 3 and r["io"]["batched"] == ["x"]
    assert r["throughput_ips"] == pytest.approx(3 * r["latency_ms"]["n"] / r["settings"]["window_s"])


def test_int8_calibration_feeds_the_constant_the_run_feeds(tmp_path, capsys):
    """int8 calibration feeds what the run feeds: with --input-value sr=16000 it calibrates with sr = 16000 (it
    drew sr at random, from [0, 1), so the calibration run's Reshape failed: "int8 quantisation failed ...
    requested shape:{0,-1}"), and what fed it is part of the artifact's key and export options."""
    model = sample_rate_model(tmp_path / "vad.onnx")
    out_json = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "int8", "--input-value",
                        "sr=16000", "--no-store", "--json", str(out_json), *FAST], capsys)
    assert "int8 quantisation failed" not in err
    assert code == 0, err
    r = json.loads(out_json.read_text())
    assert r["precision"] == "int8" and r["io"]["outputs"][0]["shape"] == [4, 1]
    calib = r["environment"]["export_options"]["calibration"]
    assert calib["kind"] == "seeded-random"
    assert calib["inputs"] == {"sr": {"feed": "value", "value": 16000},
                               "x": {"feed": "generated", "low": 0.0, "high": 1.0}}
    # another range for x calibrates another artifact (the key holds what fed calibration), not the cached one
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "int8", "--input-value",
                        "sr=16000", "--input-range", "x=-8:8", "--no-store", "--json", str(out_json), *FAST], capsys)
    assert code == 0, err
    r2 = json.loads(out_json.read_text())
    assert r2["environment"]["export_options"]["calibration"]["inputs"]["x"] == {"feed": "generated", "low": -8.0,
                                                                                 "high": 8.0}
    assert r2["artifact"]["path"] != r["artifact"]["path"] and not r2["artifact"]["cache_hit"]
