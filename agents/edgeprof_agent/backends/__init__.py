"""Runtime backends, one module per runtime, chosen by name.

A backend is built with the agent's hardware seam, Backend(root, tools, workdir): the SysfsRoot it may read
(tensorrt: GPU discovery), the ToolRunner it runs programs through (tensorrt: trtexec) and the workdir where the
runtime's own output goes (runtime.log, quiet.py); `warnings` (a list of {code, message}) holds what the runtime
said that matters to the measurement. It has: require() (optional:
raise runtime_missing / capability before anything else), load(path, inputs, options) -> None; run() -> None (one inference on the pre-bound inputs);
outputs() -> list of numpy arrays from the last run (fidelity checks); describe() -> dict (runtime, version,
providers, options actually used); close(). The `null` backend measures the harness itself (MLPerf's backend_null).
Importing this package imports no runtime: each backend imports its runtime inside load().
"""

import importlib

BACKENDS = {
    "null": "edgeprof_agent.backends.null",
    "onnxruntime": "edgeprof_agent.backends.ort",
    "tflite": "edgeprof_agent.backends.tflite",
    "tensorrt": "edgeprof_agent.backends.tensorrt",
}


def get_backend(name, root=None, tools=None, workdir=None):
    """The backend for runtime `name`, reading the board under `root` (SysfsRoot, "/" by default), running
    programs through `tools` (ToolRunner) and writing the runtime's own output under `workdir` (quiet.py)."""
    from ..protocol import OpError
    from ..sysfs import SysfsRoot
    from ..tools import ToolRunner
    from ..vocab import ErrorKind

    modname = BACKENDS.get(name)
    if modname is None:
        raise OpError(ErrorKind.UNKNOWN_RUNTIME, "unknown runtime %r" % name,
                      hint="choose one of: " + ", ".join(sorted(BACKENDS)))
    module = importlib.import_module(modname)
    return module.Backend(root or SysfsRoot("/"), tools or ToolRunner(), workdir)


def runtime_missing(runtime, exc, package):
    from ..protocol import OpError
    import platform
    import sys

    from ..vocab import ErrorKind

    return OpError(
        ErrorKind.RUNTIME_MISSING,
        "%s is not importable on this device (Python %s at %s): %s" % (
            runtime, platform.python_version(), sys.executable, exc),
        hint="install it on the device (e.g. pip3 install %s) or pick another --runtime" % package,
    )
