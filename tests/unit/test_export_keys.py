"""Cache keys: the same model, seed, options and export code give the same key (a second run hits the cache);
a change to any of them, the export code's text included, gives another (a cached file is never one that an
older exporter or other options wrote)."""

from importlib import metadata
from pathlib import Path

import pytest

from edgeprof.export import artifact_cache
from edgeprof.export.artifact_cache import key_of
from edgeprof.export.onnx_export import _options, cache_key
from edgeprof.export.resolve import resolve_model


@pytest.fixture
def pinned_versions(monkeypatch):
    monkeypatch.setattr(metadata, "version", lambda dist: "pinned")
    assert artifact_cache.dist_version("torch") == "pinned"


def test_onnx_keys_are_deterministic_and_follow_seed_and_options(pinned_versions):
    gemm = resolve_model("gemm")
    key = cache_key(gemm, 0, _options("dynamo", 18))
    assert len(key) == 64 and key == cache_key(resolve_model("gemm"), 0, _options("dynamo", 18))
    assert key != cache_key(gemm, 3, _options("dynamo", 18))
    assert key != cache_key(gemm, 0, _options("dynamo", 15, 8))
    assert key != cache_key(resolve_model("conv"), 0, _options("dynamo", 18))


@pytest.mark.parametrize("module", ["onnx_export.py", "resolve.py", "inputs.py", "flops.py", "artifact_cache.py"])
def test_a_change_to_the_onnx_export_code_makes_a_new_key(pinned_versions, monkeypatch, module):
    gemm = resolve_model("gemm")
    before = cache_key(gemm, 0, _options("dynamo", 18))
    real = artifact_cache.text_hash
    monkeypatch.setattr(artifact_cache, "text_hash",
                        lambda p: "changed" if Path(p).name == module else real(p))
    assert cache_key(gemm, 0, _options("dynamo", 18)) != before


def test_a_change_to_the_tflite_export_code_makes_a_new_key(pinned_versions, monkeypatch):
    from edgeprof.export.tflite_export import export_material

    gemm = resolve_model("gemm")
    key = key_of({**export_material(gemm, 0, {"input": (1, 16, 1760)}), "precision": "fp32"})
    assert key == key_of({**export_material(gemm, 0, {"input": (1, 16, 1760)}), "precision": "fp32"})
    real = artifact_cache.text_hash
    monkeypatch.setattr(artifact_cache, "text_hash",
                        lambda p: "changed" if Path(p).name == "tflite_export.py" else real(p))
    assert key_of({**export_material(gemm, 0, {"input": (1, 16, 1760)}), "precision": "fp32"}) != key


def test_the_code_version_is_the_module_text():
    here = Path(artifact_cache.__file__).resolve().parent
    for module in ("onnx_export.py", "quantize.py", "tflite_export.py"):
        assert artifact_cache.code_version(module) == artifact_cache.text_hash(here / module)
