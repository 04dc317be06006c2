"""Cache keys stay what they were: an artifact cache filled by an earlier edgeprof still hits.

The values were computed by the code before the export pipeline was reorganised (library versions pinned to
"pinned" here). A failure means every cached export would be rebuilt: if the change really alters the exported
file, replace the module's value in artifact_cache.EXPORT_CODE and these keys; if the bundled models changed
(their source text is part of the key), recompute them."""

from importlib import metadata

import pytest

from edgeprof.export import artifact_cache
from edgeprof.export.artifact_cache import key_of
from edgeprof.export.onnx_export import _options, cache_key
from edgeprof.export.resolve import resolve_model


@pytest.fixture
def pinned_versions(monkeypatch):
    monkeypatch.setattr(metadata, "version", lambda dist: "pinned")
    assert artifact_cache.dist_version("torch") == "pinned"


def test_onnx_key_of_a_bundled_model_is_unchanged(pinned_versions):
    gemm = resolve_model("gemm")
    assert cache_key(gemm, 0, _options("dynamo", 18)) == \
        "b76662cacc689a0d981f4d65daca683fa60ba2c0e171c80ae59bd61598840356"
    assert cache_key(gemm, 3, _options("dynamo", 15, 8)) == \
        "73f83d140b08ba4031f11381ec624a7548f3ce0fcc97cab1708ebd77833d1305"


def test_tflite_key_of_a_bundled_model_is_unchanged(pinned_versions):
    from edgeprof.export.tflite_export import export_material

    gemm = resolve_model("gemm")
    material = export_material(gemm, 0, {"input": (1, 16, 1760)})
    assert key_of({**material, "precision": "fp32"}) == \
        "db964ba8ed376b8763d01d2d2636a1824c05add6610c662789118a09f12a0842"


def test_the_export_code_version_is_pinned_not_read_from_the_files():
    """Moving code between the export modules does not invalidate the cache (artifact_cache.EXPORT_CODE)."""
    assert set(artifact_cache.EXPORT_CODE) == {"onnx_export.py", "artifact_cache.py", "inputs.py", "flops.py",
                                               "quantize.py", "tflite_export.py"}
    assert all(len(v) == 64 for v in artifact_cache.EXPORT_CODE.values())
