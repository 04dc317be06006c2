"""What a sustained run's curve says, computed on the host from the agent's windows and the raw samples.

Owns: each window's latency percentiles (numpy's linear method over that window's raw samples), throughput and
deadline misses, energy per inference; the curve's figures and their rules (docs/scenarios.md "sustained"):
- onset: the first window k >= 1 whose mean CPU clock (or NVML SM clock) is more than ONSET_DROP below window
  0's, or whose throttle bits (get_throttled, or NVML's limiting clock event reasons NVML_LIMITS) include one
  window 0 did not have; its start and its hottest zone's temperature (the GPU's, for an NVML onset).
- last N = max(1, min(5, windows // 3)) windows with queries; sustained ratio = their mean throughput ÷ window
  0's; p50 ratio = their mean p50 ÷ window 0's (> 1: slower at the end).
- steady state: the last N windows agree (each throughput within STEADY_TOL of their mean and, where read,
  each temperature within STEADY_C of their mean); the steady tail then extends back over every earlier window
  that agrees with the same means; its first window's start is the time to steady state. The tail's figures:
  mean throughput, p50/p99 of its pooled raw samples, mean temperature, clock and power. No agreement: no steady
  state, and a `sustained_not_steady` warning.
The rules read a window through one small type, `Point` (its span, its throughput and the readings the rules
use), so that they serve every kind of sustained window: `shape` gives the onset, the last N, the ratio and the
steady tail of any run's points (a forward pass's windows: queries/s; a generation's: decode tokens/s,
generative/scenario.py `sustained_curve`), and the words the reports print for the onset and the steady state.
Also the one line a closed window is shown as while the run goes on (`window_line`: deploy's terminal, a sweep
cell's state). Does not own: the windows themselves (the agent's windows.py), storing (records/sustained.py),
showing (cli/ui.py, lab/board.py, report/curves.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from edgeprof_agent.messages import ProgressEvent, SustainedReply
from edgeprof_agent.messages import SustainedWindow as AgentWindow

from ..records import RunWarning
from ..records.sustained import Sustained, SustainedWindow
from ..vocab import fmt_value

MIN_WINDOWS = 3  # a sustained run's curve needs a first window, a middle and a tail
ONSET_DROP = 0.05  # a clock more than 5 % below the first window's is throttled
STEADY_TOL = 0.05  # steady: throughput within 5 % of the tail's mean
STEADY_C = 1.0  # ... and temperature within 1 °C of it
# NVML clock event reasons that limit clocks (SwPowerCap, HwSlowdown, SwThermalSlowdown, HwThermalSlowdown,
# HwPowerBrakeSlowdown); GpuIdle, ApplicationsClocksSetting, SyncBoost and DisplayClockSetting do not throttle
NVML_LIMITS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80
# the agent window's fields a row keeps as the agent sent them (its index and what was read during it), in the
# agent's order: the agent's record is their one definition (the row's start_s / end_s / n come from its samples)
AGENT_FIELDS = tuple(f.name for f in AgentWindow.FIELDS
                     if f.name in SustainedWindow.__dataclass_fields__)


def window_line(event: ProgressEvent) -> str:
    """A closed window as the agent's progress event tells it: `window 3/6: p50 20.5 ms · 68.0 °C · 1200 MHz` (the
    window's p50, the latest reading's hottest zone and mean CPU clock)."""
    return (f"window {event.window}/{event.windows}: p50 {fmt_value(event.p50_ms, 'ms')}"
            + (f" · {event.temp_c:.1f} °C" if event.temp_c is not None else "")
            + (f" · {event.cpu_mhz:.0f} MHz" if event.cpu_mhz is not None else ""))


def last_n(windows: int) -> int:
    return max(1, min(5, windows // 3))


def _r(v: float | None, nd: int = 4) -> float | None:
    return None if v is None else round(float(v), nd)


def _copied(v: Any) -> Any:
    return dict(v) if isinstance(v, dict) else v


def window_rows(reply: SustainedReply, samples_ms: Sequence[float], per_query: int,
                period_ms: float | None) -> list[SustainedWindow]:
    """One SustainedWindow per agent window: its samples are samples_ms[first:first + count]."""
    rows = []
    for w in reply.windows:
        part = np.asarray(samples_ms[w.first:w.first + w.count], dtype=float)
        span_s = (w.end_ns - w.start_ns) / 1e9
        n = int(part.size)
        pct = np.percentile(part, [50, 90, 99]) if n else [None, None, None]
        energy = w.energy_j
        rows.append(SustainedWindow(
            start_s=_r(w.start_ns / 1e9, 3) or 0.0, end_s=_r(w.end_ns / 1e9, 3) or 0.0, n=n,
            p50_ms=_r(pct[0]), p90_ms=_r(pct[1]), p99_ms=_r(pct[2]),
            max_ms=_r(part.max()) if n else None, mean_ms=_r(part.mean()) if n else None,
            qps=_r(n / span_s), ips=_r(n * per_query / span_s),
            misses=int((part > period_ms).sum()) if period_ms is not None else None,
            mj_per_inference=_r(energy * 1000.0 / (n * per_query), 5) if energy is not None and n else None,
            **{name: _copied(getattr(w, name)) for name in AGENT_FIELDS}))
    return rows


@dataclass(frozen=True)
class Point:
    """One window as the curve's rules read it: its number and span [start_s, end_s) from the run's start, its
    throughput (a forward pass's queries/s, a generation's decode tokens/s; None: the window is left out) and the
    board's readings taken during it."""

    index: int
    start_s: float
    end_s: float
    throughput: float | None
    temp_c: float | None = None
    cpu_mhz: float | None = None
    mean_w: float | None = None
    throttled: int | None = None
    nvml_temp_c: float | None = None
    nvml_sm_mhz: float | None = None
    nvml_reasons: int | None = None

    @classmethod
    def of(cls, w: SustainedWindow) -> Point:
        """A forward-pass window: its throughput is its queries/s."""
        return cls(index=w.index, start_s=w.start_s, end_s=w.end_s, throughput=w.qps, temp_c=w.temp_c,
                   cpu_mhz=w.cpu_mhz, mean_w=w.mean_w, throttled=w.throttled, nvml_temp_c=w.nvml_temp_c,
                   nvml_sm_mhz=w.nvml_sm_mhz, nvml_reasons=w.nvml_reasons)


@dataclass(frozen=True)
class Shape:
    """What a run's points say (the rules above): the onset point (None: none), why and its temperature; the last
    N points, the ratio of their mean throughput to the first point's; the steady tail (empty: not reached) and
    its means."""

    onset: Point | None
    onset_reason: str | None
    onset_temp_c: float | None
    last_n: int | None
    tail: tuple[Point, ...]
    ratio: float | None
    steady: tuple[Point, ...]

    @property
    def steady_window(self) -> int | None:
        return self.steady[0].index if self.steady else None

    @property
    def time_to_steady_s(self) -> float | None:
        return self.steady[0].start_s if self.steady else None

    def steady_mean(self, name: str) -> float | None:
        """The steady tail's mean of a Point field (None: not reached, or never read)."""
        return mean_present([getattr(p, name) for p in self.steady]) if self.steady else None


# what the onset rule reads: a stored forward-pass window or a Point (both have its fields)
R = TypeVar("R", SustainedWindow, "Point")


def onset(rows: Sequence[R]) -> tuple[R | None, str | None]:
    """The first window that throttled (the rule above), and why."""
    if not rows:
        return None, None
    ref = rows[0]
    for w in rows[1:]:
        if ref.cpu_mhz and w.cpu_mhz is not None and w.cpu_mhz < (1 - ONSET_DROP) * ref.cpu_mhz:
            return w, f"CPU clock {w.cpu_mhz:.0f} MHz, {100 * (1 - w.cpu_mhz / ref.cpu_mhz):.0f} % below window 0"
        if w.throttled is not None and w.throttled & ~(ref.throttled or 0):
            return w, f"throttle bits 0x{w.throttled:x} (window 0: 0x{ref.throttled or 0:x})"
        why = _nvml_onset(ref, w)
        if why:
            return w, why
    return None, None


def _nvml_onset(ref: SustainedWindow | Point, w: SustainedWindow | Point) -> str | None:
    if ref.nvml_sm_mhz and w.nvml_sm_mhz is not None and w.nvml_sm_mhz < (1 - ONSET_DROP) * ref.nvml_sm_mhz:
        return (f"GPU SM clock {w.nvml_sm_mhz:.0f} MHz (NVML), {100 * (1 - w.nvml_sm_mhz / ref.nvml_sm_mhz):.0f} % "
                "below window 0")
    new = (w.nvml_reasons or 0) & NVML_LIMITS & ~(ref.nvml_reasons or 0)
    if new:
        return f"NVML clock event reasons 0x{w.nvml_reasons or 0:x} (window 0: 0x{ref.nvml_reasons or 0:x})"
    return None


def _onset_temp(w: SustainedWindow | Point, why: str) -> float | None:
    """The temperature at the onset: the GPU's for an NVML onset (both its reasons name NVML), else the hottest
    zone's; the other where the one is not read."""
    first, other = (w.nvml_temp_c, w.temp_c) if "NVML" in why else (w.temp_c, w.nvml_temp_c)
    return first if first is not None else other


def _agrees(p: Point, throughput: float, temp: float | None) -> bool:
    if p.throughput is None or abs(p.throughput - throughput) > STEADY_TOL * throughput:
        return False
    return temp is None or p.temp_c is None or abs(p.temp_c - temp) <= STEADY_C


def mean_present(values: Sequence[float | None]) -> float | None:
    """The mean of the values that were measured (None: none was)."""
    vs = [v for v in values if v is not None]
    return sum(vs) / len(vs) if vs else None


def end_windows(windows: Sequence[SustainedWindow], n: int) -> list[SustainedWindow]:
    """The last n windows with queries: the run's end, which the ratios, the steady test and the report's ranking
    compare with window 0."""
    full = [w for w in windows if w.n]
    return full[-n:] if full and n > 0 else []


def shape(points: Sequence[Point]) -> Shape:
    """What the points with a throughput say: the onset, the last N, the ratio and the steady tail (the rules
    above; points without a throughput are left out of them, as a forward pass's windows without queries are)."""
    full = [p for p in points if p.throughput is not None]
    on, why = onset(full)
    n = last_n(len(full))
    tail = full[-n:] if full else []
    first = full[0] if full else None
    level = mean_present([p.throughput for p in tail])
    temp = mean_present([p.temp_c for p in tail])
    steady: list[Point] = []
    if level and all(_agrees(p, level, temp) for p in tail):
        steady = list(tail)
        for p in reversed(full[:-n]):
            if not _agrees(p, level, temp):
                break
            steady.insert(0, p)
    return Shape(onset=on, onset_reason=why, onset_temp_c=_onset_temp(on, why or "") if on else None,
                 last_n=n if full else None, tail=tuple(tail),
                 ratio=level / first.throughput if first and first.throughput and level else None,
                 steady=tuple(steady))


NO_ONSET = ("throttling onset: none (no window's clock fell more than 5 % below window 0's, no new throttle "
            "bits)")
NOT_STEADY = "steady state: not reached before the run ended"


def onset_line(window: int | None, start_s: float | None, temp_c: float | None, reason: str | None) -> str:
    """The onset in words (the reports' and `results show`'s line, for every kind of sustained run)."""
    if window is None:
        return NO_ONSET
    return f"throttling onset: window {window} (from {start_s or 0.0:g} s) at {fmt_value(temp_c, '°C')}: {reason}"


def steady_line(window: int | None, start_s: float | None, figures: Sequence[str]) -> str:
    """The steady state in words: its first window, its start and the tail's figures (each with its unit)."""
    if window is None:
        return NOT_STEADY
    return f"steady state from window {window} ({start_s or 0.0:g} s): " + " · ".join(figures)


def curve(reply: SustainedReply, rows: list[SustainedWindow], samples_ms: Sequence[float]) -> Sustained:
    """The stored section: the rows and what they say (shape over the windows with queries, as Points)."""
    full = [w for w in rows if w.n]
    sh = shape([Point.of(w) for w in full])
    by_index = {w.index: w for w in full}
    tail = [by_index[p.index] for p in sh.tail]
    steady = [by_index[p.index] for p in sh.steady]
    first = full[0] if full else None
    p50 = mean_present([w.p50_ms for w in tail])
    pooled: list[float] = []
    for w in steady:
        src = reply.windows[w.index]
        pooled.extend(samples_ms[src.first:src.first + src.count])
    on = by_index[sh.onset.index] if sh.onset else None
    return Sustained(
        duration_s=float(reply.duration_s), window_s=float(reply.window_s), read_period_s=reply.read_period_s,
        telemetry_errors=reply.telemetry_errors, throttle_source=reply.throttle_source,
        power_source=reply.power_source, windows=rows,
        onset_window=on.index if on else None, onset_s=on.start_s if on else None,
        onset_temp_c=sh.onset_temp_c, onset_reason=sh.onset_reason, last_n=sh.last_n,
        sustained_ratio=_r(sh.ratio),
        p50_ratio=_r(p50 / first.p50_ms) if first and first.p50_ms and p50 else None,
        steady_window=sh.steady_window, time_to_steady_s=sh.time_to_steady_s,
        steady_qps=_r(sh.steady_mean("throughput")),
        steady_p50_ms=_r(np.percentile(pooled, 50)) if pooled else None,
        steady_p99_ms=_r(np.percentile(pooled, 99)) if pooled else None,
        steady_temp_c=_r(sh.steady_mean("temp_c"), 2), steady_cpu_mhz=_r(sh.steady_mean("cpu_mhz"), 1),
        steady_w=_r(sh.steady_mean("mean_w")), nvml_gpu=reply.nvml_gpu)


def summarize(reply: SustainedReply, samples_ms: Sequence[float], per_query: int,
              rate: float | None) -> tuple[Sustained, list[RunWarning]]:
    """The section and its warnings (no steady state; windows without queries)."""
    rows = window_rows(reply, samples_ms, per_query, 1000.0 / rate if rate else None)
    section = curve(reply, rows, samples_ms)
    warnings = []
    if section.steady_window is None:
        warnings.append(RunWarning("sustained_not_steady", (
            f"the run ended before a steady state: the last {section.last_n or 0} windows' throughput or "
            f"temperature still differ by more than {STEADY_TOL:.0%} / {STEADY_C:g} °C; raise --duration")))
    empty = [w.index for w in rows if not w.n]
    if empty:
        warnings.append(RunWarning("sustained_empty_windows", (
            f"{len(empty)} window(s) hold no query (from window {empty[0]}): the run stopped early or a query "
            "outlasted its window; raise --window or --max-queries")))
    return section, warnings
