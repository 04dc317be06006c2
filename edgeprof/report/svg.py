"""Tiny inline-SVG chart kit for the HTML report: scales, nice ticks, axes and a few marks.

Owns: turning numbers into SVG strings (no JavaScript, no fonts or files fetched: the report opens offline).
Every mark can carry a <title>, which browsers show as a tooltip. Does not own: what is plotted (html.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from ..vocab import fmt_num  # noqa: F401  (used below and by html.py)

# colour-blind-safe palette (Okabe-Ito, then Tableau-ish extras)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF")
INK = "#1f2933"
MUTED = "#7b8794"
GRID = "#e4e7eb"


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


@dataclass
class Scale:
    lo: float
    hi: float
    a: float  # pixel at lo
    b: float  # pixel at hi
    log: bool = False

    def __call__(self, v: float) -> float:
        if self.log:
            v = max(v, 1e-300)
            lo, hi, x = math.log10(self.lo), math.log10(self.hi), math.log10(v)
        else:
            lo, hi, x = self.lo, self.hi, v
        if hi == lo:
            return (self.a + self.b) / 2
        return self.a + (x - lo) / (hi - lo) * (self.b - self.a)

    def ticks(self, n: int = 5) -> list[float]:
        return log_ticks(self.lo, self.hi) if self.log else nice_ticks(self.lo, self.hi, n)


_TINY = 1e-9  # a span this small relative to its values is one value (3.2768 W read twice, rounded differently)


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if not math.isfinite(lo) or not math.isfinite(hi):
        return []
    if hi - lo <= _TINY * max(abs(lo), abs(hi)):  # equal, or apart by rounding only: steps below a float's ulp
        return [lo]  # would never move the loop below
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    out = []
    v = start
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def log_ticks(lo: float, hi: float) -> list[float]:
    if lo <= 0 or hi <= 0:
        return []
    out = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0 ** e
            if lo * 0.999 <= v <= hi * 1.001:
                out.append(v)
    if len(out) > 8:
        out = [v for v in out if f"{v:.0e}".startswith("1")]
    return out


def padded(lo: float, hi: float, log: bool = False, frac: float = 0.06) -> tuple[float, float]:
    if log:
        lo, hi = max(lo, 1e-12), max(hi, 1e-12)
        if hi <= lo:
            return lo / 1.5, hi * 1.5
        r = math.log10(hi) - math.log10(lo)
        return 10 ** (math.log10(lo) - r * frac), 10 ** (math.log10(hi) + r * frac)
    if hi - lo <= _TINY * max(abs(lo), abs(hi)):  # one value (or two apart by float rounding only)
        d = abs(lo) * 0.1 or 1.0
        return lo - d, lo + d
    d = (hi - lo) * frac
    return lo - d, hi + d


def t(text: object) -> str:
    return escape(str(text), quote=True)


def title(text: str) -> str:
    return f"<title>{t(text)}</title>"


class Chart:
    """An SVG canvas with a plot area; add marks, then str(chart)."""

    def __init__(self, width: int, height: int, *, left: int = 64, right: int = 16, top: int = 16,
                 bottom: int = 42, label: str = "") -> None:
        self.w, self.h = width, height
        self.x0, self.x1 = left, width - right
        self.y0, self.y1 = height - bottom, top  # y0: bottom pixel
        self.parts: list[str] = []
        self.label = label

    def add(self, s: str) -> None:
        self.parts.append(s)

    def axes(self, xs: Scale, ys: Scale, *, xlabel: str = "", ylabel: str = "", xticks: Sequence[float] | None = None,
             yticks: Sequence[float] | None = None, xfmt: Callable[[float], str] = fmt_num,
             yfmt: Callable[[float], str] = fmt_num) -> None:
        p = self.parts
        for v in (yticks if yticks is not None else ys.ticks()):
            y = ys(v)
            if self.y1 - 0.5 <= y <= self.y0 + 0.5:
                p.append(f'<line x1="{self.x0}" x2="{self.x1}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
                p.append(f'<text x="{self.x0 - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{t(yfmt(v))}</text>')
        for v in (xticks if xticks is not None else xs.ticks()):
            x = xs(v)
            if self.x0 - 0.5 <= x <= self.x1 + 0.5:
                p.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.y0}" y2="{self.y0 + 4}" stroke="{MUTED}"/>')
                p.append(f'<text x="{x:.1f}" y="{self.y0 + 17}" text-anchor="middle" class="tick">{t(xfmt(v))}</text>')
        p.append(f'<line x1="{self.x0}" x2="{self.x1}" y1="{self.y0}" y2="{self.y0}" stroke="{MUTED}"/>')
        p.append(f'<line x1="{self.x0}" x2="{self.x0}" y1="{self.y1}" y2="{self.y0}" stroke="{MUTED}"/>')
        if xlabel:
            p.append(f'<text x="{(self.x0 + self.x1) / 2:.1f}" y="{self.h - 6}" text-anchor="middle" '
                     f'class="axis">{t(xlabel)}</text>')
        if ylabel:
            cy = (self.y0 + self.y1) / 2
            p.append(f'<text transform="translate(14 {cy:.1f}) rotate(-90)" text-anchor="middle" '
                     f'class="axis">{t(ylabel)}</text>')

    def __str__(self) -> str:
        aria = f' role="img" aria-label="{t(self.label)}"' if self.label else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.w} {self.h}" '
                f'width="100%" preserveAspectRatio="xMinYMin meet"{aria}>' + "".join(self.parts) + "</svg>")


def stair(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A Pareto frontier's staircase through `points` (screen coordinates, in frontier order): across, then down."""
    out: list[tuple[float, float]] = []
    for k, (x, y) in enumerate(points):
        if k:
            out.append((x, out[-1][1]))
        out.append((x, y))
    return out


def polyline(points: Sequence[tuple[float, float]], stroke: str, width: float = 1.6, dash: str | None = None,
             tip: str | None = None, opacity: float = 1.0) -> str:
    if not points:
        return ""
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    d = f' stroke-dasharray="{dash}"' if dash else ""
    inner = title(tip) if tip else ""
    return (f'<polyline points="{pts}" fill="none" stroke="{stroke}" stroke-width="{width}" '
            f'stroke-linejoin="round" stroke-opacity="{opacity}"{d}>{inner}</polyline>')


def circle(x: float, y: float, r: float, fill: str, tip: str | None = None, stroke: str = "#fff") -> str:
    inner = title(tip) if tip else ""
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="1">{inner}</circle>'


def triangle(x: float, y: float, size: float, fill: str, tip: str | None = None, up: bool = True) -> str:
    s = size
    pts = (f"{x:.1f},{y - s:.1f} {x - s:.1f},{y + s * 0.8:.1f} {x + s:.1f},{y + s * 0.8:.1f}" if up else
           f"{x:.1f},{y + s:.1f} {x - s:.1f},{y - s * 0.8:.1f} {x + s:.1f},{y - s * 0.8:.1f}")
    inner = title(tip) if tip else ""
    return f'<polygon points="{pts}" fill="{fill}" stroke="#fff" stroke-width="1">{inner}</polygon>'


def rect(x: float, y: float, w: float, h: float, fill: str, opacity: float = 1.0, tip: str | None = None) -> str:
    inner = title(tip) if tip else ""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(0.0, w):.1f}" height="{max(0.0, h):.1f}" fill="{fill}" '
            f'fill-opacity="{opacity}">{inner}</rect>')


def text(x: float, y: float, s: str, cls: str = "lbl", anchor: str = "start") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{cls}">{t(s)}</text>'
