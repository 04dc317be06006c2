"""The gen lane (marker `gen`, every test under tests/gen): the bundled tiny Llama built for each runtime once per
run, shared by the run's xdist workers (one folder beside their basetemps, a file lock per build, as
tests/conftest.py's run_dir and shared_lock do), in a cache of the run's own (artifact_cache entries, written
atomically: two builders of one key are safe, the lock only saves the second build)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def shared_lock(path: Path) -> Iterator[None]:
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.getbasetemp().parent / name
        path.mkdir(exist_ok=True)
        return path
    return tmp_path_factory.mktemp(name, numbered=False)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/gen/" in str(item.fspath):
            item.add_marker(pytest.mark.gen)


@pytest.fixture(scope="session")
def gen_cache(tmp_path_factory) -> Path:
    return run_dir(tmp_path_factory, "gen-models")


@pytest.fixture(scope="session")
def tiny_hf(gen_cache) -> Path:
    from edgeprof.generative.build import hf_folder

    with shared_lock(gen_cache / "hf.lock"):
        return Path(hf_folder("llama_tiny", cache_dir=gen_cache).path).parent


@pytest.fixture(scope="session")
def tiny_ortgenai(gen_cache, tiny_hf):
    """precision → the onnxruntime-genai folder its model builder wrote (built once per run, ~15 s each)."""
    pytest.importorskip("onnxruntime_genai")
    from edgeprof.generative.build import ortgenai_folder

    def get(precision: str) -> Path:
        with shared_lock(gen_cache / f"ortgenai-{precision}.lock"):
            return Path(ortgenai_folder(tiny_hf, precision, cache_dir=gen_cache, name="llama_tiny").path).parent

    return get


@pytest.fixture(scope="session")
def tiny_gguf(gen_cache, tiny_hf):
    from edgeprof.generative.build import gguf_file

    def get(quant: str) -> Path:
        with shared_lock(gen_cache / f"gguf-{quant}.lock"):
            return Path(gguf_file(tiny_hf, quant, cache_dir=gen_cache, name="llama_tiny").path)

    return get
