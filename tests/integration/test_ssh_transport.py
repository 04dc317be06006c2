"""SSHTransport against real OpenSSH sshd on loopback: commands, quoting, processes, uploads, ProxyJump."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from sshd import SSHHost, SSHLab

from edgeprof.errors import TransportError
from edgeprof.transport import open_transport
from edgeprof.transport.ssh import SSHTransport

pytestmark = pytest.mark.ssh

ARGV_PY = "import json, os, sys; print(json.dumps([sys.argv[1:], os.getcwd(), os.environ.get('EDGEPROF_T')]))"
NASTY = ["$(touch {canary})", "`touch {canary}`", ";", "a b", "'", '"', "\\", "*", "", "--x", "-c",
         "$HOME", "${HOME}", "|| touch {canary}", "\n", "ä ✓", "&", ">{canary}"]


def live_processes(marker: str) -> list[str]:
    """Processes (not zombies) whose command line contains marker: what `pgrep -f` sees, minus the dead."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if marker in cmd and state != "Z":
            out.append(f"{pid} {state} {cmd}")
    return out


def pgrep(marker: str) -> list[str]:
    """pgrep -f as a cross-check (lists zombies too on some procps versions, so filtered by live_processes)."""
    r = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    pids = r.stdout.split()
    live = {line.split()[0] for line in live_processes(marker)}
    return [p for p in pids if p in live]


def transport(lab: SSHLab, host: SSHHost, tmp_path: Path, **device: object) -> SSHTransport:
    kh = lab.known_hosts(tmp_path / "known_hosts", *lab.hosts)
    return SSHTransport(lab.device(host, **device), user_known_hosts=str(kh))


def test_run_passes_argv_verbatim(three_hosts: list[SSHHost], sshd_hosts: SSHLab, tmp_path: Path) -> None:
    canary = tmp_path / "pwned"
    args = [a.replace("{canary}", str(canary)) for a in NASTY]
    for host in three_hosts:
        with transport(sshd_hosts, host, tmp_path) as t:
            r = t.run(["python3", "-c", ARGV_PY, *args], timeout=60)
            assert r.returncode == 0, r.stderr
            got_argv, _cwd, env_value = json.loads(r.stdout)
            assert got_argv == args
            assert env_value == host.env["EDGEPROF_T"]  # device env, metacharacters and all
    assert not canary.exists()


def test_run_exit_status_stdin_stderr_env(three_hosts: list[SSHHost], sshd_hosts: SSHLab, tmp_path: Path) -> None:
    with transport(sshd_hosts, three_hosts[1], tmp_path) as t:
        r = t.run(["sh", "-c", 'cat; echo "to stderr $EDGEPROF_T $EXTRA" >&2; exit 3'], stdin=b"in\x00put\n",
                  env={"EXTRA": "x;y", "EDGEPROF_T": "call wins"})
        assert (r.returncode, r.stdout, r.stderr) == (3, "in\x00put\n", "to stderr call wins x;y\n")
        r = t.run(["definitely-not-a-command-xyz"])
        assert r.returncode == 127
        big = t.run(["python3", "-c", "import sys; sys.stdout.write('x' * 3000000); sys.stderr.write('e' * 500000)"])
        assert (len(big.stdout), len(big.stderr)) == (3000000, 500000)
        with pytest.raises(ValueError):
            t.run(["true"], env={"BAD NAME": "x"})


def test_one_connection_for_the_transport_lifetime(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("reuse")
    with transport(sshd_hosts, host, tmp_path) as t:
        for _ in range(5):
            assert t.run(["true"]).returncode == 0
        t.expand_path("~/x")
        p = tmp_path / "f"
        p.write_bytes(b"x")
        t.put_file(str(p), host.workdir + "/f")
    assert host.log().count("Accepted publickey") == 1


def test_run_timeout_kills_the_remote_command(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("timeout")
    marker = f"edgeprof-timeout-{uuid.uuid4().hex}"
    with transport(sshd_hosts, host, tmp_path) as t:
        start = time.monotonic()
        r = t.run(["sh", "-c", f"sleep 300 & python3 -c 'import time; time.sleep(300)' {marker}; wait"], timeout=2)
        assert r.returncode == 124 and "timed out after 2" in r.stderr
        assert time.monotonic() - start < 30
    deadline = time.monotonic() + 10
    while live_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_processes(marker) == []


def test_terminate_leaves_no_process(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("term")
    marker = f"edgeprof-agent-{uuid.uuid4().hex}"
    lines: list[str] = []
    script = (
        "import subprocess, sys, time\n"
        "kids = [subprocess.Popen(['sh', '-c', 'sleep 300; : ' + sys.argv[1]]),\n"
        "        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', sys.argv[1]])]\n"
        "sys.stderr.write('agent starting\\n'); sys.stderr.flush()\n"
        "for line in sys.stdin:\n"
        "    print('echo ' + line.strip(), flush=True)\n"
    )
    with transport(sshd_hosts, host, tmp_path) as t:
        t._on_stderr = lines.append
        proc = t.start(["python3", "-c", script, marker])
        proc.write_line("ping")
        assert proc.read_line(timeout=30) == "echo ping"
        assert proc.poll() is None
        deadline = time.monotonic() + 15
        # != 3, not < 3: right after a fork the shell's child shows the shell's command line until it execs
        while len(live_processes(marker)) != 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(live_processes(marker)) == 3, live_processes(marker)  # agent + 2 children
        assert len(pgrep(marker)) == 3
        assert "agent starting" in proc.stderr_tail()
        assert "agent starting" in lines
        proc.terminate()
        assert proc.wait(10) is not None
        assert live_processes(marker) == [] and pgrep(marker) == []
        assert proc.read_line(timeout=10) is None  # end of stream, not a hang


def test_terminate_kills_a_process_that_ignores_sigterm(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("stubborn")
    marker = f"edgeprof-stubborn-{uuid.uuid4().hex}"
    script = ("import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "print('ready', flush=True)\ntime.sleep(300)\n")
    with transport(sshd_hosts, host, tmp_path) as t:
        proc = t.start(["python3", "-c", script, marker])
        assert proc.read_line(timeout=30) == "ready"
        proc.terminate()
        assert live_processes(marker) == []


def test_close_terminates_running_processes(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("closer")
    marker = f"edgeprof-close-{uuid.uuid4().hex}"
    t = transport(sshd_hosts, host, tmp_path)
    proc = t.start(["python3", "-c", "import time; print('up', flush=True); time.sleep(300)", marker])
    assert proc.read_line(timeout=30) == "up"
    t.close()
    assert live_processes(marker) == []


def test_process_exit_status_and_eof(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("exits")
    with transport(sshd_hosts, host, tmp_path) as t:
        proc = t.start(["sh", "-c", "echo one; echo oops >&2; exit 7"])
        assert proc.read_line(timeout=30) == "one"
        assert proc.read_line(timeout=30) is None
        assert proc.wait(30) == 7 and proc.poll() == 7
        assert "oops" in proc.stderr_tail()
        proc.terminate()  # harmless after exit


def test_put_file_then_rename(three_hosts: list[SSHHost], sshd_hosts: SSHLab, tmp_path: Path) -> None:
    data = os.urandom(3 * 1024 * 1024 + 17)
    local = tmp_path / "model.onnx"
    local.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    host = three_hosts[0]  # workdir with a space in it
    assert " " in host.workdir
    with transport(sshd_hosts, host, tmp_path) as t:
        tmp = f"{host.workdir}/artifacts/{sha}.onnx.tmp-1"
        final = f"{host.workdir}/artifacts/{sha}.onnx"
        assert t.put_file(str(local), tmp) == len(data)  # creates the missing directory
        assert t.run(["mv", "-f", tmp, final]).returncode == 0
        r = t.run(["sha256sum", final])
        assert r.stdout.split()[0] == sha
    assert Path(final).read_bytes() == data


def test_put_file_without_sftp_subsystem(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("nosftp", sftp=False, workdir=str(sshd_hosts.base / "no sftp" / "wd"))
    local = tmp_path / "blob"
    local.write_bytes(os.urandom(200_000))
    with transport(sshd_hosts, host, tmp_path) as t:
        assert t.put_file(str(local), host.workdir + "/blob") == 200_000
    assert Path(host.workdir, "blob").read_bytes() == local.read_bytes()


def test_put_file_unwritable_path_is_one_line(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("unwritable")
    local = tmp_path / "f"
    local.write_bytes(b"x")
    blocker = Path(host.workdir) / "a-file"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a directory")
    with transport(sshd_hosts, host, tmp_path) as t, pytest.raises(TransportError) as e:
        t.put_file(str(local), f"{blocker}/sub/f")
    assert f"device unwritable (127.0.0.1:{host.port}): cannot create {blocker}/sub" in str(e.value)
    assert "\n" not in str(e.value)


def test_expand_path_uses_remote_home(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("home")
    home = str(host.dir / "home")  # the host's login HOME (SetEnv in its sshd_config), not the client's $HOME
    assert home != os.environ["HOME"] and home != pwd.getpwuid(os.getuid()).pw_dir
    with transport(sshd_hosts, host, tmp_path) as t:
        assert t.expand_path("~") == home
        assert t.expand_path("~/.cache/edgeprof") == os.path.join(home, ".cache/edgeprof")
        assert t.expand_path("/abs/path") == "/abs/path"


def test_open_transport_builds_ssh_transport(sshd_hosts: SSHLab, tmp_path: Path, client_home: Path) -> None:
    host = sshd_hosts.start_host("factory")
    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    with open_transport(sshd_hosts.device(host)) as t:
        assert isinstance(t, SSHTransport)
        assert t.run(["echo", "ok"]).stdout == "ok\n"


def test_proxy_jump_through_a_second_sshd(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    target = sshd_hosts.start_host("behind")
    jump = sshd_hosts.start_host("gateway")
    closed = sshd_hosts.start_host("gateway-noforward", forwarding=False)
    kh = sshd_hosts.known_hosts(tmp_path / "kh", target, jump, closed)
    dev = sshd_hosts.device(target, proxy_jump=f"{sshd_hosts.user}@127.0.0.1:{jump.port}")
    with SSHTransport(dev, user_known_hosts=str(kh)) as t:
        assert t.run(["echo", "through"]).stdout == "through\n"
        marker = f"edgeprof-jump-{uuid.uuid4().hex}"
        proc = t.start(["python3", "-c", "import time; print('up', flush=True); time.sleep(300)", marker])
        assert proc.read_line(timeout=30) == "up"
        proc.terminate()
        assert live_processes(marker) == []
    assert "Accepted publickey" in jump.log()  # the jump host carried the connection
    blocked = sshd_hosts.device(target, proxy_jump=f"127.0.0.1:{closed.port}")
    with pytest.raises(TransportError) as e:
        SSHTransport(blocked, user_known_hosts=str(kh)).connect()
    assert f"jump host 127.0.0.1:{closed.port} could not connect onward to 127.0.0.1:{target.port}" in str(e.value)


def test_proxy_jump_two_hops(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    target = sshd_hosts.start_host("deep")
    first = sshd_hosts.start_host("hop1")
    second = sshd_hosts.start_host("hop2")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", target, first, second)
    user = sshd_hosts.user
    dev = sshd_hosts.device(target, proxy_jump=f"{user}@127.0.0.1:{first.port},{user}@127.0.0.1:{second.port}")
    with SSHTransport(dev, user_known_hosts=str(kh)) as t:
        assert t.run(["echo", "two hops"]).stdout == "two hops\n"
    assert "Accepted publickey" in first.log() and "Accepted publickey" in second.log()
    assert target.log().count("Accepted publickey") == 1


def test_proxy_jump_hop_resolved_from_ssh_config(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    target = sshd_hosts.start_host("behind2")
    jump = sshd_hosts.start_host("gateway2")
    kh = sshd_hosts.known_hosts(tmp_path / "kh", target, jump)
    cfg = tmp_path / "ssh_config"
    cfg.write_text(f"Host labgw\n  HostName 127.0.0.1\n  Port {jump.port}\n  User {sshd_hosts.user}\n"
                   f"  IdentityFile {sshd_hosts.client_key}\n")
    dev = sshd_hosts.device(target, proxy_jump="labgw")
    with SSHTransport(dev, user_known_hosts=str(kh), ssh_config=str(cfg)) as t:
        assert t.run(["echo", "ok"]).stdout == "ok\n"


def test_auth_through_ssh_agent(sshd_hosts: SSHLab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                client_home: Path) -> None:
    host = sshd_hosts.start_host("agentauth")
    sock = str(tmp_path / "agent.sock")
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", sock], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        monkeypatch.setenv("SSH_AUTH_SOCK", sock)
        subprocess.run(["ssh-add", str(sshd_hosts.client_key)], check=True, capture_output=True, timeout=30)
        with transport(sshd_hosts, host, tmp_path, identity_file=None) as t:
            assert t.run(["echo", "agent"]).stdout == "agent\n"
    finally:
        agent.terminate()
        agent.wait(10)


def test_terminate_after_exit_kills_what_the_process_left_behind(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("orphans")
    marker = f"edgeprof-orphan-{uuid.uuid4().hex}"
    with transport(sshd_hosts, host, tmp_path) as t:
        # the child keeps no pipe open (so the channel sees EOF), but stays in the process group
        proc = t.start(["sh", "-c", f"python3 -c 'import time; time.sleep(300)' {marker} "
                                    ">/dev/null 2>&1 </dev/null & echo started"])
        assert proc.read_line(timeout=30) == "started"
        assert proc.wait(30) == 0
        deadline = time.monotonic() + 15
        while not any("time.sleep" in p for p in live_processes(marker)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any("time.sleep" in p for p in live_processes(marker))  # the orphan is running
        proc.terminate()
    deadline = time.monotonic() + 15
    while live_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_processes(marker) == []


def test_close_stops_a_process_nobody_kept(sshd_hosts: SSHLab, tmp_path: Path) -> None:
    host = sshd_hosts.start_host("dropped")
    marker = f"edgeprof-dropped-{uuid.uuid4().hex}"
    t = transport(sshd_hosts, host, tmp_path)

    def start_and_drop() -> None:  # like a caller whose handshake failed and who lost the process object
        proc = t.start(["python3", "-c", "import time; print('up', flush=True); time.sleep(300)", marker])
        assert proc.read_line(timeout=30) == "up"

    start_and_drop()
    import gc

    gc.collect()
    assert len(live_processes(marker)) == 1
    t.close()
    assert live_processes(marker) == []


def test_a_link_that_drops_during_cleanup_is_a_transport_error_not_eof(sshd_hosts: SSHLab, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """When the board's link drops, paramiko's Channel.exec_command re-raises the transport's saved exception —
    a bare EOFError (paramiko/channel.py _wait_for_event; packetizer.py raises EOFError at the socket's end) —
    until its reader thread marks the transport inactive. A sweep cell once failed as "internal error in
    edgeprof: EOFError:" that way, instead of a transport error it retries. Here exec_command raises exactly that
    on a real connection: a command is a TransportError, and terminate (cleanup) does not raise over the error
    that came first."""
    import paramiko

    host = sshd_hosts.start_host("drop")
    marker = f"edgeprof-drop-{uuid.uuid4().hex}"
    with transport(sshd_hosts, host, tmp_path) as t:
        proc = t.start(["sh", "-c", f"sleep 30; : {marker}"])
        assert proc.poll() is None

        def dropped(self: paramiko.Channel, command: str) -> None:
            raise EOFError()

        monkeypatch.setattr(paramiko.Channel, "exec_command", dropped)
        with pytest.raises(TransportError, match="lost the connection"):
            t.run(["true"])
        proc.terminate()  # the kill script cannot start: no EOFError escapes
        monkeypatch.undo()
        t.run(["pkill", "-f", marker])
