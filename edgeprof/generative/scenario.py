"""A generation's load scenarios on the host: the server verdict and the sustained windows, from the agent's raw
times. Pure functions, no I/O.

Owns: LoadGen's percentile (loadgen_percentile: the sorted values' element at floor(n x p), as
loadgen/results.cc ProcessTokenLatencies takes its TTFT and TPOT percentiles); the server's per-request figures
from each request's scheduled arrival (TTFT = first token's end - arrival, latency = last token's end - arrival,
TPOT = (latency - TTFT) / (tokens - 1): MLPerf's rule, queueing counted); the verdict (judge: MLPerf LoadGen's LLM
server rule, PerformanceSummary::PerfConstraintsMet with use_token_latencies: the p99 TTFT within
server_ttft_latency and the p99 TPOT within server_tpot_latency, both); a sustained run's windows (tokens per
window from the agent's token ranges, decode tokens/s, TTFT p50 of the requests that started in it, the board's
readings); the GenScenario section (scenario_of); what a sustained run's windows say (sustained_curve: the
throttling onset, the sustained ratio and the steady state by the forward pass's own rules and code,
evaluation/sustained.py `shape`, with decode tokens/s as the throughput; computed from the stored windows when
shown, not stored).
Does not own: the loops (agents/edgeprof_agent/generation/loop.py), the single-stream statistics (stats.py),
LoadGen's early stopping (not applied: the verdict is the p99s against the bounds only, said in the reason).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.sustained import MIN_WINDOWS, Point, Shape, shape
from .records import GenScenario, GenWindow

__all__ = ["loadgen_percentile", "judge", "server_requests", "sustained_windows", "scenario_of", "GenCurve",
           "sustained_curve"]

_MS = 1e6


def loadgen_percentile(values: Sequence[float], p: float) -> float | None:
    """LoadGen's percentile: sorted(values)[floor(n x p)] (no interpolation); None for no values."""
    if not values:
        return None
    s = sorted(values)
    return float(s[min(len(s) - 1, int(math.floor(len(s) * p)))])


def judge(ttft_p99_ms: float | None, tpot_p99_ms: float | None, ttft_bound_ms: float | None,
          tpot_bound_ms: float | None) -> tuple[bool | None, str]:
    """(valid, reason): VALID when every bound given holds its p99 (LoadGen's LLM server rule asks both); None
    (no verdict) without a bound, or when a bounded figure was not measured (TPOT with one generated token)."""
    if ttft_bound_ms is None and tpot_bound_ms is None:
        return None, "no verdict: give --ttft-bound and --tpot-bound (ms) to judge the run by MLPerf's server rule"
    parts, ok = [], True
    for name, p99, bound in (("TTFT", ttft_p99_ms, ttft_bound_ms), ("TPOT", tpot_p99_ms, tpot_bound_ms)):
        if bound is None:
            parts.append(f"{name} not judged (no --{name.lower()}-bound)")
            continue
        if p99 is None:
            return None, f"no verdict: no {name} was measured (one generated token has no TPOT)"
        within = p99 <= bound
        ok = ok and within
        parts.append(f"p99 {name} {p99:.3f} ms {'<=' if within else '>'} --{name.lower()}-bound {bound:g} ms")
    return ok, "; ".join(parts)


def server_requests(t0_ns: int, scheduled_ns: Sequence[int], reps: Sequence[Any]) -> dict[str, list[float]]:
    """Per request (in arrival order), ms from t0: scheduled, start (the first runtime call), first token's end,
    end; TTFT and latency from the scheduled arrival; TPOT = (latency - TTFT) / (tokens - 1) (none with one
    token). `reps`: the reply's repetitions (t_prefill_start_ns, t_first_token_end_ns, t_end_ns, token_ns)."""
    if len(scheduled_ns) != len(reps):
        raise ValueError(f"{len(reps)} requests for {len(scheduled_ns)} arrivals")
    out: dict[str, list[float]] = {k: [] for k in ("scheduled_ms", "start_ms", "first_token_ms", "end_ms",
                                                   "ttft_ms", "latency_ms", "tpot_ms")}
    for off, r in zip(scheduled_ns, reps, strict=True):
        due = t0_ns + int(off)
        ttft, e2e = r.t_first_token_end_ns - due, r.t_end_ns - due
        out["scheduled_ms"].append(int(off) / _MS)
        out["start_ms"].append((r.t_prefill_start_ns - t0_ns) / _MS)
        out["first_token_ms"].append((r.t_first_token_end_ns - t0_ns) / _MS)
        out["end_ms"].append((r.t_end_ns - t0_ns) / _MS)
        out["ttft_ms"].append(ttft / _MS)
        out["latency_ms"].append(e2e / _MS)
        n = len(r.token_ns)
        if n > 1:
            out["tpot_ms"].append((e2e - ttft) / (n - 1) / _MS)
    return out


def sustained_windows(windows: Sequence[Any], token_windows: Sequence[Any], reps: Sequence[Any]) -> list[GenWindow]:
    """The windows of a sustained generation: `windows` the agent's SustainedWindow records (their requests by
    start: first, count; the board's readings), `token_windows` its token ranges (first, count over the requests'
    tokens in order), `reps` the requests (prefill_ns, token_ns)."""
    if len(token_windows) != len(windows):
        raise ValueError(f"{len(token_windows)} token ranges for {len(windows)} windows")
    token_ns = np.concatenate([np.asarray(r.token_ns, dtype=np.int64) for r in reps]) if reps else \
        np.zeros(0, np.int64)
    firsts = np.zeros(token_ns.size, dtype=bool)  # each request's first token (the pick from the prefill)
    pos = 0
    for r in reps:
        firsts[pos] = True
        pos += len(r.token_ns)
    ttft = [(r.prefill_ns + int(r.token_ns[0])) / _MS for r in reps]
    out = []
    for w, tw in zip(windows, token_windows, strict=True):
        sl = slice(tw.first, tw.first + tw.count)
        decode = token_ns[sl][~firsts[sl]]
        dec_ns = int(decode.sum())
        mine = ttft[w.first:w.first + w.count]
        board = w.to_dict()
        out.append(GenWindow(
            index=w.index, start_s=w.start_ns / 1e9, end_s=w.end_ns / 1e9, requests=w.count,
            token_first=tw.first, tokens=tw.count, decode_tokens=int(decode.size),
            decode_tps=decode.size * 1e9 / dec_ns if dec_ns > 0 else None,
            ttft_p50_ms=float(np.percentile(mine, 50)) if mine else None,
            temp_c=w.temp_c, cpu_mhz=w.cpu_mhz, cpu_mhz_min=w.cpu_mhz_min, gpu_mhz=w.gpu_mhz,
            throttled=w.throttled, mean_w=w.mean_w, energy_j=w.energy_j, board=board))
    return out


def scenario_of(reply: Any, ttft_bound_ms: float | None = None, tpot_bound_ms: float | None = None) -> GenScenario | None:
    """The GenScenario section of a generate reply with a scenario (None for single-stream)."""
    sc = reply.scenario
    if sc is None:
        return None
    reps = reply.repetitions
    t0 = sc.t0_ns
    if sc.name == "server":
        req = server_requests(t0, list(sc.scheduled_ns), reps)
        ttft99 = loadgen_percentile(req["ttft_ms"], 0.99)
        tpot99 = loadgen_percentile(req["tpot_ms"], 0.99)
        valid, reason = judge(ttft99, tpot99, ttft_bound_ms, tpot_bound_ms)
        return GenScenario(name="server", requests=len(reps), rate_rps=sc.rate, seed=sc.seed, mode=sc.mode,
                           scheduled_ms=req["scheduled_ms"], start_ms=req["start_ms"],
                           first_token_ms=req["first_token_ms"], end_ms=req["end_ms"], ttft_ms=req["ttft_ms"],
                           latency_ms=req["latency_ms"], tpot_ms=req["tpot_ms"], ttft_p99_ms=ttft99, tpot_p99_ms=tpot99, ttft_bound_ms=ttft_bound_ms,
                           tpot_bound_ms=tpot_bound_ms, valid=valid, valid_reason=reason)
    su = sc.sustained
    ttft = [(r.prefill_ns + int(r.token_ns[0])) / _MS for r in reps]
    tpot = [sum(int(t) for t in r.token_ns[1:]) / (len(r.token_ns) - 1) / _MS for r in reps if len(r.token_ns) > 1]
    return GenScenario(
        name=sc.name, requests=len(reps), mode=sc.mode,
        start_ms=[(r.t_prefill_start_ns - t0) / _MS for r in reps],
        first_token_ms=[(r.t_first_token_end_ns - t0) / _MS for r in reps],
        end_ms=[(r.t_end_ns - t0) / _MS for r in reps], ttft_ms=ttft,
        latency_ms=[(r.prefill_ns + sum(int(t) for t in r.token_ns)) / _MS for r in reps], tpot_ms=tpot,
        ttft_p99_ms=loadgen_percentile(ttft, 0.99), tpot_p99_ms=loadgen_percentile(tpot, 0.99),
        valid_reason="no verdict: a sustained run is not judged against bounds",
        duration_s=su.duration_s if su is not None else None, window_s=su.window_s if su is not None else None,
        windows=sustained_windows(su.windows, reply.token_windows, reps) if su is not None else [])


def _board(w: GenWindow, name: str, kind: type | tuple[type, ...]) -> Any:
    """A reading of the agent's window record (`board`) that GenWindow does not lift out (NVML's), or None."""
    v = w.board.get(name)
    return v if isinstance(v, kind) and not isinstance(v, bool) else None


def _point(w: GenWindow) -> Point:
    """A generation window as the curve's rules read it: decode tokens/s is its throughput."""
    return Point(index=w.index, start_s=w.start_s, end_s=w.end_s, throughput=w.decode_tps, temp_c=w.temp_c,
                 cpu_mhz=w.cpu_mhz, mean_w=w.mean_w, throttled=w.throttled,
                 nvml_temp_c=_board(w, "nvml_temp_c", (int, float)),
                 nvml_sm_mhz=_board(w, "nvml_sm_mhz", (int, float)), nvml_reasons=_board(w, "nvml_reasons", int))


@dataclass(frozen=True)
class GenCurve:
    """What a sustained generation's windows say: `shape` (evaluation/sustained.py) over its windows with a
    decode step (`counted` of them), or None and `reason` when there are fewer than MIN_WINDOWS."""

    shape: Shape | None
    counted: int
    reason: str | None = None


def sustained_curve(sc: GenScenario) -> GenCurve | None:
    """The curve of a sustained run's stored windows (None for another scenario): the forward pass's rules, read
    on the windows that hold a decode step (decode tokens/s is the throughput; a window without one is left out,
    as a forward pass's window without queries is). With fewer than MIN_WINDOWS (3) such windows there is no
    curve: the reason says so, in deploy's words for a --window that leaves too few."""
    if sc.name != "sustained":
        return None
    points = [_point(w) for w in sc.windows if w.decode_tps is not None]
    if len(points) < MIN_WINDOWS:
        return GenCurve(None, len(points), (
            f"no throttling onset or steady state: {len(points)} of {len(sc.windows)} windows hold a decode step, "
            f"fewer than the {MIN_WINDOWS} windows a curve needs (a first window, a middle and a tail); "
            "a shorter --window or a longer --duration gives more"))
    return GenCurve(shape(points), len(points))
