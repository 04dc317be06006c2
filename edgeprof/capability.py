"""Capability matrix: can (format, runtime, precision) run on a device with these facts?

Owns: the decision run / skip(reason) before anything is pushed, for deploy and for every sweep cell, and the
notes that go with a run that will execute differently from what was asked (fp16 on a CPU provider computes
mostly in fp32). Formats: "torch" (bundled models and `file.py:function` builders: exported to whatever the
runtime needs), "onnx" and "tflite" (user files, run as they are or quantised), "none" (the null runtime).
- whether the device has the GPU a run names (`gpu_problem`: --gpu / devices.yaml gpu: against its facts);
- which ONNX a device's onnxruntime loads: the newest IR version and default-domain opset per onnxruntime release
  (ORT_ONNX_MAX, from ONNX Runtime's compatibility page; docs/stacks.md), the IR / opset the host exports a
  torch model at for that device (`onnx_target`: min(the exporter's default or --opset, what the device loads);
  an --opset above that is refused before any export), and the refusal of an ONNX file newer than the device
  loads (`check_onnx_versions`) before it is pushed.
Does not own: device facts (collected by the agent, stored by `edgeprof devices check`), exporting (export/).
The facts are the agent's typed `facts` answer (edgeprof_agent.messages.Facts: runtimes with
versions/providers, gpus, l4t, ...); None means unknown, in which case only statically impossible combinations are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from edgeprof_agent.messages import Facts

from .errors import CapabilityError
from .vocab import PRECISIONS, RUNTIMES

# runtime -> formats it runs (torch models are exported to the runtime's own format)
RUNTIME_FORMATS: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("onnx", "torch"),
    "tflite": ("tflite", "torch"),
    "tensorrt": ("onnx", "torch"),
    "null": ("onnx", "tflite", "torch", "none"),
}
RUNTIME_PRECISIONS: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("fp32", "fp16", "int8"),
    "tflite": ("fp32", "fp16", "int8"),
    "tensorrt": ("fp32", "fp16", "int8"),
    "null": ("fp32",),
}
# every runtime of the vocabulary has a row in each table above (tests/unit/test_decide.py checks it)
# runtime -> entries in facts["runtimes"]; one of them must be importable on the device
RUNTIME_MODULES: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("onnxruntime",),
    "tflite": ("ai_edge_litert", "tflite_runtime"),
    "tensorrt": ("tensorrt",),
}
# runtimes and onnxruntime execution providers that need an NVIDIA GPU
GPU_RUNTIMES = ("tensorrt",)
GPU_PROVIDERS = ("CUDAExecutionProvider", "TensorrtExecutionProvider")
# what a runtime artifact format is for each runtime (for torch models)
NATIVE_FORMAT: dict[str, str] = {"onnxruntime": "onnx", "tflite": "tflite", "tensorrt": "onnx", "null": "none"}


@dataclass(frozen=True)
class Decision:
    ok: bool
    reason: str | None = None
    notes: tuple[str, ...] = ()  # run, but say this (e.g. a precision that executes as another)


def model_format(ref: str) -> str:
    """The format of a --model reference: "onnx", "tflite", or "torch" (bundled names and builders)."""
    lower = ref.strip().lower()
    if lower.endswith(".onnx"):
        return "onnx"
    if lower.endswith(".tflite"):
        return "tflite"
    return "torch"


def has_nvidia_gpu(facts: Facts) -> bool | None:
    """True/False from the agent's facts; None when the facts do not say (GPU discovery failed)."""
    if facts.gpus is not None:
        return bool(facts.gpus)
    if facts.l4t is not None:
        return True
    return None


def gpu_problem(facts: Facts, index: int, device: str, what: str | None = None) -> str | None:
    """None when the device's facts show a GPU `index` (NVML's index: discrete GPUs in PCI bus order; a Jetson's
    one integrated GPU is 0) or do not say (GPU discovery failed: the agent decides), else why not (one phrase,
    starting with `what`: how the GPU was named, `--gpu N` by default)."""
    what = what or f"--gpu {index}"
    if facts.gpus is None:
        return None
    discrete = [g for g in facts.gpus if g.get("kind") != "integrated"]
    count = len(discrete) if discrete else len(facts.gpus)
    if index < count:
        return None
    if count == 0:
        return f"{what}: {device} has no NVIDIA GPU"
    names = ", ".join(f"{i}: {g.get('name', 'NVIDIA GPU')}" for i, g in enumerate(discrete or facts.gpus))
    return f"{what}: {device} has {count} NVIDIA GPU(s) ({names})"


def _importable(facts: Facts, names: tuple[str, ...]) -> bool:
    return any((fact := facts.runtime(m)) is not None and fact.error is None for m in names)


# the note a tflite fp16 run on LiteRT's CPU kernels / XNNPACK carries (boards here, phones in phone/result.py)
TFLITE_FP16_ON_CPU = ("fp16 on LiteRT's CPU kernels stores the weights in float16 and DEQUANTIZEs them to float32 at "
                      "load: compute is float32, expect fp16 size and fidelity, not fp16 speed (the GPU delegate "
                      "computes in float16)")


def decide(model: str, runtime: str, precision: str, facts: Facts | None, device: str,
           options: Mapping[str, Any] | None) -> Decision:
    """The one capability decision of a measurement (deploy before connecting with facts=None, the plan with the
    device's facts, a sweep cell before its deploy): the model's format as the runtime sees it, then check()."""
    return check("none" if runtime == "null" else model_format(model), runtime, precision, facts, device, options)


def check(fmt: str, runtime: str, precision: str, facts: Facts | None = None,
          device: str = "device", options: Mapping[str, Any] | None = None) -> Decision:
    """Run, or skip with a one-line reason. `options`: runtime options (e.g. onnxruntime "providers")."""
    if runtime not in RUNTIMES:
        return Decision(False, f"runtime {runtime} is not supported (supported: {', '.join(RUNTIMES)})")
    if fmt not in RUNTIME_FORMATS[runtime]:
        return Decision(False, f"{runtime} does not run {fmt} models")
    if precision not in PRECISIONS or precision not in RUNTIME_PRECISIONS[runtime]:
        return Decision(False, f"precision {precision} is not supported for {runtime} "
                               f"(supported: {', '.join(RUNTIME_PRECISIONS[runtime])})")
    providers = list((options or {}).get("providers") or [])
    notes: list[str] = []
    if runtime == "onnxruntime" and precision == "fp16" and not any(p in GPU_PROVIDERS for p in providers):
        notes.append("fp16 on onnxruntime's CPU provider executes mostly in fp32 (Casts around fp32 kernels): "
                     "expect fp16 fidelity, not fp16 speed; use --providers CUDAExecutionProvider on a GPU")
    if runtime == "tflite" and precision == "fp16" and (options or {}).get("delegate") != "gpu":
        notes.append(TFLITE_FP16_ON_CPU)
    if facts is None:
        return Decision(True, notes=tuple(notes))
    gpu = has_nvidia_gpu(facts)
    python = facts.python
    if runtime in GPU_RUNTIMES and gpu is False:
        return Decision(False, f"{runtime} needs an NVIDIA GPU; device {device} has none")
    wanted_gpu = [p for p in providers if p in GPU_PROVIDERS]
    if runtime == "onnxruntime" and wanted_gpu and gpu is False:
        return Decision(False, f"{', '.join(wanted_gpu)} needs an NVIDIA GPU; device {device} has none")
    runtimes = facts.runtimes or {}
    needed = RUNTIME_MODULES.get(runtime, ())
    if needed and runtimes and not _importable(facts, needed):
        return Decision(False, f"{runtime} is not installed on {device} (python {python}; "
                               f"none of {', '.join(needed)} imports); install it there or pick another runtime")
    if runtime == "onnxruntime" and providers and runtimes:
        ort = facts.runtime("onnxruntime")
        available = (ort.providers if ort is not None else None) or []
        missing = [p for p in providers if p not in available]
        if available and missing:
            return Decision(False, f"onnxruntime on {device} lacks {', '.join(missing)} "
                                   f"(it has {', '.join(available)})")
    return Decision(True, notes=tuple(notes))


# -- which ONNX an onnxruntime release loads -----------------------------------------------------------------------

# (first release of the row, newest ONNX IR version, newest default-domain opset): a row holds until the next one.
# ONNX Runtime's compatibility page (https://onnxruntime.ai/docs/reference/compatibility.html), as cited in
# docs/stacks.md; tests/stacks proves the 1.10, 1.16 and 1.18 rows on the real releases.
ORT_ONNX_MAX: tuple[tuple[tuple[int, int], int, int], ...] = (
    ((1, 10), 8, 15),
    ((1, 11), 8, 16),
    ((1, 12), 8, 17),  # 1.12 and 1.13
    ((1, 14), 8, 18),
    ((1, 15), 9, 19),  # 1.15 and 1.16
    ((1, 17), 9, 20),
    ((1, 18), 10, 21),  # 1.18 and later
)
# the newest release the last row is known to describe exactly; a newer one loads at least that much (maybe more),
# so the host still exports within the row but does not refuse a user's newer file on its word
ORT_TABLE_EXACT_UNTIL = (1, 20)
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")


@dataclass(frozen=True)
class OnnxLimit:
    """The newest ONNX one onnxruntime release loads: IR version and default-domain opset."""

    runtime_version: str  # as the device reported it, e.g. "1.10.0"
    ir: int
    opset: int
    exact: bool = True  # False: a release newer than the table; it loads at least this (refusals are not made)


def ort_onnx_limit(version: str) -> OnnxLimit | None:
    """The ONNX an onnxruntime release loads (ORT_ONNX_MAX), or None for a version older than the table or
    not a version at all."""
    m = _VERSION.match(version or "")
    if m is None:
        return None
    release = (int(m.group(1)), int(m.group(2)))
    found: OnnxLimit | None = None
    for first, ir, opset in ORT_ONNX_MAX:
        if release >= first:
            found = OnnxLimit(version, ir, opset, exact=release <= ORT_TABLE_EXACT_UNTIL)
    return found


def first_ort_loading(ir: int, opset: int) -> str | None:
    """The oldest onnxruntime release (major.minor) that loads IR `ir` / opset `opset`, or None if none in the table."""
    for (major, minor), max_ir, max_opset in ORT_ONNX_MAX:
        if ir <= max_ir and opset <= max_opset:
            return f"{major}.{minor}"
    return None


# the module(s) whose version names a runtime in the device's facts (edgeprof_agent.environment.runtimes)
_RUNTIME_FACT_KEYS = {"tflite": ("ai_edge_litert", "tflite_runtime")}


def runtime_version(facts: Facts | None, runtime: str) -> str | None:
    """The version of `runtime` in the device's facts (None when the facts do not list it)."""
    if facts is None:
        return None
    for key in _RUNTIME_FACT_KEYS.get(runtime, (runtime,)):
        entry = facts.runtime(key)
        if entry is not None and entry.version:
            return entry.version
    return None


def device_onnx_limit(facts: Facts | None) -> OnnxLimit | None:
    """What the device's onnxruntime loads, from its facts (runtimes read), or None when unknown."""
    if facts is None or not facts.runtimes:
        return None
    version = runtime_version(facts, "onnxruntime")
    return ort_onnx_limit(version) if version is not None else None


@dataclass(frozen=True)
class OnnxTarget:
    """The ONNX a torch model is exported at for one run: the opset, and the IR version cap (None: the exporter's
    own IR, which every onnxruntime the table's newest row describes loads)."""

    opset: int
    max_ir: int | None = None
    limit: OnnxLimit | None = None  # what it was fitted to (None: no device facts, or not onnxruntime)


def onnx_target(runtime: str, facts: Facts | None, default_opset: int, opset: int | None = None,
                device: str = "device") -> OnnxTarget:
    """The IR / opset to export a torch model at for `runtime` on a device with `facts`: min(default or --opset,
    what the device's onnxruntime loads). Raises CapabilityError (one line, before any export) when --opset is
    above what the device loads, or the device's onnxruntime is older than any release edgeprof exports for.
    TensorRT and TFLite are not fitted (their own parsers and formats); --opset applies to them as asked."""
    wanted = default_opset if opset is None else opset
    limit = device_onnx_limit(facts) if runtime == "onnxruntime" else None
    if runtime != "onnxruntime" or limit is None:
        version = runtime_version(facts, "onnxruntime")
        if runtime == "onnxruntime" and version is not None and _VERSION.match(version):
            oldest = ORT_ONNX_MAX[0]
            raise CapabilityError(
                f"onnxruntime {version} on {device} is older than {oldest[0][0]}.{oldest[0][1]}, the oldest "
                f"release edgeprof exports for (IR {oldest[1]} / opset {oldest[2]})",
                hint=f"upgrade onnxruntime on the board to >= {oldest[0][0]}.{oldest[0][1]}, or export the model "
                     "yourself and pass the .onnx file")
        return OnnxTarget(wanted)
    if opset is not None and opset > limit.opset:
        raise CapabilityError(
            f"--opset {opset} is above what onnxruntime {limit.runtime_version} on {device} loads "
            f"(at most IR {limit.ir} / opset {limit.opset})",
            hint=f"use --opset {limit.opset} or lower, or leave --opset out (edgeprof then exports for the device)")
    newest_ir = ORT_ONNX_MAX[-1][1]
    return OnnxTarget(min(wanted, limit.opset), None if limit.ir >= newest_ir else limit.ir, limit)


def require_loadable(what: str, ir: int, opset: int, facts: Facts | None, device: str = "device") -> None:
    """Raise CapabilityError (one line: the file's IR / opset, the runtime's version and what it loads, what to do)
    when the device's onnxruntime cannot load an ONNX file of IR `ir` / default-domain opset `opset`.
    Unknown runtime versions, and releases newer than the table says exactly, are let through."""
    limit = device_onnx_limit(facts)
    if limit is None or not limit.exact or (ir <= limit.ir and opset <= limit.opset):
        return
    newer = " and ".join(p for p, bad in ((f"IR {ir} > {limit.ir}", ir > limit.ir),
                                          (f"opset {opset} > {limit.opset}", opset > limit.opset)) if bad)
    upgrade = first_ort_loading(ir, opset)
    fixes = [f"re-export it at opset {limit.opset} (IR {limit.ir}) or lower"]
    if upgrade is not None:
        fixes.append(f"upgrade onnxruntime on {device} to >= {upgrade}")
    raise CapabilityError(f"{what} is ONNX IR {ir} / opset {opset}, newer than onnxruntime {limit.runtime_version} "
                          f"on {device} loads (at most IR {limit.ir} / opset {limit.opset}: {newer})",
                          hint=", or ".join(fixes))
