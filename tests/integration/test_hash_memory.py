"""A user's model file is hashed once, not on every deploy (export/hashes.py), through the CLI on the local device.

The observable is every call of the one function that reads a file to hash it (artifact_cache.sha256_file), counted
per path: the second deploy of the same file reads it 0 times (the record in $XDG_CACHE_HOME/edgeprof/hashes, written by
the first, is what a second process reads too); a file rewritten in place to the same size is read again and its
new sha256 stored; a record that was damaged is ignored and rewritten; the external-data content hash (two files)
is remembered the same way. Each file is left RACY_S seconds after its last change before a deploy: a file changed
more recently is read every time, not remembered (hashes.py)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import edgeprof.export.artifact_cache as artifact_cache
import edgeprof.export.external_data as external_data
from edgeprof.cli.main import main
from edgeprof.export import hashes

FAST = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--idle", "0", "--quiet"]


def write_model(path: Path, seed: int, external: bool = False) -> Path:
    w = np.random.RandomState(seed).standard_normal((32, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "user",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(w, "w")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    if external:
        onnx.save_model(m, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=path.name + ".data", size_threshold=0)
    else:
        onnx.save(m, str(path))
    return path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Bytes-reading hash calls by resolved path (artifact_cache.sha256_file and external_data's content hash)."""
    seen: Counter[str] = Counter()
    real, real_content = artifact_cache.sha256_file, external_data._content_sha256

    def counting(path: Any) -> str:
        seen[str(Path(path).resolve())] += 1
        return real(path)

    def counting_content(path: Path, files: Any) -> Any:
        seen["content:" + str(Path(path).resolve())] += 1
        return real_content(path, files)

    monkeypatch.setattr(artifact_cache, "sha256_file", counting)
    monkeypatch.setattr(external_data, "_content_sha256", counting_content)
    return seen


def settle(*paths: Path) -> None:
    """Wait until the files changed at least hashes.RACY_S ago: a newer one is not remembered (coarse file times)."""
    newest = max(max(p.stat().st_mtime, p.stat().st_ctime) for p in paths)
    time.sleep(max(0.0, hashes.RACY_S - (time.time() - newest)) + 0.05)


def deploy(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out = tmp_path / "r.json"
    code = main(["deploy", "--device", "local", "--model", str(model), "--threads", "1",
                 "--db", str(tmp_path / "r.sqlite"), "--json", str(out), *FAST])
    err = capsys.readouterr().err
    assert code == 0, err
    return dict(json.loads(out.read_text()))


def test_second_deploy_does_not_read_the_model_and_a_rewrite_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        reads: Counter[str]) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEPROF_CACHE", str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    model = write_model(tmp_path / "m.onnx", seed=0)
    key = str(model.resolve())
    settle(model)

    r1 = deploy(model, tmp_path, capsys)
    assert reads[key] == 1 and r1["artifact"]["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    records = list((tmp_path / "xdg" / "edgeprof" / "hashes").glob("*.json"))
    assert records and any(json.loads(p.read_text())["files"][0]["path"] == key for p in records)

    r2 = deploy(model, tmp_path, capsys)
    assert reads[key] == 1, "the second deploy read the model again"
    assert r2["artifact"]["sha256"] == r1["artifact"]["sha256"]

    # rewritten in place (same inode, same size, new bytes): its mtime and ctime move, so it is read again
    before = model.stat()
    new = write_model(tmp_path / "other.onnx", seed=1).read_bytes()
    assert len(new) == before.st_size
    with open(model, "r+b") as f:
        f.write(new)
    assert model.stat().st_ino == before.st_ino and model.stat().st_size == before.st_size
    settle(model)
    r3 = deploy(model, tmp_path, capsys)
    assert reads[key] == 2
    assert r3["artifact"]["sha256"] == hashlib.sha256(new).hexdigest() != r1["artifact"]["sha256"]

    # a damaged record is ignored (the file is read again), and rewritten whole
    for p in (tmp_path / "xdg" / "edgeprof" / "hashes").glob("*.json"):
        p.write_text('{"layout": 1, "kind": "sha256", "fi')
    r4 = deploy(model, tmp_path, capsys)
    assert reads[key] == 3 and r4["artifact"]["sha256"] == r3["artifact"]["sha256"]
    deploy(model, tmp_path, capsys)
    assert reads[key] == 3


def test_a_record_with_a_wrong_value_for_the_same_stat_is_not_believed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        reads: Counter[str]) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEPROF_CACHE", str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    model = write_model(tmp_path / "m.onnx", seed=0)
    settle(model)
    deploy(model, tmp_path, capsys)
    for p in (tmp_path / "xdg" / "edgeprof" / "hashes").glob("*.json"):
        data = json.loads(p.read_text())
        if data["files"][0]["path"] == str(model.resolve()):
            data["value"] = "not a sha256"
            p.write_text(json.dumps(data))
    r = deploy(model, tmp_path, capsys)
    assert reads[str(model.resolve())] == 2
    assert r["artifact"]["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()


def test_external_data_content_hash_is_remembered_and_follows_the_data_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        reads: Counter[str]) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEPROF_CACHE", str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    model = write_model(tmp_path / "ext.onnx", seed=0, external=True)
    data = tmp_path / "ext.onnx.data"
    assert data.is_file()
    settle(model, data)
    key = "content:" + str(model.resolve())
    r1 = deploy(model, tmp_path, capsys)
    deploy(model, tmp_path, capsys)
    assert reads[key] == 1
    # the data file alone rewritten (same size): the pair is hashed again and the artifact is another
    raw = bytearray(data.read_bytes())
    raw[0] ^= 0xFF
    with open(data, "r+b") as f:
        f.write(bytes(raw))
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 1_000_000))
    settle(data)
    r3 = deploy(model, tmp_path, capsys)
    assert reads[key] == 2
    assert (r3["artifact"]["export_options"]["external_data"]["content_sha256"]
            != r1["artifact"]["export_options"]["external_data"]["content_sha256"])
