"""The one exception tree of edgeprof.

Owns: exception types. `UserError` and its subclasses are the only exceptions the CLI prints as a single line
(what failed, where, what to do); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno as _errno
from collections.abc import Iterator


class EdgeprofError(Exception):
    """Base of every exception edgeprof raises on purpose."""


class UserError(EdgeprofError):
    """A problem the user can fix. The message is one line: what failed, where, what to do."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None, detail: str | None = None) -> None:
        self.message = message
        self.hint = hint
        # detail: e.g. a remote stderr tail; shown indented under the one line, never instead of it.
        self.detail = detail
        super().__init__(message if not hint else f"{message} — {hint}")

    def one_line(self) -> str:
        return str(self)


class ConfigError(UserError):
    """Bad devices.yaml, sweep file or command-line value."""


class ModelError(UserError):
    """Unknown model, unreadable or invalid model file, missing input shapes.

    Declared fields (export/capture.py sets them): `library_failure`, an exporter or quantiser raised (not the
    user's input); `library_log`, the file the libraries' captured output is in, once the one line names it."""

    library_failure: bool = False
    library_log: str | None = None


class DeviceError(UserError):
    """Unknown device, unreachable device, missing runtime on the device.

    Declared fields, set where the error is raised (read them; never parse the text): `device`, the device's
    name where one is concerned; `reason`, what the device itself said (the agent's message, without the
    "device NAME: " the one line starts with)."""

    def __init__(self, message: str, *, hint: str | None = None, detail: str | None = None,
                 device: str | None = None, reason: str | None = None) -> None:
        super().__init__(message, hint=hint, detail=detail)
        self.device = device
        self.reason = reason


class TransportError(DeviceError):
    """Connection, authentication, host key or file transfer failure."""

    exit_code = 3


class HostKeyError(TransportError):
    """Unknown or changed SSH host key."""


class AgentError(DeviceError):
    """The agent failed, died, or speaks another protocol version.

    `kind`: the agent's error kind (edgeprof_agent.vocab.ErrorKind) when the agent answered with an error
    reply; None when it never answered (it exited, fell silent). `op`: the request it failed in ("run",
    "facts", ...); `stderr_tail`: the end of the agent's stderr when it exited or spoke out of protocol (also
    shown as `detail`)."""

    exit_code = 3

    def __init__(self, message: str, *, hint: str | None = None, detail: str | None = None,
                 kind: str | None = None, device: str | None = None, reason: str | None = None,
                 op: str | None = None, stderr_tail: str | None = None) -> None:
        super().__init__(message, hint=hint, detail=detail, device=device, reason=reason)
        self.kind = kind
        self.op = op
        self.stderr_tail = stderr_tail


class AgentCrashed(AgentError):
    """The agent died of a signal (a native crash in a runtime: SIGSEGV, SIGABRT, ...). `detail` holds the native
    stack faulthandler wrote to the agent's stderr; the CLI prints it only with --verbose (the hint says so)."""

    verbose_detail = True


class AgentProtocolError(AgentError):
    """A message between host and agent did not match its record (missing, unknown or mistyped field), a
    non-protocol line, an unknown op: host and agent disagree on the protocol."""


class ProtocolMismatchError(AgentProtocolError):
    """The agent speaks another protocol version than this host (the message says which side is older)."""


class MeasurementFailed(AgentError):
    """The measurement itself failed on the device (ErrorKind.MEASUREMENT: the runtime refused the model, an
    inference raised, bad inputs or options, CUDA): a sweep records it as failed and never retries it."""


class LeasedError(AgentError):
    """Another controller holds the device lease (ErrorKind.LEASED). `holder`: who, and since when, as the agent
    names them (`sw-… from CONTROLLER since TIME`), when it said."""

    holder: str | None = None


class CapabilityError(DeviceError):
    """The device cannot run this (format, runtime, precision): the capability matrix's skip, as one line."""


class RuntimeMissingError(DeviceError):
    """The requested runtime is not importable where the agent runs."""


class StoreError(UserError):
    """Results database problems (unreachable URL, newer schema, unknown run id)."""


class AmbiguousId(StoreError):
    """An id prefix that more than one stored run (or sweep) starts with: the message lists a few of them."""


class StoreUnavailable(StoreError):
    """A read the database did not answer (the server down or restarting, the connection lost): the same read may
    work a moment later (a follower of a queued sweep waits for it)."""


class MeasurementError(EdgeprofError):
    """A measurement failed on the device (the model raised, the output was wrong). Becomes a failed row."""


class LeaseBusy(DeviceError):
    """Another controller held the device for longer than we were willing to wait."""


class LeaseLost(EdgeprofError):
    """Our lease is gone (expired, or the holding agent died): take it again before measuring."""


class Interrupted(EdgeprofError):
    """The sweep is stopping (Ctrl-C)."""


# a write that failed for want of room or permission: the user can fix it (free space, another folder)
DISK_ERRNOS = frozenset({_errno.ENOSPC, _errno.EDQUOT, _errno.EROFS, _errno.EACCES, _errno.EPERM, _errno.EFBIG})
_DISK_TEXT = {_errno.ENOSPC: "no space left on the device", _errno.EDQUOT: "disk quota exceeded",
              _errno.EROFS: "read-only file system", _errno.EACCES: "permission denied",
              _errno.EPERM: "operation not permitted", _errno.EFBIG: "file too large"}


class DiskError(UserError):
    """Writing a file edgeprof keeps (the export cache, the results database, an output file) failed for want
    of room or permission (DISK_ERRNOS). Declared fields: `path`, the file or folder; `errno`, the error number."""

    def __init__(self, message: str, *, hint: str | None = None, detail: str | None = None,
                 path: str | None = None, errno: int | None = None) -> None:
        super().__init__(message, hint=hint, detail=detail)
        self.path = path
        self.errno = errno


def chain(e: BaseException | None) -> Iterator[BaseException]:
    """`e` and every exception it was raised from or while handling (__cause__, __context__), each once."""
    seen: set[int] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend((x.__cause__, x.__context__))


def disk_error_in(e: BaseException | None) -> OSError | None:
    """The OSError with one of DISK_ERRNOS that `e` is, or was raised from or while handling (a library that
    wrapped it in its own error), else None."""
    return next((x for x in chain(e) if isinstance(x, OSError) and x.errno in DISK_ERRNOS), None)


def disk_text(e: OSError) -> str:
    """What an OSError of DISK_ERRNOS means, in words ("no space left on the device")."""
    return _DISK_TEXT.get(e.errno or 0, e.strerror or str(e))


def disk_advice(e: OSError) -> str:
    """What to do about an OSError of DISK_ERRNOS: room ("free space there") or permission ("make it writable")."""
    return "free space there" if e.errno in (_errno.ENOSPC, _errno.EDQUOT, _errno.EFBIG) else "make it writable"
