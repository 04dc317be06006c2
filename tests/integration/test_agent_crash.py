"""A native crash in the runtime (issue 10 item 4): one line naming the signal, the runtime and its version; the
native stack (faulthandler's output) kept as the error's detail, in a sweep's failed row, and shown by --verbose."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import onnxruntime
import pytest

from edgeprof import session as seam
from edgeprof.agentlink import crash_signal, runtime_version
from edgeprof.errors import AgentCrashed, AgentError
from edgeprof.lab import cell_decisions as decide
from edgeprof.lab.scheduler import cell_result
from edgeprof.records import Device, RunSpec


def write_model(path: Path) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = np.random.RandomState(0).standard_normal((32, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["tokens", "w"], ["logits"])], "user",
        [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [1, 4, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 4, 8])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path

FAST = dict(min_duration_s=0.2, min_queries=5, warmup_s=0.0)

# a device `python:` that runs the real agent with one backend's run() patched to crash (or exit) natively
WRAPPER = """#!{python}
import sys
sys.path.insert(0, sys.argv[1])
from edgeprof_agent.backends import {module} as target
def run(self):
    {action}
target.Backend.run = run
sys.argv = sys.argv[1:]
from edgeprof_agent.__main__ import main
sys.exit(main())
"""


def device_python(tmp_path: Path, module: str, action: str) -> str:
    path = tmp_path / f"python-{module}"
    path.write_text(WRAPPER.format(python=sys.executable, module=module, action=action))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def local(tmp_path: Path, python: str) -> Device:
    return Device(name="nano", kind="local", python=python, workdir=str(tmp_path / "work"))


def test_segfault_in_the_runtime_is_one_line_with_signal_runtime_version_and_the_stack(tmp_path):
    python = device_python(tmp_path, "ort", "import ctypes; ctypes.string_at(0)")
    model = write_model(tmp_path / "m.onnx")
    spec = RunSpec(device="nano", model=str(model), runtime="onnxruntime", **FAST)
    with pytest.raises(AgentCrashed) as info:
        seam.deploy(spec, local(tmp_path, python), cache_dir=tmp_path / "cache")
    e = info.value
    assert e.message == (f"device nano: the agent crashed with SIGSEGV in onnxruntime {onnxruntime.__version__} "
                         "during 'run'")
    assert "--verbose" in (e.hint or "")
    assert "Fatal Python error: Segmentation fault" in (e.detail or "")
    assert "in run" in (e.detail or "")  # faulthandler's stack names the frame that crashed
    # a sweep keeps the stack in the failed row
    action = decide.on_error(e, 1, 2, 1.0, device="nano", phase=decide.MEASURE)
    assert action.kind == decide.FAIL and action.reason == e.one_line()
    assert "Fatal Python error: Segmentation fault" in (action.detail or "")


def test_deploy_shows_the_native_stack_only_with_verbose(tmp_path, capsys, monkeypatch):
    from edgeprof.cli.main import main

    python = device_python(tmp_path, "null", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    monkeypatch.setattr("edgeprof.cli.deploy.resolve_device", lambda name, inv: local(tmp_path, python))
    args = ["deploy", "--device", "nano", "--model", "m", "--runtime", "null", "--min-duration", "0.2",
            "--min-queries", "5", "--warmup", "0", "--no-store", "--quiet"]
    assert main(args) == 3
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "the agent crashed with SIGSEGV in the null runtime (the harness itself) during 'run'" in lines[0]
    assert "--verbose" in lines[0]
    assert main([*args, "--verbose"]) == 3
    err = capsys.readouterr().err
    assert "Fatal Python error: Segmentation fault" in err
    assert len(err.strip().splitlines()) > 2


def test_failed_row_stores_the_stack():
    crash = AgentCrashed("device nano: the agent crashed with SIGSEGV in onnxruntime 1.10.0 during 'run'",
                         detail="Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call "
                                "first):\n  File \"ort.py\", line 80 in run")
    action = decide.on_error(crash, 1, 2, 1.0, device="nano", phase=decide.MEASURE)
    from edgeprof.lab.spec import Cell

    cell = Cell(model="m", model_label="m", device="nano", runtime="onnxruntime", precision="fp32", batch=1,
                threads=None)
    row = cell_result(cell, "failed", action.reason, sweep_id="s", attempts=1, stderr_tail=action.detail)
    back = json.loads(row.to_json())
    assert back["reason"].startswith("device nano: the agent crashed with SIGSEGV in onnxruntime 1.10.0")
    assert "line 80 in run" in back["stderr_tail"]


def test_an_exit_without_stderr_does_not_point_below(tmp_path):
    python = device_python(tmp_path, "null", "import os; os._exit(7)")
    spec = RunSpec(device="nano", model="m", runtime="null", **FAST)
    with pytest.raises(AgentError) as info:
        seam.deploy(spec, local(tmp_path, python))
    e = info.value
    assert not isinstance(e, AgentCrashed)
    assert e.message == "agent on device nano exited (code 7) during 'run'"
    assert "below" not in (e.hint or "") and e.detail is None


@pytest.mark.parametrize(("code", "tail", "want"), [
    (-11, "", "SIGSEGV"), (-6, "", "SIGABRT"), (0, "", None), (1, "Traceback ...", None),
    (-1, "Fatal Python error: Segmentation fault\n", "SIGSEGV"),  # over SSH: paramiko's -1 and faulthandler
    (None, "Fatal Python error: Aborted\n", "SIGABRT"), (139, "", "SIGSEGV"),
    (-1, "connection closed", None),
])
def test_crash_signal(code, tail, want):
    assert crash_signal(code, tail) == want


def test_runtime_version_reads_the_facts_key_of_each_runtime():
    from edgeprof_agent.messages import Facts

    base = {"hostname": "h", "arch": "x", "cpu": "c", "os": "linux", "kernel": "6", "python": "3.6.15",
            "python_executable": "/usr/bin/python3", "agent_version": "1", "protocol": 2}
    facts = Facts.from_dict({**base, "runtimes": {"onnxruntime": {"version": "1.10.0"},
                                                  "ai_edge_litert": {"error": "ImportError"},
                                                  "tflite_runtime": {"version": "2.14.0"}}})
    assert runtime_version(facts, "onnxruntime") == "1.10.0"
    assert runtime_version(facts, "tflite") == "2.14.0"
    assert runtime_version(facts, "tensorrt") is None
    assert runtime_version(Facts.from_dict(base), "onnxruntime") is None
    assert runtime_version(None, "onnxruntime") is None


def test_a_kill_from_outside_is_not_called_a_crash(tmp_path):
    python = device_python(tmp_path, "null", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    spec = RunSpec(device="nano", model="m", runtime="null", **FAST)
    with pytest.raises(AgentError) as info:
        seam.deploy(spec, local(tmp_path, python))
    assert not isinstance(info.value, AgentCrashed)
    assert info.value.message == "agent on device nano exited (killed by SIGKILL) during 'run'"
    assert "below" not in (info.value.hint or "")


def test_a_sweep_stores_the_crash_and_its_native_stack_in_the_failed_row(tmp_path):
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.lab.scheduler import run_sweep
    from edgeprof.lab.spec import expand, parse_sweep
    from edgeprof.records import local_device
    from edgeprof.store import Store

    write_model(tmp_path / "m.onnx")
    python = device_python(tmp_path, "ort", "import ctypes; ctypes.string_at(0)")
    spec = parse_sweep("name: crash\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [onnxruntime]\n"
                       "settings: {min_duration_s: 0.2, min_queries: 5, warmup_s: 0, retries: 1, "
                       "retry_backoff_s: 0.1}\n", str(tmp_path / "s.yaml"))
    dev = local_device(python=python)
    cells = expand(spec, [dev])
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-crash", spec.name, None, {"name": spec.name}, cells)
    outcome = run_sweep(store, "sw-crash", cells, [dev])
    (r,) = outcome.results
    assert r.status == "failed"
    assert (r.reason or "").startswith(f"device local: the agent crashed with SIGSEGV in onnxruntime "
                                       f"{onnxruntime.__version__} during 'run'")
    stored = store.get(r.run_id)
    assert "Fatal Python error: Segmentation fault" in (stored.stderr_tail or "")
