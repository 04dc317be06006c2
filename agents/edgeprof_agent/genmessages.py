"""The generate op's messages (protocol 11): its request and its reply, with the reply's parts.

Owns: GenerateRequest, GenerateReply and GenRepetition, GenTokenWindow, GenWarmup, GenMemory, GenGpuMemory, KvCache,
PowerReadings; messages.py re-exports each and lists the op in OPS (import them from there). Does not own: the
records a run's messages share with them (payloads.py, snapshots.py), the record machinery (record.py), what the op
does (genworker.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

from .payloads import ArtifactRef, PowerConfig, PowerSummary, RunPhases, RunWarning, RuntimeInfo
from .record import PACKED_INT64, Field, Record
from .scenmessages import ScenarioReply, ScenarioSpec
from .snapshots import ThermalReply
from .vocab import GEN_DEFAULTS, RUN_DEFAULTS

_NUM = (int, float)


class GenerateRequest(Record):
    """One generation measurement (protocol 11; genworker.py runs it in a child, generation/loop.py times it):
    `runtime` one of vocab.GEN_RUNTIMES; `artifact.path` the model (an onnxruntime-genai folder or a GGUF file);
    `precision` the artifact's label (f16, q4_0, int4, ...: recorded, not acted on); prompt_tokens, gen_tokens,
    depth (tokens in the KV cache before the prompt, llama-bench -d), repetitions, warmup (one untimed prefill
    and a 1-token decode first), seed (the random token ids). `threads` (the runtime's thread count; None: the
    backend's default, which it states in its description), `use_mmap` and `extra_buffers` (llama.cpp only: a
    runtime that has no such option refuses it with BAD_OPTION), `runtime_options` any other backend option
    (llama.cpp: threads_batch, n_batch, n_ubatch). power, idle_s, cooldown_c and cooldown_timeout_s as the run
    request has them; lease_token as a run's. `scenario` (None: single-stream, `repetitions` back to back): a
    server (Poisson arrivals at scenario.rate from scenario.seed, enough to cover min_duration_s and min_queries,
    at most max_queries: the forward-pass server's schedule and settings) or sustained (back to back for
    scenario.duration_s in windows of scenario.sustained_window_s) run of requests, each a fresh sequence of
    prompt_tokens then gen_tokens (depth 0; repetitions does not apply). `gpu` (None: none named) the GPU the
    generation uses, NVML's index as a run's gpu: the agent pins CUDA to it (gpus.choose and pin_cuda, before the
    runtime is imported), and onnxruntime-genai on CUDA runs there (device_id 0, the pinned GPU) with its GPU
    memory read there. Defaults: vocab.GEN_DEFAULTS and vocab.RUN_DEFAULTS."""

    NAME = "generate"
    FIELDS = (
        Field("runtime", str),
        Field("artifact", dict, record=ArtifactRef),
        Field("precision", str, None),
        Field("prompt_tokens", int, GEN_DEFAULTS["prompt_tokens"]),
        Field("gen_tokens", int, GEN_DEFAULTS["gen_tokens"]),
        Field("depth", int, GEN_DEFAULTS["depth"]),
        Field("repetitions", int, GEN_DEFAULTS["repetitions"]),
        Field("warmup", bool, GEN_DEFAULTS["warmup"]),
        Field("seed", int, RUN_DEFAULTS["seed"]),
        Field("threads", int, None),
        Field("use_mmap", bool, None),
        Field("extra_buffers", bool, None),
        Field("runtime_options", dict, {}),
        Field("power", dict, None, record=PowerConfig),
        Field("idle_s", float, RUN_DEFAULTS["idle_s"]),
        Field("cooldown_c", float, None),
        Field("cooldown_timeout_s", float, RUN_DEFAULTS["cooldown_timeout_s"]),
        Field("lease_token", str, None),
        Field("scenario", dict, None, record=ScenarioSpec),
        Field("min_duration_s", _NUM, RUN_DEFAULTS["min_duration_s"]),
        Field("min_queries", int, RUN_DEFAULTS["min_queries"]),
        Field("max_queries", int, None),
        Field("gpu", int, None),
    )


class GenTokenWindow(Record):
    """A sustained generation's window's tokens: [first, first + count) of every request's tokens taken in order
    (repetitions[0].token_ns, then repetitions[1].token_ns, ...), those whose next_token() call ended inside the
    window (generation/loop.token_windows; a token ending after the duration counts in the last window)."""

    NAME = "generate reply.token_windows[]"
    FIELDS = (Field("first", int), Field("count", int))


class GenRepetition(Record):
    """One timed repetition (loop.measure): the prompt's prefill (ns), every generated token's ns (packed, as a
    run's samples: the first is the pick from the prefill's logits, each later one a decode step and its pick),
    the untimed depth fill before it (0 without depth), the phase edges on the agent's clock (clock.now_ns: the
    power readings' clock) and the generated ids (packed)."""

    NAME = "generate reply.repetitions[]"
    FIELDS = (Field("prefill_ns", int), Field("token_ns", list, of=int, packed=PACKED_INT64),
              Field("depth_fill_ns", int, 0), Field("t_prefill_start_ns", int), Field("t_prefill_end_ns", int),
              Field("t_first_token_end_ns", int), Field("t_end_ns", int),
              Field("tokens", list, [], of=int, packed=PACKED_INT64))


class GenWarmup(Record):
    """The untimed warm-up before the repetitions: its prefill's ns and its tokens' ns (kept, never counted)."""

    NAME = "generate reply.warmup"
    FIELDS = (Field("prefill_ns", int), Field("token_ns", list, [], of=int))


class GenGpuMemory(Record):
    """The measuring process's GPU memory in bytes as NVML lists it (memory.gpu_memory_read: the process's
    usedGpuMemory in nvmlDeviceGetComputeRunningProcesses) on GPU `gpu` (NVML's index, the request's gpu; None:
    summed over every GPU), read after the load and after the last token (None: that reading gave nothing), not
    sampled in between; `source` says so in words."""

    NAME = "generate reply.memory.gpu"
    FIELDS = (Field("after_load_bytes", int, None), Field("end_bytes", int, None), Field("gpu", int, None),
              Field("source", str))


class GenMemory(Record):
    """The measuring process's memory in bytes (procinfo: VmRSS before and after the load, VmHWM at the end) and
    where the peak comes from (VmHWM reset just before the load, or since the process started); `gpu` its GPU
    memory (GenGpuMemory) when the model ran on CUDA and NVML answered, else None with `gpu_reason`."""

    NAME = "generate reply.memory"
    FIELDS = (Field("rss_before_load_bytes", int, None), Field("rss_after_load_bytes", int, None),
              Field("peak_rss_bytes", int, None), Field("peak_source", str, None),
              Field("gpu", dict, None, record=GenGpuMemory), Field("gpu_reason", str, None))


class KvCache(Record):
    """The KV cache's size for the context the runtime allocated (generation/base.kv_cache_figures): bytes =
    2 (keys, values) x layers x KV heads x head dim x n_ctx x bytes per element; `how` says where each figure was
    read (onnxruntime-genai: its present.0.key buffer; llama.cpp: llama_n_ctx at its default f16)."""

    NAME = "generate reply.kv_cache"
    FIELDS = (Field("bytes", int), Field("per_token_bytes", int), Field("n_ctx", int), Field("dtype", str, None),
              Field("bytes_per_element", int), Field("layers", int), Field("kv_heads", int), Field("head_dim", int),
              Field("how", str))


class PowerReadings(Record):
    """Every power reading of the sampling window (power.readings_of): W at clock.now_ns times (packed), the
    positive readings as the summary integrates them (a counter's: each interval's power at its midpoint, the
    first and last also held at the window's edges);
    from before the first prefill to after the last token, so the host cuts each repetition's prefill and
    decode windows from it (edgeprof/generative/stats.py windows_of, phase_energy)."""

    NAME = "generate reply.power_readings"
    FIELDS = (Field("t_ns", list, [], of=int, packed=PACKED_INT64), Field("w", list, [], of=_NUM),
              Field("source", str, None), Field("method", str, None), Field("rate_hz", _NUM, None))


class GenerateReply(Record):
    """What a generation measurement sent back: raw figures only (the host's edgeprof/generative/stats.py makes
    the statistics). `runtime` the backend's description (runtime, version; `options` as set: threads and where
    they came from, n_ctx, batch, mmap, extra buffers, ...); `power` the power summary over the measured span
    (the first repetition's prefill start to the last one's end: depth fills and the gaps between repetitions
    inside it) and `power_readings` every reading, for the phase windows; `thermal` snapshots before and after;
    `phases` seconds per phase (the warm-up is inside measure_s). With a scenario: `repetitions` are its requests
    in the order they ran, `scenario` what its loop did (t0_ns on the same clock; a server's scheduled_ns and
    every request's issued_ns from t0; a sustained run's windows and the board's state in them), `token_windows`
    a sustained run's tokens per window."""

    NAME = "generate reply"
    FIELDS = (
        Field("clock", str),
        Field("warnings", list, [], record=RunWarning, many=True),
        Field("runtime", dict, record=RuntimeInfo),
        Field("precision", str, None),
        Field("prompt_tokens", int),
        Field("gen_tokens", int),
        Field("depth", int),
        Field("n_ctx", int),
        Field("seed", int),
        Field("sampling", str),
        Field("ids", str),
        Field("repetitions", list, record=GenRepetition, many=True),
        Field("warmup", dict, None, record=GenWarmup),
        Field("load_ns", int),
        Field("memory", dict, record=GenMemory),
        Field("kv_cache", dict, record=KvCache),
        Field("power", dict, None, record=PowerSummary),
        Field("power_readings", dict, None, record=PowerReadings),
        Field("power_reason", str, None),
        Field("thermal", dict, None, record=ThermalReply),
        Field("phases", dict, None, record=RunPhases),
        Field("finished_at_unix", _NUM),
        Field("scenario", dict, None, record=ScenarioReply),
        Field("token_windows", list, [], record=GenTokenWindow, many=True),
    )
