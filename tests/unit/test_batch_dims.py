"""Which dim is the batch when it is not dim 0 (export/batch.py batch_dim, declared_batch_dim), the plan that fills
it (export/inputs.plan_inputs), its label, and a sweep file's written `batch:` (lab/spec.py, lab/matrix.py)."""

from __future__ import annotations

import pytest

from edgeprof.errors import ModelError
from edgeprof.export.batch import batch_dim, declared_batch_dim
from edgeprof.export.inputs import batch_label, plan_inputs
from edgeprof.records import IOTensor, TensorSpec


@pytest.mark.parametrize("shape,want", [
    (("batch", 3, 8), 0), ((None, 3), 0), ((-1, 3), 0), (("unk__12", 3), 0),
    ((5, "batch", 8), 1), ((2, "batch_size", 64), 1), (("seq", "N", 8), 1), ((5, 8, "batch"), 2),
    ((5, "unk__3", 8), None),  # a generated name means the batch on dim 0 only
    ((1, "N", 16), None), ((1, "B", 4), None),  # after a leading 1, a one-letter N counts something else
    ((1, "batch", 8), 1),  # ... a name that says batch is still the batch
    ((5, "seq", 8), None), ((10, 3, 8, 8), None), ((), None),
])
def test_batch_dim_is_dim_0_else_the_first_dim_named_like_a_batch(shape, want):
    assert batch_dim(TensorSpec("x", shape)) == want


def test_the_declared_shape_as_stored_gives_the_same_dim():
    for shape in ((5, "batch", 8), ("batch", 3), (10, 3, 8, 8), (None, 4), (2, "batch", 64)):
        assert declared_batch_dim(TensorSpec("x", shape).shape_str()) == (batch_dim(TensorSpec("x", shape)) or 0)
    assert declared_batch_dim(None) == 0


GRU = TensorSpec("x", (5, "batch", 8))


def test_batch_fills_a_dim_1_batch_and_the_symbol_it_shares():
    h = TensorSpec("h", (1, "batch", 16))
    p = plan_inputs([GRU, h], batch=4, seed=0)
    assert p.batch == 4 and p.batched == ("x", "h") and p.shapes == {"x": (5, 4, 8), "h": (1, 4, 16)}


def test_without_batch_the_dim_1_batch_is_1_and_what_input_feeds_there_is_the_batch():
    assert plan_inputs([GRU], batch=1, seed=0).shapes == {"x": (5, 1, 8)}
    p = plan_inputs([GRU], batch=1, seed=0, shapes={"x": (5, 3, 8)})
    assert p.batch == 3 and p.batched == ("x",)


def test_a_dim_1_batch_contradicting_batch_is_refused_naming_the_dim():
    with pytest.raises(ModelError, match=r"--input x=5x3x8: dimension 1 is the batch \(3\) but --batch is 2"):
        plan_inputs([GRU], batch=2, seed=0, shapes={"x": (5, 3, 8)})


def test_a_static_batch_and_a_model_without_batch_keep_their_rules():
    static = plan_inputs([TensorSpec("x", (10, 3, 8, 8))], batch=1, seed=0)
    assert static.batch == 10 and static.batched == ("x",)
    with pytest.raises(ModelError, match="the model is static"):
        plan_inputs([TensorSpec("x", (5, "seq", 8))], batch=4, seed=0, shapes={"x": (5, 2, 8)})


def test_the_label_names_each_inputs_batch_dim():
    rows = [IOTensor("input", [2, 512], "float32", declared="[batch, sequence]"),
            IOTensor("h", [2, 2, 64], "float32", declared="[2, batch, 64]"),
            IOTensor("c", [2, 2, 64], "float32", declared="[2, batch, 64]")]
    assert batch_label(2, ["input", "h", "c"], rows) == "batch 2: dim 0 of input; dim 1 of h, c"
    assert batch_label(10, ["x"], [IOTensor("x", [10, 3], "float32", declared="[10, 3]")]) == "batch 10: dim 0 of x"
    assert batch_label(1, [], rows) == ""


def _cells(tmp_path, extra):
    from edgeprof.lab.matrix import expand
    from edgeprof.lab.spec import load_sweep
    from edgeprof.records import local_device

    (tmp_path / "m.onnx").write_bytes(b"")
    (tmp_path / "s.yaml").write_text("models: [m.onnx]\ndevices: [local]\nruntimes: [onnxruntime]\n" + extra)
    return expand(load_sweep(str(tmp_path / "s.yaml")), [local_device()])


@pytest.mark.parametrize("extra,given", [("", [False]), ("batch: [1]\n", [True]), ("batch: [1, 4]\n", [True, True]),
                                         ("include: [{batch: 4}]\n", [False, True])])
def test_a_sweep_records_whether_its_batch_was_written(tmp_path, extra, given):
    cells = _cells(tmp_path, extra)
    assert [c.batch_given for c in cells] == given
    assert all(c.to_dict()["batch_given"] == g for c, g in zip(cells, given, strict=True))
