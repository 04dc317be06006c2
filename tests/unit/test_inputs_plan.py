"""The input plan (export/inputs.plan_inputs): shapes, the batch as meant, constants, ranges, data files, and the
agent's copy of the generator building the same arrays as the host's."""

from __future__ import annotations

import numpy as np
import pytest

from edgeprof.errors import ConfigError, ModelError
from edgeprof.export.inputs import (
    io_summary_lines,
    is_batch_dim,
    load_input_data,
    parse_input_range,
    parse_input_value,
    plan_inputs,
)
from edgeprof.records import IOSummary, TensorSpec
from edgeprof_agent.inputs import make_inputs as agent_make_inputs
from edgeprof_agent.messages import InputSpec


def T(name, shape, dtype="float32", low=0.0, high=1.0):
    return TensorSpec(name, tuple(shape), dtype, low, high)


def test_only_a_batch_named_or_unnamed_dim0_is_the_batch():
    assert is_batch_dim(T("x", [None, 3]), 0)
    assert is_batch_dim(T("x", ["batch", 3]), 0) and is_batch_dim(T("x", ["N", 3]), 0)
    assert is_batch_dim(T("x", ["batch_size", 3]), 0) and is_batch_dim(T("x", ["unk__12", 3]), 0)
    assert not is_batch_dim(T("x", ["sequence_length", 3]), 0)
    # the common exporters' names for dim 0 (issue 20): Paddle2ONNX, tf2onnx, torch dynamo, keras2onnx
    for name in ("DynamicDimension.0", "DynamicDimension.3", "p2o.DynamicDimension.0", "unk__123", "s6", "s77", "None", "N", "batch_size",
                 "Batch", "batch_dim", "input_batch"):
        assert is_batch_dim(T("x", [name, 3]), 0), name
    for name in ("seq", "time", "num_boxes", "sequence", "s", "height", "DynamicDimension"):
        assert not is_batch_dim(T("x", [name, 3]), 0), name
    assert not is_batch_dim(T("x", [1, 3]), 0) and not is_batch_dim(T("x", ["batch", 3]), 1)
    assert not is_batch_dim(T("sr", [], "int64"), 0)


def test_a_sequence_model_dim0_must_be_given_not_taken_as_the_batch():
    specs = [T("frames", ["sequence_length", 80])]
    with pytest.raises(ModelError) as e:
        plan_inputs(specs, batch=1, seed=0)
    assert "frames[sequence_length, 80] dim 0 (sequence_length)" in str(e.value)
    assert "--input frames=128x80" in (e.value.hint or "")
    plan = plan_inputs(specs, batch=1, seed=0, shapes={"frames": (50, 80)})
    assert plan.shapes == {"frames": (50, 80)} and plan.batched == ()


def test_one_error_lists_every_missing_dim_of_every_input_and_unnamed_dims_print_as_question_marks():
    specs = [T("ids", ["batch", "seq"], "int64"), T("mask", ["batch", "seq"], "int64"),
             T("img", [None, 3, None, None]), T("pos", ["batch", "other"], "int64")]
    with pytest.raises(ModelError) as e:
        plan_inputs(specs, batch=2, seed=0)
    msg = str(e.value)
    for part in ("ids[batch, seq] dim 1 (seq)", "mask[batch, seq] dim 1 (seq)", "img[?, 3, ?, ?] dim 2 (?), dim 3 (?)",
                 "pos[batch, other] dim 1 (other)"):
        assert part in msg
    assert "dynamic dimensions" in msg
    hint = e.value.hint or ""
    assert "--input ids=2x128" in hint and "--input img=2x3x224x224" in hint and "--input pos=2x128" in hint
    assert "--input mask=" not in hint  # mask shares seq with ids: given once


def test_inputs_sharing_a_symbol_share_its_size_given_once():
    specs = [T("ids", ["batch", "seq"], "int64"), T("mask", ["batch", "seq"], "int64"),
             T("state", [2, "batch", 64])]
    plan = plan_inputs(specs, batch=3, seed=0, shapes={"ids": (3, 128)})
    assert plan.shapes == {"ids": (3, 128), "mask": (3, 128), "state": (2, 3, 64)}
    with pytest.raises(ModelError, match="share its size|sets seq = 128"):
        plan_inputs(specs, batch=3, seed=0, shapes={"ids": (3, 128), "mask": (3, 64)})


def test_batch_is_dim0_of_every_batched_input_and_a_contradiction_is_one_error():
    specs = [T("x", ["batch", 4])]
    assert plan_inputs(specs, batch=4, seed=0).shapes == {"x": (4, 4)}
    with pytest.raises(ModelError, match=r"--input x=2x4: dimension 0 is the batch \(2\) but --batch is 4"):
        plan_inputs(specs, batch=4, seed=0, shapes={"x": (2, 4)})
    # without --batch, what --input feeds is the batch (stored and counted as fed)
    assert plan_inputs(specs, batch=1, seed=0, shapes={"x": (2, 4)}).batch == 2
    two = [T("a", ["batch", 4]), T("b", ["N", 2])]
    with pytest.raises(ModelError, match="different batches"):
        plan_inputs(two, batch=1, seed=0, shapes={"a": (2, 4), "b": (3, 2)})
    assert plan_inputs(two, batch=1, seed=0, shapes={"a": (2, 4)}).shapes["b"] == (2, 2)


def test_a_static_model_refuses_a_batch_it_cannot_be_fed():
    specs = [T("x", [1, 3, 8, 8])]
    with pytest.raises(ModelError) as e:
        plan_inputs(specs, batch=4, seed=0)
    assert "--batch 4: the model is static" in str(e.value) and "fixed at 1" in str(e.value)
    assert plan_inputs(specs, batch=1, seed=0).shapes == {"x": (1, 3, 8, 8)}
    assert plan_inputs([T("x", [4, 3])], batch=4, seed=0).shapes == {"x": (4, 3)}  # built for batch 4


def test_batch_1_given_on_a_static_batch_10_is_refused_the_default_is_not():
    specs = [T("x", [10, 3, 8, 8])]
    assert plan_inputs(specs, batch=1, seed=0).batch == 10  # --batch left out: the static batch is the batch
    assert plan_inputs(specs, batch=10, seed=0, batch_given=True).batch == 10
    with pytest.raises(ModelError, match=r"--batch 1: the model is static .*fixed at 10"):
        plan_inputs(specs, batch=1, seed=0, batch_given=True)
    assert plan_inputs([T("x", [1, 3])], batch=1, seed=0, batch_given=True).batch == 1  # a static 1 is 1


def test_values_and_ranges_are_typed_and_checked():
    specs = [T("x", ["batch", 4]), T("sr", [], "int64"), T("ids", ["batch", 4], "int64")]
    plan = plan_inputs(specs, batch=1, seed=0, values={"sr": 16000}, ranges={"ids": (5, 9)})
    arrays = plan.arrays()
    assert arrays["sr"].shape == () and arrays["sr"].dtype == np.int64 and int(arrays["sr"]) == 16000
    assert arrays["ids"].min() >= 5 and arrays["ids"].max() < 9
    with pytest.raises(ModelError, match="give an integer"):
        plan_inputs(specs, batch=1, seed=0, values={"sr": 0.5})
    with pytest.raises(ModelError, match="integer bounds"):
        plan_inputs(specs, batch=1, seed=0, ranges={"ids": (0.5, 3)})
    with pytest.raises(ModelError, match="no input named 'rate'.*"):
        plan_inputs(specs, batch=1, seed=0, values={"rate": 1})
    with pytest.raises(ConfigError, match="fed by --input-value"):
        plan_inputs(specs, batch=1, seed=0, values={"sr": 16000}, ranges={"sr": (0, 2)})
    assert parse_input_value("sr=16000") == ("sr", 16000) and parse_input_value("t=0.5") == ("t", 0.5)
    assert parse_input_value("flag=true") == ("flag", True)
    assert parse_input_range("ids=0:30522") == ("ids", (0.0, 30522.0))
    for bad in ("ids=5:5", "ids=9:1", "ids", "ids=a:b"):
        with pytest.raises(ConfigError):
            parse_input_range(bad)
    with pytest.raises(ConfigError, match="not a number"):
        parse_input_value("sr=fast")


def test_npz_and_npy_dir_feed_inputs_with_provenance(tmp_path):
    specs = [T("x", ["batch", "n"]), T("sr", [], "int64"), T("y", ["batch", 2])]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    npz = tmp_path / "d.npz"
    np.savez(npz, x=x, sr=np.array(16000, dtype=np.int64))
    data = load_input_data(str(npz), tmp_path / "cache")
    plan = plan_inputs(specs, batch=2, seed=0, data=data)
    assert plan.shapes == {"x": (2, 3), "sr": (), "y": (2, 2)}
    arrays = plan.arrays()
    assert np.array_equal(arrays["x"], x) and int(arrays["sr"]) == 16000
    rows = {r.name: r for r in plan.io_inputs()}
    assert rows["x"].source == "data" and rows["x"].file == str(npz.resolve()) and len(rows["x"].sha256 or "") == 64
    assert rows["y"].source == "generated" and rows["y"].seed == 0
    d = tmp_path / "dir"
    d.mkdir()
    np.save(d / "x.npy", x)
    np.save(d / "sr.npy", np.array(16000, dtype=np.int64))
    data2 = load_input_data(str(d), tmp_path / "cache")
    assert data2.files["x"][0].endswith("x.npy") and data2.push_path.endswith(".npz")
    with np.load(data2.push_path) as packed:
        assert sorted(packed.files) == ["sr", "x"] and np.array_equal(packed["x"], x)
    # the agent builds the same arrays as the host, the data read from the pushed file
    req = [InputSpec(**i) for i in plan_inputs(specs, batch=2, seed=7, data=data2).request_inputs()]
    got = dict(agent_make_inputs(req, 7, data2.push_path))
    want = plan_inputs(specs, batch=2, seed=7, data=data2).arrays()
    for k in want:
        assert np.array_equal(got[k], want[k]) and got[k].dtype == want[k].dtype


def test_data_that_does_not_fit_the_model_is_refused(tmp_path):
    specs = [T("x", ["batch", 3]), T("sr", [], "int64")]
    bad_dtype = tmp_path / "a.npz"
    np.savez(bad_dtype, sr=np.array(16000, dtype=np.int32))
    with pytest.raises(ModelError, match="array 'sr' is int32, the model's input is int64"):
        plan_inputs(specs, batch=1, seed=0, data=load_input_data(str(bad_dtype)))
    bad_shape = tmp_path / "b.npz"
    np.savez(bad_shape, x=np.zeros((1, 4), np.float32))
    with pytest.raises(ModelError, match="dimension 1 is fixed at 3 in the model, not 4"):
        plan_inputs(specs, batch=1, seed=0, data=load_input_data(str(bad_shape)))
    unknown = tmp_path / "c.npz"
    np.savez(unknown, audio=np.zeros((1, 3), np.float32))
    with pytest.raises(ModelError, match="array 'audio': the model has no input named 'audio'"):
        plan_inputs(specs, batch=1, seed=0, data=load_input_data(str(unknown)))
    batch = tmp_path / "e.npz"
    np.savez(batch, x=np.zeros((8, 3), np.float32))
    with pytest.raises(ModelError, match="dimension 0 is the batch \\(8\\) but --batch is 2"):
        plan_inputs(specs, batch=2, seed=0, data=load_input_data(str(batch)))
    assert plan_inputs(specs, batch=1, seed=0, data=load_input_data(str(batch)),
                       values={"sr": 1}).batch == 8  # without --batch, the batch fed is the batch
    with pytest.raises(ConfigError, match="no such file"):
        load_input_data(str(tmp_path / "missing.npz"))
    np.save(tmp_path / "one.npy", np.zeros(3))
    with pytest.raises(ConfigError, match="does not say which input"):
        load_input_data(str(tmp_path / "one.npy"))


def test_host_and_agent_generate_the_same_arrays_skipping_constants():
    specs = [T("a", [2, 3], low=-1, high=1), T("sr", [], "int64"), T("b", [4], "int64", 0, 100),
             T("m", [2], "bool", 0, 2)]
    plan = plan_inputs(specs, batch=1, seed=11, values={"sr": 8000})
    want = plan.arrays()
    got = dict(agent_make_inputs([InputSpec(**i) for i in plan.request_inputs()], 11))
    for k in want:
        assert np.array_equal(got[k], want[k]) and str(got[k].dtype) == str(want[k].dtype), k
    # the constant draws nothing: the inputs after it get what they would get without it
    alone = plan_inputs([specs[0], specs[2], specs[3]], batch=1, seed=11).arrays()
    assert np.array_equal(alone["b"], want["b"])


def test_io_summary_round_trips_and_reads_well():
    plan = plan_inputs([T("x", ["batch", 4]), T("sr", [], "int64")], batch=2, seed=3, values={"sr": 16000})
    io = IOSummary(inputs=plan.io_inputs(), batch=2, batched=list(plan.batched), load_s=0.5, first_run_ms=3.0)
    assert IOSummary.from_dict(io.to_dict()) == io
    lines = io_summary_lines(io.inputs)
    assert lines[0] == "in  x: float32[2, 4] (model [batch, 4]) ← generated uniform[0, 1) seed 3"
    assert lines[1] == "in  sr: int64[] ← value 16000"
    zeros = plan_inputs([T("sr", [], "int64")], batch=1, seed=0).io_inputs()
    assert io_summary_lines(zeros) == ["in  sr: int64[] ← generated randint[0, 1) seed 0 (every value 0)"]
    flags = plan_inputs([T("m", [2], "bool", 0, 2)], batch=1, seed=1).io_inputs()
    assert io_summary_lines(flags) == ["in  m: bool[2] ← generated random bool seed 1"]


def test_schema_3_io_section_and_older_rows_migrate_to_none():
    import json
    from pathlib import Path

    from edgeprof.records import Result

    golden = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"
    old = Result.from_dict(json.loads((golden / "v2" / "ok_local_ds_cnn.json").read_text()))
    assert old.io is None and old.to_dict()["io"] is None
    raw = json.loads((golden / "v3" / "ok_local_ds_cnn.json").read_text())
    r = Result.from_dict(raw)
    assert r.io is not None and r.io.inputs[0].source == "generated" and r.io.inputs[0].shape == [1, 1, 49, 10]
    assert r.io.outputs and r.io.outputs[0].shape == raw["io"]["outputs"][0]["shape"]
    assert r.io.first_run_ms == raw["io"]["first_run_ms"] > 0
    assert r.to_dict()["io"] == raw["io"]


def test_dims_named_question_mark_are_unnamed_each_its_own_size():
    # Paddle2ONNX writes dim_param "?" for every dynamic dim (rapidocr's PaddleOCR classifier: x[?, 3, ?, ?]);
    # found by the real-model corpus: "?" was taken as one shared symbol and 1x3x48x192 was refused. The ONNX
    # reader makes "?" an unnamed dim (None), as the graph means it.
    import onnx
    from onnx import TensorProto, helper

    from edgeprof.export.onnx_export import _graph_inputs

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["xo"]), helper.make_node("Identity", ["y"], ["yo"])], "q",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["?", 3, "?", "?"]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["?", "?"])],
        [helper.make_tensor_value_info("xo", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("yo", TensorProto.FLOAT, None)])
    specs = list(_graph_inputs(helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])))
    assert [s.shape for s in specs] == [(None, 3, None, None), (None, None)]
    plan = plan_inputs(specs, batch=1, seed=0, shapes={"x": (1, 3, 48, 192), "y": (1, 7)})
    assert plan.shapes == {"x": (1, 3, 48, 192), "y": (1, 7)}
    with pytest.raises(ModelError) as e:
        plan_inputs(specs, batch=1, seed=0, shapes={"x": (1, 3, 48, 192)})
    assert "y[?, ?] dim 1 (?)" in str(e.value) and "dim 0 (?)" not in str(e.value)  # an unnamed dim 0 is the batch
    assert "--input y=1x128" in (e.value.hint or "")


@pytest.mark.parametrize("flag", [["--input-value", "sr=16000"], ["--input-range", "x=0:4"],
                                  ["--input-data", "audio.npz"], ["--input", "x=1x4"], ["--calibration", "calib"]])
def test_input_flags_with_the_null_runtime_are_refused_in_one_line(flag, capsys, tmp_path):
    """The null runtime feeds no model inputs: an input flag with it is refused (it was silently dropped)."""
    from edgeprof.cli.main import main

    np.savez(tmp_path / "audio.npz", x=np.ones((1, 4), np.float32))
    flag = [str(tmp_path / f) if f.endswith(".npz") else f for f in flag]
    assert main(["deploy", "--device", "local", "--model", "gemm", "--runtime", "null", *flag, "--no-store",
                 "--min-duration", "0.1", "--warmup", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{flag[0]} with --runtime null: the null runtime feeds no model inputs" in err
    assert len(err.strip().splitlines()) == 1
