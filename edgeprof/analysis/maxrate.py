"""--find-max-rate: the highest server or fixed-rate rate whose run is VALID (LoadGen's FindPeakPerformance idea).

Owns: the search. From a start rate it doubles while probes are VALID (halves while they are INVALID) until the
rate is bracketed, then bisects the bracket until its ends are within `tolerance` of each other or `max_probes`
runs were made. Each probe is a full run (the caller measures and stores it); VALID is the probe's own verdict
(stats.judge_latency: the latency bound, or for fixed-rate the period).
Does not own: measuring (run.deploy), storing (the caller), the verdict (stats).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..records import Result
from ..vocab import MAX_RATE_QPS

MIN_RATE = 0.1  # queries/s: below this the search gives up (nothing is VALID)
MAX_RATE = MAX_RATE_QPS  # the highest rate --rate and a sweep's `rates:` take (vocab.py)


@dataclass
class MaxRateSearch:
    """The probes made (rate, Result) in order and the best VALID one (None when no rate was VALID)."""

    probes: list[tuple[float, Result]] = field(default_factory=list)
    best_rate: float | None = None
    best: Result | None = None
    bracket: tuple[float | None, float | None] = (None, None)  # (highest VALID, lowest INVALID)
    stopped_by: str = ""


def _valid(r: Result) -> bool:
    return r.status == "ok" and bool(r.scenario.valid)


def find_max_rate(probe: Callable[[float], Result], start: float = 10.0, *, tolerance: float = 0.1,
                  max_probes: int = 12) -> MaxRateSearch:
    """Search with `probe(rate) -> Result`. tolerance: stop when (invalid - valid) / valid <= tolerance."""
    out = MaxRateSearch()
    lo: float | None = None  # highest VALID
    hi: float | None = None  # lowest INVALID

    def run(rate: float) -> bool:
        r = probe(rate)
        out.probes.append((rate, r))
        ok = _valid(r)
        if ok and (out.best_rate is None or rate > out.best_rate):
            out.best_rate, out.best = rate, r
        return ok

    rate = max(MIN_RATE, min(start, MAX_RATE))
    while len(out.probes) < max_probes:
        if lo is not None and hi is not None:
            if (hi - lo) / lo <= tolerance:
                out.stopped_by = f"bracket within {tolerance * 100:g} %"
                break
            rate = (lo + hi) / 2.0
        elif lo is not None:
            rate = lo * 2.0
        elif hi is not None:
            rate = hi / 2.0
        if rate < MIN_RATE:
            out.stopped_by = f"no rate down to {MIN_RATE:g}/s was VALID"
            break
        if rate > MAX_RATE:
            out.stopped_by = f"still VALID at {MAX_RATE:g}/s"
            break
        if run(rate):
            lo = rate
        else:
            hi = rate
    else:
        out.stopped_by = f"{max_probes} probes made"
    out.bracket = (lo, hi)
    return out
