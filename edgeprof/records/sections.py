"""The typed sections of a Result (LatencyStats, Fidelity, Environment, Settings, Transfer, NullReasons, Compute,
OpsProfile, IOSummary, SweepInfo, Scenario, Accuracy), and, re-exported, those that hold what the agent sends
(Memory, SystemMemory, Power, PowerTrace, Thermal, ThermalSnapshot, CooldownWait, RunWarning: rendered from the
agent's records in wire_sections.py) and the Section base (section.py).

Owns: each host-made section's fields and its JSON in / out (Section.from_dict names an unknown field). Does not
own: the Result that holds them (result.py), the sections rendered from the agent's records (wire_sections.py) or
how they are computed (stats, fidelity, accuracy, opprofile).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..vocab import SETTINGS, SINGLE_STREAM, SWEEP_SETTINGS, scenario_label
from .device_facts import DeviceFacts, device_facts_from_dict
from .options import ExportOptions, RuntimeFacts, export_options_from_dict
from .samples import Samples
from .section import Section, _opt, _plain
from .wire_sections import (
    CooldownWait,
    CpuFreq,
    FanState,
    GpuFreq,
    JetsonClocks,
    Memory,
    NvmlGpu,
    NvpModel,
    Power,
    PowerTrace,
    RpiState,
    RpiThrottled,
    RunWarning,
    SystemMemory,
    Thermal,
    ThermalSnapshot,
    ThermalZone,
)

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = [
    "Accuracy", "Compute", "CooldownWait", "CpuFreq", "Environment", "FanState", "Fidelity", "GpuFreq",
    "IOSummary", "IOTensor", "JetsonClocks", "LatencyStats", "Memory", "NullReasons", "NvmlGpu", "NvpModel",
    "OpsProfile", "OutputError", "Power", "PowerTrace", "RpiState", "RpiThrottled", "RunWarning", "Scenario",
    "Section", "Settings", "SweepInfo", "SystemMemory", "Thermal", "ThermalSnapshot", "ThermalZone",
    "Transfer", "_plain",
]
_S = TypeVar("_S", bound=Section)


@dataclass(frozen=True)
class LatencyStats(Section):
    """stats.latency_summary: percentiles (linear interpolation), min/max/mean/std/cv in ms, the query count and
    the MLPerf early-stopping estimates (None with too few queries), computed by edgeprof from the raw samples.

    Schema 8: `source` says who computed the statistics — None: edgeprof, from the raw samples (samples_ms);
    "benchmark_model": LiteRT's benchmark_model on a phone, which prints its own summary and no per-run times.
    Then the statistics it did not print are None and `absent` says why for each (statistic → reason: never
    computed from a summary); `p5` is benchmark_model's own (edgeprof's summary has none). p50 and p95 are None
    only there too, where the phone's build printed no percentiles (TensorFlow-tree benchmark_model builds print
    count/min/max/avg/std only); `absent` says so."""

    SECTION: ClassVar[str] = "latency_ms"
    p50: float | None
    p90: float | None
    p95: float | None
    p97: float | None
    p99: float | None
    p999: float | None
    min: float
    max: float
    mean: float
    std: float
    cv: float | None
    n: int
    early_stop_p90: float | None = None
    early_stop_p99: float | None = None
    percentile_method: str = "linear interpolation (numpy default)"
    p5: float | None = None
    source: str | None = None
    absent: dict[str, str] | None = None

    def absent_reason(self, statistic: str) -> str | None:
        """Why `statistic` (p99, samples, cv, ...) was not measured, when the producer said so."""
        return (self.absent or {}).get(statistic)


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
    """Where the run happened: the device's facts (the agent's facts reply), the host, the runtime as its backend
    described itself (RuntimeFacts), versions, the model's hash and export options (the artifact's, typed by kind:
    records/options.py), thread variables and the clock used."""

    SECTION: ClassVar[str] = "environment"
    device: DeviceFacts | None = None  # schema 10: a board's (the agent's facts), a phone's, or none read
    host: dict[str, Any] = field(default_factory=dict)
    runtime: RuntimeFacts | None = None  # schema 12: typed; None: no runtime was loaded (a failed or skipped row)
    agent_version: str | None = None
    edgeprof_version: str | None = None
    model_sha256: str | None = None
    export_options: ExportOptions | None = None
    thread_env: dict[str, Any] | None = None
    clock: dict[str, Any] | str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Environment:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, device=device_facts_from_dict(flat.device),
                                   runtime=_opt(RuntimeFacts, flat.runtime),
                                   export_options=export_options_from_dict(flat.export_options))

    def fact(self, key: str) -> Any:
        """One of the device's facts by its name (None when none were read, or this one was not; a name the
        device's kind does not have is None too)."""
        return getattr(self.device, key, None) if self.device is not None else None

    @property
    def runtime_version(self) -> str | None:
        """The runtime's version as the agent's backend described it."""
        return self.runtime.version if self.runtime is not None else None

    @property
    def runtime_providers(self) -> list[str]:
        """onnxruntime's execution providers in use (empty for other runtimes)."""
        return list(self.runtime.providers or []) if self.runtime is not None else []


def _with_run_settings(cls: type[_S]) -> type[_S]:
    """Give the section a field for every setting of vocab's tables (RunSettings, then SweepPolicy: a sweep row keeps
    its cell's), first, in the tables' order; None: not stored (a result written before the setting existed, or a
    setting its run did not keep)."""
    own = inspect.get_annotations(cls)
    cls.__annotations__ = {**{name: "Any" for name in SWEEP_SETTINGS if name not in own}, **own}
    for name in SWEEP_SETTINGS:
        setattr(cls, name, None)
    return cls


@dataclass(frozen=True)
@_with_run_settings
class Settings(Section):
    """How the run was made: every run setting and the sweep policy (a field per entry of vocab's tables, RunSettings
    and SweepPolicy, added by _with_run_settings: a deploy keeps each run setting by the table's `stored` rule, see
    `of_run`; a sweep's skip or failed row keeps its cell's), the concrete inputs sent, and what the agent reported about the loop (window, why it
    stopped, warm-up, load time)."""

    SECTION: ClassVar[str] = "settings"
    inputs: list[dict[str, Any]] | None = None
    window_s: float | None = None
    stopped_by: str | None = None
    warmup: dict[str, Any] | None = None
    load_s: float | None = None

    @classmethod
    def of_run(cls, spec: RunSpec, **reported: Any) -> Settings:
        """A measurement's settings section: each run setting of `spec` by its `stored` rule (vocab.Setting), and
        `reported` (inputs, window_s, stopped_by, warmup, load_s). The sweep policy is not a run's (None)."""
        kept: dict[str, Any] = {}
        for name, setting in SETTINGS.items():
            value = getattr(spec, name)
            rule = setting.stored
            if rule == "never" or (rule == "int8" and spec.precision != "int8") \
                    or (rule == "scenario" and spec.scenario == SINGLE_STREAM) or (rule == "given" and (not value or value == setting.default)):
                value = None
            kept[name] = {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()} \
                if isinstance(value, dict) else value
        return cls(**kept, **reported)


@dataclass(frozen=True)
class Transfer(Section):
    """Bytes moved to the device: agent zipapp, model artifact, both."""

    SECTION: ClassVar[str] = "transfer"
    agent_bytes: int = 0
    artifact_bytes: int = 0
    total_bytes: int = 0


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
    from the schedule's start, to 0.1 µs; Samples, stored packed from schema 9)."""

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
    scheduled_ms: Sequence[float] = field(default_factory=Samples)  # held as Samples (samples.py)
    issued_ms: Sequence[float] = field(default_factory=Samples)

    def __post_init__(self) -> None:
        for name in ("scheduled_ms", "issued_ms"):
            if not isinstance(getattr(self, name), Samples):  # lists given
                object.__setattr__(self, name, Samples(getattr(self, name)))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        data = dict(d) if isinstance(d, Mapping) else d
        if isinstance(data, dict):
            for name in ("scheduled_ms", "issued_ms"):
                if name in data:
                    data[name] = Samples.from_json(data[name], f"scenario.{name}")
        return super().from_dict(data)

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
    """An accuracy pass (edgeprof/evaluation/accuracy.py, docs/accuracy.md): every sample of the data file through the
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
