"""execute(): one planned forward-pass measurement on a started agent — push what it needs, send one typed
request, relay its progress, bound its silences and its whole time.

Owns: the StartedAgent protocol (what execute() needs of a started agent: push a file by content, run one request with
events and a deadline, close; agentlink.AgentLink is it), the artifact's files pushed by content (an ONNX
model over 2 GiB: its data files first, beside it in the artifacts folder), the agent's RunRequest built from a RunPlan, and
the one-line error when the model refuses the inputs fed. Does not own: the device (edgeprof/session/: a device
of another kind plugs in there, as a measurer, not here), deciding (plan.py), turning the reply into a Result
(assemble.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from edgeprof_agent.messages import (
    AccuracySpec,
    ArtifactRef,
    InputSpec,
    LogEvent,
    PowerConfig,
    ProgressEvent,
    RunReply,
    RunRequest,
    ScenarioSpec,
)

from ..agentlink import EventSink, RunDeadline
from ..errors import MeasurementFailed, ModelError
from ..export.external_data import pushed_files
from ..export.inputs import InputPlan, io_summary_lines
from ..export.quantize import as_given
from ..records import Artifact, Device, RunSpec, Transfer
from ..vocab import SETTINGS, SINGLE_STREAM, ErrorKind
from . import limits
from .plan import RunPlan


class StartedAgent(Protocol):
    """A started agent on one device: what execute() talks to. agentlink.AgentLink implements it (an agent over a
    Transport; the agent's measurer, edgeprof/session/agent.py, starts it).
    `bytes_moved`: bytes sent to the device so far (the agent itself, artifacts)."""

    bytes_moved: int

    def push_artifact(self, local_path: str, sha256: str, ext: str) -> tuple[str, int]:
        """Make the file with this content present on the device; its remote path and the bytes moved (0 when it
        was there already)."""
        ...

    def run(self, req: RunRequest, *, on_event: EventSink | None = None, timeout: float | None = 120.0,
            silence_by_phase: Mapping[str, float] | None = None, deadline: RunDeadline | None = None) -> RunReply:
        """Run one measurement; events go to on_event; silences and the whole run are bounded."""
        ...

    def close(self) -> None: ...


class Progress(Protocol):
    def stage(self, text: str) -> None: ...

    def event(self, event: ProgressEvent | LogEvent) -> None: ...


class Quiet:
    """A Progress that shows nothing."""

    def stage(self, text: str) -> None:
        pass

    def event(self, event: ProgressEvent | LogEvent) -> None:
        pass


@dataclass(frozen=True)
class Executed:
    """What execute() brings back: the agent's typed reply and the bytes moved for it."""

    reply: RunReply
    transfer: Transfer


def execute(plan: RunPlan, agent: StartedAgent, *, progress: Progress | None = None,
            lease_token: str | None = None) -> Executed:
    """Push the artifact, the input data and the accuracy data (each by content), send the run request, wait for
    the reply within the run's limits (limits.py). A model that refuses the inputs fed is a ModelError saying what
    was fed."""
    progress = progress or Quiet()
    artifact, data = plan.artifact, plan.inputs.data if plan.inputs is not None else None
    agent_bytes = agent.bytes_moved
    artifact_bytes = 0
    remote_path = None
    pushing = time.monotonic()  # the artifact, input data and accuracy data pushes: one phase
    if artifact is not None:
        progress.stage("pushing model")
        for local, sha256, ext in pushed_files(artifact):  # data kept beside the model (over 2 GiB): first
            artifact_bytes += agent.push_artifact(local, sha256, ext)[1]
        remote_path, model_bytes = agent.push_artifact(artifact.path, artifact.sha256, artifact.extension)
        artifact_bytes += model_bytes
    data_ref = None
    if data is not None:
        progress.stage("pushing input data")
        data_path, data_bytes = agent.push_artifact(data.push_path, data.push_sha256, "npz")
        artifact_bytes += data_bytes
        data_ref = ArtifactRef(path=data_path, format="npz", sha256=data.push_sha256)
    acc_spec = None
    if plan.accuracy is not None:
        from ..evaluation import accuracy

        progress.stage(f"pushing accuracy data ({plan.accuracy.samples} samples)")
        acc_path, acc_bytes = agent.push_artifact(plan.accuracy.push_path, plan.accuracy.push_sha256, "npz")
        artifact_bytes += acc_bytes
        acc_spec = accuracy.request(plan.accuracy, acc_path)
    plan.clock.add("push", time.monotonic() - pushing)
    spec = plan.spec
    request = run_request(spec, plan.device, artifact, remote_path, plan.request_inputs(),
                          return_outputs=plan.reference is not None, profile_ops=plan.spec.profile_ops,
                          lease_token=lease_token, input_data=data_ref, accuracy=acc_spec)
    progress.stage("measuring")
    try:
        with plan.clock.phase("run"):
            reply = agent.run(request, on_event=progress.event, timeout=limits.AGENT_SILENCE_TIMEOUT_S,
                                silence_by_phase=limits.phase_silences(spec),
                                deadline=limits.run_deadline(spec, plan.spec.profile_ops,
                                                             accuracy_inferences=plan.accuracy_inferences()))
    except MeasurementFailed as e:
        if e.kind == ErrorKind.MODEL_INPUT and plan.inputs is not None:
            raise model_rejected(e, plan.inputs, plan.device.name) from None
        raise
    return Executed(reply, Transfer(agent_bytes=agent_bytes, artifact_bytes=artifact_bytes,
                                    total_bytes=agent_bytes + artifact_bytes))


def model_rejected(e: MeasurementFailed, plan: InputPlan, device: str) -> ModelError:
    """The runtime refused the inputs at the first inference: the model's error, with what was fed."""
    said = e.reason if e.reason is not None else e.message  # the model's own words, without "device NAME: "
    said = f"{said} — {e.hint}" if e.hint else said
    summary = "; ".join(line.removeprefix("in  ") for line in io_summary_lines(plan.io_inputs()))
    return ModelError(f"{said} (on {device}; fed: {summary})",
                      hint="give the values the model expects: --input-value NAME=V (e.g. a sample rate), "
                           "--input-range NAME=LOW:HIGH (e.g. token ids), or real data with --input-data FILE.npz",
                      detail=e.detail)


def power_config(spec: RunSpec, device: Device) -> PowerConfig | None:
    """The devices.yaml `power:` block (validated by the inventory) for the agent, with --power-rate as its
    rate_hz: the record the agent reads (None = auto)."""
    if spec.power_rate_hz is None and not device.power:
        return None
    cfg = dict(device.power or {})
    if spec.power_rate_hz is not None:
        cfg["rate_hz"] = spec.power_rate_hz
    return PowerConfig.from_dict(cfg)


def scenario_spec(spec: RunSpec) -> ScenarioSpec | None:
    """The agent's ScenarioSpec for `spec`'s load scenario (None for single-stream): its name, rate and seed, and
    the run settings the table sends in it (vocab.Setting.wire == "scenario"). A run's and a generation's."""
    if spec.scenario == SINGLE_STREAM:
        return None
    return ScenarioSpec(name=spec.scenario, rate=spec.rate, seed=spec.seed,
                        **{name: getattr(spec, name) for name, s in SETTINGS.items() if s.wire == "scenario"})


def run_request(spec: RunSpec, device: Device, artifact: Artifact | None, remote_path: str | None,
                inputs: list[dict[str, Any]], *, return_outputs: bool, profile_ops: bool,
                lease_token: str | None = None, input_data: ArtifactRef | None = None,
                accuracy: AccuracySpec | None = None) -> RunRequest:
    """The agent's run request for `spec` (messages.RunRequest: host and agent share its fields and defaults).
    The run settings go as the table says (vocab.Setting.wire: a RunRequest field, or a ScenarioSpec field);
    two carry more than the setting: tensorrt's runtime options name the engine's precision, and the null runtime
    profiles no ops."""
    wire = {name: getattr(spec, name) for name, s in SETTINGS.items() if s.wire == "request"}
    options = dict(spec.runtime_options)
    if spec.runtime == "tensorrt":  # the engine's precision is the artifact's: a user's int8 file (as given) is int8
        precision = artifact.precision if artifact is not None and as_given(artifact) else spec.precision
        options.setdefault("precision", precision)
    wire.update(runtime_options=options, profile_ops=bool(profile_ops and spec.runtime != "null"))
    return RunRequest(
        runtime=spec.runtime,
        artifact=ArtifactRef(path=remote_path, format=artifact.format, sha256=artifact.sha256)
        if artifact is not None else None,
        inputs=[InputSpec(**i) for i in inputs],
        input_data=input_data,
        batch=spec.batch,
        threads=spec.threads,
        power=power_config(spec, device),
        return_outputs="base64" if return_outputs else False,
        profile_iterations=limits.PROFILE_ITERATIONS,
        lease_token=lease_token,
        scenario=scenario_spec(spec),
        accuracy=accuracy,
        **wire,
    )
