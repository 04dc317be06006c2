"""Numbers for people: the one formatter of measured values, p-values and axis labels, used by the terminal,
Markdown and HTML, and the one reader and writer of durations (`30m`, `1h30m`) (edgeprof.vocab re-exports them,
where they have always been imported from).

Owns: how a number is rounded and written for reading; how a duration is read from text and written back. Does not own: units and metrics (vocab.py), what a number
means or whether it is finite (vocab.is_finite_number). Pure functions, no I/O.
"""

from __future__ import annotations

import math
import re


def fmt_value(v: float | None, unit: str = "") -> str:
    """A measured value with its unit: 3 significant digits below 0.1, then 2, 1 and 0 decimals."""
    if v is None:
        return "-"
    if not math.isfinite(v):
        return f"{v} {unit}".strip()
    a = abs(v)
    if a == 0:
        text = "0"
    elif a >= 100:
        text = f"{v:.0f}"
    elif a >= 10:
        text = f"{v:.1f}"
    elif a >= 0.1:
        text = f"{v:.2f}"
    else:
        text = f"{v:.3g}"
    return f"{text} {unit}".strip()


def fmt_p(p: float | None) -> str:
    """A p-value for people: below 1e-16 floating point cannot tell it from 0."""
    if p is None:
        return "-"
    return "<1e-16" if p < 1e-16 else f"{p:.2g}"


def fmt_num(v: float) -> str:
    """A compact axis label: 1.2k, 3.4M, 0.05."""
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e4:
        return f"{v / 1e3:.3g}k"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 1:
        return f"{v:.3g}"
    return f"{v:.2g}"


# -- durations: seconds, or text with h / m / s units ------------------------------------------------------------

DURATION_FORM = "must be seconds (90) or a duration with units h, m, s (30m, 1h30m, 60s)"
_PLAIN_SECONDS = re.compile(r"^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|inf|infinity|nan)$")  # nan: refused later
_NUM = r"(\d+(?:\.\d+)?|\.\d+)"
_DURATION_RE = re.compile(rf"^(?:{_NUM}h)?(?:{_NUM}m)?(?:{_NUM}s)?$")


def parse_duration(text: str) -> float:
    """Seconds from `90`, `2.5`, `60s`, `30m`, `1h30m`, `1h30m15s`, `1.5h` (the one parser of every duration
    setting: deploy's --duration and --window, a sweep file's `duration_s: 30m`). A sign is kept for the range
    check to refuse (`-5m` is -300). Raises ValueError with DURATION_FORM's phrase."""
    t = str(text).strip().lower()
    sign = -1.0 if t.startswith("-") else 1.0
    body = t[1:] if t.startswith(("-", "+")) else t
    if _PLAIN_SECONDS.match(body):
        return sign * float(body)
    m = _DURATION_RE.match(body)
    if not body or m is None or not any(m.groups()):
        raise ValueError(DURATION_FORM)
    h, mins, secs = (float(g) if g else 0.0 for g in m.groups())
    return sign * (h * 3600.0 + mins * 60.0 + secs)


def fmt_duration(seconds: float) -> str:
    """`30m`, `1h30m`, `1m30s`, `12s`, `2.5s`: what parse_duration reads back to the same seconds."""
    if not math.isfinite(seconds) or seconds < 0 or seconds != int(seconds):
        return f"{seconds:g}s"
    left = int(seconds)
    h, left = divmod(left, 3600)
    m, sec = divmod(left, 60)
    text = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{sec}s" if sec else "")
    return text or "0s"
