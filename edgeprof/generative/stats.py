"""Statistics of a generation measurement, from the agent's raw per-token times. Pure functions, no I/O.

Owns: per repetition, prefill time and prompt tokens/s, TTFT (prefill + first token; load excluded), the
inter-token latencies (every token after the first), TPOT = (e2e - TTFT) / (tokens - 1) (MLPerf), decode tokens/s
= (tokens - 1) / (e2e - TTFT) (MLPerf Client: the tokens after the first); mean ± sample stdev of each over
repetitions (Spread); ITL percentiles pooled over repetitions with edgeprof's latency_summary (numpy's linear
interpolation, nothing clipped); and energy per phase from a power trace on the agent's clock (phase_energy).
Definitions are in records.DEFINITIONS, stored with every Generation.
Does not own: taking the samples (agents/edgeprof_agent/generation/loop.py), the power sampler, reports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..analysis.stats import latency_summary
from .records import Generation, PhaseEnergy, Spread

__all__ = ["RepetitionFigures", "repetition_figures", "spread", "generation_summary", "integrate_power",
           "phase_energy", "PhaseWindow", "windows_of"]

_NS_PER_MS = 1e6
_NS_PER_S = 1e9


@dataclass(frozen=True)
class RepetitionFigures:
    """One repetition's figures (ms and tokens/s); tpot / decode_tps None with one generated token."""

    prefill_ms: float
    prefill_tps: float
    ttft_ms: float
    e2e_ms: float
    itl_ms: tuple[float, ...]
    tpot_ms: float | None
    decode_tps: float | None


def repetition_figures(prefill_ns: int, token_ns: Sequence[int], prompt_tokens: int) -> RepetitionFigures:
    """The figures of one repetition: `prefill_ns` the prompt's append, `token_ns` each generated token's time."""
    if not token_ns:
        raise ValueError("a repetition with no generated token")
    if prefill_ns <= 0 or any(t <= 0 for t in token_ns):
        raise ValueError("non-positive time in a repetition (prefill or token)")
    ttft_ns = prefill_ns + token_ns[0]
    decode_ns = sum(token_ns[1:])  # integers: exact
    e2e_ns = ttft_ns + decode_ns
    n = len(token_ns)
    return RepetitionFigures(
        prefill_ms=prefill_ns / _NS_PER_MS,
        prefill_tps=prompt_tokens * _NS_PER_S / prefill_ns,
        ttft_ms=ttft_ns / _NS_PER_MS,
        e2e_ms=e2e_ns / _NS_PER_MS,
        itl_ms=tuple(t / _NS_PER_MS for t in token_ns[1:]),
        tpot_ms=(e2e_ns - ttft_ns) / (n - 1) / _NS_PER_MS if n > 1 else None,
        decode_tps=(n - 1) * _NS_PER_S / decode_ns if n > 1 else None,
    )


def spread(values: Sequence[float]) -> Spread:
    """Mean, sample standard deviation (ddof 1; None for one value), min, max of `values` (in their order)."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        raise ValueError("no values")
    return Spread(mean=float(a.mean()), std=float(a.std(ddof=1)) if a.size > 1 else None,
                  min=float(a.min()), max=float(a.max()), n=int(a.size))


def generation_summary(raw: Mapping[str, Any], energy: PhaseEnergy | None = None) -> Generation:
    """The Generation section from the agent's raw record (loop.run_generation's dict: prompt_tokens,
    gen_tokens, depth, repetitions [{prefill_ns, token_ns}], load_ns, memory, kv_cache, runtime)."""
    prompt = int(raw["prompt_tokens"])
    gen = int(raw["gen_tokens"])
    reps = list(raw["repetitions"])
    if not reps:
        raise ValueError("no repetitions")
    for r in reps:
        if len(r["token_ns"]) != gen:
            raise ValueError(f"a repetition has {len(r['token_ns'])} token times, not gen_tokens={gen}")
    figs = [repetition_figures(int(r["prefill_ns"]), [int(t) for t in r["token_ns"]], prompt) for r in reps]
    itl = [x for f in figs for x in f.itl_ms]
    mem = raw.get("memory") or {}
    kv = raw.get("kv_cache") or {}
    runtime = raw.get("runtime")
    return Generation(
        runtime=runtime.get("runtime") if isinstance(runtime, Mapping) else runtime,
        prompt_tokens=prompt, tokens=gen, depth=int(raw.get("depth", 0)), repetitions=len(reps),
        prefill_ms=spread([f.prefill_ms for f in figs]), prefill_tps=spread([f.prefill_tps for f in figs]),
        ttft_ms=spread([f.ttft_ms for f in figs]),
        tpot_ms=spread([f.tpot_ms for f in figs if f.tpot_ms is not None]) if gen > 1 else None,
        decode_tps=spread([f.decode_tps for f in figs if f.decode_tps is not None]) if gen > 1 else None,
        e2e_ms=spread([f.e2e_ms for f in figs]),
        itl_ms=latency_summary(itl) if itl else None,
        prefill_ns=[int(r["prefill_ns"]) for r in reps], token_ns=[[int(t) for t in r["token_ns"]] for r in reps],
        load_ms=raw["load_ns"] / _NS_PER_MS if raw.get("load_ns") is not None else None,
        peak_rss_bytes=mem.get("peak_rss_bytes"), kv_cache_bytes=kv.get("bytes"), energy=energy,
    )


# ------------------------------------------------------------------------------------------------ energy
def _power_at(t: np.ndarray, w: np.ndarray, x: float) -> float:
    return float(np.interp(x, t, w))


def integrate_power(t_s: Sequence[float], w: Sequence[float], start_s: float, end_s: float) -> float:
    """Joules between start_s and end_s: trapezoids between readings, the power linearly interpolated at the
    window's edges. The trace must cover the window (ValueError otherwise: never extrapolated)."""
    t = np.asarray(t_s, dtype=np.float64)
    p = np.asarray(w, dtype=np.float64)
    if t.size < 2 or t.size != p.size:
        raise ValueError("a power trace needs at least two readings, with as many times as watts")
    if np.any(np.diff(t) <= 0):
        raise ValueError("power trace times must increase")
    if end_s < start_s:
        raise ValueError("window ends before it starts")
    if start_s < t[0] or end_s > t[-1]:
        raise ValueError(f"the power trace ({t[0]:.6f}..{t[-1]:.6f} s) does not cover the window "
                         f"{start_s:.6f}..{end_s:.6f} s")
    inside = (t > start_s) & (t < end_s)
    xs = np.concatenate(([start_s], t[inside], [end_s]))
    ys = np.concatenate(([_power_at(t, p, start_s)], p[inside], [_power_at(t, p, end_s)]))
    return float(np.sum((ys[1:] + ys[:-1]) * 0.5 * np.diff(xs)))


@dataclass(frozen=True)
class PhaseWindow:
    """One repetition's phase edges, in seconds on the power trace's clock."""

    prefill_start_s: float
    first_token_end_s: float
    end_s: float


def windows_of(raw: Mapping[str, Any], origin_ns: int = 0) -> list[PhaseWindow]:
    """Each repetition's phase windows from the agent's stamps (ns on its clock), minus `origin_ns` (the power
    trace's t = 0 on the same clock), in seconds."""
    return [PhaseWindow((r["t_prefill_start_ns"] - origin_ns) / _NS_PER_S,
                        (r["t_first_token_end_ns"] - origin_ns) / _NS_PER_S,
                        (r["t_end_ns"] - origin_ns) / _NS_PER_S) for r in raw["repetitions"]]


def phase_energy(t_s: Sequence[float], w: Sequence[float], windows: Sequence[PhaseWindow], prompt_tokens: int,
                 gen_tokens: int, source: str | None = None) -> PhaseEnergy:
    """Energy of the prefill phase (prefill start → first token: the TTFT window) and of the decode phase (first
    token → last: gen_tokens - 1 decode steps), summed over the repetitions' windows. A constant power W gives
    j_per_prompt_token = W × TTFT / prompt_tokens and j_per_token = W × TPOT exactly (up to float rounding)."""
    if not windows:
        raise ValueError("no windows")
    pre_j = dec_j = pre_s = dec_s = 0.0
    for win in windows:
        pre_j += integrate_power(t_s, w, win.prefill_start_s, win.first_token_end_s)
        dec_j += integrate_power(t_s, w, win.first_token_end_s, win.end_s)
        pre_s += win.first_token_end_s - win.prefill_start_s
        dec_s += win.end_s - win.first_token_end_s
    n_prompt = prompt_tokens * len(windows)
    n_decode = (gen_tokens - 1) * len(windows)
    return PhaseEnergy(
        prefill_j=pre_j, decode_j=dec_j, prefill_s=pre_s, decode_s=dec_s,
        prefill_mean_w=pre_j / pre_s if pre_s > 0 else None,
        decode_mean_w=dec_j / dec_s if dec_s > 0 else None,
        j_per_prompt_token=pre_j / n_prompt,
        j_per_token=dec_j / n_decode if n_decode else None,
        tokens_per_j=n_decode / dec_j if n_decode and dec_j > 0 else None,
        prompt_tokens=n_prompt, decode_tokens=n_decode, n_readings=len(t_s), source=source,
    )
