"""Host-side load checks of model files in a child process with a time limit: a native crash is a refusal.

Owns: running a check of a converted or user file — an onnxruntime InferenceSession created at the run's graph
optimisation level (`onnxruntime_check`), a LiteRT interpreter built and its tensors allocated
(`litert_check`) — in a fresh Python child (`sys.executable`; this module imports only the standard library and
edgeprof.errors, so the child imports little but the library it checks), with several files in one child when one export checks several.
The same child runs the host's other loads of a file (`call_in_child`, named in CALLS): reading a user's .tflite
(reference.tflite_facts) and the host reference outputs (reference.outputs_here: the export checks, fidelity).
A signal that kills the child (SIGSEGV, SIGABRT, ...), or a child that does not answer within the time limit,
is a `LoadCrash` (a ModelError): one line naming the library, its version, the signal or the hang and the
graph-optimisation level, with what to try (`--graph-opt`). What the library raises in Python is the check's
answer (the first line of its message), for the caller to word. The library's own output goes to the child's
inherited fd 1/2 (the caller's capture, export/capture.py); the answer travels through a temporary file.
The check a child runs is named as "module:function" in CHECKS (the seam: tests name one that crashes or hangs
for real).
`op_refused` turns an answer that says an op is missing into its one-line refusal.
Does not own: what a refusal means for a conversion (quantize.py, tflite_export.py) or the op-support wording
(the agent's backends/opsupport.py).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ModelError

__all__ = ["check_files", "call_in_child", "check_converted", "op_refused", "LoadCrash", "onnxruntime_check", "litert_check", "ORT_LEVELS", "TIMEOUT_S",
           "ONNXRUNTIME", "LITERT", "CHECKS", "CALLS"]

ONNXRUNTIME, LITERT = "onnxruntime", "LiteRT"
# library → (its distribution, the check the child runs as "module:function"): the seam tests point elsewhere
CHECKS = {ONNXRUNTIME: ("onnxruntime", "edgeprof.hostrun.loadcheck:onnxruntime_check"),
          LITERT: ("ai-edge-litert", "edgeprof.hostrun.loadcheck:litert_check")}
# what a child may be asked to call (call_in_child), by name → "module:function": the seam tests point elsewhere
CALLS = {"tflite_facts": "edgeprof.hostrun.reference:tflite_facts", "outputs": "edgeprof.hostrun.reference:outputs_here"}
TIMEOUT_S = 300.0  # a session creation that takes longer than this on the host is a hang
ORT_LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
              "all": "ORT_ENABLE_ALL"}  # the agent's backends/ort.OPT_LEVELS, by the same --graph-opt names


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001 - not installed
        return "?"


class LoadCrash(ModelError):
    """The library crashed (a signal) or hung in the child: not the file's fault, not an answer."""


def _crash(message: str, hint: str) -> LoadCrash:
    return LoadCrash(message, hint=hint)


def _what_to_try(graph_opt: str | None, library: str) -> str:
    if library == "onnxruntime":
        others = [lv for lv in ("basic", "disable") if lv != (graph_opt or "all")]
        return (f"try --graph-opt {' or --graph-opt '.join(others)} (the crash is in onnxruntime's graph "
                "optimiser at some levels), or another --precision; your file is not the cause of a crash in the "
                "library")
    return "try another --precision, or a newer ai-edge-litert on the host (pip install -U ai-edge-litert)"


def _run_child(request: dict[str, Any], *, what: str, library: str, graph_opt: str | None, timeout_s: float | None,
               hint: str | None) -> dict[str, Any]:
    """Run the child on `request` (its "check" and arguments) at the graph-optimisation level; its answer. A
    signal, a hang past the time limit or an exit without an answer raises LoadCrash naming `what`, the library,
    its version and the level; `hint` replaces the default what-to-try."""
    dist = CHECKS[library][0]
    timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
    level = graph_opt or "all"
    advice = hint or _what_to_try(graph_opt, library)
    with tempfile.TemporaryDirectory(prefix="edgeprof-loadcheck-") as tmp:
        answer = Path(tmp) / "answer.json"
        request = {**request, "graph_opt": level, "answer": str(answer)}
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from edgeprof.hostrun.loadcheck import "
                                 "child_main; child_main(sys.argv[1])", json.dumps(request)],
                                env=env, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise _crash(f"{what}: {library} {_version(dist)} hung loading it on the host (no answer after "
                         f"{timeout_s:g} s, graph optimisation level {level})", advice) from None
        seconds = time.monotonic() - started
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.valid_signals() else f"signal {-rc}"
            raise _crash(f"{what}: {library} {_version(dist)} crashed with {name} loading it on the host (graph "
                         f"optimisation level {level}, after {seconds:.1f} s)", advice)
        try:
            data: dict[str, Any] = json.loads(answer.read_text())
        except (OSError, ValueError):
            raise _crash(f"{what}: the {library} {_version(dist)} load check exited with status {rc} without "
                         f"an answer (graph optimisation level {level})", advice) from None
    return data


def check_files(paths: Sequence[str | Path], *, what: str, library: str = ONNXRUNTIME,
                graph_opt: str | None = None, timeout_s: float | None = None) -> list[str | None]:
    """Run `library`'s check (CHECKS) on each path in one child process; per path None (it loads) or the first
    line of the library's error. A crash or hang of the child raises LoadCrash (a ModelError) naming `what`
    ("the fp16 conversion of net"), the library, its version, the signal, the graph-optimisation level."""
    request = {"check": CHECKS[library][1], "paths": [str(p) for p in paths]}
    data = _run_child(request, what=what, library=library, graph_opt=graph_opt, timeout_s=timeout_s, hint=None)
    return [None if e is None else str(e) for e in data["errors"]]


def call_in_child(name: str, arg: Any, *, what: str, library: str = ONNXRUNTIME, graph_opt: str | None = None,
                  timeout_s: float | None = None, hint: str | None = None) -> tuple[Any, str | None]:
    """CALLS[name] (called as function(arg, graph_opt) with a JSON `arg`) in a child process, as a
    load check is: (its JSON-able value, None), or (None, the first line of what it raised). A crash or hang is
    LoadCrash, as in check_files; `hint`: what to try instead of the default (`--graph-opt`)."""
    data = _run_child({"call": CALLS[name], "arg": arg}, what=what, library=library, graph_opt=graph_opt,
                      timeout_s=timeout_s, hint=hint)
    return data.get("value"), data.get("error")


def op_refused(library: str, error: str, what: str) -> ModelError | None:
    """The one-line refusal for a check `error` that says the model needs an op `library` lacks (Flex, custom op,
    NOT_IMPLEMENTED; the agent's backends/opsupport.py words it), naming `what`; None for any other error."""
    from edgeprof_agent.backends.opsupport import op_refusal

    dist = CHECKS[library][0]
    if library == ONNXRUNTIME:
        said = op_refusal("onnxruntime", _version(dist), error)
    else:
        said = op_refusal("tflite", f"{dist} {_version(dist)}", error)
    return None if said is None else ModelError(f"{what}: {said[0]}", hint=said[1])


def check_converted(path: Path, *, what: str, library: str = ONNXRUNTIME, graph_opt: str | None = None
                    ) -> str | None:
    """The host's load check of a converted file (`what`: "the int8 conversion of net"): None when it loads; else
    the file is removed and a crash, hang or missing op raises its one-line refusal, any other refusal is returned
    (the library's first line) for the caller to word."""
    try:
        error = check_files([path], what=what, library=library, graph_opt=graph_opt)[0]
    except LoadCrash:
        path.unlink(missing_ok=True)
        raise
    if error is None:
        return None
    path.unlink(missing_ok=True)
    missing_op = op_refused(library, error, what)
    if missing_op is not None:
        raise missing_op
    return error


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0] or type(e).__name__


def child_main(request_json: str) -> None:
    """The child: run the named check on each path ({"errors": [...]}), or the named call on its argument
    ({"value": ...} or {"error": ...}), and write the answer file."""
    request = json.loads(request_json)
    module, _, name = (request.get("call") or request["check"]).partition(":")
    fn = getattr(importlib.import_module(module), name)
    if "call" in request:
        try:
            answer: dict[str, Any] = {"value": fn(request["arg"], request["graph_opt"])}
        except Exception as e:  # noqa: BLE001 - the library's refusal is the answer
            answer = {"error": _first_line(e)}
        Path(request["answer"]).write_text(json.dumps(answer))
        return
    errors: list[str | None] = []
    for path in request["paths"]:
        try:
            fn(path, request["graph_opt"])
            errors.append(None)
        except Exception as e:  # noqa: BLE001 - the library's refusal is the answer
            errors.append(_first_line(e))
    Path(request["answer"]).write_text(json.dumps({"errors": errors}))


def onnxruntime_check(path: str, graph_opt: str) -> Any:
    """An onnxruntime CPU session for `path` at `graph_opt` (a --graph-opt name), its log quiet."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, ORT_LEVELS[graph_opt])
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def litert_check(path: str, graph_opt: str) -> Any:  # noqa: ARG001 - LiteRT has no optimisation level
    """The host's LiteRT interpreter for `path`, tensors allocated."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        from tflite_runtime.interpreter import Interpreter  # type: ignore[import-not-found,unused-ignore]
    interp = Interpreter(model_path=str(path))
    interp.allocate_tensors()
    return interp
