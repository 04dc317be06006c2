"""The one exception tree of edgeprof.

Owns: exception types. `UserError` and its subclasses are the only exceptions the CLI prints as a single line
(what failed, where, what to do); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


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
    """Unknown model, unreadable or invalid model file, missing input shapes."""


class DeviceError(UserError):
    """Unknown device, unreachable device, missing runtime on the device."""


class TransportError(DeviceError):
    """Connection, authentication, host key or file transfer failure."""

    exit_code = 3


class HostKeyError(TransportError):
    """Unknown or changed SSH host key."""


class AgentError(DeviceError):
    """The agent failed, died, or speaks another protocol version."""

    exit_code = 3


class RuntimeMissingError(DeviceError):
    """The requested runtime is not importable where the agent runs."""


class StoreError(UserError):
    """Results database problems (unreachable URL, newer schema, unknown run id)."""


class MeasurementError(EdgeprofError):
    """A measurement failed on the device (the model raised, the output was wrong). Becomes a failed row."""
