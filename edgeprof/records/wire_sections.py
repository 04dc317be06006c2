# Rendered from the FIELDS of agents/edgeprof_agent/messages.py (and snapshots.py, which it re-exports) by
# tests/unit/test_wire_sections.py (run it to rewrite); do not edit.
"""The Result sections that hold what the agent sends: one frozen Section per agent record, with the
record's fields (names, order, types, defaults) and the few the host adds.

Owns: nothing by hand — each class is rendered from its record in edgeprof_agent/messages.py, the one
definition of the notion on both sides of the wire (run/assemble.py fills a section with
Section.from_record). Does not own: the agent's records (messages.py), Section and the host's reads
(section.py), the other sections (sections.py and beside it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .section import Section, ThermalSnapshotReads, _keyed, _many, _opt


@dataclass(frozen=True)
class SystemMemory(Section):
    """System-wide used memory (MemTotal - MemAvailable) sampled around the run (memory.SystemMemoryWatch), bytes.

    The agent's run reply.memory.system (messages.SystemMemory), as the Result stores it."""

    SECTION: ClassVar[str] = "memory_mb.system"
    before_bytes: int | None = None
    peak_bytes: int | None = None
    peak_delta_bytes: int | None = None
    total_bytes: int | None = None
    n_samples: int | None = None
    method: str | None = None


@dataclass(frozen=True)
class Memory(Section):
    """Process memory around the run (MB), the system-wide watch (memory.py) and GPU bytes of this process.
    `baseline`: what the process holds when rss_before_load is read (memory.baseline_note).

    The agent's run reply.memory (messages.Memory), as the Result stores it. The host adds `artifact_size`
    (the artifact's size, MB); a phone's run has no peak_source when benchmark_model reported no peak."""

    SECTION: ClassVar[str] = "memory_mb"
    rss_before_load: float | None = None
    rss_after_load: float | None = None
    peak_rss: float | None = None
    peak_source: str | None = None
    system: SystemMemory | None = None
    gpu_process_bytes: int | None = None
    artifact_size: float | None = None  # MB, the host's
    baseline: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Memory:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, system=_opt(SystemMemory, flat.system))


@dataclass(frozen=True)
class PowerTrace(Section):
    """Watts over time (seconds from the start of its window), downsampled (power.downsample).

    The agent's run reply.power.trace (payloads.PowerTrace), as the Result stores it."""

    SECTION: ClassVar[str] = "power trace"
    t_s: list[float] = field(default_factory=list)
    w: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Power(Section):
    """power.py's summary over exactly the timed window [t0_ns, t1_ns]: where it came from (source, rail, what
    the total is and covers, how it was integrated), the sampling, mean/p95/idle/dynamic W, energy and the
    derived figures, each rail's mean W (never summed onto the total), the traces, notes and warnings.

    The agent's run reply.power (payloads.PowerSummary), as the Result stores it. The host adds
    `rails_energy_j` (schema 8, optional: each rail's energy in J where a meter counts energy, a phone's ODPM
    rails) and achieved_gflops / gflops_per_watt when the FLOPs are known."""

    SECTION: ClassVar[str] = "power"
    source: str | None = None
    rail: str | None = None
    total_kind: str | None = None
    covers: str | None = None
    method: str | None = None
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
    rails: dict[str, Any] | None = None
    rails_energy_j: dict[str, float] | None = None  # schema 8: each rail's energy from its own counter (phone ODPM)
    trace: PowerTrace | None = None
    idle_trace: PowerTrace | None = None
    idle_note: str | None = None
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
    achieved_gflops: float | None = None  # the host's, when the FLOPs are known
    gflops_per_watt: float | None = None  # the host's, when the FLOPs are known

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Power:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, trace=_opt(PowerTrace, flat.trace),
                                   idle_trace=_opt(PowerTrace, flat.idle_trace))


@dataclass(frozen=True)
class ThermalZone(Section):
    """One thermal zone (thermal.thermal_zones, by zone directory): its type, °C, and why it is not trusted (a
    sensor with a fixed value, or an offline one) when it is not. Absent values are absent on the wire.

    The agent's run reply.thermal.snapshot.zones{} (snapshots.ThermalZone), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot zone"
    OMIT_NONE: ClassVar[bool] = True
    type: str
    temp_c: float
    ignored: str | None = None


@dataclass(frozen=True)
class CpuFreq(Section):
    """One CPU's cpufreq (thermal.cpufreq, by cpuN): scaling governor, current / min / max scaling frequency and
    cpuinfo_max_freq, kHz; what the CPU does not expose is absent.

    The agent's run reply.thermal.snapshot.cpufreq{} (snapshots.CpuFreq), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot cpufreq"
    OMIT_NONE: ClassVar[bool] = True
    governor: str | None = None
    cur_khz: int | None = None
    min_khz: int | None = None
    max_khz: int | None = None
    hw_max_khz: int | None = None


@dataclass(frozen=True)
class GpuFreq(Section):
    """A Jetson GPU's devfreq (thermal.gpu_devfreq): the devfreq device and its current / min / max Hz.

    The agent's run reply.thermal.snapshot.gpu_freq (snapshots.GpuFreq), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot gpu_freq"
    OMIT_NONE: ClassVar[bool] = True
    name: str
    cur_hz: int | None = None
    min_hz: int | None = None
    max_hz: int | None = None


@dataclass(frozen=True)
class FanState(Section):
    """The fan (thermal.fan): pwm-fan's target and current PWM, or a pwmfan hwmon's pwm1 and rpm.

    The agent's run reply.thermal.snapshot.fan (snapshots.FanState), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot fan"
    OMIT_NONE: ClassVar[bool] = True
    target_pwm: int | None = None
    cur_pwm: int | None = None
    pwm1: int | None = None
    rpm: int | None = None


@dataclass(frozen=True)
class NvpModel(Section):
    """Jetson's power mode (`nvpmodel -q`, thermal.parse_nvpmodel_q): its name and id (None: not printed).

    The agent's run reply.thermal.snapshot.nvpmodel (snapshots.NvpModel), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot nvpmodel"
    name: str | None = None
    id: int | None = None


@dataclass(frozen=True)
class JetsonClocks(Section):
    """Whether jetson_clocks is on, inferred (never run): every CPU's and the GPU's min == max; `how` says so.

    The agent's run reply.thermal.snapshot.jetson_clocks (snapshots.JetsonClocks), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot jetson_clocks"
    locked: bool
    how: str


@dataclass(frozen=True)
class RpiThrottled(Section):
    """`vcgencmd get_throttled` decoded (thermal.decode_throttled): the bits, as hex, the flags set now and the
    sticky ones that have occurred since boot.

    The agent's run reply.thermal.snapshot.rpi.throttled (snapshots.RpiThrottled), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot rpi.throttled"
    bits: int
    raw: str
    now: list[str]
    has_occurred: list[str]


@dataclass(frozen=True)
class RpiState(Section):
    """A Raspberry Pi's own view (thermal.rpi_state, vcgencmd): get_throttled, measure_temp °C, the ARM clock Hz.

    The agent's run reply.thermal.snapshot.rpi (snapshots.RpiState), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot rpi"
    OMIT_NONE: ClassVar[bool] = True
    throttled: RpiThrottled | None = None
    temp_c: float | None = None
    arm_hz: int | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RpiState:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, throttled=_opt(RpiThrottled, flat.throttled))


@dataclass(frozen=True)
class NvmlGpu(Section):
    """One NVIDIA GPU in a snapshot (probes/nvml.device_state): its index, name, °C, SM and memory clocks (MHz),
    board power (W) and the clock event reasons (bits and names); what the GPU does not answer is absent.

    The agent's run reply.thermal.snapshot.nvml[] (snapshots.NvmlGpu), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot nvml"
    OMIT_NONE: ClassVar[bool] = True
    index: int
    name: str | None = None
    temp_c: float | None = None
    sm_mhz: int | None = None
    mem_mhz: int | None = None
    power_w: float | None = None
    clock_reasons_bits: int | None = None
    clock_reasons: list[str] | None = None


@dataclass(frozen=True)
class ThermalSnapshot(ThermalSnapshotReads, Section):
    """thermal.snapshot: the board's thermal and clock state at one moment: thermal zones and cpufreq by name,
    GPU devfreq, the EMC clock, fan, nvpmodel, inferred jetson_clocks, the Pi's own state and NVML GPUs, each
    a record of what its probe reports (same wire shape as before they were records), and the hottest °C.

    The agent's run reply.thermal.snapshot (snapshots.ThermalSnapshot), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal snapshot"
    t_ns: int | None = None
    unix_time: float | None = None
    zones: dict[str, ThermalZone] | None = None
    cpufreq: dict[str, CpuFreq] | None = None
    governors: list[str] | None = None
    gpu_freq: GpuFreq | None = None
    emc_hz: int | None = None
    fan: FanState | None = None
    nvpmodel: NvpModel | None = None
    jetson_clocks: JetsonClocks | None = None
    rpi: RpiState | None = None
    nvml: list[NvmlGpu] | None = None
    max_temp_c: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ThermalSnapshot:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, zones=_keyed(ThermalZone, flat.zones),
                                   cpufreq=_keyed(CpuFreq, flat.cpufreq),
                                   gpu_freq=_opt(GpuFreq, flat.gpu_freq),
                                   fan=_opt(FanState, flat.fan),
                                   nvpmodel=_opt(NvpModel, flat.nvpmodel),
                                   jetson_clocks=_opt(JetsonClocks, flat.jetson_clocks),
                                   rpi=_opt(RpiState, flat.rpi),
                                   nvml=_many(NvmlGpu, flat.nvml))


@dataclass(frozen=True)
class CooldownWait(Section):
    """thermal.wait_cool: whether the board got below `below_c` (None: no readable sensor), from/to °C, how long.

    The agent's run reply.thermal.cooldown (snapshots.CooldownWait), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal cooldown"
    cooled: bool | None = None
    start_c: float | None = None
    end_c: float | None = None
    waited_s: float = 0.0
    below_c: float | None = None


@dataclass(frozen=True)
class Thermal(Section):
    """Snapshots before and after the run and the --cooldown wait when there was one.

    The agent's run reply.thermal (snapshots.ThermalReply), as the Result stores it."""

    SECTION: ClassVar[str] = "thermal"
    before: ThermalSnapshot | None = None
    after: ThermalSnapshot | None = None
    cooldown: CooldownWait | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Thermal:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, before=_opt(ThermalSnapshot, flat.before),
                                   after=_opt(ThermalSnapshot, flat.after),
                                   cooldown=_opt(CooldownWait, flat.cooldown))


@dataclass(frozen=True)
class L4TRelease(Section):
    """The agent's facts.l4t (messages.L4TRelease), as the Result stores it."""

    SECTION: ClassVar[str] = "environment.device.l4t"
    release: str
    raw: str


@dataclass(frozen=True)
class RuntimeFact(Section):
    """One runtime module in facts (environment.runtime_fact): the version it reports (onnxruntime: and its
    execution providers; onnxruntime_genai: whether its build has CUDA, og.is_cuda_available(), None when not
    read: an agent before it, or a call that raised), or the error importing it gave. On the wire
    {version[, providers][, cuda]} or {error}.

    The agent's facts reply.runtimes{} (messages.RuntimeFact), as the Result stores it."""

    SECTION: ClassVar[str] = "environment.device.runtimes"
    version: str | None = None
    providers: list[str] | None = None
    error: str | None = None
    cuda: bool | None = None


@dataclass(frozen=True)
class BoardFacts(Section):
    """The machine the agent runs on (environment.py); `runtimes` by module name (RuntimeFact). `env`,
    `power_sources` and each GPU entry keep their probe's shape (probe discovery lists).

    The agent's facts reply (messages.Facts), as the Result stores it. Schema 10: a board's facts as the
    Result stores them (Environment.device); every field may be null (a result whose facts were not all read:
    unknown), and `kind` is "board"."""

    SECTION: ClassVar[str] = "environment.device"
    hostname: str | None = None
    arch: str | None = None
    cpu: str | None = None
    cores: int | None = None
    memory_mb: float | None = None
    os: str | None = None
    kernel: str | None = None
    python: str | None = None
    python_executable: str | None = None
    l4t: L4TRelease | None = None
    board_model: str | None = None
    agent_version: str | None = None
    protocol: int | None = None
    env: dict[str, Any] = field(default_factory=dict)
    workdir: str | None = None
    disk_free_mb: float | None = None
    runtimes: dict[str, RuntimeFact] | None = None
    gpus: list[dict[str, Any]] | None = None
    gpus_error: str | None = None
    power_sources: list[Any] | dict[str, Any] | None = None
    kind: Literal["board"] = "board"  # schema 10: which kind of Environment.device this is

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BoardFacts:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, l4t=_opt(L4TRelease, flat.l4t),
                                   runtimes=_keyed(RuntimeFact, flat.runtimes))


@dataclass(frozen=True)
class RunWarning(Section):
    """The agent's run reply.warnings[] (payloads.RunWarning), as the Result stores it. The host's own warnings
    (high_cv, few_queries, fidelity, ...) are made with it too."""

    SECTION: ClassVar[str] = "warnings"
    code: str
    message: str
