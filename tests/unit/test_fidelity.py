"""Fidelity arithmetic and output decoding (pure numpy), and the reference chosen per model kind."""

import base64
from pathlib import Path

import numpy as np
import pytest

from edgeprof.evaluation.fidelity import compare, decode_outputs, reference_for
from edgeprof.records import Artifact


def enc(a):
    return {"shape": list(a.shape), "dtype": str(a.dtype), "b64": base64.b64encode(a.tobytes()).decode()}


def test_decode_both_forms():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[1, 2]], dtype=np.int64)
    got = decode_outputs([enc(a), {"shape": [1, 2], "dtype": "int64", "data": [1, 2]}])
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], b)


def test_metrics_and_top1():
    ref = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]], np.float32)
    got = ref + np.array([[0.0, 0.0, 0.95], [0.0, 0.0, 0.0]], np.float32)  # row 0 flips its top-1
    f = compare([got], [ref], precision="int8", num_classes=3)
    assert f.max_abs_error == pytest.approx(0.95)
    assert f.mean_abs_error == pytest.approx(0.95 / 6)
    cos = float(np.dot(got.ravel(), ref.ravel()) / np.linalg.norm(got) / np.linalg.norm(ref))
    assert f.cosine_similarity == pytest.approx(cos)
    assert f.top1_agreement == 0.5 and f.top1_rows == 2
    assert not f.ok and any("top-1" in p for p in f.problems)
    same = compare([ref], [ref], precision="fp32", num_classes=3)
    assert same.ok and same.cosine_similarity == pytest.approx(1.0) and same.max_abs_error == 0.0


def test_thresholds_by_precision_and_shape_problems():
    ref = np.linspace(-1, 1, 100).astype(np.float32).reshape(1, 100)
    noisy = ref + np.random.RandomState(0).normal(0, 0.05, ref.shape).astype(np.float32)
    assert compare([noisy], [ref], precision="int8").threshold["cosine_similarity_min"] == 0.99
    c = compare([noisy], [ref], precision="fp32")
    assert not c.ok and c.threshold["cosine_similarity_min"] == 0.9999
    bad = compare([np.zeros((3,))], [ref])
    assert not bad.ok and "shape" in bad.problems[0]
    nan = compare([np.full_like(ref, np.nan)], [ref])
    assert not nan.ok and any("NaN" in p for p in nan.problems)


def test_reference_kinds(tmp_path):
    from edgeprof.export.resolve import resolve_model

    art = Artifact(path="x", format="onnx", sha256="a" * 64, size_bytes=1, inputs=(), outputs=(), model_name="m",
                   source="s")
    ref, why = reference_for(resolve_model("ds_cnn"), art, art)
    assert ref.kind == "torch" and ref.num_classes == 12 and why is None
    f = tmp_path / "u.onnx"
    f.write_bytes(b"x")
    user = resolve_model(str(f))
    ref, why = reference_for(user, art, art)
    assert ref is None and "ran as given" in why
    q = Artifact(path="q", format="onnx", sha256="b" * 64, size_bytes=1, inputs=(), outputs=(), model_name="m",
                 source="s", precision="int8")
    ref, why = reference_for(user, q, art)
    assert ref.kind == "onnx" and ref.path == "x" and Path(f).name in ref.label


def test_torch_reference_outputs_are_computed_once_per_configuration(tmp_path, monkeypatch):
    """A torch reference's outputs are cached by the fp32 artifact's sha256, the seed and the exact inputs: the
    second measurement of a configuration reads them (no torch), another seed or input computes them again,
    and an unreadable entry is computed again."""
    from edgeprof.evaluation import fidelity
    from edgeprof.export.resolve import resolve_model
    from edgeprof.records import TensorSpec

    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path))
    calls = []
    real = fidelity._reference_outputs

    def counted(ref, feed, seed):
        calls.append(seed)
        return real(ref, feed, seed)

    monkeypatch.setattr(fidelity, "_reference_outputs", counted)
    source = resolve_model("ds_cnn")
    art = Artifact(model_name="ds_cnn", source="bundled:ds_cnn", format="onnx", precision="fp32", path="m.onnx",
                   sha256="ab" * 32, size_bytes=1, inputs=(TensorSpec("input", ("batch", 1, 49, 10), "float32"),),
                   outputs=("logits",))
    ref, why = reference_for(source, art)
    assert why is None and ref is not None and ref.content_sha256 == "ab" * 32
    specs, shapes = art.inputs, {"input": (1, 1, 49, 10)}
    first = fidelity.reference_outputs(ref, specs, shapes, 0)
    again = fidelity.reference_outputs(ref, specs, shapes, 0)
    assert calls == [0] and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    fidelity.reference_outputs(ref, specs, shapes, 1)  # another seed: other weights and inputs
    fidelity.reference_outputs(ref, specs, shapes, 0, fixed={"input": np.zeros((1, 1, 49, 10), np.float32)})
    assert calls == [0, 1, 0]
    for entry in (tmp_path / "references").glob("*.npz"):
        entry.write_bytes(b"not a zip")
    assert all(np.array_equal(a, b) for a, b in zip(fidelity.reference_outputs(ref, specs, shapes, 0), first,
                                                     strict=True))
    assert calls == [0, 1, 0, 0]
