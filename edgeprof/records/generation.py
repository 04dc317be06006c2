"""The typed records of a generation measurement: the `generation` section of a Result (schema 10).

Owns: Spread (mean ± sample stdev over repetitions, with min and max), PhaseEnergy (energy of the prefill and decode
phases from a power trace) and Generation (the section), each a frozen records.sections.Section (JSON in and out,
unknown fields named). Generation is Result.generation (schema 10, schema.py). edgeprof.generative.records
re-exports them (the generative package's name for them).
Does not own: computing them (edgeprof/generative/stats.py, reply.py), their place in Result (result.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .sections import LatencyStats, Section

__all__ = ["Spread", "PhaseEnergy", "Generation", "DEFINITIONS"]

# how each figure is defined, stored with it (the anchors: llama-bench, MLPerf Inference / Client, ort-genai)
DEFINITIONS = {
    "prefill_ms": "the prompt's append (one forward over prompt_tokens), timed by the agent",
    "prefill_tps": "prompt_tokens / prefill time, per repetition (llama-bench pp)",
    "ttft_ms": "prefill + the first token's pick; load excluded (MLPerf TTFT without queueing)",
    "itl_ms": "each token after the first: one decode step + pick (inter-token latency)",
    "tpot_ms": "(e2e - TTFT) / (tokens - 1) per repetition (MLPerf TPOT)",
    "decode_tps": "(tokens - 1) / (e2e - TTFT) per repetition: tokens after the first (MLPerf Client TPS)",
    "e2e_ms": "prefill + every token",
    "spread": "mean and sample standard deviation (ddof 1) over repetitions",
    "energy": "power readings on the agent's clock integrated (trapezoids, linear interpolation at the edges) over "
              "each repetition's prefill window (prefill start -> first token) and decode window (first token -> "
              "last), summed over repetitions; J/token = decode J / (tokens - 1), J/prompt token = prefill J / "
              "prompt tokens",
    "windows_ns": "each repetition's [prefill start, prefill end, first token end, last token end] in ns from the "
                  "first repetition's prefill start (the power trace's t = 0)",
}


@dataclass(frozen=True)
class Spread(Section):
    """One figure over repetitions: mean, sample stdev (ddof 1; None with one repetition), min, max, n."""

    SECTION: ClassVar[str] = "generation spread"
    mean: float
    std: float | None
    min: float
    max: float
    n: int


@dataclass(frozen=True)
class PhaseEnergy(Section):
    """Energy per phase from a power trace on the agent's clock, summed over repetitions.

    prefill phase: prefill start → first token (the TTFT window); decode phase: first token → last token (the
    tokens - 1 decode steps). Power is integrated by trapezoids between readings, linearly interpolated at each
    window's edges."""

    SECTION: ClassVar[str] = "generation energy"
    prefill_j: float
    decode_j: float
    prefill_s: float
    decode_s: float
    prefill_mean_w: float | None
    decode_mean_w: float | None  # None for an empty window
    j_per_prompt_token: float
    j_per_token: float | None  # None with one generated token (no decode step)
    tokens_per_j: float | None
    prompt_tokens: int  # summed over repetitions
    decode_tokens: int  # tokens after the first, summed over repetitions
    n_readings: int
    method: str = "trapezoid, linear interpolation at the window edges"
    source: str | None = None


@dataclass(frozen=True)
class Generation(Section):
    """The `generation` section: figures from the agent's raw per-token times (stats.generation_summary), or, with
    `measured_by` set, a tool's own figures (a phone's litert_lm_main: phone/litertlm.py) with `absent` saying what
    it did not give."""

    SECTION: ClassVar[str] = "generation"
    runtime: str | None
    prompt_tokens: int
    tokens: int  # generated per repetition
    depth: int  # tokens in the KV cache before the prompt
    repetitions: int
    prefill_ms: Spread
    prefill_tps: Spread
    ttft_ms: Spread
    tpot_ms: Spread | None  # None with one generated token
    decode_tps: Spread | None
    e2e_ms: Spread
    itl_ms: LatencyStats | None  # pooled over repetitions; None with one generated token
    prefill_ns: list[int] = field(default_factory=list)  # raw, per repetition
    token_ns: list[list[int]] = field(default_factory=list)  # raw, per repetition, every generated token
    load_ms: float | None = None
    peak_rss_bytes: int | None = None
    kv_cache_bytes: int | None = None
    energy: PhaseEnergy | None = None
    definitions: dict[str, str] = field(default_factory=lambda: dict(DEFINITIONS))
    # schema 10: what the agent's reply also said (edgeprof/generative/reply.py)
    n_ctx: int | None = None  # the KV cache's room asked for: depth + prompt + tokens
    seed: int | None = None  # the random token ids' seed
    windows_ns: list[list[int]] = field(default_factory=list)  # per repetition; DEFINITIONS["windows_ns"]
    depth_fill_ns: list[int] = field(default_factory=list)  # the untimed depth fill before each prompt
    warmup_prefill_ns: int | None = None  # the untimed warm-up (None: none)
    warmup_token_ns: list[int] = field(default_factory=list)
    kv_cache: dict[str, Any] | None = None  # the agent's KvCache record: bytes, n_ctx, dtype, how it was read
    energy_reason: str | None = None  # why energy is None (no power source, a trace that does not cover a window)
    sampling: str | None = None  # how each token was picked (greedy argmax, inside each token's time)
    # None: the agent timed every token on its own clock (the figures above are edgeprof's); else the tool whose own
    # figures these are (a phone's litert_lm_main: its BenchmarkInfo, phone/litertlm.py), with what it did not give
    measured_by: str | None = None
    absent: dict[str, str] | None = None  # figure -> why it is not there (a tool's run: no per-token times)

    # written only when set (a tool's run): an agent's section stays the schema-11 shape, byte for byte; an older
    # edgeprof reading a tool's section names the two fields (Section.from_dict: "upgrade edgeprof to read it")
    TOOL_FIELDS: ClassVar[tuple[str, ...]] = ("measured_by", "absent")

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in super().to_dict().items() if v is not None or k not in self.TOOL_FIELDS}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Generation:
        flat = super().from_dict(d)

        def spread(v: Any) -> Any:
            return None if v is None else Spread.from_dict(v)

        return dataclasses.replace(
            flat, prefill_ms=spread(flat.prefill_ms), prefill_tps=spread(flat.prefill_tps),
            ttft_ms=spread(flat.ttft_ms), tpot_ms=spread(flat.tpot_ms), decode_tps=spread(flat.decode_tps),
            e2e_ms=spread(flat.e2e_ms),
            itl_ms=None if flat.itl_ms is None else LatencyStats.from_dict(flat.itl_ms),  # type: ignore[arg-type]
            energy=None if flat.energy is None else PhaseEnergy.from_dict(flat.energy),  # type: ignore[arg-type]
        )
