"""Latency statistics from raw samples. Pure functions, no I/O.

Owns: percentiles (linear interpolation between order statistics, numpy's default, so anyone can recompute them
from the stored raw samples), mean/std/CV, throughput, the MLPerf LoadGen early-stopping percentile estimate,
stability warnings with advice, and a load scenario's summary (misses, VALID / INVALID against a latency bound,
sustained rate, energy per frame at the duty cycle, battery hours, issue lateness). The tail is never clipped:
every sample counts.
Does not own: how samples were taken (agent) or comparisons between runs (compare.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..records import LatencyStats, RunWarning, Scenario
from ..records.samples import ms_from_ns_tenth_us
from ..vocab import SERVER_MIN_QUERIES

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
    return _early_stop(np.sort(np.asarray(samples, dtype=np.float64)), percentile, confidence)


def _early_stop(ordered: np.ndarray, percentile: float, confidence: float = EARLY_STOP_CONFIDENCE) -> float | None:
    """early_stopping_estimate of samples already sorted ascending."""
    n = int(ordered.size)
    t = overlatency_limit(n, percentile, confidence)
    if t is None:
        return None
    return float(ordered[n - 1 - t])


def min_queries_for(percentile: float, confidence: float = EARLY_STOP_CONFIDENCE) -> int:
    n = 1
    while overlatency_limit(n, percentile, confidence) is None:
        n += 1
    return n


def latency_summary(samples_ms: Sequence[float]) -> LatencyStats:
    """p50..p99.9, min, max, mean, std (sample, ddof=1), cv, n, early_stop_p90/p99 (None with too few)."""
    a = np.asarray(samples_ms, dtype=np.float64)  # in the samples' order: the mean and std sum it so
    n = int(a.size)
    if n == 0:
        raise ValueError("no latency samples")
    o = np.sort(a)  # sorted once: percentiles, extremes, early stopping
    values = np.percentile(o, [q for _, q in PERCENTILES])
    pct: dict[str, Any] = {key: float(v) for (key, _), v in zip(PERCENTILES, values, strict=True)}  # the p* fields
    mean = float(a.mean())
    std = float(a.std(ddof=1)) if n > 1 else 0.0
    return LatencyStats(
        **pct, min=float(o[0]), max=float(o[-1]), mean=mean, std=std, cv=std / mean if mean > 0 else None,
        n=n, early_stop_p90=_early_stop(o, 0.90),
        early_stop_p99=_early_stop(o, 0.99) if n >= SERVER_MIN_QUERIES else None,  # min_queries_for(0.99)
        percentile_method="linear interpolation (numpy default)",
    )


def throughput(n_queries: int, batch: int, window_s: float) -> float | None:
    """Inferences per second over the timed window (single stream: queries × batch / window)."""
    if window_s <= 0:
        return None
    return n_queries * batch / window_s


def stability_warnings(summary: LatencyStats, *, min_duration_s: float | None = None,
                       longer: str = "--min-duration", curve: bool = False) -> list[RunWarning]:
    """Noisy latency and too few queries, with advice. `longer` is the flag that lengthens what was summarised
    (`min_duration_s` its value); `curve`: the samples span a sustained run, whose CV also holds the curve."""
    warnings: list[RunWarning] = []
    cv = summary.cv
    if cv is not None and cv > CV_WARN:
        warnings.append(RunWarning(
            code="high_cv",
            message=f"latency CV {cv * 100:.0f} % (> {CV_WARN * 100:.0f} %): results are noisy. Lock clocks "
                    "(jetson_clocks, or the cpufreq 'performance' governor), stop other load on the device, "
                    f"or raise {longer}" + (f" above {min_duration_s:g} s" if min_duration_s else "")
                    + ("; across a sustained run the CV also holds the curve itself (the window table shows it)"
                       if curve else ""),
        ))
    if summary.early_stop_p90 is None:
        warnings.append(RunWarning(
            code="few_queries",
            message=f"only {summary.n} queries: the p90 early-stopping estimate needs >= {min_queries_for(0.90)}; "
                    "raise --min-queries or --min-duration",
        ))
    return warnings


def lateness_ms(scheduled_ns: Sequence[int], issued_ns: Sequence[int]) -> dict[str, float] | None:
    """How late each query was issued against its schedule (ms): p50, p99, max. None without a schedule."""
    if not scheduled_ns or len(scheduled_ns) != len(issued_ns):
        return None
    late = (np.asarray(issued_ns, dtype=np.float64) - np.asarray(scheduled_ns, dtype=np.float64)) / 1e6
    return {"p50": float(np.percentile(late, 50)), "p99": float(np.percentile(late, 99)), "max": float(late.max())}


def judge_latency(name: str, samples_ms: Sequence[float], bound_ms: float | None,
                  rate: float | None = None) -> tuple[bool | None, str | None, float | None]:
    """(valid, reason, early-stopping p99) of a run against its latency bound.

    server (MLPerf LoadGen): VALID when the early-stopping p99 estimate (99 % confidence) is <= the bound; with
    fewer queries than the estimate needs (662) the run is INVALID. fixed-rate: the bound defaults to the
    period (a frame done before the next is due); the early-stopping estimate when there are enough queries,
    else the plain p99 (said in the reason). Other scenarios: judged only when a bound is given, as fixed-rate.
    (None, None, estimate) when there is nothing to judge against."""
    est = early_stopping_estimate(samples_ms, 0.99) if len(samples_ms) else None
    if bound_ms is None and name == "fixed-rate" and rate:
        bound_ms = 1000.0 / rate
        what = "the period"
    else:
        what = "--latency-bound"
    if bound_ms is None:
        return None, None, est
    if name == "server":
        if est is None:
            need = min_queries_for(0.99)
            return False, (f"only {len(samples_ms)} queries: the early-stopping p99 estimate needs >= {need} "
                           f"(raise --min-queries to {need} or --min-duration)"), None
        if est <= bound_ms:
            return True, f"early-stopping p99 {est:.3g} ms <= {what} {bound_ms:.3g} ms", est
        return False, f"early-stopping p99 {est:.3g} ms > {what} {bound_ms:.3g} ms", est
    p99 = est if est is not None else float(np.percentile(np.asarray(samples_ms, dtype=np.float64), 99))
    kind = "early-stopping p99" if est is not None else f"p99 (n={len(samples_ms)}, too few for early stopping)"
    if p99 <= bound_ms:
        return True, f"{kind} {p99:.3g} ms <= {what} {bound_ms:.3g} ms", est
    return False, f"{kind} {p99:.3g} ms > {what} {bound_ms:.3g} ms", est


def scenario_summary(*, name: str, samples_ms: Sequence[float], window_s: float, queries: int, samples: int,
                     rate: float | None = None, samples_per_query: int | None = None, streams: int | None = None,
                     latency_bound_ms: float | None = None, seed: int | None = None, mode: str | None = None,
                     misses: int | None = None, scheduled_ns: Sequence[int] = (), issued_ns: Sequence[int] = (),
                     energy_j: float | None = None, idle_w: float | None = None, mean_w: float | None = None,
                     battery_wh: float | None = None) -> Scenario:
    """The Scenario section of a run from the agent's raw numbers (one sample = one frame / inference).

    Energy per frame = window energy / samples, idle gaps included (the window covers the whole schedule); the
    part above idle subtracts idle_w x window (the idle baseline measured before load); battery hours =
    battery_wh / mean W over the window."""
    valid, reason, est = judge_latency(name, samples_ms, latency_bound_ms, rate)

    def per_s(n: int) -> float | None:
        return n / window_s if window_s > 0 else None

    j_frame = energy_j / samples if energy_j is not None and samples else None
    above = ((energy_j - idle_w * window_s) / samples
             if energy_j is not None and idle_w is not None and samples else None)
    return Scenario(
        name=name, rate_qps=rate, samples_per_query=samples_per_query, streams=streams,
        latency_bound_ms=latency_bound_ms, seed=seed, battery_wh=battery_wh, queries=queries, samples=samples,
        mode=mode, misses=misses, miss_rate=100.0 * misses / queries if misses is not None and queries else None,
        valid=valid, valid_reason=reason, early_stop_p99_ms=est, sustained_qps=per_s(queries),
        samples_per_s=per_s(samples), j_per_frame=j_frame, j_above_idle_per_frame=above,
        battery_hours=battery_wh / mean_w if battery_wh and mean_w else None,
        lateness_ms=lateness_ms(scheduled_ns, issued_ns),
        scheduled_ms=ms_from_ns_tenth_us(scheduled_ns), issued_ms=ms_from_ns_tenth_us(issued_ns),
    )
