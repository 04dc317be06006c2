"""The declared Backend interface (agents/edgeprof_agent/backends/base.py): every backend implements it, the
optional members have the declared defaults, and the agent calls members instead of probing for them."""

import ast
import os
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest
from onnx_fixtures import sample_rate_model  # tests/ is on sys.path via its conftest

from edgeprof_agent import backends, opprof, worker
from edgeprof_agent.backends import base, get_backend
from edgeprof_agent.messages import RunRequest
from edgeprof_agent.protocol import OpError
from edgeprof_agent.sysfs import SysfsRoot
from edgeprof_agent.tools import ToolRunner
from edgeprof_agent.vocab import ErrorKind

AGENT = Path(__file__).resolve().parents[2] / "agents" / "edgeprof_agent"


def _backend_class(name):
    import importlib

    return importlib.import_module(backends.BACKENDS[name]).Backend


@pytest.mark.parametrize("name", sorted(backends.BACKENDS))
def test_each_backend_implements_the_declared_interface(name):
    cls = _backend_class(name)
    assert issubclass(cls, base.Backend) and cls.name == name
    for member in base.REQUIRED:  # defined by the backend itself, not the base's NotImplementedError
        assert getattr(cls, member) is not getattr(base.Backend, member), (name, member)
    for member in base.OPTIONAL:
        assert callable(getattr(cls, member))
    be = get_backend(name, SysfsRoot("/nonexistent-board"), ToolRunner(), "/tmp/w")
    assert be.warnings == [] and be.first_run_s is None and be.workdir == "/tmp/w"


def test_which_backends_override_the_optional_members():
    def own(name, member):
        return getattr(_backend_class(name), member) is not getattr(base.Backend, member)

    assert [n for n in sorted(backends.BACKENDS) if own(n, "profile_ops")] == ["onnxruntime", "tensorrt", "tflite"]
    assert [n for n in sorted(backends.BACKENDS) if own(n, "set_inputs")] == sorted(backends.BACKENDS)
    assert [n for n in sorted(backends.BACKENDS) if own(n, "require")] == ["onnxruntime", "tensorrt", "tflite"]


class _Minimal(base.Backend):
    name = "minimal"

    def load(self, path, inputs, options):
        pass

    def run(self):
        pass

    def outputs(self):
        return []

    def describe(self):
        return {"runtime": "minimal", "version": "-", "providers": [], "options": {}}


def test_the_optional_members_defaults():
    be = _Minimal()
    assert be.require() is None and be.close() is None
    assert be.warnings == [] and be.first_run_s is None
    with pytest.raises(base.NotSupported) as e:
        be.set_inputs([("x", np.zeros(1))])
    assert isinstance(e.value, OpError) and e.value.type == ErrorKind.CAPABILITY and e.value.what == "set_inputs"
    with pytest.raises(base.NotSupported) as e:
        be.profile_ops(3)
    assert e.value.message == "minimal has no per-op profiler in edgeprof"
    with pytest.raises(NotImplementedError):
        base.Backend().run()


def test_a_backend_without_profile_ops_is_reported_as_before():
    assert opprof.profile("null", get_backend("null"), 5) == {
        "available": False, "source": "null", "reason": "null has no per-op profiler in edgeprof",
        "iterations": 0, "nodes": []}


def test_the_null_runtime_measured_with_profile_ops_says_not_available(capsys):
    req = RunRequest.from_dict({"runtime": "null", "warmup_s": 0, "min_duration_s": 0.01, "min_queries": 5,
                                "idle_s": 0, "power": {"source": "none"}, "profile_ops": True})
    d = tempfile.mkdtemp()
    r = worker.run_measurement(req, d, SysfsRoot(os.path.join(d, "no-board")), ToolRunner())
    assert r.ops == {"available": False, "source": "null", "reason": "null has no per-op profiler in edgeprof",
                     "iterations": 0, "nodes": []}
    assert r.first_run_ms is None and r.warnings == []
    capsys.readouterr()  # the progress events


def test_the_onnxruntime_backend_profiles_itself_in_a_second_session(tmp_path):
    path = sample_rate_model(tmp_path / "sr.onnx", x_dim0=1)
    be = get_backend("onnxruntime", SysfsRoot("/nonexistent-board"), ToolRunner(), str(tmp_path))
    be.require()
    be.load(path, [("x", np.ones((1, 4), np.float32)), ("sr", np.array(16000, np.int64))], {"threads": 1})
    ops = be.profile_ops(2)
    be.close()
    assert ops["available"] and ops["iterations"] == 2 and ops["unit"] == "us" and ops["nodes"]
    assert ops["source"] == "onnxruntime profiling (enable_profiling, separate session)"
    assert not [p for p in os.listdir(str(tmp_path)) if p.startswith("edgeprof-ort-profile")]  # deleted


def test_get_backend_refuses_a_class_outside_the_interface(monkeypatch):
    mod = types.ModuleType("plain_backend_for_test")

    class Plain:
        def __init__(self, root=None, tools=None, workdir=None):
            pass

    mod.Backend = Plain
    monkeypatch.setitem(sys.modules, "plain_backend_for_test", mod)
    monkeypatch.setitem(backends.BACKENDS, "plain", "plain_backend_for_test")
    with pytest.raises(TypeError, match="does not implement backends.base.Backend"):
        get_backend("plain")


def _probes(tree):
    """getattr / hasattr calls whose object is a name or attribute mentioning a backend."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            target = ast.dump(node.args[0]) if node.args else ""
            if "backend" in target.lower() or "'be'" in target:
                found.append(node.lineno)
    return found


def test_the_agent_never_probes_a_backend_for_a_member():
    hits = {}
    for path in sorted(AGENT.rglob("*.py")):
        lines = _probes(ast.parse(path.read_text()))
        if lines:
            hits[str(path.relative_to(AGENT))] = lines
    assert hits == {}
