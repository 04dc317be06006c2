"""Ctrl-C (SIGINT) that is never lost and never mistaken for something else.

Owns: the process's SIGINT handling while the CLI runs (`install`): the handler counts every SIGINT before it
raises KeyboardInterrupt as Python's own does; a KeyboardInterrupt that Python could not raise (it landed in a
garbage-collector callback, a `__del__` or a weakref callback — jax registers a gc callback when litert-torch
imports it, and there the interrupt is printed as "Exception ignored" and dropped) is sent again a moment later,
so it reaches the code that runs after. A step that must not stop halfway holds SIGINT until it ends
(`held`). And the test of whether a failure is really an interruption
(`interrupted_since`, `caused_by_interrupt`): a library may catch the KeyboardInterrupt and raise its own
error from it, or swallow it; export/capture.py turns such failures back into KeyboardInterrupt. And clearing
the flag CPython sets when a handled KeyboardInterrupt ended a string exec (`forget_handled_interrupt`, called by
edgeprof/__main__.py and cli/main.py on their way out).
Does not own: what an interruption means to a command (cli/main.py: one line, exit 130; cli/sweep.py: stop the
sweep), SIGTERM (cli/sweep.py).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .errors import chain

__all__ = ["install", "held", "settle", "count", "interrupted_since", "caused_by_interrupt"]

_RESEND_S = 0.05
_count = 0
_installed = False
_exit_quiet = False  # settle() has made SIGINT ignored at exit
_resends: list[threading.Timer] = []


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _count
    _count += 1
    raise KeyboardInterrupt


def _unraisable(args: Any, previous: Any = None) -> None:
    """sys.unraisablehook: a KeyboardInterrupt Python had to drop is sent again (the rest as before)."""
    if args.exc_type is not None and issubclass(args.exc_type, KeyboardInterrupt):
        timer = threading.Timer(_RESEND_S, os.kill, (os.getpid(), signal.SIGINT))
        timer.daemon = True
        _resends.append(timer)
        timer.start()
        return
    (previous or sys.__unraisablehook__)(args)


def install() -> None:
    """Count SIGINTs and re-send the ones Python drops. Only in the main thread, and only where SIGINT has
    Python's default handler (a shell that started edgeprof in the background with SIGINT ignored keeps that)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    signal.signal(signal.SIGINT, _on_sigint)
    previous = sys.unraisablehook
    sys.unraisablehook = lambda args: _unraisable(args, previous)
    _installed = True


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A short step that must not stop halfway (a sweep's jobs, its rows and its status written together): a
    SIGINT inside the block is counted and raised as KeyboardInterrupt when the block ends without an error of
    its own. Only where `install` set the handler (elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not _on_sigint:
        yield
        return
    mark = _count
    signal.signal(signal.SIGINT, _count_only)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is _count_only and not _exit_quiet:
            signal.signal(signal.SIGINT, _on_sigint)
    if _count > mark:
        raise KeyboardInterrupt


def _count_only(signum: int, frame: FrameType | None) -> None:
    global _count
    _count += 1


def settle() -> None:
    """The interruption is being reported (one line, exit 130): a SIGINT still to come, re-sent for one Python
    dropped or a second Ctrl-C, is counted and no longer raised, so the process exits 130 and is not killed by
    the signal on its way out."""
    global _exit_quiet
    for timer in _resends:
        timer.cancel()
    _resends.clear()
    if threading.current_thread() is not threading.main_thread():
        return
    if _installed:
        signal.signal(signal.SIGINT, _count_only)
    if not _exit_quiet:  # the interpreter's finalisation puts SIGINT back to its default (kill) action: a
        _exit_quiet = True  # SIGINT landing then would end an exit 130 as "killed by SIGINT"; ignored there
        atexit.register(signal.signal, signal.SIGINT, signal.SIG_IGN)


def count() -> int:
    """How many SIGINTs this process has had since `install` (0 when not installed)."""
    return _count


def interrupted_since(mark: int) -> bool:
    """A SIGINT came after `count()` returned `mark`."""
    return _count > mark


def caused_by_interrupt(e: BaseException | None) -> bool:
    """`e` is a KeyboardInterrupt, or was raised while handling one or from one (its __cause__/__context__
    chain holds one): a library that wrapped the interruption in its own error."""
    return any(isinstance(x, KeyboardInterrupt) for x in chain(e))


def forget_handled_interrupt() -> None:
    """Under `python -m`, an interruption the CLI handled (one line, exit 130) must not end the process as killed
    by SIGINT. CPython (3.8-3.13, Python/pythonrun.c run_eval_code_obj) sets its "unhandled KeyboardInterrupt"
    flag whenever a string exec/eval ends with KeyboardInterrupt -- a Ctrl-C landing in a dataclass's generated
    __init__ while modules load is one -- even when a caller catches it; Py_RunMain then re-raises SIGINT at
    exit for `-m` runs (the console script, run as a file, never checks). The flag is cleared when the next
    string exec starts, so one harmless exec clears it once edgeprof has handled everything."""
    exec("None")
