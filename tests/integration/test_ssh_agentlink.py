"""The agent over SSH: content-addressed pushes, corrupted uploads, remote Python checks, a killed agent, deploy."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from sshd import SSHHost, SSHLab

from edgeprof.agentlink import AgentLink, push_file, sha256_file
from edgeprof.cli.main import main
from edgeprof.errors import AgentError, TransportError
from edgeprof.lab.onboarding import check_device
from edgeprof.records import Device
from edgeprof.transport.ssh import SSHTransport

pytestmark = pytest.mark.ssh


@pytest.fixture
def host(sshd_hosts: SSHLab, tmp_path: Path) -> SSHHost:
    """A fresh board per test: its own sshd and an empty workdir (with a space in its path)."""
    return sshd_hosts.start_host("board", workdir=str(tmp_path / "board work" / "edgeprof"))


def agents_pushed(workdir: str) -> list[Path]:
    return list(Path(workdir).glob("agent-*.pyz"))


def make_transport(lab: SSHLab, host: SSHHost, tmp_path: Path, **device: object) -> tuple[SSHTransport, Device]:
    kh = lab.known_hosts(tmp_path / "known_hosts", host)
    dev = lab.device(host, **device)
    return SSHTransport(dev, user_known_hosts=str(kh)), dev


def leftovers(workdir: str) -> list[str]:
    return sorted(str(p.relative_to(workdir)) for p in Path(workdir).rglob("*.part-*"))


def test_push_is_skipped_when_the_device_has_the_same_sha(sshd_hosts: SSHLab, host: SSHHost, tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(os.urandom(2_000_000))
    sha = sha256_file(model)
    t, dev = make_transport(sshd_hosts, host, tmp_path)
    with t:
        link = AgentLink.open(t, dev)
        try:
            assert link.bytes_moved > 0  # cold: the agent zipapp went over
            assert link.hello.protocol
            remote, moved = link.push_artifact(str(model), sha, "onnx")
            assert moved == 2_000_000 and remote == f"{host.workdir}/artifacts/{sha}.onnx"
        finally:
            link.close()
        link = AgentLink.open(t, dev)
        try:
            assert link.bytes_moved == 0  # warm: same sha on the device, nothing moved
            assert link.push_artifact(str(model), sha, "onnx")[1] == 0
        finally:
            link.close()
    assert Path(remote).read_bytes() == model.read_bytes()
    assert leftovers(host.workdir) == []


class CorruptingTransport(SSHTransport):
    """Flips the uploaded bytes after a put, like a flaky link or a full disk would."""

    def put_file(self, local_path: str, remote_path: str) -> int:
        n = super().put_file(local_path, remote_path)
        self.run(["sh", "-c", 'printf garbage | dd of="$1" bs=1 seek=100 conv=notrunc 2>/dev/null', "sh",
                  remote_path])
        return n


def test_corrupted_upload_is_never_used(sshd_hosts: SSHLab, host: SSHHost, tmp_path: Path) -> None:
    model = tmp_path / "model.tflite"
    model.write_bytes(os.urandom(100_000))
    sha = sha256_file(model)
    kh = sshd_hosts.known_hosts(tmp_path / "known_hosts", host)
    final = f"{host.workdir}/artifacts/{sha}.tflite"
    with CorruptingTransport(sshd_hosts.device(host), user_known_hosts=str(kh)) as t:
        t.run(["mkdir", "-p", f"{host.workdir}/artifacts"])
        with pytest.raises(TransportError, match="arrived corrupted"):
            push_file(t, model, final, sha)
    assert not Path(final).exists()
    assert leftovers(host.workdir) == []
    with SSHTransport(sshd_hosts.device(host), user_known_hosts=str(kh)) as t:  # a clean retry works
        assert push_file(t, model, final, sha) == 100_000
    assert sha256_file(final) == sha


def test_remote_python_missing(sshd_hosts: SSHLab, host: SSHHost, tmp_path: Path, client_home: Path) -> None:
    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    dev = sshd_hosts.device(host, python="/opt/nowhere/python3", source="devices.yaml:9")
    res = check_device(dev)
    assert not res.ok and res.stage == "python" and res.authenticated
    assert res.error is not None
    assert "device board: '/opt/nowhere/python3' not found" in res.error and "devices.yaml:9" in res.error
    assert agents_pushed(host.workdir) == []


def test_remote_python_too_old_is_refused_before_the_agent(sshd_hosts: SSHLab, host: SSHHost, tmp_path: Path,
                                                           client_home: Path) -> None:
    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    fake = host.dir / "python3.5"
    fake.write_text("#!/bin/sh\necho 3.5.2\n")
    fake.chmod(0o755)
    res = check_device(sshd_hosts.device(host, python=str(fake)))
    assert not res.ok and res.stage == "python" and res.python is None
    assert res.error is not None
    assert f"device board: {fake} is Python 3.5.2; the agent needs Python >= 3.6" in res.error
    assert "set python: to a newer interpreter" in res.error
    assert agents_pushed(host.workdir) == []


def test_agent_killed_mid_run_is_a_clear_error(sshd_hosts: SSHLab, host: SSHHost, tmp_path: Path) -> None:
    t, dev = make_transport(sshd_hosts, host, tmp_path)
    with t:
        link = AgentLink.open(t, dev)
        pid = link.hello.pid
        killed: list[int] = []

        def on_event(ev: dict[str, object]) -> None:
            if ev.get("phase") == "measure" and not killed:
                os.kill(int(pid), signal.SIGKILL)  # the sshd host is this machine: kill it from outside
                killed.append(pid)

        params = {"runtime": "null", "artifact": {"path": None, "format": None, "sha256": None}, "inputs": [],
                  "seed": 0, "batch": 1, "threads": None, "runtime_options": {}, "warmup_s": 0.1,
                  "min_duration_s": 60.0, "min_queries": 10, "max_queries": 10_000_000, "power": None,
                  "idle_s": 0}
        with pytest.raises(AgentError) as e:
            link.call("run", params, on_event=on_event, timeout=60)
        link.close()
    assert killed
    msg = str(e.value)
    assert f"agent on device {dev.name} exited" in msg and "during 'run'" in msg


def test_deploy_over_ssh_cold_then_warm(sshd_hosts: SSHLab, host: SSHHost, client_home: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    inv = client_home.parent / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  board:\n    host: 127.0.0.1\n    port: {host.port}\n"
                   f"    user: {sshd_hosts.user}\n    identity_file: {sshd_hosts.client_key}\n"
                   f"    workdir: \"{host.workdir}\"\n")
    db = str(client_home.parent / "r.sqlite")
    args = ["deploy", "--device", "board", "--inventory", str(inv), "--db", db, "--model", "gemm",
            "--runtime", "null", "--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--quiet",
            "--json", "-"]
    moved = []
    for _ in range(2):
        code = main(args)
        out = capsys.readouterr().out
        assert code == 0, out
        moved.append(json.loads(out)["transfer"])
    assert moved[0]["agent_bytes"] > 0
    assert moved[1]["total_bytes"] == 0


def _agents_running(workdir: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(workdir.encode() in part and b"agent-" in part for part in cmd):
            pids.append(int(entry.name))
    return pids


def test_ctrl_c_stops_the_remote_agent_and_stores_nothing(sshd_hosts: SSHLab, host: SSHHost,
                                                           client_home: Path) -> None:
    import subprocess
    import sys
    import time

    from edgeprof.store import Store

    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    inv = client_home.parent / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  board:\n    host: 127.0.0.1\n    port: {host.port}\n"
                   f"    user: {sshd_hosts.user}\n    identity_file: {sshd_hosts.client_key}\n"
                   f"    workdir: \"{host.workdir}\"\n    python: {sys.executable}\n")
    db = str(client_home.parent / "r.sqlite")
    model = client_home.parent / "mm.onnx"
    _matmul_onnx(model)
    env = dict(os.environ, HOME=str(client_home))
    p = subprocess.Popen([sys.executable, "-m", "edgeprof", "deploy", "--device", "board",
                          "--inventory", str(inv), "--db", db, "--model", str(model), "--threads", "1",
                          "--min-duration", "60", "--warmup", "0", "--idle", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    deadline = time.monotonic() + 60
    while not _agents_running(host.workdir):
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the agent never started on the board"
        time.sleep(0.1)
    time.sleep(1.0)  # inside the timed loop
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    deadline = time.monotonic() + 10
    while _agents_running(host.workdir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _agents_running(host.workdir) == []
    assert Store(db).count() == 0


def _matmul_onnx(path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = np.ones((64, 64), np.float32)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 64])],
                              [helper.make_tensor("w", TensorProto.FLOAT, [64, 64], w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
