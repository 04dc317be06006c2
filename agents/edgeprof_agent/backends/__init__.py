"""Runtime backends, one module per runtime, chosen by name.

Each module's `Backend` implements the interface declared in backends/base.py (load / run / outputs / describe;
require / close / set_inputs / profile_ops, warnings and first_run_s with declared defaults), built with the
agent's hardware seam, Backend(root, tools, workdir); get_backend refuses a class that is not a base.Backend. The `null` backend measures the harness itself (MLPerf's
backend_null). Importing this package imports no runtime: each backend imports its runtime inside require() /
load().
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
    from .base import Backend

    cls = importlib.import_module(modname).Backend
    if not issubclass(cls, Backend):
        raise TypeError("%s.Backend does not implement backends.base.Backend" % modname)
    return cls(root or SysfsRoot("/"), tools or ToolRunner(), workdir)


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
