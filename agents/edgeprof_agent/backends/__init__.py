"""Runtime backends, one module per runtime, chosen by name.

A backend has: load(path, inputs, options) -> None; run() -> None (one inference on the pre-bound inputs);
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


def get_backend(name):
    from ..protocol import OpError

    modname = BACKENDS.get(name)
    if modname is None:
        raise OpError("unknown_runtime", "unknown runtime %r" % name,
                      hint="choose one of: " + ", ".join(sorted(BACKENDS)))
    module = importlib.import_module(modname)
    return module.Backend()


def runtime_missing(runtime, exc, package):
    from ..protocol import OpError
    import platform
    import sys

    return OpError(
        "runtime_missing",
        "%s is not importable on this device (Python %s at %s): %s" % (
            runtime, platform.python_version(), sys.executable, exc),
        hint="install it on the device (e.g. pip3 install %s) or pick another --runtime" % package,
    )
