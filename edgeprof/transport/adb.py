"""adb transport: the real `adb` client binary driving one Android device by serial.

Owns: finding the client (devices.yaml `adb:`, else `adb` on PATH — Debian's package — else the one bundled in
the `adbutils` wheel), a private adb server port (ANDROID_ADB_SERVER_PORT, so edgeprof never touches the user's
server on 5037 unless told), `adb connect` for `host:port` serials, running quoted argv lists with real exit
codes and separate stderr (shell protocol v2; for an old adbd without it, an exit marker appended: stderr is then
mixed into stdout, as adb's legacy `shell:` service gives it), push/pull verified by sha256 on both ends, time
limits, and one-line TransportErrors for a device that is offline, unauthorised, missing or ambiguous.
Does not own: what runs on the phone (edgeprof/phone/).

adb re-parses its command line: `adb shell A B` sends "A B" to the phone's shell (mksh). So each argv element is
quoted here once (shlex.quote: POSIX quoting, which mksh reads the same way) and the whole line is given to adb
as one argument. Nothing the phone prints is ever executed or passed to a shell on the host.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Mapping, Sequence

from ..errors import DeviceError, TransportError
from ..records import Device
from ..records.device import PhoneConfig
from .base import AgentProcess, CommandResult, Transport, quote_argv

DEFAULT_TIMEOUT_S = 60.0
# adb's own one-line failures (adb/client/commandline.cpp, transport.cpp): what each means to the user
_FAILURES = (
    (re.compile(r"device unauthorized"), "unauthorized",
     "accept the 'Allow USB debugging?' prompt on the phone (adb keys: ~/.android/adbkey.pub)"),
    (re.compile(r"device offline|device '.*' offline"), "offline",
     "reconnect the cable (or `adb connect` again); check `adb devices`"),
    (re.compile(r"device '.*' not found|no devices/emulators found|device not found"), "not-found",
     "is it plugged in and listed by `adb devices`? serial: in devices.yaml must match"),
    (re.compile(r"more than one device/emulator"), "ambiguous", "set serial: in devices.yaml"),
    (re.compile(r"cannot connect to daemon|failed to start daemon|Connection refused"), "no-server",
     "could not start or reach the adb server"),
    (re.compile(r"protocol fault|device still connecting|closed"), "lost", "the device dropped the connection"),
)


def find_adb(configured: str | None = None) -> str:
    """The adb client to run: `configured`, else `adb` on PATH, else adbutils' bundled binary."""
    if configured:
        path = shutil.which(os.path.expanduser(configured))
        if path is None:
            raise TransportError(f"adb client {configured!r} not found", hint="fix adb: in devices.yaml")
        return path
    path = shutil.which("adb")
    if path is not None:
        return path
    try:
        import adbutils  # the wheel bundles an x86-64 adb

        bundled = str(adbutils.adb_path())
        if os.path.exists(bundled):
            return bundled
    except Exception:  # noqa: BLE001 - any import or lookup failure means: not there
        pass
    raise TransportError("no adb client found",
                         hint="install Debian's adb package (apt-get install adb) or `pip install adbutils`")


def adb_failure(stderr: str) -> tuple[str, str] | None:
    """(kind, hint) when stderr is one of adb's own failures, else None."""
    for pattern, kind, hint in _FAILURES:
        if pattern.search(stderr):
            return kind, hint
    return None


class ADBTransport(Transport):
    """One Android device reached through the adb client; no connection is held between commands."""

    def __init__(self, name: str, serial: str | None, *, adb: str | None = None, server_port: int | None = None,
                 timeout: float = 20.0) -> None:
        self.device_name = name
        self.serial = serial
        self.adb = find_adb(adb)
        self.server_port = server_port
        self.timeout = timeout
        self._features: set[str] | None = None

    @property
    def label(self) -> str:
        return f"device {self.device_name!r} (adb {self.serial or 'default device'})"

    # -- the client ----------------------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.server_port is not None:
            env["ANDROID_ADB_SERVER_PORT"] = str(self.server_port)
        return env

    def adb_cmd(self, args: Sequence[str], *, timeout: float | None, stdin: bytes | None = None,
                what: str = "adb") -> subprocess.CompletedProcess[bytes]:
        """Run the adb client with -s SERIAL; a time-out or an adb failure of the device is a TransportError."""
        argv = [self.adb, *(["-s", self.serial] if self.serial else []), *args]
        try:
            proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, env=self._env(),
                                  stdin=None if stdin is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise TransportError(f"{self.label}: {what} did not finish within {timeout:g} s",
                                 device=self.device_name, reason="timeout") from None
        except OSError as e:
            raise TransportError(f"{self.label}: cannot run {self.adb}: {e.strerror or e}",
                                 device=self.device_name) from None
        return proc

    def _raise_if_adb_failed(self, proc: subprocess.CompletedProcess[bytes], what: str) -> None:
        err = proc.stderr.decode(errors="replace")
        if proc.returncode == 0:
            return
        first = next((ln for ln in err.splitlines() if ln.startswith(("error:", "adb:"))), None)
        if first is None:
            return
        found = adb_failure(first)
        if found is not None:
            kind, hint = found
            raise TransportError(f"{self.label}: {first.strip()}", hint=hint, device=self.device_name, reason=kind)
        raise TransportError(f"{self.label}: {what} failed: {first.strip()}", device=self.device_name)

    def connect(self) -> None:
        """`adb connect` a host:port serial, then make sure the device is online and authorised."""
        if self.serial and re.fullmatch(r"[^\s:]+:\d+", self.serial):
            # A client that launches the server inside `adb connect` can read the reply out of step when the host
            # is busy ("protocol fault (status 30 30 30 63?!)", seen with Debian's adb 29 in a loaded test run):
            # such a fault is retried once, as a user would retry it.
            for _ in range(2):
                proc = subprocess.run([self.adb, "connect", self.serial], capture_output=True, env=self._env(),
                                      timeout=self.timeout, stdin=subprocess.DEVNULL)
                lines = [ln for ln in (proc.stdout + proc.stderr).decode(errors="replace").splitlines()
                         if ln.strip() and not ln.startswith("* daemon")]
                said = lines[-1].strip() if lines else ""
                if "protocol fault" not in said:
                    break
            if "authenticate" in said or "unauthorized" in said:
                raise TransportError(f"{self.label}: device unauthorized ({said})", hint=_FAILURES[0][2],
                                     device=self.device_name, reason="unauthorized")
            if proc.returncode != 0 or "cannot" in said or "failed" in said:
                raise TransportError(f"{self.label}: adb connect failed: {said}", device=self.device_name,
                                     reason="not-found")
        proc = self.adb_cmd(["get-state"], timeout=self.timeout, what="get-state")
        self._raise_if_adb_failed(proc, "get-state")
        state = proc.stdout.decode(errors="replace").strip()
        if state != "device":
            found = adb_failure(f"device {state}")
            hint = found[1] if found else None
            raise TransportError(f"{self.label}: device is {state or 'not ready'}", hint=hint,
                                 device=self.device_name, reason=found[0] if found else state)

    @property
    def features(self) -> set[str]:
        """What the phone's adbd offers (`adb features`: shell_v2, cmd, ...)."""
        if self._features is None:
            proc = self.adb_cmd(["features"], timeout=self.timeout, what="features")
            self._raise_if_adb_failed(proc, "features")
            self._features = set(proc.stdout.decode(errors="replace").split())
        return self._features

    # -- Transport -----------------------------------------------------------------------------------------
    def run(self, argv: Sequence[str], *, timeout: float | None = DEFAULT_TIMEOUT_S,
            env: Mapping[str, str] | None = None, stdin: bytes | None = None) -> CommandResult:
        line = quote_argv(argv, env)
        return self.run_line(line, argv=list(argv), timeout=timeout, stdin=stdin)

    def run_line(self, line: str, *, argv: list[str] | None = None, timeout: float | None = DEFAULT_TIMEOUT_S,
                 stdin: bytes | None = None) -> CommandResult:
        """Run one shell line built by edgeprof (already quoted; never from phone or user text)."""
        what = (argv or [line])[0]
        if "shell_v2" in self.features:
            proc = self.adb_cmd(["shell", "-T", line], timeout=timeout, stdin=stdin, what=what)
            out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
            if proc.returncode != 0 and adb_failure(err.splitlines()[0] if err else "") and \
                    err.startswith(("error:", "adb:")):
                self._raise_if_adb_failed(proc, what)
            return CommandResult(argv or [line], proc.returncode, out, err)
        marker = f"edgeprof-exit-{secrets.token_hex(6)}:"
        proc = self.adb_cmd(["shell", f"{line}; echo {marker}$?"], timeout=timeout, stdin=stdin, what=what)
        self._raise_if_adb_failed(proc, what)
        out = proc.stdout.decode(errors="replace").replace("\r\n", "\n")
        head, sep, tail = out.rpartition(marker)
        if not sep or not tail.strip().isdigit():
            raise TransportError(f"{self.label}: {what}: the phone's shell ended without an exit status "
                                 "(connection lost?)", device=self.device_name, reason="lost")
        return CommandResult(argv or [line], int(tail.strip()), head, proc.stderr.decode(errors="replace"))

    def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> AgentProcess:
        raise DeviceError(f"{self.label}: a long-running agent is not supported on phones yet",
                          device=self.device_name)

    def remote_sha256(self, remote_path: str) -> str | None:
        r = self.run(["sha256sum", remote_path], timeout=self.timeout)
        word = r.stdout.split()[0] if r.returncode == 0 and r.stdout.split() else ""
        return word.lower() if re.fullmatch(r"[0-9a-fA-F]{64}", word) else None

    def put_file(self, local_path: str, remote_path: str) -> int:
        """adb push, then sha256sum on the phone must equal the local file's."""
        size = os.path.getsize(local_path)
        parent = remote_path.rsplit("/", 1)[0] or "/"
        self.run(["mkdir", "-p", parent], timeout=self.timeout)
        proc = self.adb_cmd(["push", local_path, remote_path], timeout=max(60.0, size / 2e6), what="push")
        self._raise_if_adb_failed(proc, f"push to {remote_path}")
        if proc.returncode != 0:
            raise TransportError(f"{self.label}: push to {remote_path} failed", device=self.device_name)
        want = sha256_file(local_path)
        got = self.remote_sha256(remote_path)
        if got != want:
            raise TransportError(f"{self.label}: {remote_path} differs after push (sha256 {got or 'unreadable'}, "
                                 f"expected {want})", device=self.device_name, reason="corrupt")
        return size

    def get_file(self, remote_path: str, local_path: str) -> int:
        """adb pull, verified against sha256sum on the phone."""
        want = self.remote_sha256(remote_path)
        proc = self.adb_cmd(["pull", remote_path, local_path], timeout=120.0, what="pull")
        self._raise_if_adb_failed(proc, f"pull of {remote_path}")
        if proc.returncode != 0 or not os.path.exists(local_path):
            raise TransportError(f"{self.label}: pull of {remote_path} failed", device=self.device_name)
        if want is None or sha256_file(local_path) != want:
            raise TransportError(f"{self.label}: {remote_path} differs after pull", device=self.device_name,
                                 reason="corrupt")
        return os.path.getsize(local_path)

    def expand_path(self, path: str) -> str:
        if not path.startswith("~"):
            return path
        r = self.run(["sh", "-c", 'printf %s "$HOME"'], timeout=self.timeout)
        home = r.stdout.strip() or "/data/local/tmp"
        return home.rstrip("/") + path[1:]


def open_adb(device: Device) -> ADBTransport:
    """A devices.yaml phone's ADBTransport, connected (its serial, adb client and server port, connect timeout)."""
    phone = device.phone or PhoneConfig()
    t = ADBTransport(device.name, phone.serial, adb=phone.adb, server_port=phone.adb_server_port,
                     timeout=device.connect_timeout)
    t.connect()
    return t


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
