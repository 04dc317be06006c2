"""A started, greeted agent on one device (AgentLink): starting it, the version handshake, and JSON-lines calls
with progress events, each bounded by a silence timeout and by a deadline that events do not postpone (a run's
from its settings, run/limits.run_deadline; a generation's as its caller gives it; any other request's twice its
timeout).
Every request, reply, error and event is a record of edgeprof_agent.messages (the agent imports the same ones):
a reply that does not match its record is a one-line AgentProtocolError naming the field, and an agent error
is mapped to an exception class by its kind (vocab.ErrorKind), never by its text; the error's declared fields
(device, reason, op, stderr_tail) are set here.
AgentLink is the StartedAgent (run/execute.py) of a device reached through a Transport.
Does not own: the zipapp (bundle.py), uploads (push.py), what a run measures (agent) or what the host does with
the answer (run/).
"""

from __future__ import annotations

import json
import posixpath
import re
import time
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
    GenerateReply,
    GenerateRequest,
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

from ..capability import runtime_version
from ..errors import (
    AgentCrashed,
    AgentError,
    AgentProtocolError,
    CapabilityError,
    LeasedError,
    MeasurementFailed,
    ProtocolMismatchError,
    RuntimeMissingError,
    UserError,
)
from ..records import Device
from ..transport.base import AgentProcess, LineTooLong, Transport
from ..vocab import ErrorKind
from .bundle import build_agent
from .deadline import RunDeadline
from .failures import _CRASH_SIGNALS, _FATAL_RE, check_samples, crash_signal
from .push import _SHA_RE, _upload, ensure_workdir

PROTOCOL_VERSION = edgeprof_agent.PROTOCOL_VERSION
MEASURING_OPS = ("run", "generate")  # the ops whose requests name a runtime and whose agent sends progress
Event = ProgressEvent | LogEvent
EventSink = Callable[[Event], None]  # typed events (request/run); call() hands dicts to its own sink
_R = TypeVar("_R", bound=Record)
# an agent sends a progress event every few hundred ms; a board sending more than this many lines a second,
# sustained over FLOOD_WINDOW_S, is flooding: stopped, whatever its silence timeout
FLOOD_LINES_PER_S = 500
FLOOD_WINDOW_S = 5.0


CALL_TIMEOUT_S = 120.0  # a call's reply wait unless the caller says otherwise (a lease's facts read too)


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
                timeout: float | None = CALL_TIMEOUT_S) -> Record:
        """Send a request record (edgeprof_agent.messages); return the op's reply record."""
        op = OP_OF[type(req)]
        return self._reply(OPS[op][1], self._exchange(op, req.to_dict(), on_event, timeout))

    def facts(self, runtimes: bool = True, timeout: float | None = CALL_TIMEOUT_S) -> Facts:
        facts = self._reply(Facts, self._exchange("facts", FactsRequest(runtimes=runtimes).to_dict(), None,
                                                  timeout))
        if facts.runtimes or self.known_facts is None:
            self.known_facts = facts
        return facts

    def run(self, req: RunRequest, *, on_event: EventSink | None = None, timeout: float | None = CALL_TIMEOUT_S,
            silence_by_phase: Mapping[str, float] | None = None, deadline: RunDeadline | None = None) -> RunReply:
        """`timeout`: the longest silence before the first progress event; once the agent says which phase it
        is in, `silence_by_phase[phase]` (when given) is the longest silence allowed in that phase. `deadline`
        bounds the whole run however many events keep arriving."""
        raw = self._exchange("run", req.to_dict(), on_event, timeout, silence_by_phase, deadline)
        if isinstance(raw, dict) and isinstance(raw.get("samples_ns"), list):
            check_samples(raw["samples_ns"], self.device.name)  # NaN / negative: the reason, not a type error
        return self._reply(RunReply, raw)

    def generate(self, req: GenerateRequest, *, on_event: EventSink | None = None, timeout: float | None = CALL_TIMEOUT_S,
                 silence_by_phase: Mapping[str, float] | None = None,
                 deadline: RunDeadline | None = None) -> GenerateReply:
        """A generation measurement (protocol 11): as run(), `timeout` the longest silence before the first
        progress event, then `silence_by_phase[phase]`; the agent says nothing while a repetition runs (events:
        idle, load, warmup, measure after each repetition), so a phase's silence must cover one repetition.
        `deadline` bounds the whole measurement (None: no bound beyond the silences)."""
        raw = self._exchange("generate", req.to_dict(), on_event, timeout, silence_by_phase, deadline)
        return self._reply(GenerateReply, raw)

    def call(self, op: str, params: dict[str, Any] | None = None, *,
             on_event: Callable[[dict[str, Any]], None] | None = None,
             timeout: float | None = CALL_TIMEOUT_S) -> dict[str, Any]:
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
        if deadline is None and op not in MEASURING_OPS and timeout is not None:
            # only a run and a generation send progress: any other request is bounded whole (twice its silence
            # timeout, so an agent that merely falls silent is still called silent), whatever arrives meanwhile
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
            reached = deadline.reached() if deadline is not None else ""
            return AgentError(
                f"agent on device {self.device.name} was still in '{op}'{phase} after {now - started:.1f} s, "
                f"past {what}{talk}{'; ' + reached if reached else ''}; the agent was stopped",
                hint=(deadline.hint if deadline is not None and deadline.hint else
                      "the agent on the device loops or is misbehaving; run the agent by hand there to see it, or "
                      "raise the run's settings if it is really that slow"),
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
                raise self._silent(op, now - last_line, lines, last_line - started) from None
            except LineTooLong as e:
                self.proc.terminate()
                raise AgentProtocolError(
                    f"agent on device {self.device.name} wrote a line over {e.limit >> 20} MiB without a newline "
                    f"during '{op}' ({time.monotonic() - started:.1f} s in); the agent was stopped",
                    hint="something on the device writes binary or endless output to the agent's stdout (a "
                         "sitecustomize, a runtime's print?); run the agent by hand there to see it",
                    kind=ErrorKind.PROTOCOL, device=self.device.name, op=op) from None
            if line is None:
                raise self._exited(op, params["runtime"] if op in MEASURING_OPS else None)  # the request names it
            last_line = time.monotonic()
            lines += 1
            window_lines += 1
            if last_line - window_start >= FLOOD_WINDOW_S:
                self._check_flood(op, window_lines, last_line - window_start, lines, last_line - started)
                window_start, window_lines = last_line, 0
            msg = self._message(line, op)
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

    def _silent(self, op: str, silent_s: float, lines: int, talked_s: float) -> AgentError:
        """The error for an agent that sent nothing for `silent_s` (after `lines` lines in `talked_s`): stopped."""
        self.proc.terminate()
        tail = self.proc.stderr_tail().strip()
        after = f" (after {lines} line{'s' if lines != 1 else ''} in {talked_s:.1f} s)" if lines else ""
        return AgentError(
            f"agent on device {self.device.name} sent nothing for {silent_s:.1f} s during '{op}'{after}",
            hint="the device may be overloaded or hung; the agent was stopped"
                 + ("; its stderr is below" if tail else ""),
            detail=tail or None, device=self.device.name, op=op, stderr_tail=tail or None)

    def _check_flood(self, op: str, window_lines: int, window_s: float, lines: int, total_s: float) -> None:
        """Stop an agent that sent more than FLOOD_LINES_PER_S lines a second over the last window."""
        rate = window_lines / window_s
        if rate <= FLOOD_LINES_PER_S:
            return
        self.proc.terminate()
        tail = self.proc.stderr_tail().strip() or None
        raise AgentProtocolError(
            f"agent on device {self.device.name} flooded its output during '{op}': {window_lines} "
            f"lines in {window_s:.1f} s ({rate:.0f}/s, {lines} in all over {total_s:.1f} s); the agent was stopped",
            hint="an agent sends a few progress lines a second: something on the device is writing "
                 "to its stdout; run the agent by hand there to see it",
            kind=ErrorKind.PROTOCOL, detail=tail, device=self.device.name, op=op, stderr_tail=tail)

    def _message(self, line: str, op: str) -> dict[str, Any]:
        """One line from the agent as a JSON object, or a one-line AgentProtocolError."""
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            msg = None
        if not isinstance(msg, dict):
            raise AgentProtocolError(
                f"agent on device {self.device.name} printed a non-protocol line: {line[:120]!r}",
                hint="something on the device writes to the agent's stdout (a sitecustomize or a shell rc?)",
                kind=ErrorKind.PROTOCOL, device=self.device.name, op=op,
            ) from None
        return msg

    def _exited(self, op: str, runtime: Any) -> AgentError:
        """The error for an agent whose stdout ended during `op` (a run of `runtime`): a native crash (by signal)
        names the signal and the runtime with its version, keeping the native stack as detail; any other exit says
        its code."""
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
            leased = LeasedError(message, hint=err.hint, detail=err.detail, kind=kind, op=op, **said)
            leased.holder = err.holder
            return leased
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
