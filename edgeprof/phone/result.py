"""A phone run (session.PhoneRun) as a stored Result (schema 8): every number where it came from, and every
number benchmark_model did not measure absent with the reason.

Owns: mapping benchmark_model's summary onto LatencyStats (source "benchmark_model"; p90 / p97 / p99 / p99.9, the
CV, throughput and the raw samples absent: it prints no per-run times, and nothing here computes a statistic
from a summary; p5 / p50 / p95 too where the build printed no percentiles, each with its reason; a run that
gives no latency is refused, never stored ok), the battery trace or the ODPM rails' two reads onto Power (source "battery" or "rails", each rail's mean W
and energy kept), the thermal before/after onto Thermal, the
phone's facts onto Environment, the op profile onto OpsProfile, the rest onto the `phone` section
(records/phone.PhoneBenchmark), and the warnings' codes. Does not own: measuring (runner.py), parsing
benchmark_model's output (benchmark.py), storing (store/).
"""

from __future__ import annotations

import dataclasses

from edgeprof_agent.messages import OpsProfileReply

from .. import __version__
from ..errors import MeasurementFailed
from ..records import (
    Artifact,
    Device,
    Environment,
    LatencyStats,
    Memory,
    NullReasons,
    OpsProfile,
    PhoneBenchmark,
    PhoneDeviceFacts,
    PhoneTool,
    Power,
    Result,
    RunSpec,
    RuntimeFacts,
    RunWarning,
    Settings,
    Thermal,
    ThermalSnapshot,
    ThermalZone,
    new_run_id,
    utc_now,
)
from .benchmark import NOT_EMITTED
from .facts import PhoneFacts
from .facts import Thermal as PhoneThermal
from .power import PowerReading
from .runner import NOT_ON_PHONES, PhoneRun

LATENCY_SOURCE = "benchmark_model"
PERCENTILE_METHOD = "benchmark_model's own order statistic (values[n·p/100] of its sorted run times)"
NO_PERCENTILE_METHOD = ("none: this benchmark_model build printed count/min/max/avg/std and no percentile; "
                        "min, max, mean and std are its own")
# the statistics of an edgeprof summary that a phone run does not have, and why
ABSENT = {
    "samples": NOT_EMITTED,
    "p90": NOT_EMITTED, "p97": NOT_EMITTED, "p99": NOT_EMITTED, "p999": NOT_EMITTED,
    "early_stop_p90": NOT_EMITTED, "early_stop_p99": NOT_EMITTED,
    "cv": "not computed from benchmark_model's summary (its std is over its runs, edgeprof's CV uses the sample "
          "std of raw samples)",
    "throughput_ips": "benchmark_model prints no timed window's length (1000 / mean would leave out the gaps "
                      "between runs)",
}
FIDELITY_REASON = f"fidelity is {NOT_ON_PHONES} (benchmark_model returns no outputs to the host)"
BATTERY_RAIL = "battery (current_now × voltage_now)"


def latency(run: PhoneRun) -> LatencyStats | None:
    """benchmark_model's statistics of the timed runs (ms), as its build printed them: count, min, max, mean and std
    always (a line without them is refused in benchmark.py), p5 / p50 / p95 where it printed them, else None with
    the reason in `absent`. None only for a run that gives no time (phone_result then refuses it)."""
    lat = run.latency_ms
    if lat.count <= 0 or lat.min is None or lat.max is None or lat.mean is None or lat.std is None:
        return None
    absent = {**ABSENT, **{k: v for k, v in lat.absent.items() if k not in ("samples", "p99")}}
    printed = lat.p50 is not None
    return LatencyStats(p50=lat.p50, p90=None, p95=lat.p95, p97=None, p99=None, p999=None,
                        min=lat.min, max=lat.max, mean=lat.mean, std=lat.std, cv=None, n=lat.count,
                        percentile_method=PERCENTILE_METHOD if printed else NO_PERCENTILE_METHOD, p5=lat.p5,
                        source=LATENCY_SOURCE, absent=absent)


def power(run: PhoneRun, period_s: float | None) -> Power | None:
    """The power summary as a Power section, over the whole benchmark_model process: the battery sampler's (the
    whole phone's battery side) or the ODPM rails' (rails.py: each rail's mean W and energy, their sum)."""
    return power_of(run.power, run.warnings, period_s)


def power_of(p: PowerReading | None, warnings: list[str], period_s: float | None,
             tool: str = "benchmark_model") -> Power | None:
    """A tool run's power summary (runner.ToolRun.power) as a Power section; `tool` names the process it covers."""
    if p is None:
        return None
    if p.source == "rails":
        return _rails_power(p, [w for w in warnings if w.startswith("power rails")], tool)
    per_inference = p.energy_per_inference_j
    duration = p.duration_s
    return Power(source="battery", rail=BATTERY_RAIL, total_kind="battery", covers=p.covers,
                 method="mean of the samples", rate_hz=(p.samples - 1) / duration if duration > 0 else None,
                 rate_hz_requested=1.0 / period_s if period_s else None, window_s=duration, n_samples=p.samples,
                 mean_w=p.mean_w, energy_j=p.mean_w * duration,
                 energy_mj_per_inference=per_inference * 1000 if per_inference is not None else None,
                 inferences_per_joule=1.0 / per_inference if per_inference else None,
                 idle_note=f"{tool}'s run has no idle baseline on phones; the battery side includes the "
                           "screen and radios",
                 note=(f"{p.energy_note or ''}; samples every {period_s or 0:g} s on the {p.clock} clock, "
                       f"discharge current {p.discharge_sign}, max {p.max_w or 0:.3f} W"),
                 warnings=[w for w in warnings if w.startswith("battery")])


def _rails_power(p: PowerReading, warnings: list[str], tool: str = "benchmark_model") -> Power:
    """The rails' summary: the total is their sum (labelled so), energy from the counters, each rail kept."""
    per_inference = p.energy_per_inference_j
    rails = p.rails
    meters = sorted({r.meter for r in rails})
    return Power(source="rails", rail=f"sum of {len(rails)} ODPM rails", total_kind="sum-of-rails",
                 covers=p.covers, method="counter", rate_hz=None, rate_hz_requested=None,
                 window_s=p.duration_s, n_samples=p.samples, mean_w=p.mean_w, energy_j=p.energy_j,
                 energy_mj_per_inference=per_inference * 1000 if per_inference is not None else None,
                 inferences_per_joule=1.0 / per_inference if per_inference else None,
                 rails={r.rail: r.mean_w for r in rails}, rails_energy_j={r.rail: r.energy_j for r in rails},
                 idle_note=f"{tool}'s run has no idle baseline on phones",
                 note=(f"{p.energy_note or ''}; each rail's energy counter read before and after on "
                       f"{', '.join(meters)} ({p.clock}), its mean W over its own timestamps"),
                 warnings=warnings)


def snapshot(t: PhoneThermal) -> ThermalSnapshot:
    """The phone's thermal reading (dumpsys thermalservice's temperatures) as a ThermalSnapshot."""
    zones = {name: ThermalZone(type=name, temp_c=c) for name, c in t.temperatures_c.items()}
    return ThermalSnapshot(zones=zones or None, max_temp_c=max(t.temperatures_c.values(), default=None))


def ops(run: PhoneRun) -> OpsProfile | None:
    """--profile-ops: LiteRT's per-op table (avg ms per run over the timed runs) in edgeprof's op profile."""
    if not run.ops:
        return None
    n = run.latency_ms.count or 1  # the table's avg is over the timed runs: total = avg × runs
    reply = OpsProfileReply(available=True, source="benchmark_model --enable_op_profiling (LiteRT's profiler)",
                            iterations=n, unit="ms",
                            nodes=[[o.name, o.type, None, o.avg_ms * n, None] for o in run.ops])
    from ..evaluation.opprofile import summarize

    return dataclasses.replace(summarize(reply), note="LiteRT's profiler during the timed runs (avg ms per run); "
                                                      "profiling slows runs, so these times are for shares")


def environment(facts: PhoneFacts | None, run: PhoneRun | None, artifact: Artifact | None, delegate: str,
                runtime: RuntimeFacts | None = None) -> Environment:
    """The phone's facts as a device's (the keys compare's fingerprint reads), the host, the tool (benchmark_model
    unless `runtime` says another)."""
    from ..run import host_environment

    device = PhoneDeviceFacts() if facts is None else PhoneDeviceFacts.from_dict({
        "board_model": facts.model, "cpu": facts.soc, "arch": facts.abi, "cores": len(facts.cpus),
        "os": f"Android {facts.android} (SDK {facts.sdk})", **facts.to_dict()})
    return Environment(device=device, host=host_environment(),
                       runtime=runtime or RuntimeFacts(runtime="tflite", phone=PhoneTool(
                           tool="benchmark_model", binary=run.binary if run is not None else None, delegate=delegate)),
                       edgeprof_version=__version__, model_sha256=artifact.sha256 if artifact else None,
                       export_options=artifact.export_options if artifact else None)


def _precision_warning(precision: str, delegate: str) -> list[RunWarning]:
    """fp16 weights on LiteRT's CPU kernels or XNNPACK compute in float32, as on a board (capability.decide)."""
    from ..capability import TFLITE_FP16_ON_CPU

    return [RunWarning("precision_emulated", TFLITE_FP16_ON_CPU)] if precision == "fp16" and delegate in (
        "cpu", "xnnpack") else []


def _warning(text: str) -> RunWarning:
    if text.startswith("thermal status"):
        return RunWarning("phone_thermal_status", text)
    if text.startswith("power rails"):
        return RunWarning("power_rails_reading", text)
    return RunWarning("battery_reading", text)


def phone_section(run: PhoneRun, delegate: str) -> PhoneBenchmark:
    out = run.output
    warm = out.warmup if out is not None else None
    b = run.battery
    return PhoneBenchmark(
        binary=run.binary, command=list(run.command), delegate=delegate, delegation=[d.to_dict() for d in run.delegation],
        init_ms=run.init_ms, first_inference_ms=run.first_inference_ms,
        warmup_runs=warm.count if warm is not None else None,
        warmup_mean_ms=warm.mean / 1000 if warm is not None and warm.mean is not None else None,
        memory_init_delta_mb=run.memory_mb.init_delta, memory_overall_delta_mb=run.memory_mb.overall_delta,
        thermal_status_before=run.thermal_before.status, thermal_status_after=run.thermal_after.status,
        battery={"status": b.status, "capacity_pct": b.capacity_pct, "deviations": b.deviations()}
        if b is not None else None)


def phone_result(spec: RunSpec, device: Device, artifact: Artifact | None, run: PhoneRun, facts: PhoneFacts | None,
                 *, delegate: str, period_s: float | None = None) -> Result:
    """One phone run as a Result (status ok): see the module's docstring for where each number comes from.
    MeasurementFailed (one line) for a run that gives no latency at all: never an ok result without one."""
    lat = latency(run)
    if lat is None:
        raise MeasurementFailed(f"device {device.name}: benchmark_model's timed runs give no latency "
                                f"({', '.join(f'{k}={v}' for k, v in run.latency_ms.printed().items())})",
                                device=device.name, op="run")
    pw = power(run, period_s)
    reasons = NullReasons(power=None if pw is not None else (run.power_reason or "not measured"),
                          fidelity=FIDELITY_REASON)
    size = artifact.size_bytes / 1e6 if artifact is not None else None
    memory = Memory(peak_rss=run.memory_mb.peak, artifact_size=size,
                    peak_source="benchmark_model's periodic monitor (--report_peak_memory_footprint)"
                    if run.memory_mb.peak is not None else None,
                    baseline=None)  # benchmark_model's footprint deltas are in the phone section
    warm = run.output.warmup if run.output is not None else None
    settings = Settings.of_run(spec, load_s=run.init_ms / 1000,
                               warmup={"runs": warm.count, "mean_ms": warm.mean / 1000 if warm.mean else None}
                               if warm is not None else None)
    return Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=device.name, model=spec.model,
        runtime="tflite", precision=spec.precision, batch=spec.batch, threads=spec.threads, latency_ms=lat,
        throughput_ips=None, memory_mb=memory, power=pw,
        thermal=Thermal(before=snapshot(run.thermal_before), after=snapshot(run.thermal_after)),
        fidelity=None, environment=environment(facts, run, artifact, delegate),
        warnings=[*_precision_warning(spec.precision, delegate),
                  *(_warning(w) for w in run.warnings if not w.startswith("power refused"))],  # null_reasons.power
        samples_ms=[], artifact=artifact, settings=settings,
        null_reasons=reasons, ops=ops(run), phone=phone_section(run, delegate))
