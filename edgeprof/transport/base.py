"""The Transport protocol: how the host reaches a device.

Owns: the interface every mechanism implements (local subprocess, SSH) and shell quoting of remote commands.
Does not own: what is pushed or run (agentlink, run/). Every remote command is given as an argv list and
quoted here with shlex.quote; no caller ever builds a shell string from device or user text.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# the longest line read from an agent's stdout: a run reply carries raw samples and, for the fidelity check, the
# model's outputs in base64 (a 1x21x512x512 float32 output is 29 MB of it); a 30-minute sustained run of a fast
# model sends every latency and issue time packed (protocol 10: about 5.2 bytes a query, 156 MB for 30 M queries,
# benchmarks/sustained_samples.py), so the bound holds about 100 M queries; beyond it a board is writing garbage
# without newlines, and reading on would stall and eat memory
MAX_LINE_BYTES = 512 << 20
STDERR_LINE_CHARS = 4000  # each line kept in a stderr tail is cut to this


class LineTooLong(Exception):
    """The process wrote more than MAX_LINE_BYTES to stdout without a newline (reading stopped)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a line longer than {limit} bytes without a newline")
        self.limit = limit


@dataclass
class CommandResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str


class AgentProcess(ABC):
    """A running agent: write request lines to it, read reply/event lines from it."""

    @abstractmethod
    def write_line(self, line: str) -> None: ...

    @abstractmethod
    def read_line(self, timeout: float | None = None) -> str | None:
        """Next stdout line without the newline; None at end of stream. Raises TimeoutError on timeout, and
        LineTooLong for a line over MAX_LINE_BYTES (reading stops there)."""

    @abstractmethod
    def stderr_tail(self, max_chars: int = 4000) -> str: ...

    @abstractmethod
    def poll(self) -> int | None: ...

    @abstractmethod
    def terminate(self) -> None:
        """Stop the agent and everything it started; must leave no process behind on the device."""

    @abstractmethod
    def wait(self, timeout: float | None = None) -> int | None: ...


class Transport(ABC):
    """One connection to one device, reused for a whole command."""

    device_name: str

    @abstractmethod
    def run(self, argv: Sequence[str], *, timeout: float | None = 60.0, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> CommandResult:
        """Run argv on the device (quoted), wait, return its output. Never raises on non-zero exit."""

    @abstractmethod
    def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> AgentProcess:
        """Start a long-running process with piped stdin/stdout/stderr."""

    @abstractmethod
    def put_file(self, local_path: str, remote_path: str) -> int:
        """Copy a file to remote_path exactly (caller picks a temporary name); returns bytes moved."""

    @abstractmethod
    def expand_path(self, path: str) -> str:
        """Resolve a leading ~ on the device to an absolute path."""

    def connect(self) -> None:  # noqa: B027 - optional hook
        """Open the connection now (one that opens on first use otherwise: ssh, adb), so its time is its own."""

    def close(self) -> None:  # noqa: B027 - optional hook
        pass

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def quote_argv(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """One shell command line from an argv list; env given as `env NAME=value ... argv` (all quoted)."""
    parts: list[str] = []
    if env:
        for name in env:
            if not name.replace("_", "a").isalnum() or name[0].isdigit():
                raise ValueError(f"invalid environment variable name {name!r}")
        parts.append("env")
        parts.extend(shlex.quote(f"{k}={v}") for k, v in env.items())
    parts.extend(shlex.quote(str(a)) for a in argv)
    return " ".join(parts)
