# Rendered from the FIELDS of messages.py by tests/unit/test_messages.py (run it to rewrite); do not edit.
from typing import Any, TypeVar

_R = TypeVar("_R", bound=Record)

class MessageError(ValueError):
    where: str
    problem: str
    def __init__(self, where: str, problem: str) -> None: ...

REQUIRED: object
PACKED_INT64: Any  # record.PackedInt64: encode(values) -> dict, decode(raw, where) -> int64 array

class Field:
    name: str
    types: tuple[type, ...]
    default: Any
    record: type[Record] | None
    many: bool
    nullable: bool
    def __init__(self, name: str, types: Any, default: Any = ..., record: type[Record] | None = ...,
                 many: bool = ..., nullable: bool = ..., keyed: bool = ...) -> None: ...

class Record:
    NAME: str
    FIELDS: tuple[Field, ...]
    OMIT_NONE: bool
    def __init__(self, **values: Any) -> None: ...
    @classmethod
    def from_dict(cls: type[_R], data: Any, where: str | None = None) -> _R: ...
    def to_dict(self) -> dict[str, Any]: ...

class HelloRequest(Record):
    protocol: int
    host: str
    def __init__(self, *, protocol: int, host: str = ...) -> None: ...

class HelloReply(Record):
    agent_version: str
    protocol: int
    python: str
    pid: int
    workdir: str
    sysfs_root: str
    def __init__(self, *, agent_version: str, protocol: int, python: str, pid: int, workdir: str, sysfs_root: str) -> None: ...

class FactsRequest(Record):
    runtimes: bool
    def __init__(self, *, runtimes: bool = ...) -> None: ...

class L4TRelease(Record):
    release: str
    raw: str
    def __init__(self, *, release: str, raw: str) -> None: ...

class RuntimeFact(Record):
    version: str | None
    providers: list[str] | None
    error: str | None
    cuda: bool | None
    def __init__(self, *, version: str | None = ..., providers: list[str] | None = ..., error: str | None = ..., cuda: bool | None = ...) -> None: ...

class PowerSourceFact(Record):
    source: str | None
    available: bool | None
    reason: str | None
    rail: str | None
    rails: list[Any] | None
    total_kind: str | None
    covers: str | None
    method: str | None
    max_rate_hz: float | None
    detail: dict[str, Any] | None
    def __init__(self, *, source: str | None = ..., available: bool | None = ..., reason: str | None = ..., rail: str | None = ..., rails: list[Any] | None = ..., total_kind: str | None = ..., covers: str | None = ..., method: str | None = ..., max_rate_hz: float | None = ..., detail: dict[str, Any] | None = ...) -> None: ...

class Facts(Record):
    hostname: str
    arch: str
    cpu: str
    cores: int | None
    memory_mb: float | None
    os: str
    kernel: str
    python: str
    python_executable: str
    l4t: L4TRelease | None
    board_model: str | None
    agent_version: str
    protocol: int
    env: dict[str, Any]
    workdir: str | None
    disk_free_mb: float | None
    runtimes: dict[str, RuntimeFact] | None
    gpus: list[dict[str, Any]] | None
    gpus_error: str | None
    power_sources: list[Any] | dict[str, Any] | None
    def __init__(self, *, hostname: str, arch: str, cpu: str, cores: int | None = ..., memory_mb: float | None = ..., os: str, kernel: str, python: str, python_executable: str, l4t: L4TRelease | None = ..., board_model: str | None = ..., agent_version: str, protocol: int, env: dict[str, Any] = ..., workdir: str | None = ..., disk_free_mb: float | None = ..., runtimes: dict[str, RuntimeFact] | None = ..., gpus: list[dict[str, Any]] | None = ..., gpus_error: str | None = ..., power_sources: list[Any] | dict[str, Any] | None = ...) -> None: ...
    def runtime(self, module: str) -> RuntimeFact | None: ...
    def power_source_facts(self) -> list[PowerSourceFact]: ...

class InputSpec(Record):
    name: str
    shape: list[int]
    dtype: str
    low: float | None
    high: float | None
    value: bool | float | None
    data: str | None
    def __init__(self, *, name: str, shape: list[int], dtype: str = ..., low: float | None = ..., high: float | None = ..., value: bool | float | None = ..., data: str | None = ...) -> None: ...

class AccuracySpec(Record):
    data: ArtifactRef
    samples: int
    inputs: list[str]
    per_inference: int
    stacked: bool
    topk_output: int | None
    k: int
    expected: list[int]
    def __init__(self, *, data: ArtifactRef, samples: int, inputs: list[str], per_inference: int = ..., stacked: bool = ..., topk_output: int | None = ..., k: int = ..., expected: list[int] = ...) -> None: ...

class RunRequest(Record):
    runtime: str
    artifact: ArtifactRef | None
    inputs: list[InputSpec]
    input_data: ArtifactRef | None
    seed: int
    batch: int
    threads: int | None
    runtime_options: dict[str, Any]
    warmup_s: float
    min_duration_s: float
    min_queries: int
    max_queries: int | None
    power: PowerConfig | None
    idle_s: float
    cooldown_c: float | None
    cooldown_timeout_s: float
    return_outputs: bool | str
    profile_ops: bool
    profile_iterations: int
    lease_token: str | None
    scenario: ScenarioSpec | None
    accuracy: AccuracySpec | None
    gpu: int | None
    sessions: int
    def __init__(self, *, runtime: str, artifact: ArtifactRef | None = ..., inputs: list[InputSpec] = ..., input_data: ArtifactRef | None = ..., seed: int = ..., batch: int = ..., threads: int | None = ..., runtime_options: dict[str, Any] = ..., warmup_s: float = ..., min_duration_s: float = ..., min_queries: int = ..., max_queries: int | None = ..., power: PowerConfig | None = ..., idle_s: float = ..., cooldown_c: float | None = ..., cooldown_timeout_s: float = ..., return_outputs: bool | str = ..., profile_ops: bool = ..., profile_iterations: int = ..., lease_token: str | None = ..., scenario: ScenarioSpec | None = ..., accuracy: AccuracySpec | None = ..., gpu: int | None = ..., sessions: int = ...) -> None: ...

class Warmup(Record):
    iterations: int
    duration_s: float
    steady: bool
    reason: str
    last_ms: float | None
    def __init__(self, *, iterations: int, duration_s: float, steady: bool, reason: str, last_ms: float | None = ...) -> None: ...

class SessionRun(Record):
    index: int
    load_s: float
    warmup: Warmup
    samples_ns: list[int]
    t_first_ns: int
    t_last_ns: int
    stopped_by: str
    def __init__(self, *, index: int, load_s: float, warmup: Warmup, samples_ns: list[int], t_first_ns: int, t_last_ns: int, stopped_by: str) -> None: ...

class SystemMemory(Record):
    before_bytes: int | None
    peak_bytes: int | None
    peak_delta_bytes: int | None
    total_bytes: int | None
    n_samples: int | None
    method: str | None
    def __init__(self, *, before_bytes: int | None = ..., peak_bytes: int | None = ..., peak_delta_bytes: int | None = ..., total_bytes: int | None = ..., n_samples: int | None = ..., method: str | None = ...) -> None: ...

class Memory(Record):
    rss_before_load: float | None
    rss_after_load: float | None
    peak_rss: float | None
    peak_source: str
    system: SystemMemory | None
    gpu_process_bytes: int | None
    baseline: str | None
    def __init__(self, *, rss_before_load: float | None = ..., rss_after_load: float | None = ..., peak_rss: float | None = ..., peak_source: str, system: SystemMemory | None = ..., gpu_process_bytes: int | None = ..., baseline: str | None = ...) -> None: ...

class Output(Record):
    shape: list[int]
    dtype: str
    b64: str | None
    data: list[Any] | None
    def __init__(self, *, shape: list[int], dtype: str, b64: str | None = ..., data: list[Any] | None = ...) -> None: ...

class OutputErrors(Record):
    output: int
    max_abs: list[int | float]
    mean_abs: list[int | float]
    mse: list[int | float]
    cosine: list[int | float]
    def __init__(self, *, output: int, max_abs: list[int | float] = ..., mean_abs: list[int | float] = ..., mse: list[int | float] = ..., cosine: list[int | float] = ...) -> None: ...

class AccuracyReply(Record):
    samples: int
    inferences: int
    padded: int
    duration_s: float
    classes: int | None
    topk: list[list[Any]]
    errors: list[OutputErrors]
    nonfinite: int
    error: str | None
    def __init__(self, *, samples: int = ..., inferences: int = ..., padded: int = ..., duration_s: float = ..., classes: int | None = ..., topk: list[list[Any]] = ..., errors: list[OutputErrors] = ..., nonfinite: int = ..., error: str | None = ...) -> None: ...

class OpsProfileReply(Record):
    available: bool
    source: str | None
    reason: str | None
    iterations: int
    unit: str | None
    nodes: list[list[Any]]
    run_total_us: float | None
    op_counts: dict[str, Any] | None
    providers: list[str] | None
    def __init__(self, *, available: bool, source: str | None = ..., reason: str | None = ..., iterations: int = ..., unit: str | None = ..., nodes: list[list[Any]] = ..., run_total_us: float | None = ..., op_counts: dict[str, Any] | None = ..., providers: list[str] | None = ...) -> None: ...

class RunReply(Record):
    clock: str
    warnings: list[RunWarning]
    samples_ns: list[int]
    t_first_ns: int
    t_last_ns: int
    window_s: float
    stopped_by: str
    warmup: Warmup
    load_s: float
    first_run_ms: float | None
    output_shapes: list[Output] | None
    memory: Memory
    runtime: RuntimeInfo
    outputs: list[Output] | None
    ops: OpsProfileReply | None
    power: PowerSummary | None
    power_reason: str | None
    thermal: ThermalReply | None
    finished_at_unix: float
    scenario: ScenarioReply | None
    accuracy: AccuracyReply | None
    phases: RunPhases | None
    sessions: list[SessionRun] | None
    def __init__(self, *, clock: str, warnings: list[RunWarning] = ..., samples_ns: list[int], t_first_ns: int, t_last_ns: int, window_s: float, stopped_by: str, warmup: Warmup, load_s: float, first_run_ms: float | None = ..., output_shapes: list[Output] | None = ..., memory: Memory, runtime: RuntimeInfo, outputs: list[Output] | None = ..., ops: OpsProfileReply | None = ..., power: PowerSummary | None = ..., power_reason: str | None = ..., thermal: ThermalReply | None = ..., finished_at_unix: float, scenario: ScenarioReply | None = ..., accuracy: AccuracyReply | None = ..., phases: RunPhases | None = ..., sessions: list[SessionRun] | None = ...) -> None: ...

class Empty(Record):
    ...

class PingRequest(Empty):
    ...

class PingReply(Record):
    pong: bool
    def __init__(self, *, pong: bool) -> None: ...

class LeaseRequest(Record):
    holder: dict[str, Any]
    ttl_s: float | None
    def __init__(self, *, holder: dict[str, Any] = ..., ttl_s: float | None = ...) -> None: ...

class LeaseReply(Record):
    acquired: bool
    token: str | None
    holder: dict[str, Any] | None
    renewed: bool | None
    holder_text: str | None
    def __init__(self, *, acquired: bool, token: str | None = ..., holder: dict[str, Any] | None = ..., renewed: bool | None = ..., holder_text: str | None = ...) -> None: ...

class RenewRequest(Record):
    token: str | None
    def __init__(self, *, token: str | None = ...) -> None: ...

class RenewReply(Record):
    held: bool
    token: str | None
    age_s: float | None
    reason: str | None
    def __init__(self, *, held: bool, token: str | None = ..., age_s: float | None = ..., reason: str | None = ...) -> None: ...

class ReleaseRequest(Empty):
    ...

class ReleaseReply(Record):
    released: bool
    def __init__(self, *, released: bool) -> None: ...

class LeaseInfoRequest(Empty):
    ...

class LeaseInfoReply(Record):
    holder: dict[str, Any] | None
    text: str
    def __init__(self, *, holder: dict[str, Any] | None = ..., text: str) -> None: ...

class Sha256Request(Record):
    path: str
    def __init__(self, *, path: str) -> None: ...

class Sha256Reply(Record):
    sha256: str | None
    def __init__(self, *, sha256: str | None = ...) -> None: ...

class ShutdownRequest(Empty):
    ...

class ShutdownReply(Record):
    bye: bool
    def __init__(self, *, bye: bool) -> None: ...

class ErrorReply(Record):
    type: str
    message: str
    hint: str | None
    detail: str | None
    protocol: int | None
    holder: str | None
    def __init__(self, *, type: str, message: str, hint: str | None = ..., detail: str | None = ..., protocol: int | None = ..., holder: str | None = ...) -> None: ...

class ProgressEvent(Record):
    event: str
    phase: str
    elapsed_s: float | None
    total_s: float | None
    n: int | None
    min_queries: int | None
    last_ms: float | None
    runtime: str | None
    below_c: float | None
    waited_s: float | None
    end_c: float | None
    total: int | None
    window: int | None
    windows: int | None
    p50_ms: float | None
    temp_c: float | None
    cpu_mhz: float | None
    def __init__(self, *, event: str = ..., phase: str, elapsed_s: float | None = ..., total_s: float | None = ..., n: int | None = ..., min_queries: int | None = ..., last_ms: float | None = ..., runtime: str | None = ..., below_c: float | None = ..., waited_s: float | None = ..., end_c: float | None = ..., total: int | None = ..., window: int | None = ..., windows: int | None = ..., p50_ms: float | None = ..., temp_c: float | None = ..., cpu_mhz: float | None = ...) -> None: ...

class LogEvent(Record):
    event: str
    message: str
    level: str | None
    def __init__(self, *, event: str, message: str, level: str | None = ...) -> None: ...

class GenerateRequest(Record):
    runtime: str
    artifact: ArtifactRef
    precision: str | None
    prompt_tokens: int
    gen_tokens: int
    depth: int
    repetitions: int
    warmup: bool
    seed: int
    threads: int | None
    use_mmap: bool | None
    extra_buffers: bool | None
    runtime_options: dict[str, Any]
    power: PowerConfig | None
    idle_s: float
    cooldown_c: float | None
    cooldown_timeout_s: float
    lease_token: str | None
    scenario: ScenarioSpec | None
    min_duration_s: float
    min_queries: int
    max_queries: int | None
    gpu: int | None
    def __init__(self, *, runtime: str, artifact: ArtifactRef, precision: str | None = ..., prompt_tokens: int = ..., gen_tokens: int = ..., depth: int = ..., repetitions: int = ..., warmup: bool = ..., seed: int = ..., threads: int | None = ..., use_mmap: bool | None = ..., extra_buffers: bool | None = ..., runtime_options: dict[str, Any] = ..., power: PowerConfig | None = ..., idle_s: float = ..., cooldown_c: float | None = ..., cooldown_timeout_s: float = ..., lease_token: str | None = ..., scenario: ScenarioSpec | None = ..., min_duration_s: float = ..., min_queries: int = ..., max_queries: int | None = ..., gpu: int | None = ...) -> None: ...

class GenTokenWindow(Record):
    first: int
    count: int
    def __init__(self, *, first: int, count: int) -> None: ...

class GenRepetition(Record):
    prefill_ns: int
    token_ns: list[int]
    depth_fill_ns: int
    t_prefill_start_ns: int
    t_prefill_end_ns: int
    t_first_token_end_ns: int
    t_end_ns: int
    tokens: list[int]
    def __init__(self, *, prefill_ns: int, token_ns: list[int], depth_fill_ns: int = ..., t_prefill_start_ns: int, t_prefill_end_ns: int, t_first_token_end_ns: int, t_end_ns: int, tokens: list[int] = ...) -> None: ...

class GenWarmup(Record):
    prefill_ns: int
    token_ns: list[int]
    def __init__(self, *, prefill_ns: int, token_ns: list[int] = ...) -> None: ...

class GenGpuMemory(Record):
    after_load_bytes: int | None
    end_bytes: int | None
    gpu: int | None
    source: str
    def __init__(self, *, after_load_bytes: int | None = ..., end_bytes: int | None = ..., gpu: int | None = ..., source: str) -> None: ...

class GenMemory(Record):
    rss_before_load_bytes: int | None
    rss_after_load_bytes: int | None
    peak_rss_bytes: int | None
    peak_source: str | None
    gpu: GenGpuMemory | None
    gpu_reason: str | None
    def __init__(self, *, rss_before_load_bytes: int | None = ..., rss_after_load_bytes: int | None = ..., peak_rss_bytes: int | None = ..., peak_source: str | None = ..., gpu: GenGpuMemory | None = ..., gpu_reason: str | None = ...) -> None: ...

class KvCache(Record):
    bytes: int
    per_token_bytes: int
    n_ctx: int
    dtype: str | None
    bytes_per_element: int
    layers: int
    kv_heads: int
    head_dim: int
    how: str
    def __init__(self, *, bytes: int, per_token_bytes: int, n_ctx: int, dtype: str | None = ..., bytes_per_element: int, layers: int, kv_heads: int, head_dim: int, how: str) -> None: ...

class PowerReadings(Record):
    t_ns: list[int]
    w: list[int | float]
    source: str | None
    method: str | None
    rate_hz: float | None
    def __init__(self, *, t_ns: list[int] = ..., w: list[int | float] = ..., source: str | None = ..., method: str | None = ..., rate_hz: float | None = ...) -> None: ...

class GenerateReply(Record):
    clock: str
    warnings: list[RunWarning]
    runtime: RuntimeInfo
    precision: str | None
    prompt_tokens: int
    gen_tokens: int
    depth: int
    n_ctx: int
    seed: int
    sampling: str
    ids: str
    repetitions: list[GenRepetition]
    warmup: GenWarmup | None
    load_ns: int
    memory: GenMemory
    kv_cache: KvCache
    power: PowerSummary | None
    power_readings: PowerReadings | None
    power_reason: str | None
    thermal: ThermalReply | None
    phases: RunPhases | None
    finished_at_unix: float
    scenario: ScenarioReply | None
    token_windows: list[GenTokenWindow]
    def __init__(self, *, clock: str, warnings: list[RunWarning] = ..., runtime: RuntimeInfo, precision: str | None = ..., prompt_tokens: int, gen_tokens: int, depth: int, n_ctx: int, seed: int, sampling: str, ids: str, repetitions: list[GenRepetition], warmup: GenWarmup | None = ..., load_ns: int, memory: GenMemory, kv_cache: KvCache, power: PowerSummary | None = ..., power_readings: PowerReadings | None = ..., power_reason: str | None = ..., thermal: ThermalReply | None = ..., phases: RunPhases | None = ..., finished_at_unix: float, scenario: ScenarioReply | None = ..., token_windows: list[GenTokenWindow] = ...) -> None: ...

class ArtifactRef(Record):
    path: str | None
    format: str | None
    sha256: str | None
    def __init__(self, *, path: str | None = ..., format: str | None = ..., sha256: str | None = ...) -> None: ...

class PowerConfig(Record):
    source: str | None
    rail: str | None
    rate_hz: float | None
    command: str | None
    unit: str | None
    covers: str | None
    device: int | None
    interval_s: float | None
    hwmon: str | None
    timeout_s: float | None
    def __init__(self, *, source: str | None = ..., rail: str | None = ..., rate_hz: float | None = ..., command: str | None = ..., unit: str | None = ..., covers: str | None = ..., device: int | None = ..., interval_s: float | None = ..., hwmon: str | None = ..., timeout_s: float | None = ...) -> None: ...

class RunWarning(Record):
    code: str
    message: str
    def __init__(self, *, code: str, message: str) -> None: ...

class RuntimeInfo(Record):
    runtime: str
    version: str | None
    providers: list[str]
    options: dict[str, Any]
    providers_available: list[str] | None
    device: str | None
    module: str | None
    gpu: dict[str, Any] | None
    def __init__(self, *, runtime: str, version: str | None = ..., providers: list[str] = ..., options: dict[str, Any] = ..., providers_available: list[str] | None = ..., device: str | None = ..., module: str | None = ..., gpu: dict[str, Any] | None = ...) -> None: ...

class PowerTrace(Record):
    t_s: list[int | float]
    w: list[int | float]
    def __init__(self, *, t_s: list[int | float] = ..., w: list[int | float] = ...) -> None: ...

class PowerSummary(Record):
    source: str | None
    rail: str | None
    total_kind: str | None
    covers: str | None
    method: str | None
    rate_hz: float | None
    rate_hz_requested: float | None
    window_s: float | None
    t0_ns: int | None
    t1_ns: int | None
    n_samples: int | None
    n_dropped_nonpositive: int | None
    n_read_errors: int | None
    mean_w: float | None
    p95_w: float | None
    idle_w: float | None
    dynamic_w: float | None
    energy_j: float | None
    energy_mj_per_inference: float | None
    inferences_per_joule: float | None
    perf_per_watt: float | None
    rails: dict[str, Any] | None
    trace: PowerTrace | None
    idle_trace: PowerTrace | None
    idle_note: str | None
    note: str | None
    warnings: list[str]
    def __init__(self, *, source: str | None = ..., rail: str | None = ..., total_kind: str | None = ..., covers: str | None = ..., method: str | None = ..., rate_hz: float | None = ..., rate_hz_requested: float | None = ..., window_s: float | None = ..., t0_ns: int | None = ..., t1_ns: int | None = ..., n_samples: int | None = ..., n_dropped_nonpositive: int | None = ..., n_read_errors: int | None = ..., mean_w: float | None = ..., p95_w: float | None = ..., idle_w: float | None = ..., dynamic_w: float | None = ..., energy_j: float | None = ..., energy_mj_per_inference: float | None = ..., inferences_per_joule: float | None = ..., perf_per_watt: float | None = ..., rails: dict[str, Any] | None = ..., trace: PowerTrace | None = ..., idle_trace: PowerTrace | None = ..., idle_note: str | None = ..., note: str | None = ..., warnings: list[str] = ...) -> None: ...

class RunPhases(Record):
    cooldown_s: float
    idle_s: float
    load_s: float
    streams_s: float
    warmup_s: float
    measure_s: float
    outputs_s: float
    profile_s: float | None
    accuracy_s: float | None
    total_s: float
    setup_s: float | None
    sessions_s: float | None
    def __init__(self, *, cooldown_s: float = ..., idle_s: float = ..., load_s: float = ..., streams_s: float = ..., warmup_s: float = ..., measure_s: float = ..., outputs_s: float = ..., profile_s: float | None = ..., accuracy_s: float | None = ..., total_s: float = ..., setup_s: float | None = ..., sessions_s: float | None = ...) -> None: ...

class ScenarioSpec(Record):
    name: str
    rate: float | None
    samples_per_query: int
    streams: int
    latency_bound_ms: float | None
    seed: int
    duration_s: float | None
    sustained_window_s: float
    def __init__(self, *, name: str, rate: float | None = ..., samples_per_query: int = ..., streams: int = ..., latency_bound_ms: float | None = ..., seed: int = ..., duration_s: float | None = ..., sustained_window_s: float = ...) -> None: ...

class SustainedWindow(Record):
    index: int
    start_ns: int
    end_ns: int
    first: int
    count: int
    n_readings: int
    zones_c: dict[str, Any]
    temp_c: float | None
    cpu_mhz: float | None
    cpu_mhz_min: float | None
    gpu_mhz: float | None
    throttled: int | None
    mean_w: float | None
    energy_j: float | None
    n_power: int
    n_nvml: int
    nvml_w: float | None
    nvml_temp_c: float | None
    nvml_sm_mhz: float | None
    nvml_graphics_mhz: float | None
    nvml_reasons: int | None
    def __init__(self, *, index: int, start_ns: int, end_ns: int, first: int, count: int, n_readings: int = ..., zones_c: dict[str, Any] = ..., temp_c: float | None = ..., cpu_mhz: float | None = ..., cpu_mhz_min: float | None = ..., gpu_mhz: float | None = ..., throttled: int | None = ..., mean_w: float | None = ..., energy_j: float | None = ..., n_power: int = ..., n_nvml: int = ..., nvml_w: float | None = ..., nvml_temp_c: float | None = ..., nvml_sm_mhz: float | None = ..., nvml_graphics_mhz: float | None = ..., nvml_reasons: int | None = ...) -> None: ...

class SustainedReply(Record):
    duration_s: float
    window_s: float
    read_period_s: float
    telemetry_errors: int
    throttle_source: str | None
    power_source: str | None
    windows: list[SustainedWindow]
    nvml_gpu: str | None
    def __init__(self, *, duration_s: float, window_s: float, read_period_s: float, telemetry_errors: int = ..., throttle_source: str | None = ..., power_source: str | None = ..., windows: list[SustainedWindow] = ..., nvml_gpu: str | None = ...) -> None: ...

class ScenarioReply(Record):
    name: str
    rate: float | None
    samples_per_query: int
    streams: int
    queries: int
    samples: int
    t0_ns: int
    scheduled_ns: list[int]
    issued_ns: list[int]
    misses: int | None
    mode: str
    seed: int | None
    sustained: SustainedReply | None
    def __init__(self, *, name: str, rate: float | None = ..., samples_per_query: int = ..., streams: int = ..., queries: int, samples: int, t0_ns: int, scheduled_ns: list[int] = ..., issued_ns: list[int] = ..., misses: int | None = ..., mode: str, seed: int | None = ..., sustained: SustainedReply | None = ...) -> None: ...

class ThermalZone(Record):
    type: str
    temp_c: float
    ignored: str | None
    def __init__(self, *, type: str, temp_c: float, ignored: str | None = ...) -> None: ...

class CpuFreq(Record):
    governor: str | None
    cur_khz: int | None
    min_khz: int | None
    max_khz: int | None
    hw_max_khz: int | None
    def __init__(self, *, governor: str | None = ..., cur_khz: int | None = ..., min_khz: int | None = ..., max_khz: int | None = ..., hw_max_khz: int | None = ...) -> None: ...

class GpuFreq(Record):
    name: str
    cur_hz: int | None
    min_hz: int | None
    max_hz: int | None
    def __init__(self, *, name: str, cur_hz: int | None = ..., min_hz: int | None = ..., max_hz: int | None = ...) -> None: ...

class FanState(Record):
    target_pwm: int | None
    cur_pwm: int | None
    pwm1: int | None
    rpm: int | None
    def __init__(self, *, target_pwm: int | None = ..., cur_pwm: int | None = ..., pwm1: int | None = ..., rpm: int | None = ...) -> None: ...

class NvpModel(Record):
    name: str | None
    id: int | None
    def __init__(self, *, name: str | None = ..., id: int | None = ...) -> None: ...

class JetsonClocks(Record):
    locked: bool
    how: str
    def __init__(self, *, locked: bool, how: str) -> None: ...

class RpiThrottled(Record):
    bits: int
    raw: str
    now: list[str]
    has_occurred: list[str]
    def __init__(self, *, bits: int, raw: str, now: list[str], has_occurred: list[str]) -> None: ...

class RpiState(Record):
    throttled: RpiThrottled | None
    temp_c: float | None
    arm_hz: int | None
    def __init__(self, *, throttled: RpiThrottled | None = ..., temp_c: float | None = ..., arm_hz: int | None = ...) -> None: ...

class NvmlGpu(Record):
    index: int
    name: str | None
    temp_c: float | None
    sm_mhz: int | None
    mem_mhz: int | None
    power_w: float | None
    clock_reasons_bits: int | None
    clock_reasons: list[str] | None
    def __init__(self, *, index: int, name: str | None = ..., temp_c: float | None = ..., sm_mhz: int | None = ..., mem_mhz: int | None = ..., power_w: float | None = ..., clock_reasons_bits: int | None = ..., clock_reasons: list[str] | None = ...) -> None: ...

class ThermalSnapshot(Record):
    t_ns: int | None
    unix_time: float | None
    zones: dict[str, ThermalZone] | None
    cpufreq: dict[str, CpuFreq] | None
    governors: list[str] | None
    gpu_freq: GpuFreq | None
    emc_hz: int | None
    fan: FanState | None
    nvpmodel: NvpModel | None
    jetson_clocks: JetsonClocks | None
    rpi: RpiState | None
    nvml: list[NvmlGpu] | None
    max_temp_c: float | None
    def __init__(self, *, t_ns: int | None = ..., unix_time: float | None = ..., zones: dict[str, ThermalZone] | None = ..., cpufreq: dict[str, CpuFreq] | None = ..., governors: list[str] | None = ..., gpu_freq: GpuFreq | None = ..., emc_hz: int | None = ..., fan: FanState | None = ..., nvpmodel: NvpModel | None = ..., jetson_clocks: JetsonClocks | None = ..., rpi: RpiState | None = ..., nvml: list[NvmlGpu] | None = ..., max_temp_c: float | None = ...) -> None: ...

class CooldownWait(Record):
    cooled: bool | None
    start_c: float | None
    end_c: float | None
    waited_s: float
    below_c: float | None
    def __init__(self, *, cooled: bool | None = ..., start_c: float | None = ..., end_c: float | None = ..., waited_s: float = ..., below_c: float | None = ...) -> None: ...

class ThermalReply(Record):
    before: ThermalSnapshot | None
    after: ThermalSnapshot | None
    cooldown: CooldownWait | None
    def __init__(self, *, before: ThermalSnapshot | None = ..., after: ThermalSnapshot | None = ..., cooldown: CooldownWait | None = ...) -> None: ...

EVENTS: dict[str, type[Record]]
OPS: dict[str, tuple[type[Record], type[Record]]]
OP_OF: dict[type[Record], str]

def parse_event(data: Any) -> ProgressEvent | LogEvent: ...
