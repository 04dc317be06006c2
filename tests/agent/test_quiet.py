"""The agent's quiet.py: runtime output into <workdir>/runtime.log (never onto fd 1, the protocol), copied to
stderr for the host's tail, and the lines that matter to a measurement turned into warnings, once each."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof_agent import quiet
from edgeprof_agent.backends.base import Backend as BaseBackend

AGENTS = str(Path(__file__).resolve().parents[2] / "agents")

# LiteRT's own words: the format strings in ai_edge_litert's _pywrap_tensorflow_interpreter_wrapper .so, filled in.
FAILED = ("ERROR: Attempting to use a delegate that only supports static-sized tensors with a graph that has "
          "dynamic-sized tensors (tensor#94 is a dynamic-sized tensor).\n"
          "ERROR: Failed to apply the default TensorFlow Lite delegate indexed at 0.\n")
PARTIAL = ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"
           "INFO: Replacing 30 out of 33 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 3 partitions "
           "for subgraph 0 (main).\n")
WHOLE = ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"
         "INFO: Replacing 33 out of 33 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 1 partitions "
         "for subgraph 0 (main).\n")


def test_runtime_output_keeps_fd_1_and_2_off_the_protocol_and_in_the_workdir_log(tmp_path):
    """A child with real fds: what the 'runtime' writes lands in runtime.log and on stderr, never on stdout."""
    child = textwrap.dedent("""
        import ctypes, os, sys
        sys.path.insert(0, %r)
        from edgeprof_agent.quiet import RuntimeOutput
        sys.stdout.write('{"protocol": 1}\\n')
        with RuntimeOutput("loading m.tflite", %r) as out:
            os.write(1, b"INFO: a runtime writing to fd 1\\n")
            ctypes.CDLL(None).write(2, b"INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\n", 55)
            print("python print inside")
        sys.stdout.write('{"protocol": 2}\\n')
        sys.stderr.write("caught=%%r\\n" %% out.text)
    """) % (AGENTS, str(tmp_path))
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == '{"protocol": 1}\n{"protocol": 2}\n'
    log = (tmp_path / quiet.LOG_NAME).read_text()
    assert "edgeprof-agent: loading m.tflite" in log.splitlines()[0]
    for line in ("INFO: a runtime writing to fd 1", "XNNPACK delegate for CPU", "python print inside"):
        assert line in log
        assert line in p.stderr  # the host keeps the agent's stderr as the tail shown on failure
    assert "edgeprof-agent: loading m.tflite: INFO: a runtime writing to fd 1" in p.stderr


def test_tflite_findings_in_edgeprofs_words_once():
    w = quiet.tflite_findings(FAILED + FAILED, True, None, "see runtime.log")
    assert [x["code"] for x in w] == ["xnnpack_not_applied"]
    assert "built-in kernels" in w[0]["message"] and "dynamic-sized tensors" in w[0]["message"]
    assert "see runtime.log" in w[0]["message"]
    w = quiet.tflite_findings(FAILED, False, "/usr/lib/libgpu_delegate.so", "x")
    assert [x["code"] for x in w] == ["delegate_not_applied"] and "/usr/lib/libgpu_delegate.so" in w[0]["message"]
    assert quiet.tflite_findings(FAILED, False, None, "x") == []  # XNNPACK was off: nothing was expected
    w = quiet.tflite_findings(PARTIAL, True, None, "x")
    assert [x["code"] for x in w] == ["xnnpack_partial"] and "took 30 of 33 ops" in w[0]["message"]
    assert quiet.tflite_findings(WHOLE, True, None, "x") == []


def test_ort_findings_name_the_provider_not_used():
    w = quiet.ort_findings("", ["CUDAExecutionProvider", "CPUExecutionProvider"], ["CPUExecutionProvider"], "x")
    assert [x["code"] for x in w] == ["provider_fallback"] and "CUDAExecutionProvider" in w[0]["message"]
    text = "W: Some nodes were not assigned to the preferred execution providers which may or may not ...\n"
    w = quiet.ort_findings(text, ["CUDAExecutionProvider"], ["CUDAExecutionProvider", "CPUExecutionProvider"], "x")
    assert [x["code"] for x in w] == ["provider_partial"]
    assert quiet.ort_findings(text, ["CPUExecutionProvider"], ["CPUExecutionProvider"], "x") == []


def test_onnxruntime_backend_loads_inside_the_capture(tmp_path):
    pytest.importorskip("onnxruntime")
    from edgeprof_agent.backends.ort import Backend

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "m.onnx"))
    be = Backend(workdir=str(tmp_path))
    be.require()
    be.load(str(tmp_path / "m.onnx"), [("x", np.ones((1, 4), np.float32))], {})
    be.run()
    assert be.warnings == []
    log = (tmp_path / quiet.LOG_NAME).read_text()
    assert "loading m.onnx with onnxruntime" in log and os.path.getsize(str(tmp_path / quiet.LOG_NAME)) > 0
    be.close()


class _Chatty(BaseBackend):
    """A backend whose load left a finding, as the tflite/ort backends do through quiet.py."""

    name = "chatty"

    def __init__(self):
        BaseBackend.__init__(self)

    def load(self, path, inputs, options):
        self.warnings = [{"code": "xnnpack_not_applied", "message": "LiteRT could not apply the XNNPACK delegate"}]

    def run(self):
        return None

    def outputs(self):
        return []

    def describe(self):
        return {"runtime": "chatty", "version": "-", "providers": [], "options": {}}


def test_the_worker_gives_the_backend_its_workdir_and_reports_its_findings_once(tmp_path, monkeypatch, capsys):
    from edgeprof_agent import worker
    from edgeprof_agent.messages import RunRequest
    from edgeprof_agent.sysfs import SysfsRoot
    from edgeprof_agent.tools import ToolRunner

    made = []

    def chatty(name, root=None, tools=None, workdir=None):
        made.append(_Chatty())
        made[-1].workdir = workdir
        return made[-1]

    monkeypatch.setattr(worker, "get_backend", chatty)
    req = RunRequest.from_dict({"runtime": "null", "warmup_s": 0, "min_duration_s": 0.01, "min_queries": 5,
                                "idle_s": 0})
    result = worker.run_measurement(req, str(tmp_path), SysfsRoot(str(tmp_path / "no-board")), ToolRunner())
    assert made[0].workdir == str(tmp_path)
    assert [w.code for w in result.warnings].count("xnnpack_not_applied") == 1
    capsys.readouterr()  # the progress events the worker wrote
