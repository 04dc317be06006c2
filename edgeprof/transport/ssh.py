"""SSH transport: one paramiko connection to one device, reused for the transport's lifetime.

Owns: connecting (TCP or through ProxyJump hops, each a direct-tcpip channel on the previous hop's connection),
host key verification against ~/.ssh/known_hosts plus the device's lab known_hosts file (never auto-accepted),
public-key authentication (identity_file, then ssh-agent, then ~/.ssh/id_*; never passwords), keepalives,
running quoted argv lists, long-running processes whose termination leaves nothing behind on the device
(each remote command runs as its own process group, killed by group), file upload over SFTP (or `cat` when the
server has no SFTP subsystem), `~` expansion through the remote $HOME, and one-line errors for every way a
connection fails. Authentication and host key errors are in ssh_auth.py, the exec channel's command line and
output in ssh_exec.py.
Does not own: what is pushed or run (agentlink, run/), the inventory (inventory), writing known_hosts
(known_hosts.record_host_key, used by `edgeprof devices trust`).

How a remote command runs: sshd starts the user's login shell with `setsid()`, so it leads a new process group;
we send `exec sh -c 'echo edgeprof-pid:$$; exec "$@"' edgeprof <quoted argv>`, so the command keeps that pid,
tells it to us on its first stdout line, and everything it starts shares its process group. Stopping it is
`kill -TERM -- -PID` (then KILL after a grace period) over a second exec channel.
"""

from __future__ import annotations

import errno
import logging
import os
import posixpath
import shlex
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import paramiko

from ..errors import TransportError
from ..inventory.known_hosts import DEFAULT_USER_KNOWN_HOSTS, KnownHosts, Verdict, host_id
from ..records import Device
from .base import AgentProcess, CommandResult, LineTooLong, Transport
from .local import PipeReader
from .ssh_auth import DEFAULT_KEY_FILES, authenticate, host_key_error, prefer_key_types
from .ssh_exec import KILL_SCRIPT, PID_MARKER, PID_RE, collect, split_pid, wrap_command

DEFAULT_SSH_CONFIG = "~/.ssh/config"
KEEPALIVE_S = 15
TERMINATE_GRACE_S = 3.0
# paramiko's transport thread logs its errors with tracebacks ("Exception (client): Error reading SSH protocol
# banner"); edgeprof reports each of them as one line. They go to a handler only where an application configures
# logging (the debug log), never to the terminal through logging's last-resort handler.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

StderrSink = Callable[[str], None]

__all__ = ["DEFAULT_KEY_FILES", "PID_MARKER", "SSHAgentProcess", "SSHTransport", "host_key_error", "wrap_command"]


class SSHTransport(Transport):
    """Transport to one device over SSH (paramiko). Connects on first use; `connect()` forces it."""

    def __init__(self, device: Device, on_stderr: StderrSink | None = None, *,
                 user_known_hosts: str | None = None, ssh_config: str | None = None) -> None:
        if not device.host:
            raise TransportError(f"device {device.name!r} has no host", hint="set host: in devices.yaml")
        self.device = device
        self.device_name = device.name
        self._on_stderr = on_stderr
        self.user_known_hosts = user_known_hosts or DEFAULT_USER_KNOWN_HOSTS
        self.ssh_config_path = ssh_config or DEFAULT_SSH_CONFIG
        self.port = device.port or 22
        self.timeout = float(device.connect_timeout or 10.0)
        self._lock = threading.RLock()
        self._hops: list[paramiko.Transport] = []
        self._t: paramiko.Transport | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_missing = False
        self._home: str | None = None
        self._procs: set[SSHAgentProcess] = set()  # started and not yet terminated: close() stops them
        self._known = KnownHosts([])
        self.reached = False  # TCP + SSH handshake done and host key verified
        self.authenticated = False
        self.server_version: str | None = None

    # -- connection -----------------------------------------------------------------------------------------

    @property
    def label(self) -> str:
        return f"device {self.device.name} ({self.device.host}:{self.port})"

    def known_host_files(self) -> list[str]:
        files = [self.user_known_hosts]
        if self.device.known_hosts:
            files.append(self.device.known_hosts)
        return files

    def connect(self) -> None:
        """Open the connection now (through any jump hosts), verify host keys and authenticate."""
        self._conn()

    def _conn(self) -> paramiko.Transport:
        with self._lock:
            if self._t is not None and self._t.is_active():
                return self._t
            if self._t is not None:
                self._close_connection()
            hops, t = self._through_hops()
            self._hops = hops
            try:
                t = self._handshake(self.device.host or "", self.port, t, self._known, self.label,
                                    trust_name=self.device.name)
                self.reached = True
                identities = [self.device.identity_file] if self.device.identity_file else []
                authenticate(t, self.device.user, self.device.host or "", identities, self.label, port=self.port,
                             source=self.device.source)
            except BaseException:
                if isinstance(t, paramiko.Transport):
                    t.close()
                self._close_connection()
                raise
            self.authenticated = True
            t.set_keepalive(KEEPALIVE_S)
            self._t = t
            return t

    def _through_hops(self) -> tuple[list[paramiko.Transport], Any]:
        """Connect and authenticate each ProxyJump hop; returns (hop transports, a channel to the device or None).

        Each hop's forwarded channel leads to the next hop, the last one to the device itself.
        """
        self._known = KnownHosts(self.known_host_files())
        hops_spec = self._jump_hops()
        targets = [(h, p) for _, h, p, _ in hops_spec[1:]] + [(self.device.host or "", self.port)]
        hops: list[paramiko.Transport] = []
        sock: Any = None
        try:
            for (user, host, port, identities), (next_host, next_port) in zip(hops_spec, targets, strict=False):
                label = f"{self.label}: jump host {host}:{port}"
                hop = self._handshake(host, port, sock, self._known, label, trust_name=None)
                hops.append(hop)
                authenticate(hop, user, host, identities, label, port=self.port, source=self.device.source)
                sock = self._open_forward(hop, next_host, next_port, host, port)
        except BaseException:
            for hop in reversed(hops):
                hop.close()
            raise
        return hops, sock

    def _jump_hops(self) -> list[tuple[str | None, str, int, list[str]]]:
        """ProxyJump hops as (user, host, port, identity files); ~/.ssh/config supplies what the spec omits."""
        spec = self.device.proxy_jump
        if not spec or spec.lower() == "none":
            return []
        from ..inventory.devices import parse_proxy_jump

        try:
            raw = parse_proxy_jump(spec)
        except ValueError as e:
            raise TransportError(f"{self.label}: proxy_jump {spec!r}: {e}") from None
        cfg = self._ssh_config()
        hops = []
        for user, host, port in raw:
            c = dict(cfg.lookup(host)) if cfg is not None else {}
            real = c.get("hostname", host)
            identities = list(c.get("identityfile", []))
            if self.device.identity_file:
                identities.append(self.device.identity_file)
            hops.append((user or c.get("user"), real, port or int(c.get("port", 22)), identities))
        return hops

    def _ssh_config(self) -> paramiko.SSHConfig | None:
        path = os.path.expanduser(self.ssh_config_path)
        if not os.path.isfile(path):
            return None
        try:
            return paramiko.SSHConfig.from_path(path)
        except Exception as e:  # paramiko raises several types for a bad file
            raise TransportError(f"cannot read ssh config {path}: {e}") from None

    def _tcp(self, host: str, port: int, label: str) -> socket.socket:
        try:
            return socket.create_connection((host, port), timeout=self.timeout)
        except socket.gaierror as e:
            raise TransportError(f"{label}: cannot resolve host name {host!r} ({e.strerror})",
                                 hint="check host: in devices.yaml or HostName in ~/.ssh/config") from None
        except TimeoutError:
            raise TransportError(f"{label}: connection timed out after {self.timeout:g} s",
                                 hint="is the board on and reachable?") from None
        except ConnectionRefusedError:
            raise TransportError(f"{label}: connection refused",
                                 hint=f"is sshd running on the board, and listening on port {port}?") from None
        except OSError as e:
            if e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
                raise TransportError(f"{label}: no route to host ({e.strerror})",
                                     hint="is the board on, and on this network?") from None
            raise TransportError(f"{label}: cannot connect: {e.strerror or e}") from None

    def _open_forward(self, hop: paramiko.Transport, host: str, port: int, hop_host: str,
                      hop_port: int) -> paramiko.Channel:
        try:
            return hop.open_channel("direct-tcpip", (host, port), ("127.0.0.1", 0), timeout=self.timeout)
        except paramiko.ChannelException as e:
            raise TransportError(
                f"{self.label}: jump host {hop_host}:{hop_port} could not connect onward to {host}:{port}: "
                f"{e.text}", hint="is the board on, and may the jump host forward (AllowTcpForwarding)?") from None
        except (paramiko.SSHException, OSError) as e:
            raise TransportError(f"{self.label}: jump host {hop_host}:{hop_port} failed: {e}") from None

    def _handshake(self, host: str, port: int, sock: Any, known: KnownHosts, label: str,
                   trust_name: str | None) -> paramiko.Transport:
        """SSH handshake with host key verification; raises HostKeyError for an unknown or changed key."""
        t = self._start_client(host, port, sock, known, label)
        key = t.get_remote_server_key()
        verdict = known.verify(host_id(host, port), key.get_name(), key.asbytes())
        if verdict.status != "trusted":
            t.close()
            raise host_key_error(label, host_id(host, port), verdict, trust_name or self.device.name,
                                 self.known_host_files(), jump=trust_name is None)
        return t

    def _start_client(self, host: str, port: int, sock: Any, known: KnownHosts, label: str) -> paramiko.Transport:
        if sock is None:
            sock = self._tcp(host, port, label)
        try:
            t = paramiko.Transport(sock)
        except (paramiko.SSHException, OSError) as e:
            sock.close()
            raise TransportError(f"{label}: cannot start SSH: {e}") from None
        t.banner_timeout = self.timeout
        t.handshake_timeout = self.timeout
        t.auth_timeout = self.timeout
        prefer_key_types(t, known.key_types(host_id(host, port)))
        started = time.monotonic()
        try:
            t.start_client(timeout=self.timeout)
        except (paramiko.SSHException, EOFError, OSError) as e:
            t.close()
            text = str(e)
            if "banner" in text.lower():
                raise TransportError(f"{label}: {_waited(started, self.timeout, 'the SSH banner')}",
                                     hint="is the board on, and is an SSH server on that port?") from None
            raise TransportError(f"{label}: SSH handshake failed: {text or type(e).__name__}",
                                 hint="is this an SSH server?") from None
        if not (t.is_active() and t.initial_kex_done):  # start_client returns quietly on its own timeout
            what = "the SSH handshake" if t.remote_version else "the SSH banner"
            t.close()
            raise TransportError(f"{label}: {_waited(started, self.timeout, what)}",
                                 hint="is the board on, and is an SSH server on that port?")
        self.server_version = t.remote_version
        return t

    def host_key(self) -> tuple[str, str, bytes, Verdict]:
        """(host id, key type, key blob, verdict) of the device's host key, without authenticating to it.

        Jump hosts on the way must already be trusted. Used by `edgeprof devices trust`.
        """
        with self._lock:
            hops, sock = self._through_hops()
            try:
                hid = host_id(self.device.host or "", self.port)
                t = self._start_client(self.device.host or "", self.port, sock, self._known, self.label)
                key = t.get_remote_server_key()
                t.close()
                return hid, key.get_name(), key.asbytes(), self._known.verify(hid, key.get_name(), key.asbytes())
            finally:
                for hop in reversed(hops):
                    hop.close()

    # -- commands -------------------------------------------------------------------------------------------

    def _env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        merged = dict(self.device.env)
        if env:
            merged.update(env)
        return merged

    def _open_session(self) -> paramiko.Channel:
        t = self._conn()
        try:
            return t.open_session(timeout=self.timeout)
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise TransportError(f"{self.label}: cannot open a session: {e}",
                                 hint="the connection was lost, or sshd's MaxSessions is reached") from None

    def run(self, argv: Sequence[str], *, timeout: float | None = 60.0, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> CommandResult:
        chan = self._open_session()
        try:
            chan.exec_command(wrap_command(argv, self._env(env)))
            if stdin:
                chan.sendall(stdin)
            chan.shutdown_write()
            out, err, status, timed_out = collect(chan, timeout)
        except (paramiko.SSHException, EOFError, OSError) as e:  # paramiko raises EOFError for a dropped link
            raise TransportError(f"{self.label}: lost the connection while running {argv[0]}: {e}") from None
        finally:
            chan.close()
        text = out.decode("utf-8", "replace")
        pid, text = split_pid(text)
        errtext = err.decode("utf-8", "replace")
        if timed_out:
            if pid is not None:
                self._kill_group(pid)
            return CommandResult(list(argv), 124, text, errtext + f"\ntimed out after {timeout} s")
        if status is None:
            raise TransportError(f"{self.label}: lost the connection while running {argv[0]}",
                                 detail=errtext or None)
        return CommandResult(list(argv), status, text, errtext)

    def _exec_raw(self, command: str, timeout: float) -> tuple[int | None, str]:
        chan = self._open_session()
        try:
            chan.exec_command(command)
            chan.shutdown_write()
            out, err, status, _ = collect(chan, timeout)
        except (paramiko.SSHException, EOFError, OSError) as e:  # paramiko raises EOFError for a dropped link
            raise TransportError(f"{self.label}: lost the connection: {e or type(e).__name__}") from None
        finally:
            chan.close()
        return status, (out + err).decode("utf-8", "replace")

    def _kill_group(self, pid: int, grace: float = TERMINATE_GRACE_S, wait: bool = True) -> int | None:
        """TERM the process group `pid`, KILL it after `grace` s; returns the script's status (0, 2, 3).

        wait=False returns once sshd has started the script (it finishes on the device even if we disconnect:
        sshd does not signal a non-pty session's processes), sparing a round trip through the login shell.
        """
        steps = max(1, int(grace / 0.1))
        cmd = f"sh -c {shlex.quote(KILL_SCRIPT)} edgeprof {pid} {steps}"
        if not wait:
            chan = self._open_session()
            try:
                chan.exec_command(cmd)  # returns after sshd has forked the session
            except (paramiko.SSHException, EOFError, OSError) as e:
                raise TransportError(f"{self.label}: lost the connection: {e or type(e).__name__}") from None
            finally:
                chan.close()
            return None
        status, _ = self._exec_raw(cmd, timeout=grace + 30)
        return status

    def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> AgentProcess:
        chan = self._open_session()
        try:
            chan.exec_command(wrap_command(argv, self._env(env)))
        except (paramiko.SSHException, EOFError, OSError) as e:
            chan.close()
            raise TransportError(f"{self.label}: cannot start {argv[0]}: {e}") from None
        proc = SSHAgentProcess(self, chan, list(argv), self._on_stderr)
        proc._read_pid(self.timeout + 20)
        self._procs.add(proc)
        return proc

    def put_file(self, local_path: str, remote_path: str) -> int:
        remote = self.expand_path(remote_path)
        size = os.path.getsize(local_path)
        sftp = self._sftp_client()
        if sftp is None:
            return self._put_with_cat(local_path, remote, size)
        for attempt in (1, 2):
            try:
                attrs = sftp.put(local_path, remote, confirm=True)
                return int(attrs.st_size or size)
            except FileNotFoundError:
                if attempt == 2:
                    raise TransportError(f"{self.label}: cannot write {remote}: no such directory") from None
                self._mkdir_p(posixpath.dirname(remote))
            except PermissionError:
                raise TransportError(f"{self.label}: cannot write {remote}: permission denied",
                                     hint="check workdir: in devices.yaml") from None
            except (OSError, EOFError, paramiko.SSHException) as e:  # EOFError: the SFTP link dropped
                raise TransportError(f"{self.label}: upload of {os.path.basename(local_path)} to {remote} "
                                     f"failed: {e}") from None
        raise AssertionError("unreachable")

    def _sftp_client(self) -> paramiko.SFTPClient | None:
        with self._lock:
            if self._sftp is not None or self._sftp_missing:
                return self._sftp
            t = self._conn()
            try:
                self._sftp = paramiko.SFTPClient.from_transport(t)
            except EOFError as e:  # the connection dropped while the subsystem started
                raise TransportError(f"{self.label}: lost the connection while starting SFTP: {e}") from None
            except paramiko.SSHException:
                self._sftp_missing = True  # no SFTP subsystem (e.g. dropbear without sftp-server)
            return self._sftp

    def _mkdir_p(self, path: str) -> None:
        r = self.run(["mkdir", "-p", "--", path], timeout=self.timeout + 30)
        if r.returncode != 0:
            raise TransportError(f"{self.label}: cannot create {path}: {r.stderr.strip()}")

    def _put_with_cat(self, local_path: str, remote: str, size: int) -> int:
        self._mkdir_p(posixpath.dirname(remote))
        chan = self._open_session()
        try:
            chan.exec_command(wrap_command(["sh", "-c", 'cat > "$1"', "sh", remote]))
            with open(local_path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 16), b""):
                    chan.sendall(chunk)
            chan.shutdown_write()
            _, err, status, _ = collect(chan, None)
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise TransportError(f"{self.label}: upload to {remote} failed: {e}") from None
        finally:
            chan.close()
        if status != 0:
            raise TransportError(f"{self.label}: cannot write {remote}: "
                                 f"{err.decode('utf-8', 'replace').strip()}")
        return size

    def expand_path(self, path: str) -> str:
        if path != "~" and not path.startswith("~/"):
            return path
        if self._home is None:
            r = self.run(["sh", "-c", 'printf "%s" "$HOME"'], timeout=self.timeout + 30)
            home = r.stdout.strip()
            if r.returncode != 0 or not home.startswith("/"):
                raise TransportError(f"{self.label}: cannot find the remote home directory",
                                     detail=r.stderr or None)
            self._home = home
        return self._home if path == "~" else posixpath.join(self._home, path[2:])

    def close(self) -> None:
        for proc in list(self._procs):  # also those a caller dropped (e.g. after a failed handshake)
            try:
                proc.terminate()
            except (TransportError, paramiko.SSHException, OSError):
                pass
        with self._lock:
            self._close_connection()

    def _close_connection(self) -> None:
        if self._sftp is not None:
            try:
                self._sftp.close()
            except (OSError, paramiko.SSHException):
                pass
            self._sftp = None
        if self._t is not None:
            self._t.close()
            self._t = None
        for hop in reversed(self._hops):
            hop.close()
        self._hops = []


class SSHAgentProcess(AgentProcess):
    """A process started over an exec channel; its own process group on the device (see module docstring)."""

    def __init__(self, transport: SSHTransport, chan: paramiko.Channel, argv: list[str],
                 on_stderr: StderrSink | None) -> None:
        self._transport = transport
        self._chan = chan
        self.argv = argv
        self.pid: int | None = None
        self._out = PipeReader(chan.makefile("rb"))
        self._err = PipeReader(chan.makefile_stderr("rb"), keep_tail=True, on_line=on_stderr)
        self._terminated = False

    def _read_pid(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._out.get(max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                self._chan.close()
                raise TransportError(f"{self._transport.label}: {self.argv[0]} did not start within "
                                     f"{timeout:.0f} s", detail=self.stderr_tail() or None) from None
            except LineTooLong as e:
                self._chan.close()
                raise TransportError(f"{self._transport.label}: {self.argv[0]} did not start: the login shell "
                                     f"wrote a line over {e.limit >> 20} MiB without a newline",
                                     hint="check the device user's shell start-up files (.bashrc, .profile)") \
                    from None
            if line is None:
                raise TransportError(f"{self._transport.label}: could not start {self.argv[0]} (no shell?)",
                                     detail=self.stderr_tail() or None)
            m = PID_RE.match(line.strip())
            if m:
                self.pid = int(m.group(1))
                return
            # anything before the marker comes from the login shell's start-up files: not ours, dropped

    def write_line(self, line: str) -> None:
        try:
            self._chan.sendall(line.encode("utf-8") + b"\n")
        except (OSError, EOFError, paramiko.SSHException):
            pass  # the process or the connection is gone; the next read reports it with the stderr tail

    def read_line(self, timeout: float | None = None) -> str | None:
        return self._out.get(timeout)

    def stderr_tail(self, max_chars: int = 4000) -> str:
        self._err.join(0.2)
        return self._err.tail(max_chars)

    def poll(self) -> int | None:
        if self._chan.status_event.is_set():
            return self._chan.exit_status  # -1: killed by a signal or the connection closed
        return None

    def wait(self, timeout: float | None = None) -> int | None:
        if self._chan.status_event.wait(timeout):
            return self._chan.exit_status
        return None

    def terminate(self) -> None:
        """Kill the process group on the device (TERM, then KILL after a grace period), then close the channel.

        While the process runs, this returns once the whole group is gone. When the process has already exited
        (e.g. after a clean shutdown), anything it may have left in its group is killed without waiting.
        """
        if self._terminated:
            return
        self._terminated = True
        self._transport._procs.discard(self)
        try:
            t = self._transport._t
            if self.pid is not None and t is not None and t.is_active():
                exited = self._chan.status_event.is_set() and self._chan.eof_received
                try:
                    self._transport._kill_group(self.pid, wait=not exited)
                except TransportError:  # the link dropped as we cleaned up: what failed first is the error
                    return
                self._chan.status_event.wait(5)
        finally:
            self._chan.close()


def _waited(started: float, timeout: float, what: str) -> str:
    """What really happened while waiting for `what`: a timeout only when the time was spent, else the
    connection was closed early (with the real elapsed time)."""
    elapsed = time.monotonic() - started
    if elapsed >= 0.9 * timeout:
        return f"connection timed out after {timeout:g} s waiting for {what}"
    return f"the server closed the connection after {elapsed:.1f} s, before {what} was complete"
