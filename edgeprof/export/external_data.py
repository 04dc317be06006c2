"""ONNX files with external data (`model.onnx` + `model.onnx.data`): found, checked, made one artifact.

Owns: finding the data files an ONNX graph's tensors point at (`location`, relative to the model's folder, also
in subgraphs), the one-line refusal when one is missing or escapes the folder, the content hash of the model and
its data files together (remembered across runs by the files' size, times and inodes: hashes.py), and the artifact that is pushed, built once into the artifact cache
(export/artifact_cache.build_cached, keyed by that content hash):
- up to PROTOBUF_LIMIT in all: a self-contained copy with the data inlined (`with_inlined_data`), hashed, cached,
  pushed and loaded like any single-file model;
- past it (one protobuf cannot hold more than 2 GiB): the graph in `model.onnx` with each data file beside it
  named by its content, `<sha256>.data` (`name_by_content`), its tensors' locations rewritten to those names, so
  that the model file's own sha256 pins every byte of its weights (the artifact's one content address). The files
  are pushed by content, each verified on the device (`pushed_files`: a second run moves 0 bytes), into the
  artifacts folder, where onnxruntime finds the data beside the model as it does on the host.
An export of a torch model whose weights would take the ModelProto past `EXTERNAL_DATA_THRESHOLD` (the seam tests
lower; PROTOBUF_LIMIT is the other) is written the standard way, the data beside the graph, named by content, in its
cache entry (`save_export`), and then made the pushed artifact as a user's file is (`inline_export`).
Does not own: reading the graph's inputs (onnx_export.py), the cache directory (artifact_cache.py), the push
itself (run/execute.py through its StartedAgent).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..records import Artifact, ExternalData, OnnxExportOptions
from ..records.options import extended
from .artifact_cache import build_cached, code_version, dist_version, key_of, sha256_file
from .hashes import remembered

__all__ = ["data_files", "with_inlined_data", "save_export", "inline_export", "name_by_content", "pushed_files", "counted",
           "tensor_bytes", "PROTOBUF_LIMIT", "EXTERNAL_DATA_THRESHOLD", "DATA_EXT"]

PROTOBUF_LIMIT = 2 * 1024**3 - 64 * 1024**2  # one ModelProto must stay under 2 GiB; keep room for the graph
EXTERNAL_DATA_THRESHOLD = PROTOBUF_LIMIT  # an export's tensors past this many bytes are written as external data
DATA_EXT = "data"  # a data file kept beside its model is named <sha256>.data, on the host and on the device
_CONTENT_NAME = re.compile(r"^[0-9a-f]{64}\." + DATA_EXT + "$")


def tensor_bytes(proto: Any) -> int:
    """Bytes of the graph's tensors (subgraphs included; external ones by their recorded length)."""
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors

    size = 0
    for t in _get_all_tensors(proto):
        if t.data_location == TensorProto.EXTERNAL:
            size += int(next((e.value for e in t.external_data if e.key == "length"), "0") or 0)
        else:
            size += len(t.raw_data) if t.HasField("raw_data") else t.ByteSize()
    return size


def save_export(proto: Any, path: Path) -> str | None:
    """Write a ModelProto at `path`: one file, or, when its tensors take more than EXTERNAL_DATA_THRESHOLD bytes,
    with the tensors over 1 KiB in one data file beside it named by its content (name_by_content); that name, or
    None."""
    import onnx

    if tensor_bytes(proto) <= EXTERNAL_DATA_THRESHOLD:
        onnx.save(proto, str(path))
        return None
    onnx.save_model(proto, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=f"{path.name}.data", size_threshold=1024)
    return next(iter(name_by_content(path)), None)


def name_by_content(path: Path, known: Mapping[str, str] | None = None) -> dict[str, str]:
    """Rename each data file of the ONNX file at `path` (a file edgeprof wrote, or copied, in a folder of its own)
    to `<sha256>.data` beside it and point its tensors there; {new name: sha256}. `known`: data file → sha256
    already computed (a copy of the user's files), not hashed again."""
    import onnx
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors

    model = onnx.load(str(path), load_external_data=False)
    renamed: dict[str, str] = {}
    for loc in data_files(model, path):
        if _CONTENT_NAME.match(loc):
            renamed[loc] = loc
            continue
        name = f"{(known or {}).get(loc) or sha256_file(path.parent / loc)}.{DATA_EXT}"
        (path.parent / loc).replace(path.parent / name)
        renamed[loc] = name
    for t in _get_all_tensors(model):
        if t.data_location == TensorProto.EXTERNAL:
            for e in t.external_data:
                if e.key == "location":
                    e.value = renamed[e.value]
    onnx.save(model, str(path))  # the graph only: its tensors stay where they are
    return {name: name.split(".", 1)[0] for name in sorted(set(renamed.values()))}


def pushed_files(artifact: Artifact) -> list[tuple[str, str, str]]:
    """The data files an artifact keeps beside its model (past PROTOBUF_LIMIT), as (local path, sha256, extension)
    to push before the model; [] for a self-contained file. A missing one is refused in one line (data_files)."""
    opts = artifact.export_options
    if not isinstance(opts, OnnxExportOptions) or not (opts.external_data or opts.external_data_file):
        return []
    import onnx

    path = Path(artifact.path)
    files = data_files(onnx.load(str(path), load_external_data=False), path)
    bad = [f for f in files if not _CONTENT_NAME.match(f)]
    if bad:  # pragma: no cover - edgeprof writes these names itself
        raise ModelError(f"{path}: data file {bad[0]} is not named by its content",
                         hint="this is a bug in edgeprof: please report it")
    return [(str(path.parent / f), f.split(".", 1)[0], DATA_EXT) for f in sorted(files)]


def counted(artifact: Artifact) -> Artifact:
    """`artifact` with `size_bytes` counting the data files kept beside its model (pushed_files), if any."""
    beside = sum(Path(local).stat().st_size for local, _, _ in pushed_files(artifact))
    return dataclasses.replace(artifact, size_bytes=Path(artifact.path).stat().st_size + beside) if beside \
        else artifact


def inline_export(artifact: Artifact, *, cache_dir: Path, say: Callable[[str], None]) -> Artifact:
    """An export written with external data (save_export) as the artifact that is pushed: inlined into one file
    when it fits (with_inlined_data), else as it is, its data beside it named by content; any other artifact as it
    is."""
    if not isinstance(artifact.export_options, OnnxExportOptions) or not artifact.export_options.external_data_file:
        return artifact
    import onnx

    path = Path(artifact.path)
    files = data_files(onnx.load(str(path), load_external_data=False), path)
    if _total_size(path, files) > PROTOBUF_LIMIT:
        return counted(dataclasses.replace(artifact, export_options=extended(
            artifact.export_options, OnnxExportOptions, external_data=ExternalData(
                files={f: f.split(".", 1)[0] for f in sorted(files)}, content_sha256=artifact.sha256,
                layout=_BESIDE))))
    return with_inlined_data(artifact, path, files, cache_dir=cache_dir, say=say)


_BESIDE = "model file + data files named by content, pushed side by side (over 2 GiB)"


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


def _total_size(path: Path, files: dict[str, list[str]]) -> int:
    return path.stat().st_size + sum((path.parent / f).stat().st_size for f in files)


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


def _is_content(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in value[1].items()))


def with_inlined_data(artifact: Artifact, path: Path, files: dict[str, list[str]], *, cache_dir: Path,
                      say: Callable[[str], None]) -> Artifact:
    """`artifact` (a file with external data) as the artifact in the cache that is pushed: one self-contained
    file up to PROTOBUF_LIMIT, else the graph with its data files copied beside it, named by content."""
    import onnx

    size = _total_size(path, files)
    beside = size > PROTOBUF_LIMIT
    names = [path.name, *sorted(files)]
    digest, own = remembered("external-data-content", [path.parent / n for n in names],
                             lambda: list(_content_sha256(path, files)), valid=_is_content)

    def build(out: Path) -> Artifact:
        if beside:
            say(f"{artifact.model_name}: copying the model and its external data ({', '.join(sorted(files))}, "
                f"{size / 1024**3:.2f} GiB) into the cache, data files named by content")
            for f in files:
                shutil.copyfile(path.parent / f, out.parent / f)
            shutil.copyfile(path, out)
            name_by_content(out, known=own)
        else:
            say(f"{artifact.model_name}: inlining external data ({', '.join(sorted(files))}, "
                f"{size / 1024**2:.1f} MiB) into one file")
            onnx.save_model(onnx.load(str(path), load_external_data=True), str(out), save_as_external_data=False)
        return dataclasses.replace(artifact, path=str(out))

    key = key_of({"external_data_of": digest, "code": code_version("external_data.py"), "onnx": dist_version("onnx"),
                  "beside": beside})
    made = build_cached(cache_dir, key, "onnx", build, what=f"{'copying' if beside else 'inlining'} the external "
                        f"data of {path}")
    return counted(dataclasses.replace(made, export_options=extended(made.export_options, OnnxExportOptions,
        external_data=ExternalData(files=own, content_sha256=digest, layout=_BESIDE if beside
                                   else "one self-contained file (data files pushed in it)"))))
