"""Latency statistics from raw samples. Pure functions, no I/O.

Owns: percentiles (linear interpolation between order statistics, numpy's default, so anyone can recompute them
from the stored raw samples), mean/std/CV, throughput, the MLPerf LoadGen early-stopping percentile estimate,
and stability warnings with advice. The tail is never clipped: every sample counts.
Does not own: how samples were taken (agent) or comparisons between runs (compare.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .records import LatencyStats, RunWarning

PERCENTILES: tuple[tuple[str, float], ...] = (
    ("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p97", 97.0), ("p99", 99.0), ("p999", 99.9),
)
CV_WARN = 0.10  # pyperf and seed methodology: CV > 10 % means the numbers are not to be trusted as-is
EARLY_STOP_CONFIDENCE = 0.99


def _log_binom_pmf(k: int, n: int, p: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def overlatency_limit(n: int, percentile: float, confidence: float = EARLY_STOP_CONFIDENCE) -> int | None:
    """Largest t such that, with n queries of which t exceed the estimate, we are `confidence` sure the true
    percentile is no worse than the estimate: BinomCDF(t; n, 1 - percentile) <= 1 - confidence.

    MLPerf LoadGen asks for at least one over-latency query to be allowed (t >= 1), which is why p90 needs
    >= 64 queries and p99 >= 662. Returns None when n is too small."""
    q = 1.0 - percentile
    alpha = 1.0 - confidence
    cdf = 0.0
    best: int | None = None
    for t in range(n + 1):
        cdf += math.exp(_log_binom_pmf(t, n, q))
        if cdf > alpha:
            break
        best = t
    if best is None or best < 1:
        return None
    return best


def early_stopping_estimate(samples: Sequence[float] | np.ndarray, percentile: float,
                            confidence: float = EARLY_STOP_CONFIDENCE) -> float | None:
    """MLPerf-style early-stopping latency estimate for `percentile` (e.g. 0.90): the (t+1)-th largest sample,
    where t is the over-latency query limit above. None when there are too few samples."""
    n = len(samples)
    t = overlatency_limit(n, percentile, confidence)
    if t is None:
        return None
    ordered = np.sort(np.asarray(samples, dtype=np.float64))
    return float(ordered[n - 1 - t])


def min_queries_for(percentile: float, confidence: float = EARLY_STOP_CONFIDENCE) -> int:
    n = 1
    while overlatency_limit(n, percentile, confidence) is None:
        n += 1
    return n


def latency_summary(samples_ms: Sequence[float]) -> LatencyStats:
    """p50..p99.9, min, max, mean, std (sample, ddof=1), cv, n, early_stop_p90/p99 (None with too few)."""
    a = np.asarray(samples_ms, dtype=np.float64)
    n = int(a.size)
    if n == 0:
        raise ValueError("no latency samples")
    pct = {key: float(np.percentile(a, q)) for key, q in PERCENTILES}
    mean = float(a.mean())
    std = float(a.std(ddof=1)) if n > 1 else 0.0
    return LatencyStats(
        **pct, min=float(a.min()), max=float(a.max()), mean=mean, std=std, cv=std / mean if mean > 0 else None,
        n=n, early_stop_p90=early_stopping_estimate(a, 0.90),
        early_stop_p99=early_stopping_estimate(a, 0.99) if n >= 662 else None,
        percentile_method="linear interpolation (numpy default)",
    )


def throughput(n_queries: int, batch: int, window_s: float) -> float | None:
    """Inferences per second over the timed window (single stream: queries × batch / window)."""
    if window_s <= 0:
        return None
    return n_queries * batch / window_s


def stability_warnings(summary: LatencyStats, *, min_duration_s: float | None = None) -> list[RunWarning]:
    warnings: list[RunWarning] = []
    cv = summary.cv
    if cv is not None and cv > CV_WARN:
        warnings.append(RunWarning(
            code="high_cv",
            message=f"latency CV {cv * 100:.0f} % (> {CV_WARN * 100:.0f} %): results are noisy. Lock clocks "
                    "(jetson_clocks, or the cpufreq 'performance' governor), stop other load on the device, "
                    "or raise --min-duration" + (f" above {min_duration_s:g} s" if min_duration_s else ""),
        ))
    if summary.early_stop_p90 is None:
        warnings.append(RunWarning(
            code="few_queries",
            message=f"only {summary.n} queries: the p90 early-stopping estimate needs >= {min_queries_for(0.90)}; "
                    "raise --min-queries or --min-duration",
        ))
    return warnings
