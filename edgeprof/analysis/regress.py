"""Regression checks: budgets, A/B checks against a baseline, and step detection over a cell's history.

Owns: budget expressions (`p99_ms < 50`) and their evaluation, the history step detector (Potts-style
segmentation of log values with a noise-scaled penalty: a change is a regression only when the newest segment
is at least `persist` results long and beyond the minimum effect, so one noisy night is "suspect", not an
alarm), and turning all of it into Findings (one per cell × metric, budget or cell status) that a CLI prints
and JUnit renders.
Does not own: reading results (cli/check.py), the metric definitions and the A/B test (compare.py), XML
(report/junit.py). Pure functions, no I/O.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..files.output import brief
from ..records import Result
from .compare import (
    CHECKED_METRICS,
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    METRIC_BY_NAME,
    MetricDelta,
    absent_reason,
    cell_label,
    compare_results,
    device_fingerprint,
    environment_changes,
    fmt_p,
    metric_values,
)

# -- budgets --------------------------------------------------------------------------------------------------

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_BUDGET_RE = re.compile(r"^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


@dataclass(frozen=True)
class Budget:
    metric: str
    op: str
    value: float

    @property
    def text(self) -> str:
        return f"{self.metric} {self.op} {self.value:g}"

    def evaluate(self, values: Mapping[str, float | None]) -> tuple[bool | None, float | None]:
        """(holds, measured): holds is None when the metric was not measured."""
        v = values.get(self.metric)
        if v is None:
            return None, None
        return _OPS[self.op](v, self.value), v


def parse_budget(text: str) -> Budget:
    """`p99_ms < 50` → Budget. Raises ValueError with a sentence naming what is wrong."""
    m = _BUDGET_RE.match(str(text))
    if not m:
        raise ValueError(f"budget {brief(text)} is not METRIC OP NUMBER (e.g. 'p99_ms < 50'; OP is <, <=, > or >=)")
    metric, op, value = m.group(1), m.group(2), float(m.group(3))
    if not math.isfinite(value):
        raise ValueError(f"budget {brief(text)}: the bound is not a finite number")
    if metric not in METRIC_BY_NAME:
        raise ValueError(f"budget {brief(text)}: unknown metric {metric!r} (known: {', '.join(sorted(METRIC_BY_NAME))})")
    return Budget(metric, op, value)


# -- history: step detection ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    status: str  # regressed | suspect | improved | ok | too_few
    start: int | None = None  # index where the newest segment starts
    before: float | None = None  # median of the segment before it
    after: float | None = None  # median of the newest segment
    change: float | None = None  # after / before - 1
    segments: tuple[tuple[int, int], ...] = ()  # [start, end) of every segment found
    noise: float | None = None  # robust relative noise of the series


def segment(x: Sequence[float], penalty: float) -> list[tuple[int, int]]:
    """Optimal piecewise-constant segmentation (Potts): minimise Σ SSE(segment) + penalty × #segments.

    O(n²) dynamic programming; fine for histories of tens of results."""
    a = np.asarray(x, dtype=np.float64)
    n = a.size
    if n == 0:
        return []
    c1 = np.concatenate([[0.0], np.cumsum(a)])
    c2 = np.concatenate([[0.0], np.cumsum(a * a)])

    def sse(i: int, j: int) -> float:
        s, s2, m = c1[j] - c1[i], c2[j] - c2[i], j - i
        return float(max(0.0, s2 - s * s / m))

    best = [0.0] + [math.inf] * n
    prev = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            cost = best[i] + sse(i, j) + penalty
            if cost < best[j]:
                best[j], prev[j] = cost, i
    segs = []
    j = n
    while j > 0:
        segs.append((prev[j], j))
        j = prev[j]
    return segs[::-1]


def robust_noise(x: Sequence[float]) -> float:
    """σ of the series from first differences (MAD × 1.4826 / √2): insensitive to the steps themselves."""
    a = np.asarray(x, dtype=np.float64)
    if a.size < 3:
        return 0.0
    d = np.abs(np.diff(a))
    return float(1.4826 * np.median(d) / math.sqrt(2.0))


def detect_step(values: Sequence[float], *, better: str = "lower", min_effect: float = DEFAULT_MIN_EFFECT,
                persist: int = 2, min_history: int = 3, noise_floor: float = 0.005, beta: float = 3.0,
                z: float = 5.0) -> Step:
    """Is the newest segment of `values` (oldest first, all > 0) a regression?

    Works on log values so a step is a ratio. Penalty = beta × σ² × log(n) with σ the robust noise (at least
    `noise_floor`, i.e. 0.5 %). The newest segment is compared with the one before it: it counts only when the
    change is beyond `min_effect` AND its z-score against the noise is at least `z` (5, as conbench's lookback
    z-score); then at least `persist` results long → regressed, shorter → suspect (one noisy night).
    Simulated on 10-result histories: false "regressed" ≈ 0.6 % at any noise level; a 30 % step seen twice is
    caught 98 % of the time at 2 % noise, 60 % at 5 % noise (more once it persists)."""
    vals = [float(v) for v in values if v is not None and v > 0]
    n = len(vals)
    if n < min_history:
        return Step("too_few")
    x = np.log(np.asarray(vals))
    sigma = max(robust_noise(x), noise_floor)
    segs = segment(x, beta * sigma * sigma * math.log(n))
    if len(segs) < 2:
        return Step("ok", segments=tuple(segs), noise=sigma)
    (ps, pe), (ls, le) = segs[-2], segs[-1]
    before = float(np.median(vals[ps:pe]))
    after = float(np.median(vals[ls:le]))
    change = after / before - 1.0
    bad = change if better == "lower" else -change
    shift = float(np.mean(x[ls:le]) - np.mean(x[ps:pe]))
    # the step must also stand out of the noise left inside the segments (a pooled, not robust, estimate)
    resid = np.concatenate([x[a:b] - np.mean(x[a:b]) for a, b in segs])
    pooled = math.sqrt(float(np.sum(resid ** 2)) / max(1, n - len(segs)))
    zscore = abs(shift) / (max(sigma, pooled) * math.sqrt(1.0 / (le - ls) + 1.0 / (pe - ps)))
    if abs(bad) < min_effect or zscore < z:
        status = "ok"
    elif bad < 0:
        status = "improved"
    elif le - ls >= persist:
        status = "regressed"
    else:
        status = "suspect"
    return Step(status, ls, before, after, change, tuple(segs), sigma)


# -- findings -------------------------------------------------------------------------------------------------


@dataclass
class Finding:
    """One check outcome; becomes one JUnit testcase."""

    classname: str  # edgeprof.<device>
    name: str  # "<cell> · <metric>" or "<cell> · budget p99_ms < 50"
    outcome: str  # passed | failed | error | skipped
    kind: str  # regression | history | budget | cell
    message: str = ""
    detail: str = ""
    cell: str = ""
    metric: str | None = None
    run_id: str | None = None
    warning: bool = False  # passed, but worth a look (suspect step, environment changed)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def bad(self) -> bool:
        return self.outcome in ("failed", "error")


def _classname(device: str) -> str:
    return "edgeprof." + re.sub(r"[^A-Za-z0-9_-]", "_", device)


def cell_status_finding(r: Result) -> Finding | None:
    """A failed cell is an error; a skipped cell is skipped; ok cells produce no finding here."""
    label = cell_label(r)
    if r.status == "failed":
        return Finding(_classname(r.device), f"{label} · run", "error", "cell",
                       f"cell failed: {r.reason or 'no reason recorded'}",
                       detail=r.stderr_tail or "", cell=label, run_id=r.run_id)
    if r.status == "skipped":
        return Finding(_classname(r.device), f"{label} · run", "skipped", "cell",
                       f"skipped: {r.reason or ''}", cell=label, run_id=r.run_id)
    return None


def baseline_findings(new: Result, base: Result | None, *, metrics: Sequence[str] = CHECKED_METRICS,
                      min_effect: float = DEFAULT_MIN_EFFECT, min_effects: Mapping[str, float] | None = None,
                      alpha: float = DEFAULT_ALPHA, baseline_name: str = "baseline") -> list[Finding]:
    """A/B: one finding per metric of an ok result against its baseline (None: nothing to compare with)."""
    label = cell_label(new)
    cls = _classname(new.device)
    if base is None:
        return [Finding(cls, f"{label} · baseline", "passed", "regression",
                        f"nothing to compare with: no {baseline_name} for this cell", cell=label,
                        run_id=new.run_id, warning=True)]
    changes = environment_changes(base, new)
    env_note = "; ".join(f"{k}: {a} → {b}" for k, a, b in changes)
    out = []
    for d in compare_results(base, new, metrics=metrics, min_effect=min_effect, min_effects=min_effects,
                             alpha=alpha):
        if d.verdict == "n/a":
            continue
        detail = _delta_detail(d, base, new, env_note)
        if d.verdict == "regressed":
            out.append(Finding(cls, f"{label} · {d.metric.name}", "failed", "regression",
                               f"{label}: {d.describe()} vs run {base.run_id}", detail=detail, cell=label,
                               metric=d.metric.name, run_id=new.run_id,
                               extra={"base_run": base.run_id, "change": d.change, "p": d.p_value}))
        else:
            out.append(Finding(cls, f"{label} · {d.metric.name}", "passed", "regression", d.describe(),
                               detail=detail, cell=label, metric=d.metric.name, run_id=new.run_id,
                               warning=bool(changes) and d.verdict == "improved",
                               extra={"base_run": base.run_id, "change": d.change, "p": d.p_value}))
    return out


def _delta_detail(d: MetricDelta, base: Result, new: Result, env_note: str) -> str:
    lines = [f"metric: {d.metric.label} ({d.metric.name}), {d.metric.better} is better",
             f"baseline run {base.run_id} ({base.created_at}): {d.metric.fmt(d.base)}",
             f"new run {new.run_id} ({new.created_at}): {d.metric.fmt(d.new)}"]
    if d.ratio is not None:
        lines.append(f"ratio {d.ratio:.3f}" + (f", Mann-Whitney U p={fmt_p(d.p_value)}" if d.p_value is not None
                                                else ", no raw samples to test (single value per run)"))
    if d.note:
        lines.append(d.note)
    if device_fingerprint(base) != device_fingerprint(new):
        lines.append("WARNING: measured on different hardware (device fingerprint changed)")
    if env_note:
        lines.append(f"environment changed: {env_note}")
    return "\n".join(lines)


def history_findings(history: Sequence[Result], *, metrics: Sequence[str] = CHECKED_METRICS,
                     min_effect: float = DEFAULT_MIN_EFFECT, min_effects: Mapping[str, float] | None = None,
                     persist: int = 2) -> list[Finding]:
    """Step detection over the ok results of one cell, oldest first; the newest is the one being checked."""
    ok = [r for r in history if r.status == "ok"]
    if not ok:
        return []
    newest = ok[-1]
    label = cell_label(newest)
    cls = _classname(newest.device)
    values = [metric_values(r) for r in ok]
    out = []
    for name in metrics:
        metric = METRIC_BY_NAME[name]
        series: list[tuple[Result, float]] = [(r, x) for r, v in zip(ok, values, strict=True)
                                              if (x := v.get(name)) is not None]
        if not series or series[-1][0] is not newest:
            continue
        step = detect_step([v for _, v in series], better=metric.better,
                           min_effect=(min_effects or {}).get(name, min_effect * metric.effect_scale),
                           persist=persist)
        test = f"{label} · {name}"
        if step.status == "too_few":
            out.append(Finding(cls, test, "passed", "history",
                               f"{name}: only {len(series)} results in the history; step detection needs 3",
                               cell=label, metric=name, run_id=newest.run_id, warning=True))
            continue
        since = series[step.start][0] if step.start is not None else None
        extra = {"status": step.status, "change": step.change, "before": step.before, "after": step.after,
                 "since_run": since.run_id if since else None,
                 "series": [(r.run_id, r.created_at, v) for r, v in series]}
        if step.status in ("regressed", "suspect", "improved"):
            assert step.change is not None and since is not None
            n_after = len(series) - (step.start or 0)
            text = (f"{name} {step.status} {step.change * 100:+.1f} % ({metric.fmt(step.before)} → "
                    f"{metric.fmt(step.after)}) since run {since.run_id} ({since.created_at}), "
                    f"{n_after} of the last {len(series)} results")
        else:
            text = f"{name} steady over the last {len(series)} results (noise {100 * (step.noise or 0):.1f} %)"
        detail = "\n".join(f"{r.created_at}  {r.run_id}  {metric.fmt(v)}" for r, v in series)
        if step.status == "regressed":
            env = environment_changes(series[(step.start or 1) - 1][0], newest)
            if env:
                detail += "\nenvironment changed: " + "; ".join(f"{k}: {a} → {b}" for k, a, b in env)
            out.append(Finding(cls, test, "failed", "history", f"{label}: {text}", detail=detail, cell=label,
                               metric=name, run_id=newest.run_id, extra=extra))
        else:
            suspect = step.status == "suspect"
            if suspect:
                text += f": one result only, not an alarm until it persists for {persist}"
            out.append(Finding(cls, test, "passed", "history", text, detail=detail, cell=label, metric=name,
                               run_id=newest.run_id, warning=suspect, extra=extra))
    return out


def budget_findings(r: Result, budgets: Sequence[Budget]) -> list[Finding]:
    label = cell_label(r)
    cls = _classname(r.device)
    values = metric_values(r)
    out = []
    no_onset = r.sustained is not None and r.sustained.onset_window is None
    for b in budgets:
        holds, measured = b.evaluate(values)
        metric = METRIC_BY_NAME[b.metric]
        test = f"{label} · budget {b.text}"
        shown = metric.fmt(measured) + (": no onset within the run" if b.metric == "onset_s" and no_onset else "")
        if holds is None:
            why = absent_reason(r, b.metric)  # a phone's benchmark_model statistics say why
            out.append(Finding(cls, test, "skipped", "budget", f"budget {b.text}: {b.metric} was not measured"
                               + (f" ({why})" if why else ""), cell=label, metric=b.metric, run_id=r.run_id))
        elif holds:
            out.append(Finding(cls, test, "passed", "budget", f"budget {b.text} holds ({shown})",
                               cell=label, metric=b.metric, run_id=r.run_id))
        else:
            out.append(Finding(cls, test, "failed", "budget",
                               f"{label}: budget {b.text} violated: {b.metric} = {shown}",
                               detail=f"run {r.run_id} ({r.created_at})", cell=label, metric=b.metric,
                               run_id=r.run_id, extra={"measured": measured}))
    return out


def summarize(findings: Sequence[Finding]) -> dict[str, int]:
    out = {"tests": len(findings), "failed": 0, "error": 0, "skipped": 0, "passed": 0, "warnings": 0}
    for f in findings:
        out[f.outcome] = out.get(f.outcome, 0) + 1
        out["warnings"] += int(f.warning)
    return out
