"""Host reference outputs and output comparison, for the export checks, fidelity and accuracy.

Owns: running a model on the host the way a reference is run — a torch module (`torch_outputs`, its outputs
flattened in order), an ONNX file on onnxruntime's CPU provider (`onnx_outputs`), a .tflite file on the host's
LiteRT interpreter (`tflite_outputs`, inputs fed by signature name; its tensor details as typed records,
`TfliteTensor`; what a .tflite file declares, `tflite_facts`), each file run in a child process with a time limit
(hostrun/loadcheck.call_in_child: a native crash or hang is a one-line refusal) — and comparing outputs: the exporters' check
against torch (`torch_check`: max abs error within 1e-4 of the reference's scale) and fidelity's comparison of the
device's outputs with the reference's (`compare`: max / mean abs error, cosine similarity, top-1 agreement, the
pass threshold per precision).
Does not own: choosing the reference or computing it for a run (fidelity.py), building the torch module
(export/resolve.torch_module), exporting (export/).
Heavy imports (numpy, torch, onnxruntime, LiteRT) happen inside functions.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..records import Fidelity

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["interpreter_class", "TfliteTensor", "signature_names", "flatten", "torch_outputs", "onnx_outputs", "tflite_outputs", "outputs_here", "tflite_facts",
           "torch_check", "compare", "THRESHOLDS"]

# Minimum cosine similarity per precision before a warning (fp32: exporter/runtime drift only).
THRESHOLDS: dict[str, float] = {"fp32": 0.9999, "fp16": 0.999, "int8": 0.99}


def interpreter_class() -> Any:
    """The host's TFLite Interpreter class (ai_edge_litert, else tflite_runtime); ModelError if neither."""
    try:
        from ai_edge_litert.interpreter import Interpreter

        return Interpreter
    except ImportError:
        pass
    try:
        from tflite_runtime.interpreter import Interpreter  # type: ignore[import-not-found,unused-ignore]

        return Interpreter
    except ImportError as e:
        raise ModelError("reading a .tflite model on the host needs ai-edge-litert",
                         hint="pip install 'edgeprof[tflite]'") from e


@dataclass(frozen=True)
class TfliteTensor:
    """One tensor of a LiteRT interpreter's details, read once at this boundary (the interpreter gives dicts whose
    keys vary by version): its index and name, shape (the `shape_signature`, -1 for a dynamic dim, when the file
    has one), numpy dtype name, per-tensor scale and zero point, and the number of per-channel scales."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    scale: float = 0.0
    zero_point: int = 0
    scales: int = 0

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> TfliteTensor:
        import numpy as np

        sig = d.get("shape_signature")
        shape = sig if sig is not None and len(sig) else d["shape"]
        scale, zero = d.get("quantization") or (0.0, 0)
        params = d.get("quantization_parameters") or {}
        return cls(int(d["index"]), str(d["name"]), tuple(int(x) for x in shape), np.dtype(d["dtype"]).name,
                   float(scale), int(zero), len(params.get("scales", ())))


def signature_names(interp: Any) -> tuple[dict[int, str], dict[int, str]]:
    """tensor index → signature name (first signature), for inputs and outputs; empty without signatures."""
    try:
        sigs = interp.get_signature_list()
    except Exception:  # noqa: BLE001 - old runtimes have no signatures
        return {}, {}
    if not sigs:
        return {}, {}
    runner = interp.get_signature_runner(next(iter(sigs)))
    ins = {d["index"]: n for n, d in runner.get_input_details().items()}
    outs = {d["index"]: n for n, d in runner.get_output_details().items()}
    return ins, outs


def flatten(out: Any) -> list[np.ndarray]:
    """A torch module's outputs (tensor, dict, tuple or list of them, nested) as arrays, in order."""
    import torch

    if isinstance(out, torch.Tensor):
        return [out.detach().numpy()]
    if isinstance(out, dict):
        return [a for v in out.values() for a in flatten(v)]
    if isinstance(out, (tuple, list)):
        return [a for v in out for a in flatten(v)]
    raise ModelError(f"forward() returned {type(out).__name__}", hint="return a tensor or a tuple of tensors")


def torch_outputs(module: Any, feed: Mapping[str, np.ndarray],
                  dtypes: Mapping[str, str] | None = None) -> list[np.ndarray]:
    """`module(**feed)` without gradients; `dtypes`: what torch takes per input (the file may take narrower)."""
    import numpy as np
    import torch

    if dtypes is None:
        kwargs = {k: torch.from_numpy(v) for k, v in feed.items()}
    else:
        kwargs = {k: torch.from_numpy(np.ascontiguousarray(v).astype(dtypes.get(k, v.dtype)))
                  for k, v in feed.items()}
    with torch.no_grad():
        return [np.asarray(a) for a in flatten(module(**kwargs))]


def _outputs_in_child(kind: str, path: str | Path, feed: Mapping[str, np.ndarray], dtypes: Mapping[str, str] | None,
                      graph_opt: str | None, what: str | None, hint: str | None) -> list[np.ndarray]:
    """`kind`'s outputs ("onnx", "tflite") in a child process (hostrun/loadcheck.py): the feed and the outputs
    travel as .npz files; a crash or hang there is a one-line LoadCrash, an error a ModelError naming `what`."""
    import tempfile

    import numpy as np

    from .loadcheck import LITERT, ONNXRUNTIME, call_in_child

    library = ONNXRUNTIME if kind == "onnx" else LITERT
    what = what or f"running {Path(path).name} on the host"
    with tempfile.TemporaryDirectory(prefix="edgeprof-reference-") as tmp:
        names = list(feed)
        arrays: dict[str, Any] = {f"in{i}": np.asarray(feed[n]) for i, n in enumerate(names)}
        np.savez(Path(tmp) / "feed.npz", **arrays)
        arg = {"kind": kind, "path": str(path), "names": names, "dir": tmp, "dtypes": dict(dtypes or {})}
        count, error = call_in_child("outputs", arg, what=what, library=library, graph_opt=graph_opt,
                                     hint=hint)
        if error is not None:
            raise ModelError(f"{what}: {library} refused it: {error[:300]}",
                             hint="run the same file with plain onnxruntime / LiteRT to see the full error")
        with np.load(Path(tmp) / "outputs.npz", allow_pickle=False) as z:
            return [z[f"out{i}"] for i in range(int(count))]


def outputs_here(arg: Mapping[str, Any], graph_opt: str) -> int:
    """The child's side of onnx_outputs / tflite_outputs: read the feed, run, write the outputs; their count."""
    import numpy as np

    tmp = Path(arg["dir"])
    with np.load(tmp / "feed.npz", allow_pickle=False) as z:
        feed = {n: z[f"in{i}"] for i, n in enumerate(arg["names"])}
    if arg["kind"] == "onnx":
        out = _onnx_outputs_here(arg["path"], feed, arg["dtypes"] or None, graph_opt)
    else:
        out = _tflite_outputs_here(arg["path"], feed)
    arrays: dict[str, Any] = {f"out{i}": np.asarray(o) for i, o in enumerate(out)}
    np.savez(tmp / "outputs.npz", **arrays)
    return len(out)


def onnx_outputs(path: str | Path, feed: Mapping[str, np.ndarray], dtypes: Mapping[str, str] | None = None, *,
                 graph_opt: str | None = None, what: str | None = None, hint: str | None = None
                 ) -> list[np.ndarray]:
    """An ONNX file's outputs on onnxruntime's CPU provider at `graph_opt` (a --graph-opt name; default all), in
    a child process; `dtypes`: the file's input dtypes; `what` names the run in a refusal, `hint` what to try
    after a crash (default: --graph-opt)."""
    return _outputs_in_child("onnx", path, feed, dtypes, graph_opt, what, hint)


def tflite_outputs(path: str | Path, feed: Mapping[str, np.ndarray], *, what: str | None = None,
                   hint: str | None = None) -> list[np.ndarray]:
    """A .tflite file's outputs on the host's LiteRT interpreter (one thread), in a child process."""
    return _outputs_in_child("tflite", path, feed, None, None, what, hint)


def _onnx_outputs_here(path: str | Path, feed: Mapping[str, np.ndarray], dtypes: Mapping[str, str] | None,
                       graph_opt: str) -> list[np.ndarray]:
    from .loadcheck import onnxruntime_check

    session = onnxruntime_check(str(path), graph_opt)
    if dtypes is not None:
        feed = {k: v.astype(dtypes.get(k, v.dtype)) for k, v in feed.items()}
    return list(session.run(None, dict(feed)))


def _tflite_outputs_here(path: str | Path, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    interp = interpreter_class()(model_path=str(path), num_threads=1)
    in_names, _ = signature_names(interp)
    for d in interp.get_input_details():
        arr = feed[in_names.get(d["index"], d["name"])]
        if list(d["shape"]) != list(arr.shape):
            interp.resize_tensor_input(d["index"], list(arr.shape))
    interp.allocate_tensors()
    for d in interp.get_input_details():
        name = in_names.get(d["index"], d["name"])
        interp.set_tensor(d["index"], feed[name].astype(d["dtype"]))
    interp.invoke()
    return [interp.get_tensor(d["index"]).copy() for d in interp.get_output_details()]


def tflite_facts(path: str, graph_opt: str) -> dict[str, Any]:  # noqa: ARG001 - LiteRT has no optimisation level
    """The child's reading of a .tflite file (export/tflite_export.read_tflite): its inputs (TfliteTensor fields,
    signature names), output names, op counts, int8/uint8 tensors with scales, float16 tensors, signature keys."""
    interp = interpreter_class()(model_path=str(path))
    in_names, out_names = signature_names(interp)
    inputs = [{**dataclasses.asdict(t), "name": in_names.get(t.index, t.name)}
              for t in map(TfliteTensor.of, interp.get_input_details())]
    outputs = [out_names.get(d["index"], d["name"]) for d in interp.get_output_details()]
    ops: dict[str, int] = {}
    with contextlib.suppress(Exception):
        for op in interp._get_ops_details():
            ops[op["op_name"]] = ops.get(op["op_name"], 0) + 1
    int8_tensors = fp16_tensors = 0
    with contextlib.suppress(Exception):  # int8/uint8 tensors with a scale: a quantised graph (float I/O or not)
        for t in map(TfliteTensor.of, interp.get_tensor_details()):
            int8_tensors += t.dtype in ("int8", "uint8") and t.scales > 0
            fp16_tensors += t.dtype == "float16"
    try:
        signatures = list(interp.get_signature_list() or {})
    except Exception:  # noqa: BLE001 - old runtimes have no signatures
        signatures = []
    return {"inputs": inputs, "outputs": outputs, "op_counts": ops, "quantized_tensors": int(int8_tensors),
            "float16_tensors": int(fp16_tensors), "signatures": signatures}


def torch_check(got: Sequence[Any], ref: Sequence[Any], *, what: str | None = None,
                extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An export's outputs against torch's on the same inputs: ok when the max abs error is within 1e-4 of the
    reference's scale. `what` ("ONNX"): a different number or shape of outputs raises ModelError; None: it is a
    failed check with its reason. `extra` follows max_abs_error in the record (the ONNX check's batch and seed)."""
    import numpy as np

    if what is not None and len(got) != len(ref):
        raise ModelError(f"{what} model gives {len(got)} outputs, torch gives {len(ref)}",
                         hint="return tensors (or a tuple of tensors) from forward()")
    err, scale = 0.0, 0.0
    for g, r in zip(got, ref, strict=False):
        g64, r64 = np.asarray(g, dtype=np.float64), np.asarray(r, dtype=np.float64)
        if g64.shape != r64.shape:
            if what is not None:
                raise ModelError(f"{what} output shape {g64.shape} differs from torch's {r64.shape}",
                                 hint="this is an exporter problem; try exporter='torchscript'")
            return {"reference": "torch", "ok": False, "reason": f"output shape {g64.shape} != torch {r64.shape}"}
        if g64.size:
            err = max(err, float(np.max(np.abs(g64 - r64))))
            scale = max(scale, float(np.max(np.abs(r64))))
    tolerance = 1e-4 * max(1.0, scale)
    return {"reference": "torch", "max_abs_error": err, **(extra or {}), "max_abs_reference": scale,
            "tolerance": tolerance, "ok": bool(err <= tolerance and len(got) == len(ref))}


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
