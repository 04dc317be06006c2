"""AgentLink over the local transport: content-addressed push, corruption handling, handshake failures."""

import hashlib
import os
import stat
import sys
import textwrap

import pytest

from edgeprof.agentlink import AgentLink, build_agent, build_agent_bytes, push_file, remote_sha256
from edgeprof.errors import AgentError, RuntimeMissingError, TransportError
from edgeprof.records import Device
from edgeprof.transport.local import LocalTransport


def dev(tmp_path, **kw):
    kw.setdefault("python", sys.executable)
    return Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd with space"), **kw)


def test_agent_zipapp_is_deterministic_and_named_by_hash(tmp_path):
    a, b = build_agent_bytes(), build_agent_bytes()
    assert a == b
    path, sha = build_agent(tmp_path)
    assert path.name == f"agent-{sha}.pyz"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha


def test_push_skips_when_device_has_same_sha(tmp_path):
    t = LocalTransport()
    src = tmp_path / "a.bin"
    src.write_bytes(b"x" * 1000)
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = str(tmp_path / "remote" / "a.bin")
    os.makedirs(os.path.dirname(dst))
    assert push_file(t, src, dst, sha) == 1000
    assert remote_sha256(t, dst) == sha
    assert push_file(t, src, dst, sha) == 0
    # a tampered file on the device is replaced, not trusted
    with open(dst, "wb") as f:
        f.write(b"tampered")
    assert push_file(t, src, dst, sha) == 1000
    assert not [p for p in os.listdir(os.path.dirname(dst)) if ".part-" in p]


class CorruptingTransport(LocalTransport):
    def put_file(self, local_path, remote_path):
        n = super().put_file(local_path, remote_path)
        with open(remote_path, "r+b") as f:
            f.write(b"\xff")
        return n


def test_corrupted_upload_is_never_used(tmp_path):
    t = CorruptingTransport()
    src = tmp_path / "m.onnx"
    src.write_bytes(b"model-bytes" * 100)
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = tmp_path / "remote" / "m.onnx"
    dst.parent.mkdir()
    with pytest.raises(TransportError, match="corrupted"):
        push_file(t, src, str(dst), sha)
    assert not dst.exists()
    assert list(dst.parent.iterdir()) == []  # the partial upload was removed


def test_open_pushes_once_then_reuses(tmp_path):
    d = dev(tmp_path)
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        assert link.bytes_moved > 0
        assert link.hello["protocol"] == 1
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        assert link.bytes_moved == 0
        remote, moved = link.push_artifact(str(_file(tmp_path, b"abc")), hashlib.sha256(b"abc").hexdigest(), "onnx")
        assert moved == 3 and remote.endswith(".onnx") and "artifacts" in remote
        assert link.push_artifact(str(_file(tmp_path, b"abc")), hashlib.sha256(b"abc").hexdigest(), "onnx")[1] == 0


def _file(tmp_path, data):
    p = tmp_path / "art.bin"
    p.write_bytes(data)
    return p


def _script(tmp_path, body):
    p = tmp_path / "fakepython"
    p.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


def test_python_that_cannot_run_the_agent(tmp_path):
    d = dev(tmp_path, python=_script(tmp_path, "echo 'SyntaxError: invalid syntax' >&2; exit 1\n"))
    with pytest.raises(AgentError) as e:
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    assert "python" in e.value.one_line() and "SyntaxError" in (e.value.detail or "")


def test_protocol_mismatch_from_agent(tmp_path):
    fake = tmp_path / "fake_agent.py"
    fake.write_text(textwrap.dedent("""
        import json, sys
        req = json.loads(sys.stdin.readline())
        print(json.dumps({"id": req["id"], "ok": True, "result": {"protocol": 99, "agent_version": "9"}}), flush=True)
        sys.stdin.readline()
    """))
    d = dev(tmp_path, python=_script(tmp_path, f'exec {sys.executable} {fake} "$@"\n'))
    with pytest.raises(AgentError, match="protocol 99"):
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")


def test_noise_on_stdout_is_a_clear_error(tmp_path):
    d = dev(tmp_path, python=_script(tmp_path, "echo 'Welcome to the board!'; cat >/dev/null\n"))
    with pytest.raises(AgentError, match="non-protocol line"):
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")


def test_runtime_missing_is_reported(tmp_path):
    # a Python with the standard library only (like a fresh board): onnxruntime is not importable
    d = dev(tmp_path, python=sys.executable, env={"PYTHONNOUSERSITE": "1"})
    d.python = _script(tmp_path, f'exec {sys.executable} -S "$@"\n')  # -S: no site-packages
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        with pytest.raises(RuntimeMissingError, match="onnxruntime is not importable") as e:
            link.call("run", {"runtime": "onnxruntime", "inputs": [], "artifact": {"path": "x.onnx"}})
        assert "pip3 install onnxruntime" in e.value.one_line()


def test_agent_killed_mid_run(tmp_path):
    d = dev(tmp_path)
    link = AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    killed = []

    def on_event(ev):
        if ev.get("phase") == "measure" and not killed:
            os.kill(link.hello["pid"], 9)
            killed.append(1)

    with pytest.raises(AgentError, match="exited"):
        link.call("run", {"runtime": "null", "min_duration_s": 30, "min_queries": 1, "warmup_s": 0},
                  on_event=on_event)
    link.close()
