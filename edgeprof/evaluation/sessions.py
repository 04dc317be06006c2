"""The figures across a measurement's sessions (deploy --sessions N; records/sessions.py).

Each session's latency figures come from its own raw samples, as the result's do. Two sessions *differ* when the
slowest session's p50 is more than DIFFER above the fastest's AND their p50s' 95 % intervals (order statistics:
ranks n/2 ± 1.96·√n/2, distribution-free) do not overlap — a gap their own queries' spread does not explain. Then
a run warning names every session's p50: the result's headline figures are the first session's, one draw of the
board's, and the fastest session's p50 is what the board gives when nothing slows a session.

Owns: summarize (the Sessions section and its warning). Does not own: the timing (the agent's sessions.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..analysis.stats import latency_summary
from ..records import RunWarning
from ..records.samples import Samples, ms_from_ns
from ..records.sessions import SessionRun, Sessions

DIFFER = 1.10  # the slowest session's p50 over the fastest's, past which a gap is worth a warning
CODE = "sessions_differ"


def _p50_interval(o: np.ndarray) -> tuple[float, float]:
    """95 % distribution-free interval of the median of sorted samples `o` (ranks n/2 ± 1.96·√n/2)."""
    n = len(o)
    half = 1.96 * math.sqrt(n) / 2
    lo, hi = max(int(math.floor(n / 2 - half)), 0), min(int(math.ceil(n / 2 + half)), n - 1)
    return float(o[lo]), float(o[hi])


def _run(index: int, samples: Samples, *, keep: bool, **about: Any) -> tuple[SessionRun, tuple[float, float]]:
    """A session's row (its figures by stats.latency_summary, as the result's own) and its median's interval."""
    lat = latency_summary(samples)
    # from raw samples p50 and p90 are never None (only a phone tool's summary lacks them)
    run = SessionRun(index=index, n=lat.n, p50_ms=lat.p50, p90_ms=lat.p90, mean_ms=lat.mean,  # type: ignore[arg-type]
                     min_ms=lat.min, max_ms=lat.max, samples_ms=samples if keep else None, **about)
    return run, _p50_interval(np.sort(np.asarray(samples, dtype=np.float64)))


def summarize(first_ms: Samples, first: dict[str, Any], more: Sequence[Any], runtime: str,
              threads: int | None) -> tuple[Sessions, list[RunWarning]]:
    """The Sessions section of a run whose own session timed `first_ms` (`first`: its load_s, window_s, warm-up
    figures) and whose agent timed `more` (messages.SessionRun, sessions 2..N), and its warning when they differ."""
    rows = [_run(1, first_ms, keep=False, **first)]
    for s in more:  # each has at least one query (the agent's timed loop)
        rows.append(_run(int(s.index), ms_from_ns(s.samples_ns), keep=True, load_s=float(s.load_s),
                         window_s=(s.t_last_ns - s.t_first_ns) / 1e9, warmup_iterations=s.warmup.iterations,
                         warmup_steady=s.warmup.steady))
    p50s = [r.p50_ms for r, _ in rows]
    fast = min(range(len(rows)), key=lambda i: p50s[i])
    slow = max(range(len(rows)), key=lambda i: p50s[i])
    spread = p50s[slow] / p50s[fast] if p50s[fast] > 0 else 1.0
    differ = spread > DIFFER and rows[fast][1][1] < rows[slow][1][0]
    section = Sessions(n=len(rows), p50_ms=p50s, fastest_p50_ms=p50s[fast], median_p50_ms=statistics.median(p50s),
                       spread=spread, differ=differ, runs=[r for r, _ in rows])
    warnings = []
    if differ:
        why = (f" (onnxruntime with {threads} intra-op threads: its thread pool's speed can change from one session "
               "to the next, most where the threads are as many as the board's cores)"
               if runtime == "onnxruntime" and (threads or 0) > 1 else "")
        listed = ", ".join(f"{p:.4g}" for p in p50s)
        warnings.append(RunWarning(CODE, (
            f"the model ran at different speeds in its {len(rows)} sessions: p50 {listed} ms, the slowest "
            f"×{spread:.2f} the fastest, past what each session's own queries spread{why}; the headline figures "
            f"are the first session's, one draw of the board's; the fastest session's p50 is "
            f"{p50s[fast]:.4g} ms, their median {section.median_p50_ms:.4g} ms")))
    return section, warnings


def sessions_line(s: Sessions) -> str:
    """deploy's and `results show`'s line for a run of several sessions."""
    listed = " / ".join(f"{p:.4g}" for p in s.p50_ms)
    verdict = "they differ past their own spread" if s.differ else "alike within their own spread"
    return (f"sessions: {s.n} fresh runtime sessions, p50 {listed} ms (fastest {s.fastest_p50_ms:.4g}, median "
            f"{s.median_p50_ms:.4g}; the slowest ×{s.spread:.2f} the fastest: {verdict})")
