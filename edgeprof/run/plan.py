"""plan(): everything one measurement needs, decided once after the device's hello, before anything is pushed.

Owns: the device's capability for this (format, runtime, precision) — decided here only —, the GPU the run uses
(--gpu, else devices.yaml gpu:, checked against the facts), the ONNX target, the
prepared artifacts, the input plan (and the batch it feeds), the checked accuracy data and the fidelity reference.
This is the only place that validates after connecting. Does not own: what is checked before connecting
(validate.py), pushing and measuring (execute.py), building the Result (assemble.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeprof_agent.messages import Facts

from .. import capability
from ..errors import CapabilityError
from ..export.inputs import InputPlan
from ..records import Artifact, Device, RunSpec
from .prepare import Prepared, export_target, input_plan, prepare
from .timing import PhaseClock
from .validate import Options

if TYPE_CHECKING:
    from ..evaluation.accuracy import AccuracyData

NO_REFERENCE_NULL = "the null runtime computes nothing"


@dataclass(frozen=True)
class RunPlan:
    """One measurement, decided: `spec` with the batch the inputs feed, the device and its facts, the capability
    decision (its notes become warnings), the prepared artifacts and input plan (None for the null runtime), the
    checked accuracy data, the fidelity reference (or why there is none), and the deploy's options. `clock`
    times the measurement's host phases (execute and assemble add theirs)."""

    spec: RunSpec
    device: Device
    facts: Facts
    decision: capability.Decision
    options: Options
    prepared: Prepared | None = None
    inputs: InputPlan | None = None
    accuracy: AccuracyData | None = None
    reference: Any = None  # fidelity.Reference
    no_reference: str | None = NO_REFERENCE_NULL
    opset: int | None = None
    clock: PhaseClock = field(default_factory=PhaseClock, compare=False)

    @property
    def artifact(self) -> Artifact | None:
        return self.prepared.artifact if self.prepared is not None else None

    def request_inputs(self) -> list[dict[str, Any]]:
        """The agent's input specs (InputPlan.request_inputs; none for the null runtime)."""
        return self.inputs.request_inputs() if self.inputs is not None else []

    def accuracy_inferences(self) -> int:
        a = self.accuracy
        return -(-a.samples // a.per_inference) if a is not None else 0


def plan(spec: RunSpec, device: Device, facts: Facts, *, options: Options | None = None,
         cache_dir: Path | None = None, say: Callable[[str], None] | None = None,
         clock: PhaseClock | None = None) -> RunPlan:
    """Decide one measurement of `spec` on `device` with its `facts`: a combination the device cannot run
    (capability matrix: a runtime it lacks, a GPU it has not) is refused in one line before any export, a torch
    model is exported at the ONNX IR / opset the device's onnxruntime loads (spec.opset: --opset, refused when
    above that), an ONNX file newer than it loads is refused, the inputs and the accuracy file are checked against
    the model, and the GPU the run names (--gpu, else the device's gpu:) against the GPUs the facts show; the
    spec returned carries it. `clock`: the measurement's PhaseClock (export, accuracy and fidelity are timed on it)."""
    o = options or Options.of(spec)
    clock = clock if clock is not None else PhaseClock()
    stage = say or (lambda _m: None)
    decision = capability.decide(spec.model, spec.runtime, spec.precision, facts, device.name, spec.runtime_options)
    if not decision.ok:
        raise CapabilityError(f"{decision.reason}", hint="pick another --runtime/--precision or device")
    gpu = spec.gpu if spec.gpu is not None else device.gpu  # --gpu, else the device's gpu: (devices.yaml)
    if gpu is not None:
        what = f"--gpu {gpu}" if spec.gpu is not None else f"gpu: {gpu} ({device.source or 'devices.yaml'})"
        problem = capability.gpu_problem(facts, gpu, device.name, what)
        if problem is not None:
            raise CapabilityError(problem, hint=f"choose --gpu (devices.yaml {device.name}.gpu) below that "
                                  "count, or leave it out")
        spec = dataclasses.replace(spec, gpu=gpu)  # stored and sent as the GPU used
    if spec.runtime == "null":
        return RunPlan(spec, device, facts, decision, o, opset=spec.opset, clock=clock)
    target = export_target(spec, facts, device.name, spec.opset)
    stage("export")
    with clock.phase("export"):
        prepared = prepare(spec, cache_dir, say, spec.calibration, target=target, facts=facts, device=device.name)
        artifact = prepared.artifact
        inputs = input_plan(artifact.inputs, spec, cache_dir, batch_given="--batch" in o.given)
    clock.export_cached = artifact.cache_hit and (prepared.fp32 is None or prepared.fp32.cache_hit)
    if inputs.batch != spec.batch:  # --input or the data fed another batch: store and count what was fed
        spec = dataclasses.replace(spec, batch=inputs.batch)
    acc_data = None
    if spec.accuracy:
        from ..evaluation import accuracy

        with clock.phase("accuracy"):
            acc_data = accuracy.load_accuracy(spec.accuracy, inputs, artifact.outputs,
                                              cache_dir / "accuracy" if cache_dir else None)
    from ..evaluation import fidelity

    with clock.phase("fidelity"):
        reference, no_reference = fidelity.reference_for(prepared.source, artifact, prepared.fp32)
    return RunPlan(spec, device, facts, decision, o, prepared=prepared, inputs=inputs, accuracy=acc_data,
                   reference=reference, no_reference=no_reference, opset=spec.opset, clock=clock)
