"""Typed records that flow through edgeprof, and their versioned JSON form.

Owns: TensorSpec, Artifact, RunSpec, Device, Result and its typed sections (LatencyStats, Memory, Power,
Thermal, Fidelity, Environment, Settings, Transfer, RunWarning, NullReasons, Compute, OpsProfile, SweepInfo,
Scenario, Accuracy), the JSON schema version of a Result and the migrations from every older version.
Does not own: how records are produced (stats, runner, fidelity, opprofile, lab/scheduler), stored (store) or
shown (cli, report); the identity of a configuration (vocab.ConfigIdentity; Result.identity builds it).

Result JSON format history (keep this list next to the constant; Result.from_dict migrates step by step and
tests/data/golden/results/v<N>/ holds results each version wrote):
  1 — first format: latency_ms, throughput_ips, memory_mb, power, thermal, fidelity, environment, warnings,
      samples_ms, plus artifact, settings, transfer, reason and a free-form `extra` (null_reasons, compute, ops,
      sweep, stderr_tail).
  2 — every section typed (the dataclasses below); `extra` is gone: null_reasons, compute, ops, sweep and
      stderr_tail are top-level keys after reason; a sweep row's transfer is null instead of {}; every section
      has all its fields (null where not measured or not set). Migration: _migrate_1_to_2.
  3 — `io` after stderr_tail: what fed each input (generated with seed and range, a constant, a data file and
      its sha256), the shapes fed, the output shapes, load time and first-inference latency (IOSummary).
      Additive: an older row gets io = null. Migration: _migrate_2_to_3.
  4 — load scenarios (issue 12): a `scenario` section after stderr_tail (name and parameters, misses, validity,
      energy per frame at the duty cycle, scheduled and issued times); part of the configuration identity
      unless single-stream. Migration: _migrate_3_to_4 (every older result was single-stream).
  5 — accuracy mode (issue 11): an `accuracy` section after scenario (the data file and its sha256, samples,
      top-1 / top-5 against labels with the raw per-sample predictions, or per-output errors against expected
      outputs), and null_reasons.accuracy (why a pass that was asked for gave none). Additive: an older row has
      accuracy = null. Migration: _migrate_4_to_5.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from .errors import StoreError
from .vocab import RUN_DEFAULTS, SCENARIO_DEFAULTS, SINGLE_STREAM, ConfigIdentity, scenario_label


def finite_or_null(obj: Any) -> Any:
    """`obj` with every NaN / ±Infinity float replaced by None (JSON null), recursively."""
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite_or_null(v) for v in obj]
    return obj


def dumps_json(obj: Any, indent: int | None = None, sort_keys: bool = False) -> str:
    """The one way edgeprof writes JSON: valid JSON only (allow_nan=False), a non-finite number becomes null."""
    return json.dumps(finite_or_null(obj), indent=indent, sort_keys=sort_keys, allow_nan=False)

RESULT_SCHEMA_VERSION = 5

# dtypes a model input may have (numpy names); the agent maps them to its runtime.
DTYPES = ("float32", "float16", "int64", "int32", "int8", "uint8", "bool")


@dataclass(frozen=True)
class TensorSpec:
    """One model input or output.

    shape: ints for fixed dims, strings (symbolic names such as "batch") or None for dynamic dims.
    low/high: value range used to generate seeded random inputs (integers: [low, high) ).
    """

    name: str
    shape: tuple[int | str | None, ...]
    dtype: str = "float32"
    low: float = 0.0
    high: float = 1.0

    @property
    def dynamic_dims(self) -> list[int]:
        return [i for i, d in enumerate(self.shape) if not isinstance(d, int) or d < 0]

    def concrete(self, batch: int, overrides: dict[str, tuple[int, ...]] | None = None) -> tuple[int, ...]:
        """Concrete shape: an override wins; else dim 0 dynamic → batch; other dynamic dims need an override."""
        if overrides and self.name in overrides:
            return tuple(overrides[self.name])
        out: list[int] = []
        for i, d in enumerate(self.shape):
            if isinstance(d, int) and d >= 0:
                out.append(d)
            elif i == 0:
                out.append(batch)
            else:
                from .errors import ModelError

                raise ModelError(
                    f"input {self.name!r} has a dynamic dimension {i} ({d!r}) in shape {self.shape_str()}",
                    hint=f"give it with --input {self.name}=" + "x".join(
                        str(x) if isinstance(x, int) and x >= 0 else "N" for x in self.shape),
                )
        return tuple(out)

    def shape_str(self) -> str:
        return "[" + ", ".join("?" if d is None else str(d) for d in self.shape) + "]"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "low": self.low,
                "high": self.high}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TensorSpec:
        return cls(name=d["name"], shape=tuple(d["shape"]), dtype=d.get("dtype", "float32"),
                   low=float(d.get("low", 0.0)), high=float(d.get("high", 1.0)))


@dataclass(frozen=True)
class Artifact:
    """A model file ready to be pushed to a device (ONNX, TFLite, ...), named by its content."""

    path: str
    format: str  # "onnx" | "tflite"
    sha256: str
    size_bytes: int
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[str, ...]
    model_name: str
    source: str  # "bundled:<name>" | "file:<path>" | "builder:<path>:<fn>"
    precision: str = "fp32"
    export_options: dict[str, Any] = field(default_factory=dict)
    export_check: dict[str, Any] | None = None  # e.g. {"max_abs_error": 1e-6, "reference": "torch"}
    cache_hit: bool = False
    flops: int | None = None  # per inference at batch 1, counted on the graph
    params: int | None = None

    @property
    def extension(self) -> str:
        return {"onnx": "onnx", "tflite": "tflite"}.get(self.format, self.format)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["inputs"] = [t.to_dict() for t in self.inputs]
        d["outputs"] = list(self.outputs)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Artifact:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise StoreError(f"result section 'artifact' has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        data = dict(d)
        data["inputs"] = tuple(TensorSpec.from_dict(t) for t in d.get("inputs") or [])
        data["outputs"] = tuple(d.get("outputs") or [])
        return cls(**data)


@dataclass
class RunSpec:
    """What to measure: one model, one runtime configuration, on one device."""

    device: str
    model: str
    runtime: str = "onnxruntime"
    precision: str = "fp32"
    # defaults: the one home is edgeprof_agent.vocab.RUN_DEFAULTS (shared with the agent's RunRequest)
    batch: int = int(RUN_DEFAULTS["batch"])
    threads: int | None = None
    min_duration_s: float = float(RUN_DEFAULTS["min_duration_s"])
    min_queries: int = int(RUN_DEFAULTS["min_queries"])
    max_queries: int | None = int(RUN_DEFAULTS["max_queries"])  # bounds raw samples for very short queries
    warmup_s: float = float(RUN_DEFAULTS["warmup_s"])
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # what feeds the inputs (issue 11): a data file (.npz or a directory of NAME.npy), constants, value ranges
    input_data: str | None = None
    input_values: dict[str, Any] = field(default_factory=dict)
    input_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    # accuracy mode (edgeprof/accuracy.py): a pass over this .npz (inputs, labels or expected outputs)
    accuracy: str | None = None
    runtime_options: dict[str, Any] = field(default_factory=dict)
    seed: int = int(RUN_DEFAULTS["seed"])
    # telemetry (issue 4): idle power baseline before the model loads (0 = off), wait until the board is below
    # cooldown_c (None = don't wait, at most cooldown_timeout_s), power sampling rate (None = devices.yaml/default)
    idle_s: float = float(RUN_DEFAULTS["idle_s"])
    cooldown_c: float | None = None
    cooldown_timeout_s: float = float(RUN_DEFAULTS["cooldown_timeout_s"])
    power_rate_hz: float | None = None
    # load scenario (issue 12; vocab.SCENARIOS, docs/scenarios.md): rate for server / fixed-rate (queries/s),
    # samples per query (multi-stream), streams (offline), latency bound (server validity, --find-max-rate),
    # battery capacity (hours at this duty cycle). The server's arrivals are drawn with `seed`.
    scenario: str = SINGLE_STREAM
    rate: float | None = None
    samples_per_query: int = int(SCENARIO_DEFAULTS["samples_per_query"])
    streams: int = int(SCENARIO_DEFAULTS["streams"])
    latency_bound_ms: float | None = None
    battery_wh: float | None = None


def new_run_id() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# -- the Result and its sections -----------------------------------------------------------------------------------

RESULT_KEYS = (
    "schema_version", "run_id", "status", "created_at", "device", "model", "runtime", "precision", "batch",
    "threads", "latency_ms", "throughput_ips", "memory_mb", "power", "thermal", "fidelity", "environment",
    "warnings", "samples_ms",
)
# after RESULT_KEYS, in this order (schema 2: the sections that lived in `extra` are top-level and typed)
RESULT_TAIL_KEYS = ("artifact", "settings", "transfer", "reason", "null_reasons", "compute", "ops", "sweep",
                    "stderr_tail", "io", "scenario", "accuracy")

_S = TypeVar("_S", bound="Section")


@dataclass(frozen=True)
class Section:
    """A typed part of a Result: JSON out with `to_dict`, in with `from_dict`, which names an unknown field.

    Inner shapes that belong to a probe (a thermal snapshot, a power trace, a fidelity output row) stay plain
    JSON data inside a typed field. A field left out of the JSON takes its default (None for measurements the
    producer did not make)."""

    SECTION: ClassVar[str] = "section"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls: type[_S], d: Mapping[str, Any]) -> _S:
        if not isinstance(d, Mapping):
            raise StoreError(f"result section {cls.SECTION!r} is a {type(d).__name__}, not a mapping",
                             hint="the result JSON is damaged; rerun the measurement")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise StoreError(f"result section {cls.SECTION!r} has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in d
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise StoreError(f"result section {cls.SECTION!r} lacks field(s) {', '.join(map(repr, missing))}",
                             hint="the result JSON is damaged; rerun the measurement")
        return cls(**dict(d))


def _opt(cls: type[_S], v: Any) -> _S | None:
    return None if v is None else cls.from_dict(v)


def _plain(v: Any) -> Any:
    if isinstance(v, Section | Artifact):
        return v.to_dict()
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    return v


@dataclass(frozen=True)
class LatencyStats(Section):
    """stats.latency_summary: percentiles (linear interpolation), min/max/mean/std/cv in ms, the query count and
    the MLPerf early-stopping estimates (None with too few queries)."""

    SECTION: ClassVar[str] = "latency_ms"
    p50: float
    p90: float
    p95: float
    p97: float
    p99: float
    p999: float
    min: float
    max: float
    mean: float
    std: float
    cv: float | None
    n: int
    early_stop_p90: float | None = None
    early_stop_p99: float | None = None
    percentile_method: str = "linear interpolation (numpy default)"


@dataclass(frozen=True)
class SystemMemory(Section):
    """System-wide used memory (MemTotal - MemAvailable) sampled around the run (agent memory.py), in bytes."""

    SECTION: ClassVar[str] = "memory_mb.system"
    before_bytes: int | None = None
    peak_bytes: int | None = None
    peak_delta_bytes: int | None = None
    total_bytes: int | None = None
    n_samples: int | None = None
    method: str | None = None


@dataclass(frozen=True)
class Memory(Section):
    """MB of the agent's process around the model load (agent memory.py), system memory, the artifact's size."""

    SECTION: ClassVar[str] = "memory_mb"
    rss_before_load: float | None = None
    rss_after_load: float | None = None
    peak_rss: float | None = None
    peak_source: str | None = None
    system: SystemMemory | None = None  # system-wide (Jetson: the GPU shares it)
    gpu_process_bytes: int | None = None
    artifact_size: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Memory:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, system=_opt(SystemMemory, flat.system))


@dataclass(frozen=True)
class PowerTrace(Section):
    """Watts over time (seconds from the start of its window), downsampled by the agent."""

    SECTION: ClassVar[str] = "power trace"
    t_s: list[float] = field(default_factory=list)
    w: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Power(Section):
    """The agent's power summary (power.py) over exactly the timed window, with where it came from.

    `rail` is the total (one rail, or a labelled sum); `rails` holds each rail's mean W, never summed onto it.
    `trace`/`idle_trace` are {"t_s": [...], "w": [...]} (downsampled). achieved_gflops/gflops_per_watt are
    added on the host when the FLOPs are known."""

    SECTION: ClassVar[str] = "power"
    source: str | None = None
    rail: str | None = None
    total_kind: str | None = None  # "rail" | "sum-of-rails" | ...
    covers: str | None = None
    method: str | None = None  # "trapezoid" | "counter"
    rate_hz: float | None = None
    rate_hz_requested: float | None = None
    window_s: float | None = None
    t0_ns: int | None = None
    t1_ns: int | None = None
    n_samples: int | None = None
    n_dropped_nonpositive: int | None = None
    n_read_errors: int | None = None
    mean_w: float | None = None
    p95_w: float | None = None
    idle_w: float | None = None
    dynamic_w: float | None = None
    energy_j: float | None = None
    energy_mj_per_inference: float | None = None
    inferences_per_joule: float | None = None
    perf_per_watt: float | None = None
    rails: dict[str, float] | None = None
    trace: PowerTrace | None = None
    idle_trace: PowerTrace | None = None
    idle_note: str | None = None
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
    achieved_gflops: float | None = None
    gflops_per_watt: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Power:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, trace=_opt(PowerTrace, flat.trace),
                                   idle_trace=_opt(PowerTrace, flat.idle_trace))


@dataclass(frozen=True)
class ThermalSnapshot(Section):
    """One thermal snapshot (agent thermal.snapshot): what the board showed at one moment. What each probe
    reports (zones, cpufreq, nvpmodel, jetson_clocks, Pi throttling, NVML GPUs) stays its plain data."""

    SECTION: ClassVar[str] = "thermal snapshot"
    t_ns: int | None = None
    unix_time: float | None = None
    zones: dict[str, Any] | None = None
    cpufreq: dict[str, Any] | None = None
    governors: list[str] | None = None
    gpu_freq: dict[str, Any] | None = None
    emc_hz: int | None = None
    fan: dict[str, Any] | None = None
    nvpmodel: dict[str, Any] | None = None  # {"name", "id"}
    jetson_clocks: dict[str, Any] | None = None  # {"locked", ...} (inferred)
    rpi: dict[str, Any] | None = None  # {"throttled": {"raw", "now", "has_occurred", ...}, "temp_c", ...}
    nvml: list[dict[str, Any]] | None = None  # one per GPU: index, clock_reasons, ...
    max_temp_c: float | None = None

    @property
    def rpi_throttled(self) -> dict[str, Any] | None:
        return self.rpi.get("throttled") if self.rpi else None


@dataclass(frozen=True)
class CooldownWait(Section):
    """--cooldown: whether the board got below `below_c` (None: no sensor), from and to which °C, how long."""

    SECTION: ClassVar[str] = "thermal cooldown"
    cooled: bool | None = None
    start_c: float | None = None
    end_c: float | None = None
    waited_s: float = 0.0
    below_c: float | None = None


@dataclass(frozen=True)
class Thermal(Section):
    """Thermal snapshots before and after the run (agent thermal.py) and the --cooldown wait when there was one."""

    SECTION: ClassVar[str] = "thermal"
    before: ThermalSnapshot | None = None
    after: ThermalSnapshot | None = None
    cooldown: CooldownWait | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Thermal:
        flat = super().from_dict(d)
        return cls(before=_opt(ThermalSnapshot, flat.before), after=_opt(ThermalSnapshot, flat.after),
                   cooldown=_opt(CooldownWait, flat.cooldown))


@dataclass(frozen=True)
class Fidelity(Section):
    """The device's outputs against a reference (fidelity.py): errors, cosine similarity, top-1 agreement,
    the threshold applied, whether it passed and why not. `outputs` holds one plain row per output."""

    SECTION: ClassVar[str] = "fidelity"
    max_abs_error: float | None = None
    mean_abs_error: float | None = None
    cosine_similarity: float | None = None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    top1_agreement: float | None = None
    top1_rows: int | None = None
    top1_basis: str | None = None
    threshold: dict[str, Any] | None = None
    ok: bool = False
    problems: list[str] = field(default_factory=list)
    reference: str | None = None
    inputs: dict[str, Any] | None = None


@dataclass(frozen=True)
class Environment(Section):
    """Where the run happened: the device's facts (the agent's facts reply), the host, the runtime's own
    description, versions, the model's hash and export options, thread variables and the clock used."""

    SECTION: ClassVar[str] = "environment"
    device: dict[str, Any] = field(default_factory=dict)
    host: dict[str, Any] = field(default_factory=dict)
    runtime: dict[str, Any] = field(default_factory=dict)
    agent_version: str | None = None
    edgeprof_version: str | None = None
    model_sha256: str | None = None
    export_options: dict[str, Any] | None = None
    thread_env: dict[str, Any] | None = None
    clock: dict[str, Any] | str | None = None

    def fact(self, key: str) -> Any:
        """One of the device's facts (None when the agent did not report it)."""
        return self.device.get(key)

    @property
    def runtime_version(self) -> str | None:
        """The runtime's version as the agent's backend described it."""
        return self.runtime.get("version")

    @property
    def runtime_providers(self) -> list[str]:
        """onnxruntime's execution providers in use (empty for other runtimes)."""
        return list(self.runtime.get("providers") or [])


@dataclass(frozen=True)
class Settings(Section):
    """How the run was made: the run settings (vocab.SETTINGS; a sweep row keeps its cell's), the concrete
    inputs sent, and what the agent reported about the loop (window, why it stopped, warm-up, load time)."""

    SECTION: ClassVar[str] = "settings"
    min_duration_s: float | None = None
    min_queries: int | None = None
    max_queries: int | None = None
    warmup_s: float | None = None
    seed: int | None = None
    inputs: list[dict[str, Any]] | None = None
    runtime_options: dict[str, Any] | None = None
    window_s: float | None = None
    stopped_by: str | None = None
    warmup: dict[str, Any] | None = None
    load_s: float | None = None
    idle_s: float | None = None
    cooldown_c: float | None = None
    cooldown_timeout_s: float | None = None
    power_rate_hz: float | None = None
    timeout_s: float | None = None
    retries: int | None = None
    retry_backoff_s: float | None = None
    lease_wait_s: float | None = None
    opset: int | None = None  # --opset / the sweep's opset: asked for (the exported file's is in export_options)
    accuracy: str | None = None  # the accuracy data file (--accuracy); the accuracy section has its sha256
    calibration: str | None = None  # int8 calibration samples (--calibration); None: seeded random inputs
    input_data: str | None = None  # what feeds the inputs; the io section says what each input got
    input_values: dict[str, Any] | None = None
    input_ranges: dict[str, Any] | None = None
    latency_bound_ms: float | None = None  # load scenarios (the scenario section has what the run used)
    samples_per_query: int | None = None
    streams: int | None = None
    battery_wh: float | None = None


@dataclass(frozen=True)
class Transfer(Section):
    """Bytes moved to the device: agent zipapp, model artifact, both."""

    SECTION: ClassVar[str] = "transfer"
    agent_bytes: int = 0
    artifact_bytes: int = 0
    total_bytes: int = 0


@dataclass(frozen=True)
class RunWarning(Section):
    """A warning with advice, by code (high_cv, few_queries, fidelity, rpi_throttled_now, ...)."""

    SECTION: ClassVar[str] = "warnings"
    code: str
    message: str


@dataclass(frozen=True)
class NullReasons(Section):
    """Why a section is null: each measurement that was not made says why (None when it was made)."""

    SECTION: ClassVar[str] = "null_reasons"
    power: str | None = None
    thermal: str | None = None
    fidelity: str | None = None
    accuracy: str | None = None  # set only when an accuracy pass was asked for and gave no accuracy


@dataclass(frozen=True)
class Compute(Section):
    """Achieved compute: FLOPs per inference (export/flops.py) × inferences/s."""

    SECTION: ClassVar[str] = "compute"
    flops_per_inference: int
    achieved_gflops: float
    basis: str = "FLOPs per inference (batch 1, export/flops.py) x inferences/s"


@dataclass(frozen=True)
class OpsProfile(Section):
    """A per-op profile (opprofile.summarize): nodes and op types with ms per run and share, plain rows."""

    SECTION: ClassVar[str] = "ops"
    available: bool = False
    source: str | None = None
    reason: str | None = None
    iterations: int = 0
    profiled_ms_per_run: float | None = None
    run_ms_per_run: float | None = None
    nodes: list[dict[str, Any]] = field(default_factory=list)
    op_types: list[dict[str, Any]] = field(default_factory=list)
    op_counts: dict[str, int] | None = None
    providers: list[str] | None = None
    note: str | None = None


@dataclass(frozen=True)
class IOTensor(Section):
    """One input or output as run: the shape fed (or returned), dtype, the model's declared shape, and for an
    input where its values came from: source "generated" (seed, low, high), "value" (every element) or "data"
    (file and its sha256). An output has source None."""

    SECTION: ClassVar[str] = "io tensor"
    name: str
    shape: list[int]
    dtype: str
    declared: str | None = None
    source: str | None = None
    seed: int | None = None
    low: float | None = None
    high: float | None = None
    value: float | int | bool | None = None
    file: str | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class IOSummary(Section):
    """The I/O of a run: inputs as fed, outputs as returned (names from the artifact), the batch fed (dim 0 of
    every batched input), the model load time (s, the agent's, including the first inference) and the first
    inference's latency (ms; outside the timed loop)."""

    SECTION: ClassVar[str] = "io"
    inputs: list[IOTensor] = field(default_factory=list)
    outputs: list[IOTensor] = field(default_factory=list)
    batch: int | None = None
    batched: list[str] = field(default_factory=list)
    load_s: float | None = None
    first_run_ms: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> IOSummary:
        flat = super().from_dict(d)
        ins: list[Any] = list(flat.inputs or [])  # plain JSON rows until here
        outs: list[Any] = list(flat.outputs or [])
        return dataclasses.replace(flat, inputs=[IOTensor.from_dict(t) for t in ins],
                                   outputs=[IOTensor.from_dict(t) for t in outs])


@dataclass(frozen=True)
class SweepInfo(Section):
    """Where a sweep row belongs: its sweep and cell, the cell's budgets, attempts, timing and controller."""

    SECTION: ClassVar[str] = "sweep"
    sweep_id: str | None = None
    cell_id: str | None = None
    model_label: str | None = None
    attempts: int | None = None
    budgets: list[str] = field(default_factory=list)
    started_at_unix: float | None = None
    ended_at_unix: float | None = None
    measure_started_at_unix: float | None = None
    controller: str | None = None


@dataclass(frozen=True)
class Scenario(Section):
    """The load scenario a run was made under and what it gave (stats.scenario_summary; docs/scenarios.md).

    Parameters: name (vocab.SCENARIOS), rate_qps (server, fixed-rate), samples_per_query (multi-stream),
    streams (offline), latency_bound_ms, seed (server arrivals), battery_wh. Results: queries and samples
    issued, how (mode), misses and miss_rate (fixed-rate, % of queries), valid / valid_reason (server: early-
    stopping p99 against the bound; fixed-rate: no misses), sustained_qps and samples_per_s over the window,
    energy per frame (window energy / queries, idle gaps included) and its part above the idle baseline,
    battery_hours, issue lateness (issued - scheduled: p50/p99/max ms) and the raw scheduled/issued times (ms
    from the schedule's start)."""

    SECTION: ClassVar[str] = "scenario"
    name: str = SINGLE_STREAM
    rate_qps: float | None = None
    samples_per_query: int | None = None
    streams: int | None = None
    latency_bound_ms: float | None = None
    seed: int | None = None
    battery_wh: float | None = None
    queries: int | None = None
    samples: int | None = None
    mode: str | None = None
    misses: int | None = None
    miss_rate: float | None = None
    valid: bool | None = None
    valid_reason: str | None = None
    early_stop_p99_ms: float | None = None
    sustained_qps: float | None = None
    samples_per_s: float | None = None
    j_per_frame: float | None = None
    j_above_idle_per_frame: float | None = None
    battery_hours: float | None = None
    lateness_ms: dict[str, float] | None = None
    scheduled_ms: list[float] = field(default_factory=list)
    issued_ms: list[float] = field(default_factory=list)

    @property
    def label(self) -> str | None:
        """vocab.scenario_label: None for single-stream."""
        return scenario_label(self.name, self.rate_qps, self.samples_per_query, self.streams)


@dataclass(frozen=True)
class OutputError(Section):
    """One output against the expected outputs of an accuracy file: mean and max absolute error, RMSE and the
    mean cosine similarity over the samples with finite values, and each sample's mean absolute error (raw)."""

    SECTION: ClassVar[str] = "accuracy error"
    output: str
    samples: int
    mean_abs_error: float | None = None
    rmse: float | None = None
    max_abs_error: float | None = None
    cosine_similarity: float | None = None
    per_sample_mean_abs: list[float | None] = field(default_factory=list)


@dataclass(frozen=True)
class Accuracy(Section):
    """An accuracy pass (edgeprof/accuracy.py, docs/accuracy.md): every sample of the data file through the
    artifact that was measured, on the device, after the timed loop.

    Labels: `top1` / `top5` in % of `samples` (a sample whose output was not finite counts as wrong; top5 is
    None below 5 classes), scored on `output`; raw: `predicted` (each sample's top class, None where not finite)
    and `label_rank` (where the label was among the top 5: 0 = top-1, None = not in them). Expected outputs:
    `errors`, one per output. `padded`: copies of the last sample that filled the last inference (not scored)."""

    SECTION: ClassVar[str] = "accuracy"
    data: str
    sha256: str
    samples: int
    where: str = "device: every sample through the measured artifact, after the timed loop"
    inferences: int | None = None
    per_inference: int | None = None
    padded: int = 0
    duration_s: float | None = None
    output: str | None = None
    classes: int | None = None
    top1: float | None = None
    top5: float | None = None
    predicted: list[int | None] = field(default_factory=list)
    label_rank: list[int | None] = field(default_factory=list)
    errors: list[OutputError] = field(default_factory=list)
    nonfinite: int = 0

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Accuracy:
        flat = super().from_dict(d)
        rows: list[Any] = list(flat.errors or [])  # plain JSON rows until here
        return dataclasses.replace(flat, errors=[OutputError.from_dict(e) for e in rows])



@dataclass
class Result:
    """One measured run. `to_dict()` has the top-level keys RESULT_KEYS then RESULT_TAIL_KEYS."""

    run_id: str
    status: str  # "ok" | "failed" | "skipped"
    created_at: str
    device: str
    model: str
    runtime: str
    precision: str
    batch: int
    threads: int | None
    latency_ms: LatencyStats | None
    throughput_ips: float | None
    memory_mb: Memory | None
    power: Power | None
    thermal: Thermal | None
    fidelity: Fidelity | None
    environment: Environment
    warnings: list[RunWarning]
    samples_ms: list[float]
    artifact: Artifact | None = None
    settings: Settings = field(default_factory=Settings)
    transfer: Transfer | None = None
    reason: str | None = None  # for failed / skipped
    null_reasons: NullReasons = field(default_factory=NullReasons)
    compute: Compute | None = None
    ops: OpsProfile | None = None
    sweep: SweepInfo | None = None  # a sweep row: its sweep, cell and budgets
    stderr_tail: str | None = None  # a failed row: the end of the device's stderr or the traceback
    io: IOSummary | None = None  # inputs as fed, outputs, load and first-inference time (None: not recorded)
    scenario: Scenario = field(default_factory=Scenario)  # the load scenario (single-stream unless asked)
    accuracy: Accuracy | None = None  # the accuracy pass (--accuracy): None when not asked or not made
    schema_version: int = RESULT_SCHEMA_VERSION

    @property
    def identity(self) -> ConfigIdentity:
        """The configuration this result measured (vocab.ConfigIdentity: store, compare, reports, sweeps)."""
        a = self.artifact
        content = None
        if a is not None:
            sha = a.export_options.get("fp32_sha256") or a.sha256
            content = f"sha256:{sha}" if a.source.startswith("file:") and sha else a.source
        fed = self.settings.inputs
        shapes = tuple((str(i["name"]), tuple(int(d) for d in i["shape"])) for i in fed) if fed else None
        return ConfigIdentity(self.device, self.model, self.runtime, self.precision, self.batch, self.threads,
                              a.source if a else None, content, shapes, scenario=self.scenario.label)

    def to_dict(self) -> dict[str, Any]:
        return {k: _plain(getattr(self, k)) if k != "warnings" else [w.to_dict() for w in self.warnings]
                for k in RESULT_KEYS + RESULT_TAIL_KEYS}

    def to_json(self, indent: int | None = None) -> str:
        return dumps_json(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Result:
        """A Result from its JSON of any schema version up to RESULT_SCHEMA_VERSION, migrated step by step."""
        version = d.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise StoreError("result has no integer schema_version; it was not written by edgeprof",
                             hint="read only files written by edgeprof deploy --json or results show --json")
        if version > RESULT_SCHEMA_VERSION:
            raise StoreError(
                f"result {d.get('run_id', '?')} has schema version {version}, newer than this edgeprof "
                f"understands ({RESULT_SCHEMA_VERSION})",
                hint="upgrade edgeprof (pip install -U edgeprof) to read it",
            )
        data = dict(d)
        while data["schema_version"] < RESULT_SCHEMA_VERSION:
            data = _MIGRATIONS[data["schema_version"]](data)
        unknown = sorted(set(data) - set(RESULT_KEYS + RESULT_TAIL_KEYS))
        if unknown:
            raise StoreError(f"result {data.get('run_id', '?')} has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        kw: dict[str, Any] = {k: v for k, v in data.items() if k != "schema_version"}
        for key, section in _OPTIONAL_SECTIONS.items():
            v = kw.pop(key, None)
            kw[key] = None if v is None else section.from_dict(v)
        kw["environment"] = Environment.from_dict(kw.pop("environment", None) or {})
        kw["settings"] = Settings.from_dict(kw.pop("settings", None) or {})
        kw["null_reasons"] = NullReasons.from_dict(kw.pop("null_reasons", None) or {})
        kw["scenario"] = Scenario.from_dict(kw.pop("scenario", None) or {})
        kw["warnings"] = [RunWarning.from_dict(w) for w in kw.pop("warnings", None) or []]
        kw["samples_ms"] = list(kw.pop("samples_ms", None) or [])
        art = kw.pop("artifact", None)
        kw["artifact"] = None if art is None else Artifact.from_dict(art)
        try:
            return cls(**kw)
        except TypeError as e:
            raise StoreError(f"result {data.get('run_id', '?')} does not fit schema {RESULT_SCHEMA_VERSION}: {e}",
                             hint="the result JSON is damaged; rerun the measurement") from None

    def warn(self, code: str, message: str) -> None:
        self.warnings.append(RunWarning(code, message))

    def warning_codes(self) -> list[str]:
        return [w.code for w in self.warnings]


_OPTIONAL_SECTIONS: dict[str, type[Section]] = {
    "latency_ms": LatencyStats, "memory_mb": Memory, "power": Power, "thermal": Thermal, "fidelity": Fidelity,
    "transfer": Transfer, "compute": Compute, "ops": OpsProfile, "sweep": SweepInfo, "io": IOSummary,
    "accuracy": Accuracy,
}


def _migrate_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 → 2: extra.null_reasons/compute/ops/sweep/stderr_tail become top-level sections; `extra` goes.
    A sweep row's empty transfer ({}) becomes null."""
    out = {k: v for k, v in d.items() if k != "extra"}
    extra = dict(d.get("extra") or {})
    for key in ("null_reasons", "compute", "ops", "sweep", "stderr_tail"):
        out[key] = extra.pop(key, None)
    if extra:
        raise StoreError(f"result {d.get('run_id', '?')} (schema 1) has unknown extra section(s) "
                         f"{', '.join(map(repr, sorted(extra)))}",
                         hint="it was not written by edgeprof 1.x; remove those sections to read it")
    if not out.get("transfer"):
        out["transfer"] = None
    out["schema_version"] = 2
    return out


def _migrate_2_to_3(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 → 3: additive; a row written before the io section has none (io = null)."""
    out = dict(d)
    out.setdefault("io", None)
    out["schema_version"] = 3
    return out


def _migrate_3_to_4(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 → 4: a `scenario` section; every result before it was measured single-stream."""
    out = dict(d)
    out["scenario"] = {"name": SINGLE_STREAM}
    out["schema_version"] = 4
    return out


def _migrate_4_to_5(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 4 → 5: additive; a row written before accuracy mode has none (accuracy = null)."""
    out = dict(d)
    out.setdefault("accuracy", None)
    out["schema_version"] = 5
    return out


_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3,
                                                                       3: _migrate_3_to_4, 4: _migrate_4_to_5}


@dataclass
class Device:
    """One board in the lab (from devices.yaml), or the built-in `local` device (this machine)."""

    name: str
    kind: str = "ssh"  # "local" | "ssh"
    host: str | None = None
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    python: str = "python3"
    workdir: str = "~/.cache/edgeprof"
    env: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    power: dict[str, Any] | None = None
    sysfs_root: str = "/"
    connect_timeout: float = 10.0
    known_hosts: str | None = None  # extra lab known_hosts file
    source: str | None = None  # "devices.yaml:14" where it was defined
    controller: str | None = None  # lab queue: the controller host whose worker drives it (queue lab.<controller>)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def local_device(python: str | None = None) -> Device:
    """The built-in device `local`: this machine, agent run as a subprocess with this interpreter."""
    import sys

    return Device(name="local", kind="local", python=python or sys.executable, workdir="~/.cache/edgeprof")
