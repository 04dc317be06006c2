"""Numbers for people: the one formatter of measured values, p-values and axis labels, used by the terminal,
Markdown and HTML (edgeprof.vocab re-exports them, where they have always been imported from).

Owns: how a number is rounded and written for reading. Does not own: units and metrics (vocab.py), what a number
means or whether it is finite (vocab.is_finite_number). Pure functions, no I/O.
"""

from __future__ import annotations

import math


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
