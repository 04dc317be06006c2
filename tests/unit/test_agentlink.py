"""AgentLink over the local transport: content-addressed push, corruption handling, handshake failures."""

import hashlib
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from edgeprof.agentlink import AgentLink, build_agent, build_agent_bytes, push_file, remote_sha256
from edgeprof.errors import (
    AgentError,
    AgentProtocolError,
    CapabilityError,
    LeasedError,
    MeasurementFailed,
    ProtocolMismatchError,
    RuntimeMissingError,
    TransportError,
)
from edgeprof.records import Device
from edgeprof.transport.local import LocalTransport
from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.vocab import ErrorKind


def dev(tmp_path, **kw):
    kw.setdefault("python", sys.executable)
    return Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd with space"), **kw)


def test_agent_zipapp_is_deterministic_and_named_by_hash(tmp_path):
    a, b = build_agent_bytes(), build_agent_bytes()
    assert a == b
    path, sha = build_agent(tmp_path)
    assert path.name == f"agent-{sha}.pyz"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    # a new process finds the zipapp of these sources in the cache without building it
    code = ("import sys, edgeprof.agentlink.bundle as b; b._zipapp = None; "
            "print(b.build_agent(b.Path(sys.argv[1]))[1])")
    assert subprocess.check_output([sys.executable, "-c", code, str(tmp_path)], text=True).strip() == sha


def test_the_zipapp_carries_this_python_s_bytecode_and_other_pythons_compile_the_source(tmp_path):
    """Beside each source the zipapp holds its bytecode for the host's Python: the same Python imports that
    (nothing compiled at each agent start); another finds the magic number differs and compiles the source."""
    import glob
    import pwd

    from edgeprof.agentlink.bundle import _agent_source_files, _zipapp

    assert _zipapp(_agent_source_files()) == build_agent_bytes()  # rebuilt, the same bytes: deterministic
    path, _ = build_agent(tmp_path)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import edgeprof_agent.worker as w; "
            "from edgeprof_agent import PROTOCOL_VERSION; print(w.__file__, PROTOCOL_VERSION)")
    here = subprocess.check_output([sys.executable, "-c", code, str(path)], text=True).split()
    assert here[0].endswith("edgeprof_agent/worker.pyc") and here[1] == str(PROTOCOL_VERSION)
    home = pwd.getpwuid(os.getuid()).pw_dir  # HOME is redirected for tests
    others = [p for p in sorted(glob.glob(os.path.join(home, ".pyenv", "versions", "3.*", "bin", "python3")))
              if not p.startswith(os.path.join(home, ".pyenv", "versions", "{}.{}.".format(*sys.version_info[:2])))]
    if not others:
        pytest.skip("no other Python here to import the zipapp with")
    there = subprocess.check_output([others[0], "-c", code, str(path)], text=True).split()
    assert there[0].endswith("edgeprof_agent/worker.py") and there[1] == str(PROTOCOL_VERSION)


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
        assert link.hello.protocol == PROTOCOL_VERSION == 11
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
    with pytest.raises(AgentError, match="protocol 99") as e:
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    assert isinstance(e.value, ProtocolMismatchError)
    assert "this host's edgeprof is older" in e.value.message and "pip install -U edgeprof" in e.value.one_line()


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
            os.kill(link.hello.pid, 9)
            killed.append(1)

    with pytest.raises(AgentError, match="exited"):
        link.call("run", {"runtime": "null", "min_duration_s": 30, "min_queries": 1, "warmup_s": 0},
                  on_event=on_event)
    link.close()


def _fake_agent(tmp_path, replies):
    """A device python that runs a fake agent: answers hello in this protocol (unless `replies` has "hello"), then
    each later request with the next of `replies` (a result dict, or {"error": {...}})."""
    fake = tmp_path / "fake_agent.py"
    fake.write_text(textwrap.dedent(f"""
        import json, os, sys
        replies = {replies!r}
        hello = {{"agent_version": "0.1.0", "protocol": {PROTOCOL_VERSION}, "python": "3.6.9", "pid": os.getpid(),
                  "workdir": "/w", "sysfs_root": "/"}}
        for line in sys.stdin:
            req = json.loads(line)
            if req["op"] == "hello":
                answer = replies.pop("hello", {{"result": hello}})
            elif req["op"] == "shutdown":
                break
            else:
                answer = replies["later"].pop(0)
            msg = dict(answer, id=req["id"], ok="error" not in answer)
            print(json.dumps(msg), flush=True)
    """))
    return dev(tmp_path, python=_script(tmp_path, f'exec {sys.executable} {fake} "$@"\n'))


def test_an_older_agent_is_refused_with_advice(tmp_path):
    d = _fake_agent(tmp_path, {"hello": {"result": {"protocol": 1, "agent_version": "0.0.9"}}})
    with pytest.raises(ProtocolMismatchError) as e:
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    line = e.value.one_line()
    assert f"speaks protocol 1, host speaks {PROTOCOL_VERSION}: the agent is older" in line and "devices.yaml" in line
    assert "\n" not in line


def test_an_agent_refusing_the_hello_says_its_version(tmp_path):
    # an agent of protocol >= 2 refuses another host version with its own version in the error reply
    newer, host = PROTOCOL_VERSION + 1, PROTOCOL_VERSION
    refusal = {"error": {"type": "protocol_mismatch",
                         "message": f"agent speaks protocol {newer} but the host speaks {host}",
                         "hint": "run the same edgeprof", "protocol": newer}}
    d = _fake_agent(tmp_path, {"hello": refusal})
    with pytest.raises(ProtocolMismatchError,
                       match=f"speaks protocol {newer}, host speaks {host}: this host's edgeprof is older"):
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    # a v1 agent's refusal carries no version: its own words are shown
    refusal = {"error": {"type": "protocol_mismatch", "message": f"agent speaks protocol 1 but the host speaks {host}"}}
    d = _fake_agent(tmp_path, {"hello": refusal})
    with pytest.raises(ProtocolMismatchError) as e:
        AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    assert f"refused this host's protocol {host}: agent speaks protocol 1" in e.value.message and e.value.hint


def test_a_reply_of_the_wrong_type_is_a_one_line_protocol_error(tmp_path):
    bad_run = {"result": {"samples_ns": "12,13"}}
    bad_hash = {"result": {"sha256": 7}}
    unknown = {"result": {"pong": True, "colour": "blue"}}
    d = _fake_agent(tmp_path, {"later": [bad_hash, unknown, bad_run]})
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        with pytest.raises(AgentProtocolError) as e:
            link.push_artifact(str(_file(tmp_path, b"abc")), hashlib.sha256(b"abc").hexdigest(), "onnx")
        assert e.value.message == ("malformed reply from the agent on device bench-1: "
                                   "sha256 reply.sha256: expected a string, got integer")
        with pytest.raises(AgentProtocolError, match=r"ping reply: unknown field 'colour'"):
            link.call("ping")
        with pytest.raises(AgentProtocolError) as e:
            link.call("run", {"runtime": "null"})
        line = e.value.one_line()
        assert "malformed reply from the agent on device bench-1: run reply" in line and "\n" not in line
        assert e.value.kind == ErrorKind.PROTOCOL


@pytest.mark.parametrize("kind, cls", [
    (ErrorKind.RUNTIME_MISSING, RuntimeMissingError),
    (ErrorKind.CAPABILITY, CapabilityError),
    (ErrorKind.PROTOCOL_MISMATCH, ProtocolMismatchError),
    (ErrorKind.PROTOCOL, AgentProtocolError),
    (ErrorKind.UNKNOWN_OP, AgentProtocolError),
    (ErrorKind.LEASED, LeasedError),
    (ErrorKind.AGENT_EXCEPTION, AgentError),
    (ErrorKind.BAD_PATH, AgentError),
    (ErrorKind.UNKNOWN_RUNTIME, AgentError),
    (ErrorKind.PROVIDER_MISSING, AgentError),
] + [(k, MeasurementFailed) for k in ErrorKind.MEASUREMENT])
def test_error_kinds_map_to_classes(tmp_path, kind, cls):
    # the message says nothing about its kind: the mapping goes by `type` alone
    d = _fake_agent(tmp_path, {"later": [{"error": {"type": kind, "message": "it went wrong", "hint": "do X"}}]})
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        with pytest.raises(cls) as e:
            link.call("ping")
    assert type(e.value) is cls
    if isinstance(e.value, AgentError) and kind != ErrorKind.PROTOCOL_MISMATCH:
        assert e.value.kind == kind


def test_measurement_failures_from_the_real_agent_are_classified(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00garbage")
    with AgentLink.open(LocalTransport(), dev(tmp_path), agent_cache=tmp_path / "ac") as link:
        with pytest.raises(MeasurementFailed) as e:
            link.call("run", {"runtime": "onnxruntime", "artifact": {"path": str(bad)}, "min_duration_s": 0,
                              "min_queries": 1, "warmup_s": 0})
        assert e.value.kind == ErrorKind.LOAD_FAILED and e.value.message.startswith("device bench-1: ")
        # an unknown field in a request is refused on the host before it is sent
        with pytest.raises(Exception, match="run: unknown field 'max_duration_s'"):
            link.call("run", {"runtime": "null", "max_duration_s": 5})
        assert link.call("ping") == {"pong": True}
