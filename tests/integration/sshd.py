"""Real OpenSSH sshd servers on loopback, one per simulated device, for integration tests.

Owns: generating host and client keys with ssh-keygen, writing one sshd_config per host (own port, host key,
authorized_keys, sftp on or off, forwarding on or off), starting `sshd -D -e -f CONF` and waiting until the port
answers, restarting a host with a new host key, and stopping everything. paramiko is never mocked: tests talk to
these servers through the real SSHTransport.
Does not own: test cases (test_ssh_*.py) or fixtures (conftest.py).
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from edgeprof.records import Device

START_TIMEOUT_S = 30.0  # generous: CI machines with 2 cores are slow to start sshd under load


def find_sshd() -> str | None:
    for cand in (shutil.which("sshd"), "/usr/sbin/sshd", "/usr/local/sbin/sshd"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def missing_reason() -> str | None:
    """Why the SSH tests cannot run here, or None when they can."""
    if find_sshd() is None:
        return "OpenSSH sshd not installed (apt-get install -y openssh-server)"
    if shutil.which("ssh-keygen") is None:
        return "ssh-keygen not installed (apt-get install -y openssh-client)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def keygen(path: Path, kind: str = "ed25519", comment: str = "edgeprof-test") -> str:
    """Create a key pair without passphrase; returns the public key line."""
    for p in (path, path.with_name(path.name + ".pub")):
        if p.exists():
            p.unlink()
    args = ["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", comment, "-f", str(path)]
    if kind == "rsa":
        args[4:4] = ["-b", "2048"]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
    os.chmod(path, 0o600)
    return path.with_name(path.name + ".pub").read_text().strip()


def ssh_fingerprint(pub_path: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(pub_path)], check=True,
                         capture_output=True, text=True, timeout=30).stdout
    return out.split()[1]


@dataclass
class SSHHost:
    """One sshd = one simulated device."""

    name: str
    port: int
    dir: Path
    workdir: str
    env: dict[str, str]
    sftp: bool = True
    forwarding: bool = True
    key_type: str = "ed25519"
    extra_key_types: tuple[str, ...] = ()
    extra_config: tuple[str, ...] = ()  # more sshd_config lines, e.g. "SetEnv HOME=/tmp/board-home"
    proc: subprocess.Popen[bytes] | None = None
    host_key_line: str = ""

    @property
    def host_key_path(self) -> Path:
        return self.dir / f"ssh_host_{self.key_type}_key"

    @property
    def host_key_pub(self) -> Path:
        return self.host_key_path.with_name(self.host_key_path.name + ".pub")

    @property
    def config_path(self) -> Path:
        return self.dir / "sshd_config"

    @property
    def log_path(self) -> Path:
        return self.dir / "sshd.log"

    @property
    def host_id(self) -> str:
        return f"[127.0.0.1]:{self.port}"

    def extra_key_path(self, kind: str) -> Path:
        return self.dir / f"ssh_host_{kind}_key"

    def extra_known_hosts_line(self, kind: str) -> str:
        keytype, blob = self.extra_key_path(kind).with_suffix(".pub").read_text().split()[:2]
        return f"{self.host_id} {keytype} {blob}\n"

    def known_hosts_line(self) -> str:
        keytype, blob = self.host_key_line.split()[:2]
        return f"{self.host_id} {keytype} {blob}\n"

    def fingerprint(self) -> str:
        return ssh_fingerprint(self.host_key_pub)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""


@dataclass
class SSHLab:
    """Client keys plus any number of sshd hosts under one directory."""

    base: Path
    hosts: list[SSHHost] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        self.sshd = find_sshd() or "sshd"
        self.user = getpass.getuser()
        self.client_key = self.base / "client_ed25519"
        self.client_pub = keygen(self.client_key, comment="edgeprof-client")
        self.wrong_key = self.base / "wrong_ed25519"
        keygen(self.wrong_key, comment="edgeprof-wrong")
        self.authorized_keys = self.base / "authorized_keys"
        self.authorized_keys.write_text(self.client_pub + "\n")
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation directory

    def start_host(self, name: str, *, workdir: str | None = None, env: dict[str, str] | None = None,
                   sftp: bool = True, forwarding: bool = True, key_type: str = "ed25519",
                   extra_key_types: tuple[str, ...] = (), extra_config: tuple[str, ...] = ()) -> SSHHost:
        hdir = self.base / f"host-{name}"
        hdir.mkdir(parents=True, exist_ok=True)
        wd = workdir if workdir is not None else str(hdir / "work")
        host = SSHHost(name=name, port=0, dir=hdir, workdir=wd, env=dict(env or {}), sftp=sftp,
                       forwarding=forwarding, key_type=key_type, extra_key_types=extra_key_types,
                       extra_config=extra_config)
        host.host_key_line = keygen(host.host_key_path, key_type, comment=f"host-{name}")
        for kind in extra_key_types:
            keygen(host.extra_key_path(kind), kind, comment=f"host-{name}-{kind}")
        self._launch(host)
        self.hosts.append(host)
        return host

    def _write_config(self, host: SSHHost) -> None:
        lines = [
            f"ListenAddress 127.0.0.1:{host.port}",
            f"HostKey {host.host_key_path}",
            *(f"HostKey {host.extra_key_path(k)}" for k in host.extra_key_types),
            f"AuthorizedKeysFile {self.authorized_keys}",
            f"PidFile {host.dir / 'sshd.pid'}",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes",
            "PermitRootLogin prohibit-password",
            "UsePAM no",
            "StrictModes no",
            "UseDNS no",
            "MaxSessions 64",
            "MaxStartups 64",
            "LogLevel VERBOSE",
            f"AllowTcpForwarding {'yes' if host.forwarding else 'no'}",
        ]
        if host.sftp:
            lines.append("Subsystem sftp internal-sftp")
        if not any(c.startswith("SetEnv HOME=") for c in host.extra_config):
            # each host gets its own empty login HOME, as a real board has: this machine's ~/.bashrc (pyenv
            # init, whose rehash lock can stall every command for 60 s) must not run for every ssh command
            home = host.dir / "home"
            home.mkdir(exist_ok=True)
            lines.append(f"SetEnv HOME={home}")
        lines.extend(host.extra_config)
        host.config_path.write_text("\n".join(lines) + "\n")

    def _launch(self, host: SSHHost, keep_port: bool = False) -> None:
        last = ""
        for _ in range(5):
            if not keep_port:
                host.port = free_port()
            self._write_config(host)
            pidfile = host.dir / "sshd.pid"
            pidfile.unlink(missing_ok=True)
            log = open(host.log_path, "ab")
            host.proc = subprocess.Popen([self.sshd, "-D", "-e", "-f", str(host.config_path)],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            log.close()
            # the sshd answering must be ours: sshd writes its PidFile once it listens, so a port another test
            # process took between free_port() and our bind (xdist workers, other runs) is a failed start
            if wait_for_port(host.port, host.proc, START_TIMEOUT_S) and _pid_in(pidfile) == host.proc.pid:
                return
            last = host.log()[-2000:]
            self._stop_proc(host)
            if keep_port:
                time.sleep(0.5)
        raise RuntimeError(f"sshd for {host.name} did not start:\n{last}")

    def restart_with_new_key(self, host: SSHHost) -> None:
        """Same port, new host key: what a reflashed board (or a man in the middle) looks like."""
        self._stop_proc(host)
        host.host_key_line = keygen(host.host_key_path, host.key_type, comment=f"host-{host.name}-new")
        self._launch(host, keep_port=True)

    def stop_host(self, host: SSHHost) -> None:
        self._stop_proc(host)

    @staticmethod
    def _stop_proc(host: SSHHost) -> None:
        p = host.proc
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(10)
        host.proc = None

    def stop_all(self) -> None:
        for h in self.hosts:
            self._stop_proc(h)
        self.hosts.clear()

    def shared_host(self, name: str, known_hosts: Path) -> SSHHost:
        """The lab's sshd named `name`, started on first use and kept for the session (the lanes start one per
        board stack or root), its key written to the client's `known_hosts` file (only this host is trusted)."""
        host = next((h for h in self.hosts if h.name == name), None) or self.start_host(name)
        known_hosts.write_text(host.known_hosts_line())
        return host

    def yaml_entry(self, host: SSHHost, name: str, *, workdir: str | Path | None = None, **fields: object) -> str:
        """One devices.yaml entry for `host` (indented under `devices:`): loopback, this lab's user and key, the
        host's workdir (or `workdir`), then `fields` in order (python, sysfs_root, ...)."""
        lines = [f"  {name}:", "    host: 127.0.0.1", f"    port: {host.port}", f"    user: {self.user}",
                 f"    identity_file: {self.client_key}", f"    workdir: \"{workdir or host.workdir}\""]
        lines += [f"    {k}: {v}" if not isinstance(v, Path) else f"    {k}: \"{v}\"" for k, v in fields.items()]
        return "\n".join(lines) + "\n"

    def known_hosts(self, path: Path, *hosts: SSHHost) -> Path:
        path.write_text("".join(h.known_hosts_line() for h in hosts))
        return path

    def device(self, host: SSHHost, name: str | None = None, **overrides: object) -> Device:
        fields: dict[str, object] = dict(
            name=name or host.name, kind="ssh", host="127.0.0.1", port=host.port, user=self.user,
            identity_file=str(self.client_key), workdir=host.workdir, env=dict(host.env), connect_timeout=15.0,
        )
        fields.update(overrides)
        return Device(**fields)  # type: ignore[arg-type]


def _pid_in(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None


def wait_for_port(port: int, proc: subprocess.Popen[bytes] | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
                s.settimeout(5.0)
                if s.recv(4).startswith(b"SSH-"):
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False
