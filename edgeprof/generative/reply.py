"""The `generation` section from the agent's generate reply (protocol 11): the one place the host turns a
messages.GenerateReply into records.Generation.

Owns: the raw record stats.generation_summary reads, built from the reply's records; the energy of the prefill and
decode phases from the reply's power readings (every reading, on the agent's clock: stats.windows_of cuts each
repetition's windows, stats.phase_energy integrates them), or the reason there is none; the raw figures kept
beside the statistics (per-token ns, the phase edges, the warm-up, the KV cache record); a CUDA generation's GPU
memory as the agent read it (or why there is none). Pure: no I/O.
Does not own: the statistics (stats.py), the records (records.py), sending the request or storing the Result
(the host's measurement wiring).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from edgeprof_agent.messages import GenerateReply

from ..records.generation import GenGpuMemory
from .records import Generation
from .scenario import scenario_of
from .stats import generation_summary, phase_energy, windows_of

__all__ = ["raw_of", "generation_of"]


def raw_of(reply: GenerateReply) -> dict[str, Any]:
    """The reply as loop.run_generation's raw dict (what generation_summary and windows_of read)."""
    return {
        "prompt_tokens": reply.prompt_tokens, "gen_tokens": reply.gen_tokens, "depth": reply.depth,
        "n_ctx": reply.n_ctx, "seed": reply.seed, "load_ns": reply.load_ns,
        "runtime": {"runtime": reply.runtime.runtime, "version": reply.runtime.version, **reply.runtime.options},
        "memory": reply.memory.to_dict(), "kv_cache": reply.kv_cache.to_dict(),
        "repetitions": [{**r.to_dict(), "token_ns": [int(t) for t in r.token_ns],
                         "tokens": [int(t) for t in r.tokens]} for r in reply.repetitions],
    }


def generation_of(reply: GenerateReply, ttft_bound_ms: float | None = None,
                  tpot_bound_ms: float | None = None) -> Generation:
    """The Generation section of one generate reply, with the energy per phase when the reply has power readings
    that cover every repetition's windows (energy_reason says why not otherwise), and with a scenario's section
    (scenario.scenario_of: a server's verdict against the bounds, a sustained run's windows)."""
    raw = raw_of(reply)
    reps = raw["repetitions"]
    origin = reps[0]["t_prefill_start_ns"]
    energy, reason = None, reply.power_reason
    readings = reply.power_readings
    if readings is not None:
        t_s = [(int(t) - origin) / 1e9 for t in readings.t_ns]
        try:
            energy = phase_energy(t_s, list(readings.w), windows_of(raw, origin), reply.prompt_tokens,
                                  reply.gen_tokens, source=readings.source)
            reason = None
        except ValueError as e:  # too few readings, or a trace that does not cover a window: never extrapolated
            reason = f"no energy per phase: {e}"
    elif reason is None:
        reason = "the reply has no power readings"
    g = generation_summary(raw, energy)
    warm = reply.warmup
    gpu = reply.memory.gpu
    return dataclasses.replace(
        g, n_ctx=reply.n_ctx, seed=reply.seed,
        gpu_memory=GenGpuMemory.from_dict(gpu.to_dict()) if gpu is not None else None,
        gpu_memory_reason=reply.memory.gpu_reason if gpu is None else None,
        windows_ns=[[r["t_prefill_start_ns"] - origin, r["t_prefill_end_ns"] - origin,
                     r["t_first_token_end_ns"] - origin, r["t_end_ns"] - origin] for r in reps],
        depth_fill_ns=[int(r["depth_fill_ns"]) for r in reps],
        warmup_prefill_ns=warm.prefill_ns if warm is not None else None,
        warmup_token_ns=list(warm.token_ns) if warm is not None else [],
        kv_cache=reply.kv_cache.to_dict(), energy_reason=reason if energy is None else None,
        sampling=reply.sampling, scenario=scenario_of(reply, ttft_bound_ms, tpot_bound_ms))
