"""ONNX files with external data (`model.onnx` + `model.onnx.data`): found, checked, made one artifact.

Owns: finding the data files an ONNX graph's tensors point at (`location`, relative to the model's folder, also
in subgraphs), the one-line refusal when one is missing or escapes the folder, the content hash of the model and
its data files together, and the artifact that is pushed: a self-contained copy with the data inlined, built once
into the artifact cache (export/artifact_cache.build_cached, keyed by that content hash), so that it is hashed,
cached, pushed and loaded like any single-file model and conversions (fp16, int8) read it as they read any file.
Models whose weights do not fit one protobuf (2 GiB) are refused as not supported yet.
An export of a torch model whose weights would take the ModelProto past the limit (`save_export`, threshold
`EXTERNAL_DATA_THRESHOLD`: the seam tests lower) is written the standard way, `model.onnx` + `model.onnx.data`
in its cache entry, and then made the pushed artifact as a user's file is (`inline_export`): inlined when it fits
one file, else refused as not supported yet (the agent loads one self-contained file per model).
Does not own: reading the graph's inputs (onnx_export.py), the cache directory (artifact_cache.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..records import Artifact
from .artifact_cache import build_cached, code_version, dist_version, key_of

__all__ = ["data_files", "with_inlined_data", "save_export", "inline_export", "PROTOBUF_LIMIT",
           "EXTERNAL_DATA_THRESHOLD"]

PROTOBUF_LIMIT = 2 * 1024**3 - 64 * 1024**2  # one ModelProto must stay under 2 GiB; keep room for the graph
EXTERNAL_DATA_THRESHOLD = PROTOBUF_LIMIT  # an export's tensors past this many bytes are written as external data


def save_export(proto: Any, path: Path) -> str | None:
    """Write an exported ModelProto at `path`: one file, or, when its tensors take more than
    EXTERNAL_DATA_THRESHOLD bytes, with the tensors over 1 KiB in `<path>.data` beside it (onnx.save_model's
    save_as_external_data); the data file's name, or None."""
    import onnx
    from onnx.external_data_helper import _get_all_tensors

    size = sum(len(t.raw_data) if t.HasField("raw_data") else t.ByteSize() for t in _get_all_tensors(proto))
    if size <= EXTERNAL_DATA_THRESHOLD:
        onnx.save(proto, str(path))
        return None
    location = f"{path.name}.data"
    onnx.save_model(proto, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location=location,
                    size_threshold=1024)
    return location


def inline_export(artifact: Artifact, *, cache_dir: Path, say: Callable[[str], None]) -> Artifact:
    """An export written with external data (save_export) as the self-contained artifact that is pushed
    (with_inlined_data: over 2 GiB it is refused as not supported yet); any other artifact as it is."""
    if not artifact.export_options.get("external_data_file"):
        return artifact
    import onnx

    path = Path(artifact.path)
    files = data_files(onnx.load(str(path), load_external_data=False), path)
    return with_inlined_data(artifact, path, files, cache_dir=cache_dir, say=say)


def data_files(model: Any, path: Path) -> dict[str, list[str]]:
    """{data file location: [tensor names]} of the graph's external tensors (subgraphs included); refused in one
    line when a file is missing or its location leaves the model's folder."""
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors

    files: dict[str, list[str]] = {}
    for t in _get_all_tensors(model):
        if t.data_location != TensorProto.EXTERNAL:
            continue
        loc = next((e.value for e in t.external_data if e.key == "location"), "")
        files.setdefault(loc, []).append(t.name)
    folder = path.parent.resolve()
    for loc, tensors in files.items():
        target = (folder / loc).resolve()
        if not loc or Path(loc).is_absolute() or folder not in target.parents:
            raise ModelError(f"{path}: tensor {tensors[0]!r} has its data at {loc!r}, outside the model's folder",
                             hint="save the model with its data next to it (onnx.save_model(..., "
                                  "save_as_external_data=True, location='NAME.data'))")
        if not target.is_file():
            raise ModelError(f"{path}: external data file {loc} is missing (it holds {len(tensors)} tensor(s), e.g. "
                             f"{tensors[0]!r}; looked in {folder})",
                             hint=f"copy {loc} next to {path.name}: an ONNX file with external data needs its "
                                  "data files beside it")
    return files


def _content_sha256(path: Path, files: dict[str, list[str]]) -> tuple[str, dict[str, str]]:
    """One sha256 over the model file and its data files (name and bytes each), and each data file's own."""
    whole = hashlib.sha256()
    own: dict[str, str] = {}
    for name in [path.name, *sorted(files)]:
        h = hashlib.sha256()
        with open(path.parent / name, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
                whole.update(chunk)
        whole.update(b"\0" + name.encode() + b"\0")
        own[name] = h.hexdigest()
    return whole.hexdigest(), own


def with_inlined_data(artifact: Artifact, path: Path, files: dict[str, list[str]], *, cache_dir: Path,
                      say: Callable[[str], None]) -> Artifact:
    """`artifact` (a user's file with external data) as the self-contained copy in the cache that is pushed."""
    import onnx

    size = path.stat().st_size + sum((path.parent / f).stat().st_size for f in files)
    if size > PROTOBUF_LIMIT:
        raise ModelError(f"{path} and its external data are {size / 1024**3:.2f} GiB: models over 2 GiB are not "
                         "supported yet (edgeprof pushes one self-contained file per model, and protobuf caps one "
                         "file at 2 GiB)", hint="run a smaller variant of the model")
    digest, own = _content_sha256(path, files)

    def build(out: Path) -> Artifact:
        say(f"{artifact.model_name}: inlining external data ({', '.join(sorted(files))}, "
            f"{size / 1024**2:.1f} MiB) into one file")
        model = onnx.load(str(path), load_external_data=True)
        onnx.save_model(model, str(out), save_as_external_data=False)
        return dataclasses.replace(artifact, path=str(out))

    key = key_of({"external_data_of": digest, "code": code_version("external_data.py"), "onnx": dist_version("onnx")})
    inlined = build_cached(cache_dir, key, "onnx", build, what=f"inlining the external data of {path}")
    return dataclasses.replace(inlined, export_options={
        **inlined.export_options, "external_data": {"files": own, "content_sha256": digest,
                                                    "inlined": "one self-contained file (data files pushed in it)"}})
