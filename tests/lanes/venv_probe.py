"""The probe both lanes run inside a board's venv (x86 stand-ins: scripts/build-stack-venvs.py; aarch64 roots:
tests/arm/roots.py): which distribution each is imported as, and a script (Python 3.6-safe) printing as JSON the
machine, the Python, the OS, each given distribution's version and whether its module imports."""

# which module each distribution is imported as (the agent's backends import these)
IMPORTS = {"numpy": "numpy", "onnxruntime": "onnxruntime", "tflite-runtime": "tflite_runtime.interpreter",
           "ai-edge-litert": "ai_edge_litert.interpreter", "nvidia-ml-py": "pynvml", "cuda-python": "cuda.cudart"}

# run as `python -c PROBE dist=module ...`
PROBE = r"""
import json, platform, sys
try:
    from importlib.metadata import version
except ImportError:
    from pkg_resources import get_distribution
    def version(name):
        return get_distribution(name).version
out = {"machine": platform.machine(), "python": "%d.%d.%d" % tuple(sys.version_info[:3]), "dists": {},
       "imports": {}}
try:
    with open("/etc/os-release") as f:
        out["os"] = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l).get("PRETTY_NAME", "").strip('"')
except OSError as e:
    out["os"] = repr(e)
for pair in sys.argv[1:]:
    dist, module = pair.split("=", 1)
    try:
        out["dists"][dist] = version(dist)
    except Exception:
        out["dists"][dist] = None
    try:
        __import__(module)
        out["imports"][module] = None
    except Exception as e:
        out["imports"][module] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""
