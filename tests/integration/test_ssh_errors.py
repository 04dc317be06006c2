"""Every way an SSH connection fails ends as one line that says what, where and what to do (real sshd)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sshd import SSHLab, free_port, ssh_fingerprint

from edgeprof.errors import HostKeyError, TransportError
from edgeprof.records import Device
from edgeprof.transport.ssh import SSHTransport

pytestmark = pytest.mark.ssh


def connect_error(device: Device, known_hosts: Path) -> TransportError:
    with pytest.raises(TransportError) as e:
        SSHTransport(device, user_known_hosts=str(known_hosts)).connect()
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return e.value


def test_connection_refused(ssh_lab: SSHLab, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    dev = Device(name="jetson-nano", host="127.0.0.1", port=port, identity_file=str(ssh_lab.client_key))
    msg = str(connect_error(dev, tmp_path / "kh"))
    assert msg == (f"device jetson-nano (127.0.0.1:{port}): connection refused — is sshd running on the board, "
                   f"and listening on port {port}?")


@pytest.fixture
def blackhole() -> Iterator[int]:
    """A port whose SYNs are dropped (accept queue full): what a powered-off board on the LAN looks like."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    port = srv.getsockname()[1]
    fillers = []
    for _ in range(4):  # fill the accept queue; later connects time out
        c = socket.socket()
        c.settimeout(0.5)
        try:
            c.connect(("127.0.0.1", port))
        except OSError:
            pass
        fillers.append(c)
    yield port
    for c in fillers:
        c.close()
    srv.close()


def test_host_down_times_out(ssh_lab: SSHLab, tmp_path: Path, blackhole: int) -> None:
    dev = Device(name="jetson-nano", host="127.0.0.1", port=blackhole, connect_timeout=1.5,
                 identity_file=str(ssh_lab.client_key))
    start = time.monotonic()
    msg = str(connect_error(dev, tmp_path / "kh"))
    assert msg == (f"device jetson-nano (127.0.0.1:{blackhole}): connection timed out after 1.5 s — is the board "
                   "on and reachable?")
    assert time.monotonic() - start < 20


def test_port_open_but_no_ssh_banner(ssh_lab: SSHLab, tmp_path: Path) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    port = srv.getsockname()[1]
    conns: list[socket.socket] = []
    threading.Thread(target=lambda: conns.append(srv.accept()[0]), daemon=True).start()
    try:
        dev = Device(name="pi5", host="127.0.0.1", port=port, connect_timeout=1.5,
                     identity_file=str(ssh_lab.client_key))
        msg = str(connect_error(dev, tmp_path / "kh"))
        assert f"device pi5 (127.0.0.1:{port}): connection timed out after 1.5 s waiting for the SSH banner" in msg
    finally:
        for c in conns:
            c.close()
        srv.close()


def test_unresolvable_host(ssh_lab: SSHLab, tmp_path: Path) -> None:
    dev = Device(name="ghost", host="no-such-host.invalid", port=22, identity_file=str(ssh_lab.client_key))
    msg = str(connect_error(dev, tmp_path / "kh"))
    assert msg.startswith("device ghost (no-such-host.invalid:22): cannot resolve host name 'no-such-host.invalid'")


def test_auth_failure_names_the_key_and_the_fix(sshd_hosts: SSHLab, tmp_path: Path, client_home: Path) -> None:
    host = sshd_hosts.start_host("wrongkey")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", host)
    dev = sshd_hosts.device(host, identity_file=str(sshd_hosts.wrong_key))
    err = connect_error(dev, kh)
    msg = str(err)
    assert not isinstance(err, HostKeyError)
    assert msg.startswith(f"device wrongkey (127.0.0.1:{host.port}): authentication failed for user "
                          f"'{sshd_hosts.user}' — tried: identity_file {sshd_hosts.wrong_key} SHA256:")
    assert "rejected" in msg and "ssh-agent (not running" in msg
    assert f"ssh-copy-id -i KEY.pub -p {host.port} {sshd_hosts.user}@127.0.0.1" in msg


def test_missing_identity_file(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("nokey")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", host)
    dev = sshd_hosts.device(host, identity_file=str(tmp_path / "nope_ed25519"), source="devices.yaml:7")
    msg = str(connect_error(dev, kh))
    assert f"identity_file {tmp_path / 'nope_ed25519'} does not exist (devices.yaml:7)" in msg


def test_encrypted_key_without_agent(sshd_hosts: SSHLab, tmp_path: Path, client_home: Path) -> None:
    host = sshd_hosts.start_host("encrypted")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", host)
    key = tmp_path / "enc_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", str(key)], check=True, timeout=60)
    msg = str(connect_error(sshd_hosts.device(host, identity_file=str(key)), kh))
    assert f"{key} (encrypted: load it with ssh-add so ssh-agent can use it)" in msg


def test_unknown_host_key_refused_with_fingerprint(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("stranger")
    kh = tmp_path / "kh"
    kh.write_text("")  # knows nothing
    err = connect_error(sshd_hosts.device(host, name="jetson-nano"), kh)
    assert isinstance(err, HostKeyError)
    msg = str(err)
    assert msg.startswith(f"device jetson-nano (127.0.0.1:{host.port}): unknown host key ssh-ed25519 "
                          f"{host.fingerprint()}")
    assert "edgeprof devices trust jetson-nano" in msg
    assert "Accepted publickey" not in host.log()  # refused before authenticating


def test_changed_host_key_refused_loudly(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("reflashed")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", host)
    old_fp = host.fingerprint()
    with SSHTransport(sshd_hosts.device(host), user_known_hosts=str(kh)) as t:
        assert t.run(["true"]).returncode == 0
    sshd_hosts.restart_with_new_key(host)
    err = connect_error(sshd_hosts.device(host), kh)
    assert isinstance(err, HostKeyError)
    msg = str(err)
    assert f"HOST KEY CHANGED — it now presents ssh-ed25519 {host.fingerprint()}, but {kh}:1 records {old_fp}" in msg
    assert "man-in-the-middle" in msg and "edgeprof devices trust reflashed --replace" in msg


def test_revoked_host_key(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("revoked")
    kh = tmp_path / "kh"
    keytype, blob = host.host_key_line.split()[:2]
    kh.write_text(host.known_hosts_line() + f"@revoked * {keytype} {blob}\n")
    err = connect_error(sshd_hosts.device(host), kh)
    assert isinstance(err, HostKeyError) and "REVOKED" in str(err) and f"{kh}:2" in str(err)


def test_lab_known_hosts_file_and_hashed_entries(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("labfile")
    user_kh = tmp_path / "user_kh"
    user_kh.write_text("")
    lab_kh = tmp_path / "lab_known_hosts"
    lab_kh.write_text(host.known_hosts_line())
    subprocess.run(["ssh-keygen", "-H", "-f", str(lab_kh)], check=True, capture_output=True, timeout=30)
    assert lab_kh.read_text().startswith("|1|")
    with SSHTransport(sshd_hosts.device(host, known_hosts=str(lab_kh)), user_known_hosts=str(user_kh)) as t:
        assert t.run(["echo", "ok"]).stdout == "ok\n"


def test_recorded_key_type_is_negotiated(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    """The board offers ed25519 and ecdsa; only ecdsa is recorded: we must ask for ecdsa, not call it changed."""
    host = sshd_hosts.start_host("twokeys", extra_key_types=("ecdsa", "rsa"))
    for kind in ("ecdsa", "rsa"):
        kh = tmp_path / f"kh-{kind}"
        kh.write_text(host.extra_known_hosts_line(kind))
        with SSHTransport(sshd_hosts.device(host), user_known_hosts=str(kh)) as t:
            assert t.run(["true"]).returncode == 0
    fp = ssh_fingerprint(host.extra_key_path("ecdsa").with_suffix(".pub"))
    assert fp.startswith("SHA256:")


def test_jump_host_unknown_key(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    target = sshd_hosts.start_host("inner")
    jump = sshd_hosts.start_host("outer")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", target)  # the jump host is not trusted
    dev = sshd_hosts.device(target, proxy_jump=f"127.0.0.1:{jump.port}")
    err = connect_error(dev, kh)
    assert isinstance(err, HostKeyError)
    assert f"jump host 127.0.0.1:{jump.port}: unknown host key ssh-ed25519 {jump.fingerprint()}" in str(err)
