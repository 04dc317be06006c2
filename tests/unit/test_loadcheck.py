"""Host-side load checks in a child process (hostrun/loadcheck.py, issue 20 item 2): a real native crash (SIGSEGV
from a NULL read, a signal the child sends itself) and a real hang are one-line refusals naming the library, its
version, the signal and the graph-optimisation level; the library's own refusal is an answer; --graph-opt reaches
the child's session; a real onnxruntime session on a normal model loads."""

from __future__ import annotations

import signal
import sys
import textwrap
import time

import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof.errors import ModelError
from edgeprof.hostrun import loadcheck
from edgeprof.hostrun.loadcheck import LoadCrash, check_files

SEAM = textwrap.dedent("""
    import ctypes, os, signal, time

    def null_read(path, level):
        ctypes.string_at(0)          # a real SIGSEGV in native code

    def abort(path, level):
        os.kill(os.getpid(), signal.SIGABRT)

    def hang(path, level):
        time.sleep(600)

    def says_level(path, level):
        raise RuntimeError("asked for level " + level + " on " + path)
    """)


@pytest.fixture
def seam(tmp_path, monkeypatch):
    (tmp_path / "crashing_checks.py").write_text(SEAM)
    monkeypatch.syspath_prepend(str(tmp_path))

    def point(fn: str) -> None:
        monkeypatch.setitem(loadcheck.CHECKS, "onnxruntime", ("onnxruntime", f"crashing_checks:{fn}"))
    return point


def relu(path, dims=(1, 4)):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_a_native_segfault_in_the_check_is_one_line_naming_library_version_signal_level(tmp_path, seam):
    seam("null_read")
    import onnxruntime

    with pytest.raises(LoadCrash) as e:
        check_files([relu(tmp_path / "m.onnx")], what="the fp16 conversion of m", graph_opt="all")
    msg = str(e.value)
    assert isinstance(e.value, ModelError) and "\n" not in msg
    assert msg.startswith(f"the fp16 conversion of m: onnxruntime {onnxruntime.__version__} crashed with SIGSEGV")
    assert "graph optimisation level all" in msg
    assert "--graph-opt basic" in e.value.hint and "--graph-opt disable" in e.value.hint


def test_a_signal_names_itself_and_the_hint_skips_the_level_in_use(tmp_path, seam):
    seam("abort")
    with pytest.raises(LoadCrash) as e:
        check_files([relu(tmp_path / "m.onnx")], what="x", graph_opt="basic")
    assert "crashed with SIGABRT" in str(e.value) and "level basic" in str(e.value)
    assert "--graph-opt disable" in e.value.hint and "--graph-opt basic" not in e.value.hint


def test_a_hang_is_killed_at_the_limit_and_refused(tmp_path, seam):
    seam("hang")
    started = time.monotonic()
    with pytest.raises(LoadCrash) as e:
        check_files([relu(tmp_path / "m.onnx")], what="the int8 conversion of m", timeout_s=1.5)
    assert time.monotonic() - started < 10
    assert "hung loading it on the host (no answer after 1.5 s, graph optimisation level all)" in str(e.value)


def test_the_level_and_paths_reach_the_child_and_its_exception_is_the_answer(tmp_path, seam):
    seam("says_level")
    a, b = relu(tmp_path / "a.onnx"), relu(tmp_path / "b.onnx")
    assert check_files([a, b], what="x", graph_opt="extended") == [
        f"asked for level extended on {a}", f"asked for level extended on {b}"]


def test_real_onnxruntime_loads_a_model_and_refuses_a_broken_one_in_one_child(tmp_path):
    good = relu(tmp_path / "good.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    for level in loadcheck.ORT_LEVELS:
        got = check_files([good, bad], what="x", graph_opt=level)
        assert got[0] is None and got[1] and "\n" not in got[1]


def test_real_litert_refuses_a_file_it_cannot_read(tmp_path):
    pytest.importorskip("ai_edge_litert")
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\0" * 64)
    (err,) = check_files([bad], what="x", library=loadcheck.LITERT)
    assert err


def test_the_child_imports_little(tmp_path):
    """The child imports loadcheck (stdlib + edgeprof.errors) and the library it checks, nothing of edgeprof's."""
    import subprocess

    code = ("import sys; import edgeprof.hostrun.loadcheck; "
            "print(sorted(m for m in sys.modules if m.startswith('edgeprof')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['edgeprof', 'edgeprof.errors', 'edgeprof.hostrun', 'edgeprof.hostrun.loadcheck']"
    assert signal.SIGSEGV  # (the platform has the signals the messages name)


def test_a_call_in_the_child_returns_its_value_or_error_and_a_hang_is_refused(tmp_path, monkeypatch):
    """call_in_child (the user's .tflite read, the host references): the value comes back, an exception is its first
    line, a hang is killed at the limit and refused naming the library and the hint given."""
    import numpy as np

    from edgeprof.hostrun import reference
    from edgeprof.hostrun.loadcheck import call_in_child

    (tmp_path / "calls.py").write_text(SEAM + "\ndef echo(arg, level):\n    return {'arg': arg, 'level': level}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(loadcheck.CALLS, "echo", "calls:echo")
    monkeypatch.setitem(loadcheck.CALLS, "hang", "calls:hang")
    monkeypatch.setitem(loadcheck.CALLS, "says", "calls:says_level")
    assert call_in_child("echo", [1, "a"], what="x", graph_opt="basic") == ({"arg": [1, "a"], "level": "basic"}, None)
    assert call_in_child("says", "p", what="x") == (None, "asked for level all on p")
    with pytest.raises(LoadCrash, match=r"^reading m: onnxruntime \S+ hung loading it on the host \(no answer "
                                        r"after 1\.5 s") as e:
        call_in_child("hang", "p", what="reading m", timeout_s=1.5, hint="try another file")
    assert e.value.hint == "try another file"
    got = reference.onnx_outputs(relu(tmp_path / "r.onnx"), {"x": np.array([[-1.0, 2.0, -3.0, 4.0]], np.float32)},
                                 graph_opt="disable")  # the real reference, through the same child
    assert got[0].tolist() == [[0.0, 2.0, 0.0, 4.0]]
