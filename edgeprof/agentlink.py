"""The link between host and device agent.

Owns: building the agent zipapp (deterministic, named by its sha256), pushing it and model artifacts to
content-addressed paths in the device workdir through any Transport (skipped when the device already holds the
same sha256; written under a temporary name, verified on the device, then renamed, so a partial or corrupted
upload is never used), starting the agent, the version handshake, and JSON-lines calls with progress events,
each bounded by a silence timeout and by a deadline that events do not postpone (a run's from its settings,
runner.run_deadline; any other request's twice its timeout), and naming a board's full or read-only disk on upload.
Every request, reply, error and event is a record of edgeprof_agent.messages (the agent imports the same ones):
a reply that does not match its record is a one-line AgentProtocolError naming the field, and an agent error
is mapped to an exception class by its kind (vocab.ErrorKind), never by its text.
Does not own: what a run measures (agent) or what the host does with the answer (runner).
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import posixpath
import re
import secrets
import signal
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import edgeprof_agent
from edgeprof_agent.messages import (
    OP_OF,
    OPS,
    ErrorReply,
    Facts,
    FactsRequest,
    HelloReply,
    HelloRequest,
    LogEvent,
    MessageError,
    ProgressEvent,
    Record,
    RunReply,
    RunRequest,
    Sha256Reply,
    Sha256Request,
    parse_event,
)

from .errors import (
    AgentCrashed,
    AgentError,
    AgentProtocolError,
    CapabilityError,
    DeviceError,
    LeasedError,
    MeasurementFailed,
    ProtocolMismatchError,
    RuntimeMissingError,
    TransportError,
    UserError,
)
from .fsmode import make_private_dir
from .records import Device
from .transport.base import AgentProcess, LineTooLong, Transport
from .vocab import ErrorKind

PROTOCOL_VERSION = edgeprof_agent.PROTOCOL_VERSION
_ZIP_TIME = (2020, 1, 1, 0, 0, 0)
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
# faulthandler's first line for each fatal signal it handles (CPython's faulthandler.c, 3.6 to 3.13)
_FATAL_RE = re.compile(r"Fatal Python error: (Segmentation fault|Aborted|Bus error|Floating point exception|"
                       r"Illegal instruction)")
_FATAL_SIGNAL = {"Segmentation fault": "SIGSEGV", "Aborted": "SIGABRT", "Bus error": "SIGBUS",
                 "Floating point exception": "SIGFPE", "Illegal instruction": "SIGILL"}
# the module(s) whose version names a runtime in the device's facts (edgeprof_agent.environment.runtimes)
_RUNTIME_FACT_KEYS = {"tflite": ("ai_edge_litert", "tflite_runtime")}


_CRASH_SIGNALS = ("SIGSEGV", "SIGABRT", "SIGBUS", "SIGFPE", "SIGILL")


def crash_signal(code: int | None, stderr_tail: str) -> str | None:
    """The signal an agent died of, by name (SIGSEGV; SIGKILL from the OOM killer too), or None when it exited
    by itself.

    Locally a signal death is a negative exit code. Over SSH sshd reports exit-signal, which paramiko does not
    parse (status -1), and a wrapping shell reports 128+N: there faulthandler's "Fatal Python error: ..." line in
    the agent's stderr names the signal."""
    if code is not None and code < -1:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    m = _FATAL_RE.search(stderr_tail or "")
    if m is not None and (code is None or code == -1 or code > 128):
        return _FATAL_SIGNAL[m.group(1)]
    if code is not None and code > 128 and m is None and code - 128 in (signal.SIGSEGV, signal.SIGABRT,
                                                                          signal.SIGBUS, signal.SIGILL):
        return signal.Signals(code - 128).name
    return None


def check_samples(samples: list[Any], device: str) -> None:
    """Latency samples must exist and each be a finite number > 0; anything else fails the run with a
    MeasurementFailed that says how many were bad (never stored as ok)."""
    if not samples:
        raise MeasurementFailed(f"the agent on device {device} returned no latency samples",
                                hint="the timed loop ran no query; raise --min-queries / --min-duration and rerun")
    bad = sum(1 for s in samples if isinstance(s, bool) or not isinstance(s, int | float)
              or s != s or s in (float("inf"), float("-inf")) or s <= 0)
    if bad:
        raise MeasurementFailed(
            f"the agent on device {device} returned {bad} non-finite/negative latency samples (of {len(samples)})",
            hint="the board's monotonic clock or its agent misbehaved; nothing was stored as ok: rerun, and if it "
                 "repeats, report it with the board's kernel and Python versions")


def runtime_version(facts: Facts | None, runtime: str) -> str | None:
    """The version of `runtime` in the device's facts (None when the facts do not list it)."""
    found = facts.runtimes if facts is not None else None
    if not isinstance(found, dict):
        return None
    for key in _RUNTIME_FACT_KEYS.get(runtime, (runtime,)):
        entry = found.get(key)
        if isinstance(entry, dict) and isinstance(entry.get("version"), str) and entry["version"]:
            return str(entry["version"])
    return None

Event = ProgressEvent | LogEvent
EventSink = Callable[[Event], None]  # typed events (request/run); call() hands dicts to its own sink
_R = TypeVar("_R", bound=Record)
# an agent sends a progress event every few hundred ms; a board sending more than this many lines a second,
# sustained over FLOOD_WINDOW_S, is flooding: stopped, whatever its silence timeout
FLOOD_LINES_PER_S = 500
FLOOD_WINDOW_S = 5.0


class RunDeadline:
    """A watchdog on how long a request may take in all, whatever arrives meanwhile (progress events do not
    postpone it): the silence timeout finds an agent that says nothing, this one an agent that keeps talking.

    - `total_s`: the whole request, from when it is sent.
    - `phase_s`: the longest a phase may last, from its first progress event (warm-up: its time plus a query).
    - `settle_s`: once the agent's own progress says a phase's end is reached (warm-up: elapsed >= its time;
      measure: elapsed >= min_duration_s with min_queries done, or max_queries done), the phase must end
      within this (one more query and the reply).
    The numbers are the run's (runner.run_deadline); `why` names where the total came from."""

    def __init__(self, total_s: float, *, phase_s: Mapping[str, float] | None = None, settle_s: float = 120.0,
                 min_duration_s: float = 0.0, min_queries: int = 0, max_queries: int | None = None,
                 warmup_s: float = 0.0, why: str = "", label: str = "the run's deadline") -> None:
        self.total_s = total_s
        self.label = label
        self.phase_s = dict(phase_s or {})
        self.settle_s = settle_s
        self.min_duration_s, self.min_queries, self.max_queries = min_duration_s, min_queries, max_queries
        self.warmup_s = warmup_s
        self.why = why
        self.started = 0.0
        self.phase: str | None = None
        self._due: list[tuple[float, str]] = []

    def start(self, now: float) -> None:
        self.started = now
        self.phase = None
        self._due = [(now + self.total_s, f"{self.label} of {self.total_s:g} s"
                      + (f" ({self.why})" if self.why else ""))]

    def see(self, event: ProgressEvent, now: float) -> None:
        phase = event.phase
        if phase and phase != self.phase:
            self.phase = phase
            self._due = self._due[:1]  # a new phase: the previous phase's limits end with it
            if phase in self.phase_s:
                self._due.append((now + self.phase_s[phase], f"the longest its '{phase}' phase may take "
                                  f"({self.phase_s[phase]:.0f} s)"))
        elapsed, n = event.elapsed_s or 0.0, event.n or 0
        done = ((phase == "warmup" and self.warmup_s > 0 and elapsed >= self.warmup_s)
                or (phase == "measure" and ((elapsed >= self.min_duration_s and n >= self.min_queries)
                                            or (self.max_queries is not None and n >= self.max_queries))))
        if done and not any(w.startswith("the end its own progress") for _, w in self._due):
            self._due.append((now + self.settle_s, f"the end its own progress reported in '{phase}' "
                              f"(elapsed {elapsed:.1f} s, {n} queries) plus {self.settle_s:.0f} s"))

    def due(self) -> tuple[float, str]:
        """The earliest deadline now, and what it is."""
        return min(self._due)


def _agent_source_files() -> list[tuple[str, Path]]:
    base = Path(edgeprof_agent.__file__).resolve().parent
    files = []
    for p in sorted(base.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        files.append(("edgeprof_agent/" + p.relative_to(base).as_posix(), p))
    return files


def build_agent_bytes() -> bytes:
    """The agent zipapp as bytes: deterministic (sorted entries, fixed timestamps), so its hash names it."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        main = "import sys\nfrom edgeprof_agent.__main__ import main\nsys.exit(main())\n"
        info = zipfile.ZipInfo("__main__.py", _ZIP_TIME)
        info.external_attr = 0o644 << 16
        zf.writestr(info, main)
        for arcname, path in _agent_source_files():
            info = zipfile.ZipInfo(arcname, _ZIP_TIME)
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def build_agent(cache_dir: Path | None = None) -> tuple[Path, str]:
    """Write the agent zipapp to the cache as agent-<sha256>.pyz; returns (path, sha256)."""
    data = build_agent_bytes()
    sha = hashlib.sha256(data).hexdigest()
    cache_dir = cache_dir or Path(tempfile.gettempdir()) / f"edgeprof-agent-{os.getuid()}"
    make_private_dir(cache_dir)
    path = cache_dir / f"agent-{sha}.pyz"
    if not path.exists():
        tmp = path.with_suffix(f".tmp{secrets.token_hex(4)}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path, sha


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def remote_sha256(transport: Transport, path: str) -> str | None:
    """sha256 of a file on the device (coreutils sha256sum), or None if it does not exist."""
    r = transport.run(["sha256sum", "--", path], timeout=120)
    if r.returncode != 0:
        return None
    digest = r.stdout.split(" ", 1)[0].strip().lower()
    return digest if _SHA_RE.match(digest) else None


# One remote command that verifies an upload and renames it into place (or removes it): no partial or
# corrupted file is ever left under the final name.
_COMMIT_SCRIPT = (
    'got=$(sha256sum -- "$1" 2>/dev/null | cut -d" " -f1); '
    'if [ "$got" = "$3" ]; then mv -f -- "$1" "$2" && exit 0; rm -f -- "$1"; exit 8; fi; '
    'rm -f -- "$1"; printf "%s" "$got"; exit 9'
)
# uploads not written to for this long are left over from a lost connection or a killed host: removed at connect
STALE_PART_MIN = 10
# One remote command for the start of every session: expand ~, create the workdir, remove stale partial uploads,
# hash the agent if present.
_SETUP_SCRIPT = (
    'umask 077; w="$1"; case "$w" in "~") w="$HOME";; "~/"*) w="$HOME/${w#"~/"}";; esac; '
    'case "$w" in /*) ;; *) w="$PWD/$w";; esac; '
    'mkdir -p -- "$w" "$w/artifacts" || exit 3; printf "%s\\n" "$w"; '
    f'find "$w" "$w/artifacts" -maxdepth 1 -type f -name "*.part-*" -mmin +{STALE_PART_MIN} '
    '-exec rm -f {} \\; 2>/dev/null; '
    'sha256sum -- "$w/$2" 2>/dev/null; exit 0'
)


_FULL_ERRNOS = tuple(getattr(errno, n) for n in ("ENOSPC", "EDQUOT") if hasattr(errno, n))


def _disk_trouble(transport: Transport, remote: str, need: int, exc: BaseException) -> DeviceError | None:
    """The error for an upload that failed because the board's disk is full or read-only, else None. A local
    copy says so by its errno; SFTP says only "Failure", so the board is asked how much room is left there."""
    where = posixpath.dirname(remote)
    if posixpath.basename(where) == "artifacts":
        where = posixpath.dirname(where)  # the workdir, as devices.yaml names it
    code = exc.errno if isinstance(exc, OSError) else None
    free = None
    if code in _FULL_ERRNOS:
        word = "full"
    elif code == errno.EROFS:
        word = "read-only"
    else:
        try:
            r = transport.run(["df", "-Pk", "--", where], timeout=15)
            free = int(r.stdout.splitlines()[1].split()[3]) if r.returncode == 0 else None
        except Exception:  # noqa: BLE001 - the connection is gone: it was not the disk, as far as we know
            return None
        if free is None or free * 1024 >= need:
            return None
        word = "full"
    room = f" ({free} KiB free, the upload needs {need // 1024 + 1} KiB)" if free is not None else ""
    return DeviceError(f"device {transport.device_name}: the board's disk is {word} at {where}{room}",
                       hint=f"free space there (df -h {where}) or set another `workdir:` for this device in "
                            "devices.yaml" if word == "full" else
                            "remount it read-write or set another `workdir:` for this device in devices.yaml")


def _upload(transport: Transport, local: str | Path, remote: str, sha256: str) -> int:
    tmp = f"{remote}.part-{secrets.token_hex(6)}"
    try:
        moved = transport.put_file(str(local), tmp)
    except BaseException as e:  # a lost connection, Ctrl-C, anything: never leave the partial file on the board
        try:
            transport.run(["rm", "-f", "--", tmp], timeout=15)
        except Exception:  # noqa: BLE001 - the connection is gone: the next connect removes it as stale
            pass
        if isinstance(e, OSError | TransportError):
            trouble = _disk_trouble(transport, remote, os.path.getsize(local), e)
            if trouble is not None:
                raise trouble from None
        raise
    r = transport.run(["sh", "-c", _COMMIT_SCRIPT, "edgeprof-commit", tmp, remote, sha256], timeout=120)
    if r.returncode == 9:
        raise TransportError(
            f"upload of {posixpath.basename(remote)} to device {transport.device_name} arrived corrupted "
            f"(sha256 {r.stdout.strip()[:16] or 'unreadable'}… != {sha256[:16]}…)",
            hint="check free disk space in the device workdir and retry",
        )
    if r.returncode != 0:
        raise TransportError(f"could not move the upload into place on device {transport.device_name}: "
                             f"{r.stderr.strip() or 'exit ' + str(r.returncode)}",
                             hint="check permissions and free space in the device workdir")
    return moved


def push_file(transport: Transport, local: str | Path, remote: str, sha256: str) -> int:
    """Put `local` at `remote` unless the device already has it with this sha256. Returns bytes moved.

    Upload goes to a temporary name next to the target, is verified on the device, then renamed: a partial or
    corrupted upload is never used (and is removed)."""
    if remote_sha256(transport, remote) == sha256:
        return 0
    return _upload(transport, local, remote, sha256)


def ensure_workdir(transport: Transport, device: Device, agent_name: str = "") -> tuple[str, str | None]:
    """Create the workdir (and artifacts/) in one remote command; returns (absolute workdir, sha256 of
    workdir/agent_name if that file exists)."""
    r = transport.run(["sh", "-c", _SETUP_SCRIPT, "edgeprof-setup", device.workdir, agent_name or "."],
                      timeout=120)
    if r.returncode < 0:  # killed by a signal: the board is going down or the session was cut, not a bad workdir
        raise TransportError(f"device {device.name}: the setup command was killed (signal) while creating the "
                             f"workdir; the board may be shutting down or the connection was cut",
                             detail=r.stderr.strip() or None)
    lines = r.stdout.splitlines()
    if r.returncode != 0 or not lines or not lines[0].startswith("/"):
        raise DeviceError(
            f"cannot create workdir {device.workdir!r} on device {device.name}: "
            f"{r.stderr.strip() or 'exit ' + str(r.returncode)}",
            hint="set a writable `workdir:` for this device in devices.yaml",
        )
    workdir = lines[0].rstrip("/") or "/"
    digest = lines[1].split(" ", 1)[0].strip().lower() if len(lines) > 1 else ""
    return workdir, digest if _SHA_RE.match(digest) else None


class AgentLink:
    """A started, greeted agent on one device."""

    def __init__(self, transport: Transport, device: Device, proc: AgentProcess, workdir: str,
                 agent_bytes_moved: int) -> None:
        self.transport = transport
        self.device = device
        self.proc = proc
        self.workdir = workdir
        self.bytes_moved = agent_bytes_moved
        self.hello: HelloReply | None = None  # after the handshake
        self._next_id = 1
        # the device's facts as last seen (facts() sets it; a caller holding facts may set it): names the
        # runtime's version when the agent crashes in it
        self.known_facts: Facts | None = None
        self.agent_path: str | None = None  # the agent zipapp on the device (set by open())

    @classmethod
    def open(cls, transport: Transport, device: Device, progress: Callable[[str], None] | None = None,
             agent_cache: Path | None = None) -> AgentLink:
        say = progress or (lambda _m: None)
        path, sha = build_agent(agent_cache)
        name = f"agent-{sha}.pyz"
        workdir, present = ensure_workdir(transport, device, name)
        remote = posixpath.join(workdir, name)
        moved = 0
        if present != sha:
            say("pushing agent")
            moved = _upload(transport, path, remote, sha)
        argv = [device.python, remote, "serve", "--workdir", workdir, "--sysfs-root", device.sysfs_root]
        say("starting agent")
        proc = transport.start(argv, env=device.env or None)
        link = cls(transport, device, proc, workdir, moved)
        link.agent_path = remote
        try:
            link.handshake()
        except BaseException:
            proc.terminate()  # never leave a half-started agent behind
            raise
        return link

    def handshake(self) -> HelloReply:
        """Greet the agent; returns (and keeps) its HelloReply. An agent of another protocol version is refused
        with a ProtocolMismatchError that says which side is older and what to do."""
        try:
            raw = self._exchange("hello", HelloRequest(protocol=PROTOCOL_VERSION).to_dict(), None, 60)
        except AgentError as e:
            if e.kind is not None:  # the agent answered (refused the hello): its error stands
                raise
            raise AgentError(
                f"the agent did not start on device {self.device.name} with {self.device.python!r}: {e.message}",
                hint="check `python:` for this device in devices.yaml (Python >= 3.6 is needed)",
                detail=e.detail,
            ) from None
        if not isinstance(raw, dict):
            raise self._malformed(MessageError("hello reply", "expected an object"))
        # the version first: another version's hello reply may have other fields
        theirs = raw["protocol"] if "protocol" in raw else None
        if theirs != PROTOCOL_VERSION:
            raise self._mismatch(theirs if isinstance(theirs, int) and not isinstance(theirs, bool) else None)
        hello = self._reply(HelloReply, raw)
        self.hello = hello
        return hello

    def _mismatch(self, theirs: int | None, said: str | None = None) -> ProtocolMismatchError:
        where = f"agent on device {self.device.name}"
        if theirs is None:
            return ProtocolMismatchError(
                f"{where} refused this host's protocol {PROTOCOL_VERSION}" + (f": {said}" if said else ""),
                hint="the agent and this edgeprof come from different versions; install the same edgeprof on "
                     "both sides (the host pushes its own agent: check `python:` for this device in devices.yaml)",
                kind=ErrorKind.PROTOCOL_MISMATCH)
        if theirs < PROTOCOL_VERSION:
            return ProtocolMismatchError(
                f"{where} speaks protocol {theirs}, host speaks {PROTOCOL_VERSION}: the agent is older",
                hint="the host pushes its own agent, so an older one is started by something else: check `python:` "
                     "for this device in devices.yaml, or delete agent-*.pyz in its workdir and deploy again",
                kind=ErrorKind.PROTOCOL_MISMATCH)
        return ProtocolMismatchError(
            f"{where} speaks protocol {theirs}, host speaks {PROTOCOL_VERSION}: this host's edgeprof is older",
            hint="upgrade edgeprof on this host (pip install -U edgeprof) to the version the agent comes from",
            kind=ErrorKind.PROTOCOL_MISMATCH)

    def _malformed(self, e: MessageError) -> AgentProtocolError:
        return AgentProtocolError(f"malformed reply from the agent on device {self.device.name}: {e}",
                                  hint="the agent and this edgeprof disagree on the protocol; install the same "
                                       "edgeprof on both sides and deploy again", kind=ErrorKind.PROTOCOL)

    def _reply(self, record: type[_R], raw: Any) -> _R:
        try:
            return record.from_dict(raw)
        except MessageError as e:
            raise self._malformed(e) from None

    def request(self, req: Record, *, on_event: EventSink | None = None,
                timeout: float | None = 120.0) -> Record:
        """Send a request record (edgeprof_agent.messages); return the op's reply record."""
        op = OP_OF[type(req)]
        return self._reply(OPS[op][1], self._exchange(op, req.to_dict(), on_event, timeout))

    def facts(self, runtimes: bool = True, timeout: float | None = 120.0) -> Facts:
        facts = self._reply(Facts, self._exchange("facts", FactsRequest(runtimes=runtimes).to_dict(), None,
                                                  timeout))
        if facts.runtimes or self.known_facts is None:
            self.known_facts = facts
        return facts

    def run(self, req: RunRequest, *, on_event: EventSink | None = None, timeout: float | None = 120.0,
            silence_by_phase: Mapping[str, float] | None = None, deadline: RunDeadline | None = None) -> RunReply:
        """`timeout`: the longest silence before the first progress event; once the agent says which phase it
        is in, `silence_by_phase[phase]` (when given) is the longest silence allowed in that phase. `deadline`
        bounds the whole run however many events keep arriving."""
        raw = self._exchange("run", req.to_dict(), on_event, timeout, silence_by_phase, deadline)
        if isinstance(raw, dict) and isinstance(raw.get("samples_ns"), list):
            check_samples(raw["samples_ns"], self.device.name)  # NaN / negative: the reason, not a type error
        return self._reply(RunReply, raw)

    def call(self, op: str, params: dict[str, Any] | None = None, *,
             on_event: Callable[[dict[str, Any]], None] | None = None,
             timeout: float | None = 120.0) -> dict[str, Any]:
        """Send one request given as a dict; return the reply as a dict (both checked against the op's records)
        or raise a UserError subclass. Prefer request(): it hands back the record itself.

        timeout: seconds without ANY line from the agent (events count), not for the whole call."""
        if op not in OPS:
            raise ValueError(f"unknown agent operation {op!r}")
        sink: EventSink | None = None
        if on_event is not None:
            dict_sink = on_event

            def sink(event: Event) -> None:
                dict_sink(event.to_dict())

        return self.request(OPS[op][0].from_dict(params or {}), on_event=sink, timeout=timeout).to_dict()

    def _exchange(self, op: str, params: dict[str, Any], on_event: EventSink | None,
                  timeout: float | None, silence_by_phase: Mapping[str, float] | None = None,
                  deadline: RunDeadline | None = None) -> Any:
        """One request on the wire; events go to on_event (as records); returns the raw result.

        `timeout` is the longest silence (no line at all); a progress event of a phase in `silence_by_phase`
        sets the silence allowed from then on (a frozen agent mid-measurement is found in that phase's time).
        `deadline` is checked on every line and while waiting for one: events do not postpone it."""
        rid = self._next_id
        self._next_id += 1
        self.proc.write_line(json.dumps({"id": rid, "op": op, "params": params}))
        started = last_line = time.monotonic()
        lines = 0
        window_start, window_lines = started, 0
        if deadline is None and op != "run" and timeout is not None:
            # only a run sends progress: any other request is bounded whole (twice its silence timeout, so an
            # agent that merely falls silent is still called silent), whatever arrives meanwhile
            deadline = RunDeadline(2 * timeout, label="its deadline",
                                   why=f"twice its timeout: no progress is sent during '{op}'")
        if deadline is not None:
            deadline.start(started)

        def past_deadline(now: float) -> AgentError:
            _, what = deadline.due()  # type: ignore[union-attr]
            self.proc.terminate()
            phase = f", phase '{deadline.phase}'" if deadline is not None and deadline.phase else ""
            talk = (f"; it kept sending output ({lines} line{'s' if lines != 1 else ''}, the last "
                    f"{now - last_line:.1f} s before)" if lines else "")
            return AgentError(
                f"agent on device {self.device.name} was still in '{op}'{phase} after {now - started:.1f} s, "
                f"past {what}{talk}; the agent was stopped",
                hint="the agent on the device loops or is misbehaving; run the agent by hand there to see it, or "
                     "raise the run's settings if it is really that slow",
                detail=self.proc.stderr_tail().strip() or None)

        while True:
            wait, by_deadline = timeout, False
            if deadline is not None:
                left = deadline.due()[0] - time.monotonic()
                if left <= 0:
                    raise past_deadline(time.monotonic())
                by_deadline = wait is None or left < wait
                wait = left if by_deadline else wait
            try:
                line = self.proc.read_line(wait)
            except TimeoutError:
                now = time.monotonic()
                if by_deadline:
                    raise past_deadline(now) from None
                self.proc.terminate()
                tail = self.proc.stderr_tail().strip()
                after = (f" (after {lines} line{'s' if lines != 1 else ''} in {last_line - started:.1f} s)"
                         if lines else "")
                raise AgentError(
                    f"agent on device {self.device.name} sent nothing for {now - last_line:.1f} s during "
                    f"'{op}'{after}",
                    hint="the device may be overloaded or hung; the agent was stopped"
                         + ("; its stderr is below" if tail else ""),
                    detail=tail or None,
                ) from None
            except LineTooLong as e:
                self.proc.terminate()
                raise AgentProtocolError(
                    f"agent on device {self.device.name} wrote a line over {e.limit >> 20} MiB without a newline "
                    f"during '{op}' ({time.monotonic() - started:.1f} s in); the agent was stopped",
                    hint="something on the device writes binary or endless output to the agent's stdout (a "
                         "sitecustomize, a runtime's print?); run the agent by hand there to see it",
                    kind=ErrorKind.PROTOCOL) from None
            if line is None:
                raise self._exited(op, params)
            last_line = time.monotonic()
            lines += 1
            window_lines += 1
            if last_line - window_start >= FLOOD_WINDOW_S:
                rate = window_lines / (last_line - window_start)
                if rate > FLOOD_LINES_PER_S:
                    self.proc.terminate()
                    raise AgentProtocolError(
                        f"agent on device {self.device.name} flooded its output during '{op}': {window_lines} "
                        f"lines in {last_line - window_start:.1f} s ({rate:.0f}/s, {lines} in all over "
                        f"{last_line - started:.1f} s); the agent was stopped",
                        hint="an agent sends a few progress lines a second: something on the device is writing "
                             "to its stdout; run the agent by hand there to see it",
                        kind=ErrorKind.PROTOCOL, detail=self.proc.stderr_tail().strip() or None)
                window_start, window_lines = last_line, 0
            try:
                msg = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
                msg = None
            if not isinstance(msg, dict):
                raise AgentProtocolError(
                    f"agent on device {self.device.name} printed a non-protocol line: {line[:120]!r}",
                    hint="something on the device writes to the agent's stdout (a sitecustomize or a shell rc?)",
                    kind=ErrorKind.PROTOCOL,
                ) from None
            if "event" in msg:
                try:
                    event = parse_event(msg)
                except MessageError as e:
                    raise self._malformed(e) from None
                if silence_by_phase and isinstance(event, ProgressEvent) and event.phase in silence_by_phase:
                    timeout = silence_by_phase[event.phase]
                if deadline is not None and isinstance(event, ProgressEvent):
                    deadline.see(event, last_line)
                if on_event is not None:
                    on_event(event)
                continue
            if "id" not in msg or msg["id"] not in (rid, None):
                continue
            ok = msg["ok"] if "ok" in msg else None
            if ok is True and "result" in msg:
                return msg["result"]
            if ok is False and "error" in msg:
                raise self._error(op, msg["error"])
            raise self._malformed(MessageError("reply", "expected ok true with a result or ok false with an error"))

    def _exited(self, op: str, params: dict[str, Any]) -> AgentError:
        """The error for an agent whose stdout ended during `op`: a native crash (by signal) names the signal
        and the runtime with its version, keeping the native stack as detail; any other exit says its code."""
        code = self.proc.wait(5)
        tail = self.proc.stderr_tail(16000).strip()  # a native stack of several threads is long
        sig = crash_signal(code, tail)
        where = f"device {self.device.name}"
        if sig is not None and sig not in _CRASH_SIGNALS:  # killed from outside: OOM killer, a user, shutdown
            tail = tail[-4000:]
            return AgentError(f"agent on {where} exited (killed by {sig}) during '{op}'",
                              hint="something on the device killed it (the out-of-memory killer? check `dmesg` "
                                   "there)" + ("; its stderr is below" if tail else ""), detail=tail or None,
                              device=self.device.name, op=op, stderr_tail=tail or None)
        if sig is not None:
            runtime = params.get("runtime") if op == "run" else None
            in_what = ""
            if runtime == "null":
                in_what = " in the null runtime (the harness itself)"
            elif isinstance(runtime, str) and runtime:
                version = runtime_version(self.known_facts, runtime) or self._probe_runtime_version(runtime)
                in_what = f" in {runtime} {version}" if version else f" in {runtime} (version unknown)"
            fatal = _FATAL_RE.search(tail)
            stack = fatal is not None
            hint = ("a native crash in the runtime, not a Python error: try another runtime version, --runtime "
                    "or --precision")
            hint += ("; rerun with --verbose to see the native stack the agent wrote" if stack
                     else "; the agent wrote no native stack (rerun with --verbose to see its stderr)" if tail
                     else "; the agent wrote nothing to stderr")
            # the detail is the native stack itself (from faulthandler's first line), else the stderr tail
            detail = tail[fatal.start():] if fatal is not None else tail[-4000:]
            return AgentCrashed(f"{where}: the agent crashed with {sig}{in_what} during '{op}'", hint=hint,
                                detail=detail or None, device=self.device.name, op=op, stderr_tail=tail or None)
        tail = tail[-4000:]
        if tail:
            hint = "see the agent's stderr below; rerun with the same command once fixed"
        else:
            hint = (f"the agent wrote nothing to stderr; run {self.device.python!r} on the device by hand to see "
                    "whether it starts, and check free memory (an out-of-memory kill leaves no message)")
        return AgentError(f"agent on {where} exited (code {code}) during '{op}'", hint=hint, detail=tail or None,
                          device=self.device.name, op=op, stderr_tail=tail or None)

    def _probe_runtime_version(self, runtime: str) -> str | None:
        """After a crash, the runtime's version from the device's facts (`agent facts`, a fresh process); None
        when that fails too."""
        if self.agent_path is None:
            return None
        try:
            r = self.transport.run([self.device.python, self.agent_path, "facts", "--workdir", self.workdir],
                                   timeout=60, env=self.device.env or None)
            if r.returncode != 0:
                return None
            self.known_facts = Facts.from_dict(json.loads(r.stdout))
        except (UserError, MessageError, ValueError, OSError):
            return None
        return runtime_version(self.known_facts, runtime)

    def _error(self, op: str, raw: Any) -> UserError:
        """The exception for an error reply, chosen by its kind (ErrorKind), never by its text."""
        try:
            err = ErrorReply.from_dict(raw)
        except MessageError as e:
            return self._malformed(e)
        kind = err.type
        message = f"device {self.device.name}: {err.message}"
        said = {"device": self.device.name, "reason": err.message}  # declared fields: read, never parsed
        if kind == ErrorKind.RUNTIME_MISSING:
            return RuntimeMissingError(message, hint=err.hint, detail=err.detail, **said)
        if kind == ErrorKind.CAPABILITY:
            return CapabilityError(message, hint=err.hint, detail=err.detail, **said)
        if kind == ErrorKind.AGENT_EXCEPTION:
            return AgentError(f"device {self.device.name}: agent failed during '{op}': {err.message}",
                              hint="this is a bug in edgeprof's agent; please report it"
                                   + (" with the detail below" if err.detail else ""),
                              detail=err.detail, kind=kind, op=op, **said)
        if kind == ErrorKind.PROTOCOL_MISMATCH:
            return self._mismatch(err.protocol, err.message)
        if kind in ErrorKind.MEASUREMENT:
            return MeasurementFailed(message, hint=err.hint, detail=err.detail, kind=kind, op=op, **said)
        if kind == ErrorKind.LEASED:
            return LeasedError(message, hint=err.hint, detail=err.detail, kind=kind, op=op, **said)
        if kind in (ErrorKind.PROTOCOL, ErrorKind.UNKNOWN_OP):
            return AgentProtocolError(message, hint=err.hint, detail=err.detail, kind=kind, op=op, **said)
        return AgentError(message, hint=err.hint, detail=err.detail, kind=kind, op=op, **said)

    def push_artifact(self, local_path: str, sha256: str, ext: str) -> tuple[str, int]:
        if not _SHA_RE.match(sha256) or not re.match(r"^[a-z0-9]{1,10}$", ext):
            raise ValueError("bad artifact name")
        remote = posixpath.join(self.workdir, "artifacts", f"{sha256}.{ext}")
        # the running agent hashes the file: no extra remote command on the warm path
        have = self._reply(Sha256Reply, self._exchange("sha256", Sha256Request(path=remote).to_dict(), None,
                                                       300)).sha256
        moved = 0 if have == sha256 else _upload(self.transport, local_path, remote, sha256)
        self.bytes_moved += moved
        return remote, moved

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.proc.write_line(json.dumps({"id": 0, "op": "shutdown"}))
                if self.proc.wait(3) is None:
                    self.proc.terminate()
        finally:
            self.proc.terminate()

    def __enter__(self) -> AgentLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
