"""The typed records of a generation measurement: the `generation` section of a Result (schema 10).

Owns: Spread (mean ± sample stdev over repetitions, with min and max), PhaseEnergy (energy of the prefill and decode
phases from a power trace), GenGpuMemory (a CUDA generation's GPU memory) and Generation (the section), each a frozen
records.sections.Section (JSON in and out, unknown fields named). Generation is Result.generation (schema 10,
schema.py). edgeprof.generative.records re-exports them (the generative package's name for them).
Does not own: computing them (edgeprof/generative/stats.py, reply.py), their place in Result (result.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .sections import LatencyStats, Section

__all__ = ["Spread", "PhaseEnergy", "GenGpuMemory", "GenWindow", "GenScenario", "Generation", "DEFINITIONS",
           "P99_RULE"]

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


TOKENS_PACKED = "int64-shuffle8-zlib-ragged"  # Generation.stored: every request's token ns, one packed list


def _unpack_tokens(v: Mapping[str, Any]) -> list[list[int]]:
    """The per-request token ns lists of a packed `token_ns` (Generation.stored); StoreError when damaged."""
    from edgeprof_agent.messages import PACKED_INT64, MessageError

    from ..errors import StoreError

    lengths = v.get("lengths")
    if v.get("encoding") != TOKENS_PACKED or set(v) != {"encoding", "lengths", "n", "b64"} \
            or not isinstance(lengths, list) or not all(isinstance(n, int) and n >= 0 for n in lengths):
        raise StoreError(f"result field generation.token_ns is packed as {v.get('encoding')!r}, which this "
                         "edgeprof does not read", hint="it was written by another edgeprof version; upgrade "
                         "edgeprof to read it")
    try:
        flat = PACKED_INT64.decode({"dtype": "<i8", "codec": PACKED_INT64.CODEC, "n": v["n"], "b64": v["b64"]},
                                   "generation.token_ns")
    except MessageError as e:
        raise StoreError(f"result field {e}", hint="the result JSON is damaged; rerun the measurement") from None
    if sum(lengths) != len(flat):
        raise StoreError(f"result field generation.token_ns holds {len(flat)} times for {sum(lengths)} tokens",
                         hint="the result JSON is damaged; rerun the measurement")
    out, i = [], 0
    values = [int(t) for t in flat]
    for n in lengths:
        out.append(values[i:i + n])
        i += n
    return out


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
class GenGpuMemory(Section):
    """The measuring process's GPU memory in bytes (the agent's generate reply.memory.gpu, genmessages.GenGpuMemory):
    NVML's usedGpuMemory for the process on GPU `gpu` (NVML's index; None: summed over every GPU), read after the
    load and after the last token (not sampled in between; None: that reading gave nothing); `source` in words."""

    SECTION: ClassVar[str] = "generation.gpu_memory"
    after_load_bytes: int | None
    end_bytes: int | None
    gpu: int | None
    source: str


# MLPerf LoadGen's percentile (loadgen/results.cc, PerformanceSummary::ProcessTokenLatencies): the sorted values'
# element at index floor(n x p), no interpolation (with fewer than 100 requests the p99 is the largest)
P99_RULE = "sorted values[floor(n x 0.99)] (MLPerf LoadGen results.cc: no interpolation; n < 100: the largest)"


@dataclass(frozen=True)
class GenWindow(Section):
    """One window of a sustained generation, [start_s, end_s) from the loop's start: the requests that started in
    it (TTFT p50 of theirs: prefill + first token), the tokens whose next_token() ended in it (token_first, tokens:
    their range in the requests' tokens taken in order; decode_tokens those after each request's first, decode_tps
    = decode_tokens / their summed times) and the board read during it (the forward-pass sustained window's
    readings: hottest zone °C, CPU mean and lowest MHz, GPU MHz, throttle bits, mean W and J; `board` the agent's
    whole window record)."""

    SECTION: ClassVar[str] = "generation scenario window"
    index: int
    start_s: float
    end_s: float
    requests: int
    token_first: int
    tokens: int
    decode_tokens: int
    decode_tps: float | None
    ttft_p50_ms: float | None
    temp_c: float | None = None
    cpu_mhz: float | None = None
    cpu_mhz_min: float | None = None
    gpu_mhz: float | None = None
    throttled: int | None = None
    mean_w: float | None = None
    energy_j: float | None = None
    board: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GenScenario(Section):
    """A generation's load scenario (server or sustained) and what it gave; times in ms from the schedule's start
    on the agent's clock, one entry per request in the order they ran (raw, nothing dropped).

    server: `scheduled_ms` each request's Poisson arrival; TTFT and latency counted FROM IT (queueing included,
    MLPerf's rule), TPOT = (latency - TTFT) / (tokens - 1); ttft_p99_ms / tpot_p99_ms by P99_RULE; valid: both
    within their bounds (LoadGen PerfConstraintsMet with use_token_latencies), None without a bound.
    sustained: requests back to back for duration_s, TTFT = prefill + first token (no queue), `windows` of
    window_s."""

    SECTION: ClassVar[str] = "generation scenario"
    name: str
    requests: int
    rate_rps: float | None = None
    seed: int | None = None
    mode: str | None = None
    scheduled_ms: list[float] = field(default_factory=list)
    start_ms: list[float] = field(default_factory=list)
    first_token_ms: list[float] = field(default_factory=list)
    end_ms: list[float] = field(default_factory=list)
    ttft_ms: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    tpot_ms: list[float] = field(default_factory=list)  # empty with one generated token
    ttft_p99_ms: float | None = None
    tpot_p99_ms: float | None = None
    percentile: str = P99_RULE
    ttft_bound_ms: float | None = None
    tpot_bound_ms: float | None = None
    valid: bool | None = None
    valid_reason: str | None = None
    duration_s: float | None = None
    window_s: float | None = None
    windows: list[GenWindow] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GenScenario:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, windows=[GenWindow.from_dict(w) for w in flat.windows])  # type: ignore[arg-type]


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
    # a generation on CUDA: the process's GPU memory (NVML), beside peak RSS; else None with gpu_memory_reason
    gpu_memory: GenGpuMemory | None = None
    gpu_memory_reason: str | None = None  # why there is none (the CPU, no NVML, NVML lists no memory for the process)
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
    # a load scenario's requests (server, sustained; None: single-stream repetitions). Optional: older results load
    scenario: GenScenario | None = None

    # written only when set: an agent's single-stream section stays the shape schema 10 first wrote
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("measured_by", "absent", "scenario", "gpu_memory",
                                                  "gpu_memory_reason")

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in super().to_dict().items() if v is not None or k not in self.OPTIONAL_FIELDS}
    def stored(self) -> dict[str, Any]:
        """to_dict as the store holds it: a scenario's token times (a sustained run keeps every one: millions in
        a long run) packed as the agent sent them, {"encoding": TOKENS_PACKED, "lengths": [tokens per request],
        "n", "b64"} (record.PackedInt64: int64 ns, exact); a single-stream section as to_dict writes it."""
        d = self.to_dict()
        if self.scenario is not None and self.token_ns:
            from edgeprof_agent.messages import PACKED_INT64

            flat = [int(t) for rep in self.token_ns for t in rep]
            wire = PACKED_INT64.encode(flat)
            d["token_ns"] = {"encoding": TOKENS_PACKED, "lengths": [len(rep) for rep in self.token_ns],
                             "n": wire["n"], "b64": wire["b64"]}
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Generation:
        if isinstance(d, Mapping) and isinstance(d.get("token_ns"), Mapping):
            d = {**d, "token_ns": _unpack_tokens(d["token_ns"])}
        flat = super().from_dict(d)

        def spread(v: Any) -> Any:
            return None if v is None else Spread.from_dict(v)

        return dataclasses.replace(
            flat, prefill_ms=spread(flat.prefill_ms), prefill_tps=spread(flat.prefill_tps),
            ttft_ms=spread(flat.ttft_ms), tpot_ms=spread(flat.tpot_ms), decode_tps=spread(flat.decode_tps),
            e2e_ms=spread(flat.e2e_ms),
            itl_ms=None if flat.itl_ms is None else LatencyStats.from_dict(flat.itl_ms),  # type: ignore[arg-type]
            energy=None if flat.energy is None else PhaseEnergy.from_dict(flat.energy),  # type: ignore[arg-type]
            scenario=None if flat.scenario is None else GenScenario.from_dict(flat.scenario),  # type: ignore[arg-type]
            gpu_memory=None if flat.gpu_memory is None else GenGpuMemory.from_dict(flat.gpu_memory),  # type: ignore[arg-type]
        )
