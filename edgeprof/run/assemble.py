"""assemble(): the Result of one measurement, built once from its plan, the agent's reply and the device's facts.

Owns: every section of the Result — statistics from the raw samples (analysis/stats.py), memory, power with achieved
GFLOP/s, thermal, environment, settings, io, the load scenario, fidelity against the reference (fidelity.py),
the accuracy score (accuracy.py), the op profile (opprofile.py) and the warnings with advice — each computed first,
then one frozen Result. Does not own: measuring (execute.py, the agent), storing (the caller).
"""

from __future__ import annotations

import contextlib
import dataclasses
import platform
import socket
from collections.abc import Callable
from typing import Any

from edgeprof_agent import messages as wire
from edgeprof_agent.messages import Facts, RunReply, ScenarioReply

from .. import __version__
from ..agentlink import check_samples
from ..analysis.stats import latency_summary, scenario_summary, stability_warnings, throughput
from ..export.quantize import as_given, int8_notes
from ..records import (
    Accuracy,
    Artifact,
    BoardFacts,
    Compute,
    Environment,
    Fidelity,
    IOSummary,
    IOTensor,
    LatencyStats,
    Memory,
    NullReasons,
    Power,
    Result,
    RunSpec,
    RuntimeFacts,
    RunWarning,
    Scenario,
    Settings,
    Thermal,
    new_run_id,
    utc_now,
)
from ..records.samples import Samples, ms_from_ns
from .execute import Executed
from .plan import RunPlan

NO_FIDELITY = "no fidelity check was made for this run"


def assemble(plan: RunPlan, executed: Executed, facts: Facts | None = None,
             say: Callable[[str], None] | None = None) -> Result:
    """The Result of `plan` from what execute() brought back (samples checked first) and the device's `facts`
    (the plan's by default). `say` names the slow step (computing the fidelity reference on the host)."""
    facts = facts if facts is not None else plan.facts
    spec, artifact, reply = plan.spec, plan.artifact, executed.reply
    check_samples(reply.samples_ns, plan.device.name)
    samples_ms = ms_from_ns(reply.samples_ns)  # one float64 array (a sustained run holds millions)
    lat = latency_summary(samples_ms)
    window_s = float(reply.window_s)
    sc = reply.scenario
    tput = throughput(len(samples_ms), spec.batch, window_s) if sc is None else throughput(sc.samples, 1, window_s)
    power = _power(reply, artifact, tput)
    precision = (as_given(artifact) if artifact is not None else None) or spec.precision
    with plan.clock.phase("fidelity") if plan.reference is not None else contextlib.nullcontext():
        fidelity, no_fidelity, fidelity_warnings = _fidelity(plan, reply, say)
    with plan.clock.phase("accuracy") if plan.accuracy is not None else contextlib.nullcontext():
        accuracy, no_accuracy, accuracy_warnings = _accuracy(plan, reply, precision)
    ops = None
    if reply.ops is not None:
        from ..evaluation.opprofile import summarize

        ops = summarize(reply.ops)
    warnings = [*run_warnings(spec, reply, lat),
                *(RunWarning("precision_emulated" if "fp16" in note else "capability", note)
                  for note in plan.decision.notes),
                *(RunWarning("precision_partial", note)
                  for note in (int8_notes(artifact.export_options) if artifact is not None else [])),
                *fidelity_warnings, *accuracy_warnings, *_battery_warning(spec, power)]
    sessions = None
    if reply.sessions:  # --sessions N: the first session is this measurement's (records/sessions.py)
        from ..evaluation.sessions import summarize as sessions_summary

        sessions, more = sessions_summary(samples_ms, {
            "load_s": reply.load_s, "window_s": window_s, "warmup_iterations": reply.warmup.iterations,
            "warmup_steady": reply.warmup.steady}, reply.sessions, spec.runtime, spec.threads)
        warnings.extend(more)
    sustained = None
    if sc is not None and sc.sustained is not None:
        from ..evaluation.sustained import summarize as sustained_summary

        sustained, more = sustained_summary(sc.sustained, samples_ms, sc.samples_per_query, sc.rate)
        warnings.extend(more)
    return Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=plan.device.name, model=spec.model,
        runtime=spec.runtime, precision=precision, batch=spec.batch, threads=spec.threads,
        latency_ms=lat, throughput_ips=tput, memory_mb=_memory(reply, artifact), power=power,
        thermal=_thermal(reply.thermal),
        fidelity=fidelity, environment=_environment(facts, reply, artifact), warnings=warnings,
        samples_ms=samples_ms, artifact=artifact, settings=_settings(plan, reply, window_s),
        transfer=executed.transfer,
        null_reasons=NullReasons(
            power=None if reply.power else reply.power_reason or "no power data",
            thermal=None if reply.thermal else "thermal telemetry not available on this device/agent",
            fidelity=no_fidelity, accuracy=no_accuracy,
        ),
        compute=Compute(flops_per_inference=artifact.flops, achieved_gflops=artifact.flops * tput / 1e9)
        if artifact is not None and artifact.flops and tput else None,
        ops=ops, io=io_summary(plan, reply), scenario=_scenario(spec, sc, samples_ms, window_s, power),
        accuracy=accuracy, phases=plan.clock.phases(reply), sustained=sustained, sessions=sessions,
    )


def host_environment() -> dict[str, Any]:
    return {"hostname": socket.gethostname(), "python": platform.python_version(), "edgeprof": __version__,
            "platform": platform.platform()}


def _environment(facts: Facts, reply: RunReply, artifact: Artifact | None) -> Environment:
    return Environment(device=BoardFacts.from_record(facts), host=host_environment(),
                       runtime=RuntimeFacts.of_backend(reply.runtime.to_dict()),
                       agent_version=facts.agent_version, edgeprof_version=__version__,
                       model_sha256=artifact.sha256 if artifact else None,
                       export_options=artifact.export_options if artifact else None, thread_env=facts.env,
                       clock=reply.clock)


def _memory(reply: RunReply, artifact: Artifact | None) -> Memory:
    return Memory.from_record(reply.memory, artifact_size=artifact.size_bytes / 1e6 if artifact is not None else None)


def _power(reply: RunReply, artifact: Artifact | None, tput: float | None) -> Power | None:
    power = Power.from_record(reply.power) if reply.power is not None else None
    if power and artifact is not None and artifact.flops and power.mean_w and tput:
        gflops = artifact.flops * tput / 1e9
        power = dataclasses.replace(power, achieved_gflops=gflops, gflops_per_watt=gflops / power.mean_w)
    return power


def _thermal(thermal: wire.ThermalReply | None) -> Thermal | None:
    return Thermal.from_record(thermal) if thermal is not None else None


def _settings(plan: RunPlan, reply: RunReply, window_s: float) -> Settings:
    """The stored settings: the spec's run settings by the table's rules (Settings.of_run) and what the agent said."""
    return Settings.of_run(plan.spec, inputs=[{"name": i["name"], "shape": i["shape"], "dtype": i["dtype"]}
                                              for i in plan.request_inputs()],
                           window_s=window_s, stopped_by=reply.stopped_by, warmup=reply.warmup.to_dict(),
                           load_s=reply.load_s)


def _scenario(spec: RunSpec, sc: ScenarioReply | None, samples_ms: Samples, window_s: float,
              power: Power | None) -> Scenario:
    if sc is not None:
        return scenario_summary(
            name=sc.name, samples_ms=samples_ms, window_s=window_s, queries=sc.queries, samples=sc.samples,
            rate=sc.rate, samples_per_query=sc.samples_per_query if sc.name == "multi-stream" else None,
            streams=sc.streams if sc.name == "offline" else None, latency_bound_ms=spec.latency_bound_ms,
            seed=sc.seed, mode=sc.mode, misses=sc.misses, scheduled_ns=sc.scheduled_ns, issued_ns=sc.issued_ns,
            energy_j=power.energy_j if power else None, idle_w=power.idle_w if power else None,
            mean_w=power.mean_w if power else None, battery_wh=spec.battery_wh)
    if spec.battery_wh and power and power.mean_w:
        return Scenario(battery_wh=spec.battery_wh, battery_hours=spec.battery_wh / power.mean_w)
    return Scenario()


def _battery_warning(spec: RunSpec, power: Power | None) -> list[RunWarning]:
    """--battery-wh needs the run's mean power: without it the flag could not apply, and says so."""
    if spec.battery_wh is None or (power is not None and power.mean_w):
        return []
    return [RunWarning("battery_no_power", f"--battery-wh {spec.battery_wh:g}: no battery hours, this run measured "
                       "no power (the power line says why; docs/power.md lists the sensors)")]


def run_warnings(spec: RunSpec, reply: RunReply, lat: LatencyStats) -> list[RunWarning]:
    """The measurement's own warnings with advice: deadline misses, unstable latency, the agent's, a warm-up
    that never settled, a run cut short by --max-queries."""
    out: list[RunWarning] = []
    sc = reply.scenario
    if sc is not None and sc.misses:
        out.append(RunWarning("deadline_misses", f"{sc.misses} of {sc.queries} queries were not done before the "
                              f"next was due at {sc.rate:g}/s; lower --rate or use a faster configuration"))
    if spec.scenario == "sustained":  # each window summarises its own samples: its length is --window
        out.extend(stability_warnings(lat, min_duration_s=spec.sustained_window_s, longer="--window", curve=True))
    else:
        out.extend(stability_warnings(lat, min_duration_s=spec.min_duration_s))
    out.extend(RunWarning.from_record(w) for w in reply.warnings)
    warm = reply.warmup
    if warm.iterations and not warm.steady:
        out.append(RunWarning("warmup_not_steady", f"latency was not steady after {warm.duration_s} s of warm-up; "
                              "raise --warmup (clocks or caches may still have been settling)"))
    if reply.stopped_by.startswith("max_queries"):
        until = (f"--duration {sc.sustained.duration_s:g} s" if sc is not None and sc.sustained is not None
                 else f"--min-duration {spec.min_duration_s:g} s")
        out.append(RunWarning("max_queries", f"the run stopped at --max-queries {spec.max_queries} before "
                              f"{until} passed (queries are very short); raise --max-queries to run longer"))
    return out


def _fidelity(plan: RunPlan, reply: RunReply, say: Callable[[str], None] | None
              ) -> tuple[Fidelity | None, str | None, list[RunWarning]]:
    """Compare the device's outputs (last timed query) with the reference: (fidelity or None, why none,
    the warning past the threshold)."""
    from ..evaluation import fidelity

    artifact, reference, spec = plan.artifact, plan.reference, plan.spec
    if artifact is None:
        return None, NO_FIDELITY, []
    if reference is None:
        return None, plan.no_reference or "no reference for this run", []
    if not reply.outputs:
        return None, "the agent returned no outputs", []
    if say:
        say(f"fidelity: computing the reference ({reference.label})")
    shapes = {i["name"]: tuple(i["shape"]) for i in plan.request_inputs()}
    try:
        specs = plan.inputs.specs if plan.inputs is not None else artifact.inputs
        ref_out = fidelity.reference_outputs(reference, specs, shapes, spec.seed,
                                             fixed=plan.inputs.fixed() if plan.inputs is not None else None)
    except ImportError as e:
        return None, f"the reference needs {e.name or e} on the host (pip install 'edgeprof[torch]')", []
    got = fidelity.decode_outputs([o.to_dict() for o in reply.outputs])
    fid = fidelity.compare(got, ref_out, precision=spec.precision, num_classes=reference.num_classes,
                           names=artifact.outputs)
    fid = dataclasses.replace(fid, reference=reference.label,
                              inputs={"seed": spec.seed, "shapes": {k: list(v) for k, v in shapes.items()},
                                      "from": "the last timed query"})
    if fid.ok:
        return fid, None, []
    advice = (" (seeded random weights and inputs are a hard case for int8: check with --calibration DIR "
              "of real samples)") if spec.precision == "int8" else ""
    return fid, None, [RunWarning("fidelity", f"{spec.precision} output differs from {reference.label}: "
                                  + "; ".join(fid.problems) + advice)]


def _accuracy(plan: RunPlan, reply: RunReply, precision: str
              ) -> tuple[Accuracy | None, str | None, list[RunWarning]]:
    """Score the agent's accuracy pass (accuracy.score): (accuracy or None, why none, its warnings)."""
    data, artifact = plan.accuracy, plan.artifact
    if data is None:  # not asked: the scoring module is not even imported
        return None, None, []
    from ..evaluation import accuracy

    scored: Accuracy | None = None
    why: str | None = "the agent made no accuracy pass"
    if reply.accuracy is not None:
        scored, why = accuracy.score(data, reply.accuracy)
    if scored is None:
        return None, why, [RunWarning("accuracy", f"no accuracy: {why}")]
    warnings = []
    if scored.nonfinite:
        warnings.append(RunWarning("accuracy_nonfinite", f"{scored.nonfinite} of {scored.samples} accuracy samples "
                                   "gave NaN or infinite outputs (counted as wrong)"))
    if precision == "int8" and plan.spec.calibration is None and not (artifact is not None and as_given(artifact)):
        warnings.append(RunWarning("accuracy_calibration", "int8 was calibrated on seeded random inputs: its accuracy "
                                   "may be worse than with real data; give --calibration DIR of real samples (not "
                                   "the accuracy set)"))
    return scored, None, warnings


def io_summary(plan: RunPlan, reply: RunReply) -> IOSummary:
    """The Result's io section: inputs as fed, outputs as the agent returned them (names from the artifact)."""
    artifact, inputs = plan.artifact, plan.inputs
    names = list(artifact.outputs) if artifact is not None else []
    outputs = [IOTensor(name=names[i] if i < len(names) else f"output {i}", shape=list(o.shape), dtype=o.dtype)
               for i, o in enumerate(reply.output_shapes or [])]
    return IOSummary(inputs=inputs.io_inputs() if inputs is not None else [], outputs=outputs,
                     batch=inputs.batch if inputs is not None else None,
                     batched=list(inputs.batched) if inputs is not None else [],
                     load_s=reply.load_s, first_run_ms=reply.first_run_ms)
