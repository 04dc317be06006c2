"""How a command runs over an SSH exec channel: the command line sent (quoted argv, the pid announced, then
exec; see ssh.py's docstring), the script that stops a process group, reading a channel to its exit status, and
splitting the pid announcement off a command's output.

Owns: PID_MARKER, wrap_command, KILL_SCRIPT, collect, split_pid.
Does not own: channels or connections (ssh.py).
"""

from __future__ import annotations

import re
import select
import shlex
import time
from collections.abc import Mapping, Sequence

import paramiko

from .base import quote_argv

PID_MARKER = "edgeprof-pid:"
PID_RE = re.compile(r"^" + re.escape(PID_MARKER) + r"(\d+)$")
_WRAPPER = 'echo "' + PID_MARKER + '$$"; exec "$@"'
# Stops a process group: TERM, wait up to the grace period, then KILL. Exit 0 gone, 2 needed KILL, 3 never there.
KILL_SCRIPT = (
    'pg=$1; n=$2; kill -s TERM -- "-$pg" 2>/dev/null || kill -s TERM "$pg" 2>/dev/null || exit 3; i=0; '
    'while kill -0 -- "-$pg" 2>/dev/null || kill -0 "$pg" 2>/dev/null; do '
    'i=$((i+1)); if [ "$i" -ge "$n" ]; then kill -s KILL -- "-$pg" 2>/dev/null; kill -s KILL "$pg" 2>/dev/null; '
    "exit 2; fi; sleep 0.1 2>/dev/null || sleep 1; done; exit 0"
)


def wrap_command(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The command line sent to sshd for argv: every argument quoted, the pid announced, then exec."""
    return f"exec sh -c {shlex.quote(_WRAPPER)} edgeprof {quote_argv(argv, env)}"


def collect(chan: paramiko.Channel, timeout: float | None) -> tuple[bytes, bytes, int | None, bool]:
    """Read stdout and stderr until EOF and exit status; (out, err, status or None if lost, timed_out).

    A process killed by a signal gets status -1 (sshd sends exit-signal, which paramiko does not parse).
    """
    out: list[bytes] = []
    err: list[bytes] = []
    deadline = None if timeout is None else time.monotonic() + timeout

    def drain() -> None:
        while chan.recv_ready():
            out.append(chan.recv(1 << 16))
        while chan.recv_stderr_ready():
            err.append(chan.recv_stderr(1 << 16))

    while True:
        drain()
        if chan.eof_received or chan.closed:
            break  # all output is in; the exit status follows
        wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
        if wait <= 0:
            return b"".join(out), b"".join(err), None, True
        select.select([chan], [], [], wait)
    while not chan.status_event.is_set():
        wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
        if wait <= 0:
            return b"".join(out), b"".join(err), None, True
        chan.status_event.wait(wait)
    drain()
    status: int | None = chan.exit_status
    if status == -1 and not chan.eof_received:
        status = None  # the connection went away
    return b"".join(out), b"".join(err), status, False


def split_pid(text: str) -> tuple[int | None, str]:
    """Split off the pid announcement (and any login-shell noise before it) from a command's stdout."""
    idx = text.find(PID_MARKER)
    while idx != -1:
        if idx == 0 or text[idx - 1] == "\n":
            end = text.find("\n", idx)
            line = text[idx:end if end != -1 else len(text)]
            m = PID_RE.match(line)
            if m:
                return int(m.group(1)), text[end + 1:] if end != -1 else ""
        idx = text.find(PID_MARKER, idx + 1)
    return None, text
