"""Output fidelity: does the artifact that ran on the device give the reference's answers?

Owns: choosing the reference for an artifact (torch for bundled models and builders; the user's fp32 file, run
on the host, for a user's .onnx or .tflite that edgeprof quantised; none for a user's file run as given), computing
the reference outputs on the host for the run's seeded inputs (same generator as the device, so identical
arrays; run inside export/capture.py's capture, so torch's and the runtimes' output goes to
`<cache>/reference.log`, not the terminal), decoding the outputs the agent returned, and the comparison: max abs error, mean abs error, cosine
similarity per output and overall, top-1 agreement for classifiers, and a pass/warn threshold per precision.
Does not own: running on the device (the agent returns its outputs of the last timed query), building the Result (run/assemble.py).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .records import Artifact, Fidelity, TensorSpec

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .export.resolve import ModelSource

__all__ = ["Reference", "reference_for", "reference_outputs", "decode_outputs", "compare", "THRESHOLDS"]

# Minimum cosine similarity per precision before a warning (fp32: exporter/runtime drift only).
THRESHOLDS: dict[str, float] = {"fp32": 0.9999, "fp16": 0.999, "int8": 0.99}


@dataclass(frozen=True)
class Reference:
    """What the device outputs are compared with."""

    kind: str  # "torch" | "onnx" | "tflite"
    label: str  # for people: "torch (bundled mobilenet_v2)", "fp32 ONNX model.onnx on the host"
    source: ModelSource | None = None  # torch: the model to build
    path: str | None = None  # onnx/tflite: the fp32 file
    inputs: tuple[TensorSpec, ...] = ()  # onnx/tflite: the fp32 file's inputs
    num_classes: int | None = None


def reference_for(source: ModelSource, artifact: Artifact,
                  fp32: Artifact | None = None) -> tuple[Reference | None, str | None]:
    """(reference, None) or (None, why there is none)."""
    if source.kind in ("bundled", "builder"):
        classes = source.bundled.num_classes if source.bundled is not None else None
        what = f"bundled {source.name}" if source.kind == "bundled" else f"builder {source.name}"
        return Reference("torch", f"torch ({what})", source=source, num_classes=classes), None
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

    from .export.capture import capture
    from .export.inputs import make_inputs
    from .export.onnx_export import default_cache_dir

    feed = make_inputs(specs, shapes, seed, fixed)
    with capture(default_cache_dir() / "reference.log", f"fidelity reference: {ref.label}"):
        return _reference_outputs(ref, feed, seed)


def _reference_outputs(ref: Reference, feed: dict[str, np.ndarray], seed: int) -> list[np.ndarray]:
    """Inside the capture: torch, onnxruntime and LiteRT print when imported or when a model loads."""
    import numpy as np

    if ref.kind == "torch":
        import torch

        from .export.onnx_export import _build, _flatten

        assert ref.source is not None
        module, torch_specs, _ = _build(ref.source, seed)  # weights and inputs share the run's seed
        by = {s.name: s for s in torch_specs}
        kwargs = {k: torch.from_numpy(np.ascontiguousarray(v).astype(by[k].dtype if k in by else v.dtype))
                  for k, v in feed.items()}
        with torch.no_grad():
            return [np.asarray(a) for a in _flatten(module(**kwargs))]
    if ref.kind == "onnx":
        import onnxruntime as ort

        assert ref.path is not None
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        sess = ort.InferenceSession(ref.path, opts, providers=["CPUExecutionProvider"])
        dtypes = {s.name: s.dtype for s in ref.inputs}
        return list(sess.run(None, {k: v.astype(dtypes.get(k, v.dtype)) for k, v in feed.items()}))
    if ref.kind == "tflite":
        from .export.tflite_export import _run_interpreter

        assert ref.path is not None
        return _run_interpreter(Path(ref.path), feed, ref.inputs)
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


def compare(got: Sequence[np.ndarray], ref: Sequence[np.ndarray], *, precision: str = "fp32",
            num_classes: int | None = None, names: Sequence[str] = ()) -> Fidelity:
    """Per-output and overall errors; top-1 agreement when output 0 is [batch, classes]."""
    import numpy as np

    per: list[dict[str, Any]] = []
    total_abs, total_n = 0.0, 0
    max_abs, min_cos = 0.0, 1.0
    problems: list[str] = []
    if len(got) != len(ref):
        problems.append(f"the device returned {len(got)} outputs, the reference {len(ref)}")
    for i, (g, r) in enumerate(zip(got, ref, strict=False)):
        name = names[i] if i < len(names) else f"output_{i}"
        g64 = np.asarray(g, dtype=np.float64)
        r64 = np.asarray(r, dtype=np.float64)
        if g64.shape != r64.shape:
            if g64.size == r64.size:
                g64 = g64.reshape(r64.shape)
            else:
                problems.append(f"{name}: device shape {list(g64.shape)} != reference {list(r64.shape)}")
                continue
        diff = np.abs(g64 - r64)
        finite = bool(np.all(np.isfinite(g64)))
        if not finite:
            problems.append(f"{name}: the device output has NaN or Inf")
        ng, nr = float(np.linalg.norm(g64)), float(np.linalg.norm(r64))
        cos = float(np.dot(g64.ravel(), r64.ravel()) / (ng * nr)) if ng > 0 and nr > 0 else (
            1.0 if ng == nr else 0.0)
        entry: dict[str, Any] = {"name": name, "shape": list(r64.shape), "max_abs_error": float(diff.max()) if diff.size else 0.0,
                 "mean_abs_error": float(diff.mean()) if diff.size else 0.0, "cosine_similarity": cos,
                 "max_abs_reference": float(np.abs(r64).max()) if r64.size else 0.0}
        per.append(entry)
        max_abs = max(max_abs, float(entry["max_abs_error"]))
        min_cos = min(min_cos, cos if finite else 0.0)
        total_abs += float(diff.sum())
        total_n += int(diff.size)
    cosine = min_cos if per else None
    top1: float | None = None
    top1_rows: int | None = None
    top1_basis: str | None = None
    if per and got and ref:
        r0 = np.asarray(ref[0])
        g0 = np.asarray(got[0]).reshape(r0.shape) if np.asarray(got[0]).size == r0.size else None
        classes = r0.shape[-1] if r0.ndim == 2 else None
        if g0 is not None and classes and classes > 1 and (num_classes is None or num_classes == classes):
            agree = np.argmax(g0, axis=-1) == np.argmax(r0, axis=-1)
            top1 = float(agree.mean())
            top1_rows = int(agree.size)
            top1_basis = "classifier" if num_classes else f"output 0 is [batch, {classes}]: read as class scores"
    threshold = THRESHOLDS.get(precision, THRESHOLDS["fp32"])
    if per and cosine is not None and cosine < threshold:
        problems.append(f"cosine similarity {cosine:.4f} < {threshold} for {precision}")
    if top1 is not None and top1 < 1.0:
        problems.append(f"top-1 agrees on {top1 * 100:.0f} % of {top1_rows} rows")
    return Fidelity(max_abs_error=max_abs, mean_abs_error=total_abs / total_n if total_n else None,
                    cosine_similarity=cosine, outputs=per, top1_agreement=top1, top1_rows=top1_rows,
                    top1_basis=top1_basis, threshold={"cosine_similarity_min": threshold, "precision": precision},
                    ok=not problems, problems=problems)
