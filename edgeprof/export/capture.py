"""Keep the libraries' output off the terminal: export, conversion and quantisation write into a log file.

Owns:
- `capture(log, what)`, a context manager that, for its duration, sends the process's file descriptors 1 and 2
  (where absl, oneDNN, LiteRT, onnxruntime and torch's C++ code write) to `log` (appended, one header line per
  capture), and with them Python's `sys.stdout`/`sys.stderr`, the libraries' Python warnings and their `logging`
  records (a handler on the root logger). With `--verbose` (`set_verbose(True)`) the same text is also teed live
  to the terminal. Captures nest (an inner one writes its own log); one thread at a time holds fd 1/2 (a lock).
  A capture that caught nothing leaves no trace in its log. A ModelError marked `library_failure(e)` (an
  exporter or quantiser raised) leaving a capture names the log in its hint; its detail (shown by
  `--verbose`) is the log's tail. A failure inside a capture that a Ctrl-C caused (a SIGINT came during it, or
  the error was raised from a KeyboardInterrupt: interrupts.py) leaves it as KeyboardInterrupt, never as the
  library's or the model's failure; so does a capture whose libraries swallowed the interruption.
- edgeprof's own way to the terminal while fd 1/2 point at a log: `TerminalStream` (the CLI's rich consoles
  write through it: the real terminal during a capture, `sys.stdout`/`sys.stderr` otherwise) and
  `to_terminal(progress)` (wraps a progress callback so that what it prints reaches the terminal).
Does not own: what runs inside (the export modules), where logs live (callers pass `<cache>/<key>.log`),
the agent's runtime output on the device (agents/edgeprof_agent/quiet.py).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from .. import interrupts
from ..errors import ModelError

__all__ = ["capture", "Capture", "TerminalStream", "to_terminal", "library_failure", "set_verbose", "verbose",
           "capturing"]

_LOCK = threading.RLock()
_TERMINAL_LOCK = threading.Lock()
_STREAMS_LOCK = threading.RLock()  # TerminalStream's writes vs a capture starting or ending (rich's refresh thread)  # --verbose: a teed chunk never lands inside one progress line
_STACK: list[Capture] = []  # active captures, outermost first
_VERBOSE = False
_FDS = {"stdout": 1, "stderr": 2}
TAIL_LINES = 30


def set_verbose(on: bool) -> None:
    """`--verbose`: stream captured library output to the terminal as well, and show log tails on errors."""
    global _VERBOSE
    _VERBOSE = bool(on)


def verbose() -> bool:
    return _VERBOSE


def capturing() -> bool:
    """True while some capture holds fd 1/2."""
    return bool(_STACK)


class _FdWriter(io.TextIOBase):
    """A text stream writing straight to a file descriptor (no buffer, so it interleaves with C-level writes)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def write(self, s: str) -> int:
        data = s.encode("utf-8", "replace")
        while data:
            n = os.write(self._fd, data)
            data = data[n:]
        return len(s)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def buffer(self) -> io.FileIO:  # some libraries write bytes to sys.stdout.buffer
        return io.FileIO(self._fd, "w", closefd=False)


class _LogHandler(logging.Handler):
    """Library `logging` records into the capture (through fd 2, so they interleave with everything else)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = self.format(record) + "\n"
            _FdWriter(2).write(msg)
        except Exception:  # noqa: BLE001 - a log line must never break an export
            self.handleError(record)


def _writes_to_fd(stream: Any, fd: int) -> bool:
    try:
        return bool(stream.fileno() == fd)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


class Capture:
    """One active capture: its log file, the terminal streams it saved, the tail of what it caught."""

    def __init__(self, log: Path, what: str) -> None:
        self.log = Path(log)
        self.what = what
        self._start = 0
        self._before = 0
        self._saved: dict[str, int] = {}
        self._terminal: dict[str, TextIO] = {}
        self._own_streams: list[TextIO] = []
        self._tee: threading.Thread | None = None
        self._pipe: tuple[int, int] | None = None

    def terminal(self, name: str) -> TextIO:
        """The stream edgeprof writes `name` ('stdout'/'stderr') to while fd 1/2 are captured."""
        return self._terminal[name]

    def tail(self, n: int = TAIL_LINES) -> str:
        """The last `n` non-empty lines this capture wrote to its log."""
        try:
            with self.log.open("rb") as f:
                f.seek(self._start)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return "\n".join(lines[-n:])

    # ----------------------------------------------------------------------------------------- plumbing

    def _open(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as f:
            self._before = f.tell()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            f.write(f"=== {stamp} edgeprof: {self.what} (pid {os.getpid()}) ===\n".encode())
            self._start = f.tell()
        outer = _STACK[0] if _STACK else None
        for name, fd in _FDS.items():
            if outer is not None:
                self._terminal[name] = outer.terminal(name)
                continue
            current = _unproxied(getattr(sys, name))
            if _writes_to_fd(current, fd):  # the real terminal (or pipe): keep a dup of it for edgeprof
                stream = io.TextIOWrapper(io.FileIO(os.dup(fd), "w", closefd=True),
                                          encoding=getattr(current, "encoding", None) or "utf-8",
                                          errors="replace", line_buffering=True, write_through=True)
                self._own_streams.append(stream)
                self._terminal[name] = stream
            else:  # already not a file descriptor (tests' captured streams): edgeprof keeps writing there
                self._terminal[name] = current
        _flush(*(_unproxied(getattr(sys, n)) for n in _FDS))  # never a rich proxy: its flush takes rich's locks
        self._saved = {name: os.dup(fd) for name, fd in _FDS.items()}
        log_fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if _VERBOSE:
                r, w = os.pipe()
                self._pipe = (r, w)
                self._tee = threading.Thread(target=_tee, args=(r, log_fd, self._terminal["stderr"]),
                                             name="edgeprof-capture-tee", daemon=True)
                self._tee.start()
                target = w
            else:
                target = log_fd
            for fd in _FDS.values():
                os.dup2(target, fd)
        finally:
            if not _VERBOSE:
                os.close(log_fd)  # fd 1 and 2 hold it now; the tee thread owns it otherwise

    def _restore_fds(self) -> None:
        _flush(*(_unproxied(getattr(sys, n)) for n in _FDS))
        for name, fd in _FDS.items():
            os.dup2(self._saved[name], fd)
            os.close(self._saved[name])

    def _close(self) -> None:
        """After _restore_fds and leaving the stack: drain the tee, close the terminal dups, tidy the log."""
        if self._pipe is not None:
            os.close(self._pipe[1])  # fd 1/2 no longer hold the write end: the tee sees EOF
            if self._tee is not None:
                self._tee.join(5.0)
        for stream in self._own_streams:
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        self._drop_if_silent()

    def caught_anything(self) -> bool:
        try:
            return self.log.stat().st_size > self._start
        except OSError:
            return False

    def _drop_if_silent(self) -> None:
        """Nothing was said: take the header back out (and the file, if it held nothing else)."""
        if self.caught_anything():
            return
        with contextlib.suppress(OSError):
            if self._before == 0:
                self.log.unlink()
            else:
                os.truncate(self.log, self._before)


def _unproxied(stream: Any) -> Any:
    """The stream under rich's FileProxy (a live display swaps one in for sys.stdout/sys.stderr)."""
    return getattr(stream, "rich_proxied_file", stream)


def _flush(*streams: Any) -> None:
    for s in streams:
        with contextlib.suppress(Exception):
            s.flush()


def _tee(r: int, log_fd: int, terminal: TextIO) -> None:
    """--verbose: copy what the libraries write to the log and to the terminal as it arrives."""
    try:
        while True:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            os.write(log_fd, chunk)
            with _TERMINAL_LOCK, contextlib.suppress(Exception):
                terminal.write(chunk.decode("utf-8", "replace"))
                terminal.flush()
    finally:
        os.close(log_fd)
        os.close(r)


@contextlib.contextmanager
def capture(log: Path, what: str) -> Iterator[Capture]:
    """Run the body with the libraries' output (fd 1/2, sys.stdout/stderr, warnings, logging) in `log`.

    `what` heads the section in the log ("exporting resnet18 to TFLite"). Import heavy libraries (torch,
    litert_torch, ai_edge_quantizer, onnxruntime.quantization) inside the body: several print when imported."""
    with _LOCK:
        cap = Capture(log, what)
        with _STREAMS_LOCK:  # a TerminalStream write sees fd 2 and the stack change together
            cap._open()
            _STACK.append(cap)
        saved_streams = (sys.stdout, sys.stderr)
        handler = _LogHandler()
        root = logging.getLogger()
        root.addHandler(handler)
        rebound = _rebind_proxied_handlers()
        failed: ModelError | None = None
        mark = interrupts.count()
        try:
            sys.stdout, sys.stderr = _FdWriter(1), _FdWriter(2)
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                yield cap
            if interrupts.interrupted_since(mark):  # a library swallowed the KeyboardInterrupt
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            if interrupts.interrupted_since(mark) or interrupts.caused_by_interrupt(e):
                raise KeyboardInterrupt from e  # a library's error made of the interruption: not its failure
            if isinstance(e, ModelError):
                failed = e
            raise
        finally:
            root.removeHandler(handler)
            for h, stream in rebound:
                h.setStream(stream)
            sys.stdout, sys.stderr = saved_streams
            with _STREAMS_LOCK:
                cap._restore_fds()
                _STACK.pop()
            cap._close()  # the log is complete from here (the --verbose tee has drained)
            if failed is not None:
                _point_to_log(failed, cap)


def _rebind_proxied_handlers() -> list[tuple[logging.StreamHandler[Any], Any]]:
    """Logging handlers that a library created while a rich live display had swapped its proxy in for
    sys.stderr write through the proxy to the terminal, fd redirection or not: point them at fd 2 for the
    capture. Returns (handler, its own stream) pairs to restore."""
    handlers: list[logging.Handler] = list(logging.getLogger().handlers)
    for lg in list(logging.root.manager.loggerDict.values()):
        if isinstance(lg, logging.Logger):
            handlers.extend(lg.handlers)
    rebound = []
    for h in handlers:
        if isinstance(h, logging.StreamHandler) and hasattr(h.stream, "rich_proxied_file"):
            rebound.append((h, h.setStream(_FdWriter(2))))
    return rebound


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    _FdWriter(2).write(warnings.formatwarning(message, category, filename, lineno, line))


def library_failure(e: ModelError) -> ModelError:
    """Mark `e` as a library's failure (an exporter or quantiser raised): when it leaves a capture that caught
    output, its one line names the log and its detail is the log's tail. Other errors (a bad builder, a bad
    --calibration) stay as they are."""
    e.library_failure = True
    return e


def _point_to_log(e: ModelError, cap: Capture) -> None:
    """Name the log in the error's one line (once), and keep its tail as the detail (--verbose prints it)."""
    if e.library_log or not e.library_failure or not cap.caught_anything():
        return
    note = f"the libraries' output is in {cap.log}"
    e.hint = f"{e.hint}; {note}" if e.hint else note
    e.args = (f"{e.message} — {e.hint}",)
    e.library_log = str(cap.log)
    if not e.detail:
        e.detail = cap.tail() or None


def to_terminal(progress: Callable[[str], None] | None) -> Callable[[str], None]:
    """Wrap a progress callback so that what it prints reaches the terminal even inside a capture."""
    if progress is None:
        return lambda _msg: None
    if getattr(progress, "_edgeprof_to_terminal", False):
        return progress
    fn = progress

    def say(msg: str) -> None:
        if not _STACK:
            fn(msg)
            return
        outer = _STACK[0]
        inside = (sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = outer.terminal("stdout"), outer.terminal("stderr")
        try:
            with _TERMINAL_LOCK:
                fn(msg)
        finally:
            _flush(sys.stdout, sys.stderr)
            sys.stdout, sys.stderr = inside

    say._edgeprof_to_terminal = True  # type: ignore[attr-defined]
    return say


class TerminalStream(io.TextIOBase):
    """edgeprof's console stream: `sys.<name>` normally, the saved terminal while a capture holds fd 1/2.

    The CLI points its rich consoles here (cli/main.py), so the spinner and tables never land in a log."""

    def __init__(self, name: str) -> None:
        super().__init__()
        if name not in _FDS:
            raise ValueError(f"TerminalStream({name!r}): use 'stdout' or 'stderr'")
        self._name = name

    def target(self) -> TextIO:
        if _STACK:
            return _STACK[0].terminal(self._name)
        stream: TextIO = _unproxied(getattr(sys, self._name))  # never back into a console's own proxy
        return stream

    def write(self, s: str) -> int:
        with _STREAMS_LOCK:
            return self.target().write(s)

    def flush(self) -> None:
        with _STREAMS_LOCK:
            self.target().flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        isatty = getattr(self.target(), "isatty", None)
        return bool(isatty()) if isatty is not None else False

    def fileno(self) -> int:
        return self.target().fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target(), "encoding", None) or "utf-8"
