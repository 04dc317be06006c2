"""Capability matrix: can (format, runtime, precision) run on a device with these facts?

Owns: the decision run / skip(reason) before anything is pushed, for deploy and for every sweep cell.
Does not own: device facts (collected by the agent, stored by `edgeprof devices check`).
The facts dict is the agent's `facts` answer (runtimes with versions/providers, gpu, arch...); None means
unknown, in which case only statically impossible combinations are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# runtime -> formats it runs and precisions it supports (what edgeprof implements today)
RUNTIME_FORMATS: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("onnx",),
    "null": ("onnx", "tflite", "none"),
}
RUNTIME_PRECISIONS: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("fp32",),
    "null": ("fp32",),
}
# runtime -> name of the entry in facts["runtimes"] that must be importable on the device
RUNTIME_MODULES: dict[str, tuple[str, ...]] = {
    "onnxruntime": ("onnxruntime",),
}


@dataclass(frozen=True)
class Decision:
    ok: bool
    reason: str | None = None


def check(fmt: str, runtime: str, precision: str, facts: dict[str, Any] | None = None,
          device: str = "device") -> Decision:
    if runtime not in RUNTIME_FORMATS:
        return Decision(False, f"runtime {runtime} is not supported yet (supported: {', '.join(RUNTIME_FORMATS)})")
    if fmt not in RUNTIME_FORMATS[runtime]:
        return Decision(False, f"{runtime} does not run {fmt} models")
    if precision not in RUNTIME_PRECISIONS[runtime]:
        return Decision(False, f"precision {precision} is not supported yet for {runtime} "
                               f"(supported: {', '.join(RUNTIME_PRECISIONS[runtime])})")
    if facts is not None:
        runtimes = facts.get("runtimes") or {}
        needed = RUNTIME_MODULES.get(runtime, ())
        if needed and runtimes and not any("version" in (runtimes.get(m) or {}) for m in needed):
            return Decision(False, f"{runtime} is not installed on {device} "
                                   f"(python {facts.get('python', '?')}); install it there or pick another runtime")
    return Decision(True)
