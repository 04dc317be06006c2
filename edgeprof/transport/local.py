"""Local transport: the device is this machine; commands run as subprocesses without a shell.

Owns: running argv lists locally and the subprocess-backed AgentProcess (also reused by the SSH transport's
tests as a reference behaviour). Does not own: what runs.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence

from .base import MAX_LINE_BYTES, STDERR_LINE_CHARS, AgentProcess, CommandResult, LineTooLong, Transport

_TOO_LONG = object()  # queued when a line passed the limit


class PipeReader:
    """Reads a byte stream line by line on a thread so reads can time out; keeps a tail of what it saw.

    Lines are bounded: a stdout line over `max_line` bytes without a newline ends the reading (get() raises
    LineTooLong, no stall, no unbounded buffer); a stderr line is kept cut to STDERR_LINE_CHARS, the rest of it
    skipped."""

    def __init__(self, stream, keep_tail: bool = False, on_line=None, max_line: int = MAX_LINE_BYTES) -> None:
        self._q: queue.Queue[object] = queue.Queue()
        self._max = max_line
        self._tail: deque[str] = deque(maxlen=200)
        self._keep_tail = keep_tail
        self._on_line = on_line
        self._t = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._t.start()

    def _pump(self, stream) -> None:
        try:
            if self._keep_tail:
                self._pump_tail(stream)
                return
            while True:
                raw = stream.readline(self._max + 1)
                if not raw:
                    break
                if len(raw) > self._max and not raw.endswith(b"\n"):
                    self._q.put(_TOO_LONG)
                    return
                self._q.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._q.put(None)

    def _pump_tail(self, stream) -> None:
        skipping = False  # inside a line already cut
        while True:
            raw = stream.readline(STDERR_LINE_CHARS)
            if not raw:
                return
            whole = raw.endswith(b"\n")
            if not skipping:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._tail.append(line if whole else line + " …")
                if self._on_line is not None:
                    self._on_line(line)
            skipping = not whole

    def get(self, timeout: float | None) -> str | None:
        try:
            item = self._q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no output for {timeout:.0f} s") from None
        if item is _TOO_LONG:
            self._q.put(_TOO_LONG)  # every later read says so too
            raise LineTooLong(self._max)
        return item  # type: ignore[return-value]

    def tail(self, max_chars: int) -> str:
        text = "\n".join(self._tail)
        return text[-max_chars:]

    def join(self, timeout: float) -> None:
        self._t.join(timeout)


class LocalAgentProcess(AgentProcess):
    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None, on_stderr=None) -> None:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        self._p = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=full_env, start_new_session=True,
        )
        self._out = PipeReader(self._p.stdout)
        self._err = PipeReader(self._p.stderr, keep_tail=True, on_line=on_stderr)

    def write_line(self, line: str) -> None:
        assert self._p.stdin is not None
        try:
            self._p.stdin.write(line.encode("utf-8") + b"\n")
            self._p.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the agent is gone; the next read reports it with the stderr tail

    def read_line(self, timeout: float | None = None) -> str | None:
        return self._out.get(timeout)

    def stderr_tail(self, max_chars: int = 4000) -> str:
        self._err.join(0.2)
        return self._err.tail(max_chars)

    def poll(self) -> int | None:
        return self._p.poll()

    def terminate(self) -> None:
        if self._p.poll() is not None:
            return
        try:
            os.killpg(self._p.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self._p.wait(3)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self._p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._p.wait(3)

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self._p.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


class LocalTransport(Transport):
    def __init__(self, device_name: str = "local", on_stderr=None) -> None:
        self.device_name = device_name
        self._on_stderr = on_stderr

    def run(self, argv: Sequence[str], *, timeout: float | None = 60.0, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> CommandResult:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        try:
            p = subprocess.run(list(argv), input=stdin, capture_output=True, timeout=timeout, env=full_env)
        except FileNotFoundError as e:
            return CommandResult(list(argv), 127, "", str(e))
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else ""
            return CommandResult(list(argv), 124, out, f"timed out after {timeout} s")
        return CommandResult(list(argv), p.returncode, p.stdout.decode("utf-8", "replace"),
                             p.stderr.decode("utf-8", "replace"))

    def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> AgentProcess:
        return LocalAgentProcess(argv, env, on_stderr=self._on_stderr)

    def put_file(self, local_path: str, remote_path: str) -> int:
        os.makedirs(os.path.dirname(remote_path) or ".", exist_ok=True)
        shutil.copyfile(local_path, remote_path)
        return os.path.getsize(remote_path)

    def expand_path(self, path: str) -> str:
        return os.path.abspath(os.path.expanduser(path))
