"""Capability matrix: can (format, runtime, precision) run on a device with these facts?

Owns: the decision run / skip(reason) before anything is pushed, for deploy and for every sweep cell, and the
notes that go with a run that will execute differently from what was asked (fp16 on a CPU provider computes
mostly in fp32). Formats: "torch" (bundled models and `file.py:function` builders: exported to whatever the
runtime needs), "onnx" and "tflite" (user files, run as they are or quantised), "none" (the null runtime).
Does not own: device facts (collected by the agent, stored by `edgeprof devices check`).
The facts are the agent's typed `facts` answer (edgeprof_agent.messages.Facts: runtimes with
versions/providers, gpus, l4t, ...); None means unknown, in which case only statically impossible combinations are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from edgeprof_agent.messages import Facts

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
    "tflite": ("fp32", "int8"),
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


def _importable(runtimes: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    return any("version" in (runtimes.get(m) or {}) for m in names)


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
    if needed and runtimes and not _importable(runtimes, needed):
        return Decision(False, f"{runtime} is not installed on {device} (python {python}; "
                               f"none of {', '.join(needed)} imports); install it there or pick another runtime")
    if runtime == "onnxruntime" and providers and runtimes:
        available = (runtimes.get("onnxruntime") or {}).get("providers") or []
        missing = [p for p in providers if p not in available]
        if available and missing:
            return Decision(False, f"onnxruntime on {device} lacks {', '.join(missing)} "
                                   f"(it has {', '.join(available)})")
    return Decision(True, notes=tuple(notes))
