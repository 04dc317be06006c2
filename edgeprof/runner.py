"""One RunSpec on one Device → one Result: prepare the artifact, push, measure, compute statistics.

Owns: the order of a deploy, the agent's run request (a typed messages.RunRequest) and turning its typed
RunReply into a Result (statistics from raw samples, memory, environment, warnings with advice). deploy()
returns the Result and stores nothing: its caller saves it (cli/deploy.py, the sweep scheduler), so a failure
never leaves half a run in the database and there is one saving path.
Does not own: exporting (export/), moving bytes (agentlink, transport), measuring (agent), persisting (store).
"""

from __future__ import annotations

import contextlib
import dataclasses
import platform
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from edgeprof_agent.messages import (
    AccuracySpec,
    ArtifactRef,
    Facts,
    InputSpec,
    LogEvent,
    ProgressEvent,
    RunReply,
    RunRequest,
    ScenarioSpec,
)

from . import __version__, capability
from .agentlink import AgentLink, RunDeadline, check_samples
from .config import POWER_RATE_MAX_HZ
from .errors import CapabilityError, ConfigError, MeasurementFailed, ModelError
from .export.inputs import InputPlan, io_summary_lines, load_input_data, plan_inputs
from .export.quantize import as_given
from .records import (
    Accuracy,
    Artifact,
    Compute,
    Device,
    Environment,
    IOSummary,
    IOTensor,
    Memory,
    NullReasons,
    Power,
    Result,
    RunSpec,
    Settings,
    TensorSpec,
    Thermal,
    Transfer,
    new_run_id,
    utc_now,
)
from .stats import latency_summary, scenario_summary, stability_warnings, throughput
from .transport import Transport, open_transport
from .vocab import (
    PRECISIONS,
    RUN_DEFAULTS,
    RUNTIMES,
    SCENARIOS,
    SCHEDULED_SCENARIOS,
    SINGLE_STREAM,
    ErrorKind,
)

if TYPE_CHECKING:
    from .accuracy import AccuracyData

__all__ = ["CapabilityError", "PRECISIONS", "RUNTIMES", "build_result", "deploy", "prepare", "validate_spec"]

PROFILE_ITERATIONS = int(RUN_DEFAULTS["profile_iterations"])  # runs in the --profile-ops pass (after the timed loop)
AGENT_SILENCE_TIMEOUT_S = 600.0  # before the agent names a phase, and while it loads (TensorRT builds engines)
# while warming up and measuring the agent sends a progress line every 0.5 s between queries: a silence this long
# means it froze (or one query takes longer than this, which no board we target does)
QUERY_SILENCE_S = 120.0


def phase_silences(spec: RunSpec) -> dict[str, float]:
    """The longest silence allowed in each phase of a run, from the run's own settings (a frozen agent is found in
    that time, not after a fixed 600 s): cooling waits up to --cooldown-timeout, the idle baseline --idle, loading
    may build an engine, warm-up, measurement and the accuracy pass send progress between queries, the op profile
    runs 20 queries."""
    return {"cooldown": spec.cooldown_timeout_s + 60.0, "cooled": QUERY_SILENCE_S, "idle": spec.idle_s + 60.0,
            "load": AGENT_SILENCE_TIMEOUT_S, "warmup": QUERY_SILENCE_S, "measure": QUERY_SILENCE_S,
            "profile": AGENT_SILENCE_TIMEOUT_S, "accuracy": QUERY_SILENCE_S}


RUN_DEADLINE_MARGIN_S = 60.0


def run_deadline(spec: RunSpec, profile_ops: bool = False, accuracy_inferences: int = 0) -> RunDeadline:
    """The longest a whole run may take, from the run's own settings, enforced even while the agent keeps
    sending events (agentlink.RunDeadline): each phase's bound, summed, plus a margin. A query may take up to
    QUERY_SILENCE_S (longer is a silence): warm-up is its time plus one query; measuring ends once
    min_duration_s has passed with min_queries done (or max_queries done), so it is bounded by
    min(max(min_duration_s + a query, min_queries queries), max_queries queries) plus the reply. Per phase, the
    same bounds apply from the phase's first event, and once the agent's own progress says the phase's end is
    reached it has one query's time (QUERY_SILENCE_S) to end it. An accuracy pass of `accuracy_inferences`
    inferences may take a query's time for each."""
    q = QUERY_SILENCE_S
    measure = max(spec.min_duration_s + q, spec.min_queries * q)
    if spec.max_queries:
        measure = min(measure, spec.max_queries * q)
    measure += q
    phases = {"cooled": q, "idle": spec.idle_s + 60.0, "load": AGENT_SILENCE_TIMEOUT_S,
              "warmup": spec.warmup_s + q, "measure": measure}
    if spec.cooldown_c is not None:
        phases["cooldown"] = spec.cooldown_timeout_s + 60.0
    if profile_ops:
        phases["profile"] = AGENT_SILENCE_TIMEOUT_S
    if accuracy_inferences:
        phases["accuracy"] = accuracy_inferences * q + q
    total = sum(phases.values()) + RUN_DEADLINE_MARGIN_S
    why = (f"from the run's settings: warm-up {spec.warmup_s:g} s, min_duration {spec.min_duration_s:g} s, "
           f"min_queries {spec.min_queries}" + (f", max_queries {spec.max_queries}" if spec.max_queries else "")
           + f", at most {q:g} s a query")
    return RunDeadline(total, phase_s=phases, settle_s=q, min_duration_s=spec.min_duration_s,
                       min_queries=spec.min_queries, max_queries=spec.max_queries, warmup_s=spec.warmup_s, why=why)


class Progress(Protocol):
    def stage(self, text: str) -> None: ...

    def event(self, event: ProgressEvent | LogEvent) -> None: ...


class _Quiet:
    def stage(self, text: str) -> None:
        pass

    def event(self, event: ProgressEvent | LogEvent) -> None:
        pass


def validate_spec(spec: RunSpec) -> None:
    if spec.runtime not in RUNTIMES:
        raise ConfigError(f"--runtime {spec.runtime}: not supported yet", hint=f"supported: {', '.join(RUNTIMES)}")
    if spec.precision not in PRECISIONS:
        raise ConfigError(f"--precision {spec.precision}: not supported yet for {spec.runtime}",
                          hint=f"supported: {', '.join(PRECISIONS)}")
    fmt = "none" if spec.runtime == "null" else capability.model_format(spec.model)
    static = capability.check(fmt, spec.runtime, spec.precision, None, spec.device, spec.runtime_options)
    if not static.ok:
        raise ConfigError(f"--runtime {spec.runtime} --precision {spec.precision}: {static.reason}")
    if spec.batch < 1:
        raise ConfigError(f"--batch {spec.batch}: must be at least 1")
    if spec.threads is not None and spec.threads < 1:
        raise ConfigError(f"--threads {spec.threads}: must be at least 1 (leave it out for the runtime default)")
    if spec.min_duration_s < 0 or spec.warmup_s < 0:
        raise ConfigError("--min-duration and --warmup must be >= 0 seconds")
    if spec.max_queries is not None and spec.max_queries < spec.min_queries:
        raise ConfigError(f"--max-queries {spec.max_queries} is below --min-queries {spec.min_queries}")
    if spec.min_queries < 1:
        raise ConfigError(f"--min-queries {spec.min_queries}: must be at least 1")
    validate_telemetry(spec)
    validate_scenario(spec)
    if spec.accuracy and spec.runtime == "null":
        raise ConfigError(f"--accuracy {spec.accuracy}: the null runtime computes nothing to score",
                          hint="pick a runtime (onnxruntime, tflite, tensorrt)")


MAX_RATE_QPS = 100000.0  # above any edge model's rate: a larger value is a typo


def validate_scenario(spec: RunSpec) -> None:
    """--scenario and its parameters: one-line errors before anything connects."""
    if spec.scenario not in SCENARIOS:
        raise ConfigError(f"--scenario {spec.scenario}: unknown", hint=f"choose one of: {', '.join(SCENARIOS)}")
    if spec.scenario in SCHEDULED_SCENARIOS:
        if spec.rate is None:
            raise ConfigError(f"--scenario {spec.scenario} needs --rate QPS (queries per second)",
                              hint=f"e.g. --scenario {spec.scenario} --rate 30")
    elif spec.rate is not None:
        raise ConfigError(f"--rate {spec.rate:g}: only server and fixed-rate issue queries on a schedule, "
                          f"not {spec.scenario}", hint="leave --rate out, or choose --scenario fixed-rate or server")
    if spec.rate is not None and (not _finite(spec.rate) or not 0 < spec.rate <= MAX_RATE_QPS):
        raise ConfigError(f"--rate {spec.rate:g}: must be > 0 and <= {MAX_RATE_QPS:g} queries per second")
    if spec.scenario == "multi-stream" and (spec.samples_per_query < 1 or spec.samples_per_query % spec.batch):
        raise ConfigError(f"--samples-per-query {spec.samples_per_query}: must be a multiple of --batch "
                          f"{spec.batch} (each query runs samples_per_query / batch inferences)")
    if not 1 <= spec.streams <= 64:
        raise ConfigError(f"--streams {spec.streams}: must be between 1 and 64")
    if spec.streams != 1 and spec.scenario != "offline":
        raise ConfigError(f"--streams {spec.streams}: only the offline scenario runs several streams",
                          hint="add --scenario offline")
    for flag, v in (("--latency-bound", spec.latency_bound_ms), ("--battery-wh", spec.battery_wh)):
        if v is not None and (not _finite(v) or v <= 0):
            raise ConfigError(f"{flag} {v:g}: must be > 0")
    if spec.scenario == "server" and spec.latency_bound_ms is None:
        raise ConfigError("--scenario server needs --latency-bound MS (the run is VALID when p99 is within it)",
                          hint="e.g. --scenario server --rate 40 --latency-bound 50")


MAX_COOLDOWN_C = 150.0  # above any board's trip point: a larger value is a typo (m°C, °F)
MAX_POWER_RATE_HZ = POWER_RATE_MAX_HZ  # one home: config.py (devices.yaml rate_hz, --power-rate)


def _finite(v: float) -> bool:
    return v == v and v not in (float("inf"), float("-inf"))


def validate_telemetry(spec: RunSpec) -> None:
    """--idle, --cooldown, --cooldown-timeout, --power-rate: one-line errors before anything connects."""
    if not _finite(spec.idle_s) or spec.idle_s < 0:
        raise ConfigError(f"--idle {spec.idle_s:g}: must be >= 0 seconds (0 turns the idle power baseline off)")
    if spec.cooldown_c is not None and (not _finite(spec.cooldown_c) or not 0 < spec.cooldown_c <= MAX_COOLDOWN_C):
        raise ConfigError(f"--cooldown {spec.cooldown_c:g}: a temperature in °C between 0 and {MAX_COOLDOWN_C:g}",
                          hint="e.g. --cooldown 50 waits until the hottest sensor reads below 50 °C")
    if not _finite(spec.cooldown_timeout_s) or spec.cooldown_timeout_s <= 0:
        raise ConfigError(f"--cooldown-timeout {spec.cooldown_timeout_s:g}: must be > 0 seconds")
    if spec.power_rate_hz is not None and (not _finite(spec.power_rate_hz)
                                           or not 0 < spec.power_rate_hz <= MAX_POWER_RATE_HZ):
        raise ConfigError(f"--power-rate {spec.power_rate_hz:g}: must be > 0 and <= {MAX_POWER_RATE_HZ:g} Hz",
                          hint="the sensor caps it anyway (INA3221 ~50 Hz, vcgencmd ~10 Hz)")


def power_config(spec: RunSpec, device: Device) -> Any:
    """The devices.yaml `power:` block for the agent, with --power-rate overriding its rate_hz."""
    if spec.power_rate_hz is None:
        return device.power
    cfg = dict(device.power or {})
    cfg["rate_hz"] = spec.power_rate_hz
    return cfg


@dataclass
class Prepared:
    """The artifact to push, the fp32 artifact it came from (the fidelity reference of a user's file), the source."""

    artifact: Artifact
    fp32: Artifact | None
    source: Any  # export.resolve.ModelSource


def prepare(spec: RunSpec, cache_dir: Path | None = None, say: Callable[[str], None] | None = None,
            calibration: str | None = None, *, target: capability.OnnxTarget | None = None,
            facts: Facts | None = None, device: str = "device") -> Prepared:
    """Export / read / quantise the model for spec.runtime and spec.precision (all cached). `target`: the ONNX
    opset / IR a torch model is exported at (capability.onnx_target; None: the exporter's default). With the
    device's `facts`, an ONNX file its onnxruntime cannot load (the user's, before anything else is done with it,
    or the quantised one) is refused here, before the push."""
    from .export.onnx_export import (
        DEFAULT_OPSET,
        cached_artifact,
        default_cache_dir,
        onnx_versions,
        prepare_onnx,
    )
    from .export.resolve import resolve_model

    cache = cache_dir or default_cache_dir()
    source = resolve_model(spec.model)
    checked: set[str] = set()

    def loadable(path: str | Path, what: str) -> None:
        if spec.runtime != "onnxruntime" or facts is None or str(path) in checked:
            return
        ir, opset = onnx_versions(Path(path))
        checked.add(str(path))
        if opset is not None:
            capability.require_loadable(what, ir, opset, facts, device)

    if source.kind == "onnx" and source.path is not None:
        loadable(source.path, str(spec.model))
    if spec.runtime == "tflite":
        from .export.tflite_export import prepare_tflite

        kw: dict[str, Any] = {"cache_dir": cache, "batch": spec.batch, "input_shapes": spec.input_shapes,
                              "seed": spec.seed, "calibration": calibration, "progress": say}
        fp32 = prepare_tflite(source, precision="fp32", **kw)
        artifact = fp32 if spec.precision == "fp32" else prepare_tflite(  # calibration feeds what the run feeds
            source, precision=spec.precision, plan_for=lambda a: input_plan(a.inputs, spec, cache), **kw)
        if source.kind in ("bundled", "builder") and artifact.flops is None:
            # FLOPs follow the ONNX counter's convention (export/flops.py): from the same model's ONNX export
            onnx_art = cached_artifact(source, cache_dir=cache, seed=spec.seed)
            if onnx_art is None and source.bundled is not None and source.bundled.task == "microbenchmark":
                with contextlib.suppress(ModelError):
                    onnx_art = prepare_onnx(source, cache_dir=cache, seed=spec.seed, progress=say)
            if onnx_art is not None:
                artifact = dataclasses.replace(artifact, flops=onnx_art.flops)
        return Prepared(artifact, fp32, source)
    if source.kind == "tflite":
        raise ModelError(f"{spec.model} is a TFLite model; {spec.runtime} runs ONNX",
                         hint="run it with --runtime tflite")
    fp32 = prepare_onnx(source, cache_dir=cache, seed=spec.seed, progress=say,
                        opset=DEFAULT_OPSET if target is None else target.opset,
                        max_ir=None if target is None else target.max_ir)
    from .export.quantize import onnx_given_precision, quantize_onnx

    given = onnx_given_precision(fp32.path) if source.kind == "onnx" else None
    if given is not None:  # the user's file is already quantised: run it as it is, labelled so
        if spec.precision not in ("fp32", given[0]):
            raise ModelError(f"{spec.model} is already {given[0]} ({given[1]}); edgeprof runs it as given",
                             hint="leave out --precision, or give the fp32 model to convert")
        artifact = dataclasses.replace(fp32, precision=given[0], export_options={
            **fp32.export_options, "precision_as_given": True, "quantized_by": given[1]})
        return Prepared(artifact, artifact, source)
    if spec.precision == "fp32" or (spec.runtime == "tensorrt" and spec.precision == "fp16"):
        return Prepared(fp32, fp32, source)  # TensorRT builds fp16 engines from the fp32 ONNX

    plan = input_plan(fp32.inputs, spec, cache)  # calibration feeds what the run feeds (constants, data, ranges)
    artifact = quantize_onnx(fp32, spec.precision, cache_dir=cache, shapes=plan.shapes, seed=spec.seed,
                             calibration=calibration, progress=say, plan=plan)
    loadable(artifact.path, f"the {spec.precision} model quantised from {spec.model}")
    return Prepared(artifact, fp32, source)


def prepare_artifact(spec: RunSpec, cache_dir: Path | None = None,
                     say: Callable[[str], None] | None = None, calibration: str | None = None, *,
                     target: capability.OnnxTarget | None = None) -> Artifact:
    return prepare(spec, cache_dir, say, calibration, target=target).artifact


def input_plan(specs: tuple[TensorSpec, ...], spec: RunSpec, cache_dir: Path | None = None) -> InputPlan:
    """What feeds each input and its shape (export/inputs.plan_inputs): every problem is one line, found before
    anything is pushed."""
    data = load_input_data(spec.input_data, cache_dir / "inputs" if cache_dir else None) \
        if spec.input_data else None
    return plan_inputs(specs, batch=spec.batch, seed=spec.seed, shapes=spec.input_shapes, data=data,
                       values=spec.input_values, ranges=spec.input_ranges)


def input_params(artifact: Artifact, spec: RunSpec, cache_dir: Path | None = None) -> list[dict[str, Any]]:
    """The agent's input specs for `artifact` under `spec` (InputPlan.request_inputs)."""
    return input_plan(artifact.inputs, spec, cache_dir).request_inputs()


def host_environment() -> dict[str, Any]:
    return {"hostname": socket.gethostname(), "python": platform.python_version(), "edgeprof": __version__,
            "platform": platform.platform()}


def run_request(spec: RunSpec, device: Device, artifact: Artifact | None, remote_path: str | None,
                inputs: list[dict[str, Any]], *, return_outputs: bool, profile_ops: bool,
                lease_token: str | None = None, input_data: ArtifactRef | None = None,
                accuracy: AccuracySpec | None = None) -> RunRequest:
    """The agent's run request for `spec` (messages.RunRequest: host and agent share its fields and defaults)."""
    options = dict(spec.runtime_options)
    if spec.runtime == "tensorrt":  # the engine's precision is the artifact's: a user's int8 file (as given) is int8
        precision = artifact.precision if artifact is not None and as_given(artifact) else spec.precision
        options.setdefault("precision", precision)
    return RunRequest(
        runtime=spec.runtime,
        artifact=ArtifactRef(path=remote_path, format=artifact.format, sha256=artifact.sha256)
        if artifact is not None else None,
        inputs=[InputSpec(**i) for i in inputs],
        input_data=input_data,
        seed=spec.seed,
        batch=spec.batch,
        threads=spec.threads,
        runtime_options=options,
        warmup_s=spec.warmup_s,
        min_duration_s=spec.min_duration_s,
        min_queries=spec.min_queries,
        max_queries=spec.max_queries,
        power=power_config(spec, device),
        idle_s=spec.idle_s,
        cooldown_c=spec.cooldown_c,
        cooldown_timeout_s=spec.cooldown_timeout_s,
        return_outputs="base64" if return_outputs else False,
        profile_ops=bool(profile_ops and spec.runtime != "null"),
        profile_iterations=PROFILE_ITERATIONS,
        lease_token=lease_token,
        scenario=None if spec.scenario == SINGLE_STREAM else ScenarioSpec(
            name=spec.scenario, rate=spec.rate, samples_per_query=spec.samples_per_query, streams=spec.streams,
            latency_bound_ms=spec.latency_bound_ms, seed=spec.seed),
        accuracy=accuracy,
    )


def deploy(spec: RunSpec, device: Device, *, progress: Progress | None = None,
           cache_dir: Path | None = None, facts: Facts | Mapping[str, Any] | None = None,
           lease_token: str | None = None, calibration: str | None = None, profile_ops: bool = False,
           transport: Transport | None = None, on_link: Callable[[AgentLink], None] | None = None,
           opset: int | None = None) -> Result:
    """Measure `spec` on `device` and return the Result; the caller stores it. The device's facts, with its
    runtimes and their versions, are read first (unless given: `facts`, a messages.Facts or its dict, as a sweep
    reads them once per board), so a combination the device cannot run (capability matrix: a runtime it lacks, a
    GPU it has not) fails in one line before any export or push, a torch model is exported at the ONNX IR / opset
    the device's onnxruntime loads (`opset`: --opset, refused when above that), and an ONNX file newer than it
    loads is refused before the push.
    `calibration`: a directory of .npy/.npz samples for int8; `profile_ops`: add a per-op profile pass after
    the timed loop.
    For sweeps (lab/scheduler.py): `transport` reuses an open connection (left open afterwards); `on_link` gets
    the started agent so another thread can stop it (cell timeout, Ctrl-C); `lease_token` is the device lease
    the run is made under."""
    progress = progress or _Quiet()
    validate_spec(spec)
    artifact: Artifact | None = None
    prepared: Prepared | None = None
    inputs: list[dict[str, Any]] = []
    plan: InputPlan | None = None
    acc_data: AccuracyData | None = None  # the checked --accuracy file
    known: Facts | None = None
    if facts is not None:
        known = facts if isinstance(facts, Facts) else Facts.from_dict(dict(facts))

    progress.stage(f"connecting to {device.name}")
    with contextlib.nullcontext(transport) if transport is not None else open_transport(device) as transport:
        link = AgentLink.open(transport, device, progress=progress.stage)
        if on_link is not None:
            on_link(link)
        try:
            device_facts = known if known is not None else link.facts(runtimes=True)
            if link.known_facts is None or device_facts.runtimes:
                link.known_facts = device_facts  # names the runtime's version should the agent crash in it
            fmt = "none" if spec.runtime == "null" else capability.model_format(spec.model)
            decision = capability.check(fmt, spec.runtime, spec.precision, device_facts, device.name,
                                        spec.runtime_options)
            if not decision.ok:
                raise CapabilityError(f"{decision.reason}", hint="pick another --runtime/--precision or device")
            if spec.runtime != "null":
                target = export_target(spec, device_facts, device.name, opset)
                progress.stage("export")
                prepared = prepare(spec, cache_dir, progress.stage, calibration, target=target,
                                   facts=device_facts, device=device.name)
                artifact = prepared.artifact
                plan = input_plan(artifact.inputs, spec, cache_dir)
                inputs = plan.request_inputs()
                if plan.batch != spec.batch:  # --input or the data fed another batch: store and count what was fed
                    spec = dataclasses.replace(spec, batch=plan.batch)
                if spec.accuracy:
                    from . import accuracy as acc

                    acc_data = acc.load_accuracy(spec.accuracy, plan, artifact.outputs,
                                                 cache_dir / "accuracy" if cache_dir else None)
            reference: Any = None
            no_reference: str | None = "the null runtime computes nothing"
            if prepared is not None and artifact is not None:
                from . import fidelity

                reference, no_reference = fidelity.reference_for(prepared.source, artifact, prepared.fp32)
            agent_bytes = link.bytes_moved
            artifact_bytes = 0
            remote_path = None
            if artifact is not None:
                progress.stage("pushing model")
                remote_path, artifact_bytes = link.push_artifact(artifact.path, artifact.sha256, artifact.extension)
            data_ref = None
            if plan is not None and plan.data is not None:
                progress.stage("pushing input data")
                data_path, data_bytes = link.push_artifact(plan.data.push_path, plan.data.push_sha256, "npz")
                artifact_bytes += data_bytes
                data_ref = ArtifactRef(path=data_path, format="npz", sha256=plan.data.push_sha256)
            acc_spec = None
            if acc_data is not None:
                from . import accuracy as acc

                progress.stage(f"pushing accuracy data ({acc_data.samples} samples)")
                acc_path, acc_bytes = link.push_artifact(acc_data.push_path, acc_data.push_sha256, "npz")
                artifact_bytes += acc_bytes
                acc_spec = acc.request(acc_data, acc_path)
            request = run_request(spec, device, artifact, remote_path, inputs, return_outputs=reference is not None,
                                  profile_ops=profile_ops, lease_token=lease_token, input_data=data_ref,
                                  accuracy=acc_spec)
            progress.stage("measuring")
            try:
                reply = link.run(request, on_event=progress.event, timeout=AGENT_SILENCE_TIMEOUT_S,
                                 silence_by_phase=phase_silences(spec),
                                 deadline=run_deadline(spec, profile_ops, accuracy_inferences=-(
                                     -acc_data.samples // acc_data.per_inference) if acc_data else 0))
            except MeasurementFailed as e:
                if e.kind == ErrorKind.MODEL_INPUT and plan is not None:
                    raise model_rejected(e, plan, device.name) from None
                raise
        finally:
            link.close()

    result = build_result(spec, device, artifact, reply, device_facts, inputs=inputs,
                          transfer={"agent_bytes": agent_bytes, "artifact_bytes": artifact_bytes,
                                    "total_bytes": agent_bytes + artifact_bytes}, opset=opset, plan=plan)
    if calibration is not None and spec.precision == "int8":
        result.settings = dataclasses.replace(result.settings, calibration=calibration)
    for note in decision.notes:
        result.warn("precision_emulated" if "fp16" in note else "capability", note)
    if artifact is not None:
        add_fidelity(result, artifact, reference, no_reference, reply, inputs, spec, progress.stage, plan=plan)
    if reply.ops is not None:
        from .opprofile import summarize

        result.ops = summarize(reply.ops)
    if acc_data is not None:
        add_accuracy(result, acc_data, reply, calibration)
    return result


def add_accuracy(result: Result, data: AccuracyData, reply: RunReply, calibration: str | None) -> None:
    """Score the agent's accuracy pass (accuracy.score) into result.accuracy, or say why there is none."""
    from . import accuracy

    scored: Accuracy | None = None
    why: str | None = "the agent made no accuracy pass"
    if reply.accuracy is not None:
        scored, why = accuracy.score(data, reply.accuracy)
    result.accuracy = scored
    if scored is None:
        result.null_reasons = dataclasses.replace(result.null_reasons, accuracy=why)
        result.warn("accuracy", f"no accuracy: {why}")
        return
    if scored.nonfinite:
        result.warn("accuracy_nonfinite", f"{scored.nonfinite} of {scored.samples} accuracy samples gave NaN or "
                    "infinite outputs (counted as wrong)")
    if result.precision == "int8" and calibration is None and \
            not (result.artifact is not None and result.artifact.export_options.get("precision_as_given")):
        result.warn("accuracy_calibration", "int8 was calibrated on seeded random inputs: its accuracy may be "
                    "worse than with real data; give --calibration DIR of real samples (not the accuracy set)")


def export_target(spec: RunSpec, facts: Facts | None, device: str, opset: int | None = None) -> capability.OnnxTarget:
    """The ONNX IR / opset a torch model of `spec` is exported at for a device with `facts` (capability.onnx_target,
    from the exporter's default); raises CapabilityError for an --opset the device cannot load."""
    from .export.onnx_export import DEFAULT_OPSET

    return capability.onnx_target(spec.runtime, facts, DEFAULT_OPSET, opset, device)


def add_fidelity(result: Result, artifact: Artifact, reference: Any, no_reference: str | None,
                 reply: RunReply, inputs: list[dict[str, Any]], spec: RunSpec,
                 say: Callable[[str], None] | None = None, plan: InputPlan | None = None) -> None:
    """Compare the device's outputs (last timed query) with the reference; store, warn past the threshold."""
    from . import fidelity

    def no_fidelity(why: str) -> None:
        result.null_reasons = dataclasses.replace(result.null_reasons, fidelity=why)

    if reference is None:
        no_fidelity(no_reference or "no reference for this run")
        return
    if not reply.outputs:
        no_fidelity("the agent returned no outputs")
        return
    if say:
        say(f"fidelity: computing the reference ({reference.label})")
    shapes = {i["name"]: tuple(i["shape"]) for i in inputs}
    try:
        specs = plan.specs if plan is not None else artifact.inputs
        ref_out = fidelity.reference_outputs(reference, specs, shapes, spec.seed,
                                             fixed=plan.fixed() if plan is not None else None)
    except ImportError as e:
        no_fidelity(f"the reference needs {e.name or e} on the host (pip install 'edgeprof[torch]')")
        return
    got = fidelity.decode_outputs([o.to_dict() for o in reply.outputs])
    fid = fidelity.compare(got, ref_out, precision=spec.precision, num_classes=reference.num_classes,
                           names=artifact.outputs)
    fid = dataclasses.replace(fid, reference=reference.label,
                              inputs={"seed": spec.seed, "shapes": {k: list(v) for k, v in shapes.items()},
                                      "from": "the last timed query"})
    result.fidelity = fid
    result.null_reasons = dataclasses.replace(result.null_reasons, fidelity=None)
    if not fid.ok:
        advice = (" (seeded random weights and inputs are a hard case for int8: check with --calibration DIR "
                  "of real samples)") if spec.precision == "int8" else ""
        result.warn("fidelity", f"{spec.precision} output differs from {reference.label}: "
                    + "; ".join(fid.problems) + advice)


def model_rejected(e: MeasurementFailed, plan: InputPlan, device: str) -> ModelError:
    """The runtime refused the inputs at the first inference: the model's error, with what was fed."""
    message = str(e.args[0]) if e.args else "the model rejected these inputs"
    message = message.split(": ", 1)[1] if message.startswith(f"device {device}: ") else message
    summary = "; ".join(line.removeprefix("in  ") for line in io_summary_lines(plan.io_inputs()))
    return ModelError(f"{message} (on {device}; fed: {summary})",
                      hint="give the values the model expects: --input-value NAME=V (e.g. a sample rate), "
                           "--input-range NAME=LOW:HIGH (e.g. token ids), or real data with --input-data FILE.npz",
                      detail=e.detail)


def io_summary(plan: InputPlan | None, reply: RunReply, artifact: Artifact | None) -> IOSummary:
    """The Result's io section: inputs as fed, outputs as the agent returned them (names from the artifact)."""
    outputs = []
    names = list(artifact.outputs) if artifact is not None else []
    for i, o in enumerate(reply.output_shapes or []):
        outputs.append(IOTensor(name=names[i] if i < len(names) else f"output {i}", shape=list(o.shape),
                                dtype=o.dtype))
    return IOSummary(inputs=plan.io_inputs() if plan is not None else [], outputs=outputs,
                     batch=plan.batch if plan is not None else None,
                     batched=list(plan.batched) if plan is not None else [],
                     load_s=reply.load_s, first_run_ms=reply.first_run_ms)


def _scenario_settings(spec: RunSpec) -> dict[str, Any]:
    """The scenario's run settings for Settings (none for single-stream: its stored settings stay as before)."""
    if spec.scenario == SINGLE_STREAM:
        return {}
    return {"latency_bound_ms": spec.latency_bound_ms, "samples_per_query": spec.samples_per_query,
            "streams": spec.streams, "battery_wh": spec.battery_wh}


def build_result(spec: RunSpec, device: Device, artifact: Artifact | None, reply: RunReply,
                 facts: Facts, transfer: dict[str, Any], inputs: list[dict[str, Any]] | None = None,
                 opset: int | None = None, plan: InputPlan | None = None) -> Result:
    """The Result of one run from the agent's typed RunReply and the device's Facts (samples checked first)."""
    check_samples(reply.samples_ns, device.name)
    samples_ms = [ns / 1e6 for ns in reply.samples_ns]
    lat = latency_summary(samples_ms)
    window_s = float(reply.window_s)
    sc = reply.scenario
    tput = throughput(len(samples_ms), spec.batch, window_s) if sc is None else throughput(sc.samples, 1, window_s)
    mem = reply.memory.to_dict()
    if artifact is not None:
        mem["artifact_size"] = artifact.size_bytes / 1e6
    runtime_desc = reply.runtime
    environment = Environment(
        device=facts.to_dict(),
        host=host_environment(),
        runtime=runtime_desc,
        agent_version=facts.agent_version,
        edgeprof_version=__version__,
        model_sha256=artifact.sha256 if artifact else None,
        export_options=artifact.export_options if artifact else None,
        thread_env=facts.env,
        clock=reply.clock,
    )
    power = Power.from_dict(reply.power) if reply.power else None
    if power and artifact is not None and artifact.flops and power.mean_w and tput:
        gflops = artifact.flops * tput / 1e9
        power = dataclasses.replace(power, achieved_gflops=gflops, gflops_per_watt=gflops / power.mean_w)
    result = Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=device.name, model=spec.model,
        runtime=spec.runtime, precision=(as_given(artifact) if artifact is not None else None) or spec.precision, batch=spec.batch, threads=spec.threads,
        latency_ms=lat, throughput_ips=tput, memory_mb=Memory.from_dict(mem), power=power,
        thermal=Thermal.from_dict(reply.thermal) if reply.thermal else None,
        fidelity=None, environment=environment, warnings=[], samples_ms=samples_ms,
        artifact=artifact,
        settings=Settings(
            min_duration_s=spec.min_duration_s, min_queries=spec.min_queries, warmup_s=spec.warmup_s,
            seed=spec.seed, inputs=[{"name": i["name"], "shape": i["shape"], "dtype": i["dtype"]}
                                    for i in inputs or []],
            runtime_options=spec.runtime_options, window_s=window_s, stopped_by=reply.stopped_by,
            warmup=reply.warmup.to_dict(), load_s=reply.load_s,
            idle_s=spec.idle_s, cooldown_c=spec.cooldown_c, power_rate_hz=spec.power_rate_hz, opset=opset,
            input_data=spec.input_data, input_values=dict(spec.input_values) or None, accuracy=spec.accuracy,
            input_ranges={k: list(v) for k, v in spec.input_ranges.items()} or None,
            **_scenario_settings(spec),
        ),
        transfer=Transfer.from_dict(transfer),
        null_reasons=NullReasons(
            power=None if reply.power else reply.power_reason or "no power data",
            thermal=None if reply.thermal else "thermal telemetry not available on this device/agent",
            fidelity="no fidelity check was made for this run",
        ),
        compute=Compute(flops_per_inference=artifact.flops, achieved_gflops=artifact.flops * tput / 1e9)
        if artifact is not None and artifact.flops and tput else None,
        io=io_summary(plan, reply, artifact),
    )
    if sc is not None:
        result.scenario = scenario_summary(
            name=sc.name, samples_ms=samples_ms, window_s=window_s, queries=sc.queries, samples=sc.samples,
            rate=sc.rate, samples_per_query=sc.samples_per_query if sc.name == "multi-stream" else None,
            streams=sc.streams if sc.name == "offline" else None, latency_bound_ms=spec.latency_bound_ms,
            seed=sc.seed, mode=sc.mode, misses=sc.misses, scheduled_ns=sc.scheduled_ns, issued_ns=sc.issued_ns,
            energy_j=power.energy_j if power else None, idle_w=power.idle_w if power else None,
            mean_w=power.mean_w if power else None, battery_wh=spec.battery_wh)
        if sc.misses:
            result.warn("deadline_misses", f"{sc.misses} of {sc.queries} queries were not done before the next "
                        f"was due at {sc.rate:g}/s; lower --rate or use a faster configuration")
    elif spec.battery_wh and power and power.mean_w:
        result.scenario = dataclasses.replace(result.scenario, battery_wh=spec.battery_wh,
                                              battery_hours=spec.battery_wh / power.mean_w)
    result.warnings.extend(stability_warnings(lat, min_duration_s=spec.min_duration_s))
    for agent_warning in reply.warnings:
        result.warn(agent_warning.code, agent_warning.message)
    warm = reply.warmup
    if warm.iterations and not warm.steady:
        result.warn("warmup_not_steady", f"latency was not steady after {warm.duration_s} s of warm-up; "
                    "raise --warmup (clocks or caches may still have been settling)")
    if reply.stopped_by.startswith("max_queries"):
        result.warn("max_queries", f"the run stopped at --max-queries {spec.max_queries} before --min-duration "
                    f"{spec.min_duration_s:g} s passed (queries are very short); raise --max-queries to run longer")
    return result
