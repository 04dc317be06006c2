"""Output fidelity: does the artifact that ran on the device give the reference's answers?

Owns: choosing the reference for an artifact (torch for bundled models and builders; the user's fp32 file, run
on the host, for a user's .onnx or .tflite that edgeprof quantised; none for a user's file run as given), computing
the reference outputs on the host for the run's seeded inputs (same generator as the device, so identical
arrays; run inside export/capture.py's capture, so torch's and the runtimes' output goes to
`<cache>/reference.log`, not the terminal), decoding the outputs the agent returned.
Does not own: running a model on the host and the comparison (max / mean abs error, cosine similarity, top-1
agreement, the threshold per precision: reference.py, whose `compare` and `THRESHOLDS` are re-exported here),
running on the device (the agent returns its outputs of the last timed query), building the Result
(run/assemble.py).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..hostrun.reference import THRESHOLDS, compare
from ..records import Artifact, TensorSpec

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..export.resolve import ModelSource

__all__ = ["Reference", "reference_for", "reference_outputs", "decode_outputs", "compare", "THRESHOLDS"]

@dataclass(frozen=True)
class Reference:
    """What the device outputs are compared with."""

    kind: str  # "torch" | "onnx" | "tflite"
    label: str  # for people: "torch (bundled mobilenet_v2)", "fp32 ONNX model.onnx on the host"
    source: ModelSource | None = None  # torch: the model to build
    path: str | None = None  # onnx/tflite: the fp32 file
    inputs: tuple[TensorSpec, ...] = ()  # onnx/tflite: the fp32 file's inputs
    num_classes: int | None = None
    content_sha256: str | None = None  # torch: the sha256 of the fp32 artifact exported from the same module




def reference_for(source: ModelSource, artifact: Artifact,
                  fp32: Artifact | None = None) -> tuple[Reference | None, str | None]:
    """(reference, None) or (None, why there is none)."""
    if source.kind in ("bundled", "builder"):
        classes = source.bundled.num_classes if source.bundled is not None else None
        what = f"bundled {source.name}" if source.kind == "bundled" else f"builder {source.name}"
        return Reference("torch", f"torch ({what})", source=source, num_classes=classes,
                         content_sha256=(fp32 or artifact).sha256 or None), None
    if fp32 is None or fp32.sha256 == artifact.sha256:
        return None, (f"the user's {artifact.format} file ran as given; there is no reference to compare with "
                      "(fidelity is checked for exported or quantised artifacts)")
    name = source.path.name if source.path else fp32.model_name
    return Reference(fp32.format, f"fp32 {fp32.format} file {name} on the host (CPU)", path=fp32.path,
                     inputs=fp32.inputs), None


def reference_outputs(ref: Reference, specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]],
                      seed: int, fixed: Mapping[str, np.ndarray] | None = None) -> list[np.ndarray]:
    """The reference's outputs for the inputs the device used (specs = the artifact's, in its order; `fixed`:
    the constants and data arrays of the run's input plan)."""

    from ..export.artifact_cache import default_cache_dir
    from ..export.capture import capture
    from ..export.inputs import make_inputs

    feed = make_inputs(specs, shapes, seed, fixed)
    key = _cache_key(ref, feed, seed)
    entry = default_cache_dir() / "references" / f"{key}.npz" if key is not None else None
    if entry is not None and entry.is_file():
        hit = _read_outputs(entry)
        if hit is not None:
            return hit
    with capture(default_cache_dir() / "reference.log", f"fidelity reference: {ref.label}"):
        outputs = _reference_outputs(ref, feed, seed)
    if entry is not None:
        _write_outputs(entry, outputs)
    return outputs


def _cache_key(ref: Reference, feed: Mapping[str, np.ndarray], seed: int) -> str | None:
    """A torch reference's outputs are cached by what determines them: the module (the sha256 of the fp32
    artifact exported from it with the same seed: its weights and graph), the seed, torch's version and the
    exact input arrays. Building the module and importing torch (seconds, once per process) is then done once
    per configuration, not once per measurement. Other references (a file run by onnxruntime or LiteRT on the
    host, a fraction of a second) are not cached."""
    import hashlib

    from ..export.artifact_cache import dist_version

    if ref.kind != "torch" or not ref.content_sha256:
        return None
    h = hashlib.sha256(f"torch-reference-1|{ref.content_sha256}|{seed}|{dist_version('torch')}".encode())
    for name in sorted(feed):
        a = feed[name]
        h.update(f"|{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _read_outputs(path: Any) -> list[np.ndarray] | None:
    """The cached outputs (out0, out1, …), or None when the entry is unreadable (it is then computed again)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            return [z[f"out{i}"] for i in range(len(z.files))]
    except Exception:
        return None


def _write_outputs(path: Any, outputs: Sequence[np.ndarray]) -> None:
    """Store the outputs atomically (a temporary file renamed into place); a failure only costs the cache."""
    import contextlib
    import os
    import tempfile

    import numpy as np

    from ..files.modes import make_private_dir

    with contextlib.suppress(OSError):
        make_private_dir(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            arrays: dict[str, Any] = {f"out{i}": np.asarray(o) for i, o in enumerate(outputs)}
            np.savez(f, **arrays)
        os.replace(tmp, path)


REFERENCE_CRASH = ("the host's run of your fp32 file (the reference, at the default graph optimisation level) "
                   "crashed, not the measurement: run the file as given (--precision fp32 needs no reference)")


def _reference_outputs(ref: Reference, feed: dict[str, np.ndarray], seed: int) -> list[np.ndarray]:
    """Inside the capture: torch, onnxruntime and LiteRT print when imported or when a model loads."""
    from ..hostrun import reference

    if ref.kind == "torch":
        from ..export.resolve import torch_module

        assert ref.source is not None
        module, torch_specs, _ = torch_module(ref.source, seed)  # weights and inputs share the run's seed
        return reference.torch_outputs(module, feed, {s.name: s.dtype for s in torch_specs})
    what, hint = f"the fidelity reference ({ref.label})", REFERENCE_CRASH
    if ref.kind == "onnx":
        assert ref.path is not None
        return reference.onnx_outputs(ref.path, feed, {s.name: s.dtype for s in ref.inputs}, what=what, hint=hint)
    if ref.kind == "tflite":
        assert ref.path is not None
        return reference.tflite_outputs(ref.path, feed, what=what, hint=hint)
    raise ValueError(f"unknown reference kind {ref.kind!r}")


def decode_outputs(raw: Sequence[Mapping[str, Any]] | None) -> list[np.ndarray]:
    """The agent's outputs ({"shape", "dtype", "b64"} or {"shape", "dtype", "data"}) as arrays."""
    import numpy as np

    out = []
    for o in raw or []:
        dtype = np.dtype(o["dtype"])
        if "b64" in o:
            arr = np.frombuffer(base64.b64decode(o["b64"]), dtype=dtype.newbyteorder("<")).astype(dtype)
        else:
            arr = np.asarray(o["data"], dtype=dtype)
        out.append(arr.reshape(o["shape"]))
    return out
