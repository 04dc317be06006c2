"""What a dead or misbehaving agent means: the signal it died of, the version of the runtime it died in, and
latency samples that cannot be stored as ok (the runtime's version: capability.runtime_version).

Owns: crash_signal, check_samples. Does not own: the exceptions (errors.py) or when they are
raised (link.py, run/assemble.py).
"""

from __future__ import annotations

import re
import signal
from typing import Any

from ..errors import (
    MeasurementFailed,
)

# faulthandler's first line for each fatal signal it handles (CPython's faulthandler.c, 3.6 to 3.13)
_FATAL_RE = re.compile(r"Fatal Python error: (Segmentation fault|Aborted|Bus error|Floating point exception|"
                       r"Illegal instruction)")
_FATAL_SIGNAL = {"Segmentation fault": "SIGSEGV", "Aborted": "SIGABRT", "Bus error": "SIGBUS",
                 "Floating point exception": "SIGFPE", "Illegal instruction": "SIGILL"}


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
    total = len(samples)
    if hasattr(samples, "typecode"):  # a packed reply's int64 array (millions in a sustained run): numpy checks it
        import numpy as np

        bad = int(np.count_nonzero(np.frombuffer(samples, dtype=np.int64) <= 0))  # type: ignore[call-overload]
    elif set(map(type, samples)) == {int} and min(samples) > 0:  # integers: all fine
        return
    else:
        bad = sum(1 for s in samples if isinstance(s, bool) or not isinstance(s, int | float)
                  or s != s or s in (float("inf"), float("-inf")) or s <= 0)
    if bad:
        raise MeasurementFailed(
            f"the agent on device {device} returned {bad} non-finite/negative latency samples (of {total})",
            hint="the board's monotonic clock or its agent misbehaved; nothing was stored as ok: rerun, and if it "
                 "repeats, report it with the board's kernel and Python versions")
