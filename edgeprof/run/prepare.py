"""The artifact of one measurement: export / read / quantise the model for its runtime and precision (cached),
and the input plan that feeds it.

Owns: the order of the export steps for one RunSpec, one way (export/ does each step): the model reference →
its source (export/resolve.py) → the format's exporter (export/onnx_export.py or tflite_export.py, each calling
the cache, export/artifact_cache.py, once) → the precision (export/quantize.py: fp16 / int8 ONNX; TFLite int8
tflite_export.quantize_tflite) → the artifact; the ONNX target for a device,
refusing an ONNX file the device's onnxruntime cannot load before the push, the input plan. Does not own: the
exporters and the cache (export/), the capability matrix (capability.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgeprof_agent.messages import Facts

from .. import capability
from ..errors import ModelError
from ..export.inputs import InputPlan, load_input_data, plan_inputs
from ..records import Artifact, OnnxExportOptions, RunSpec, TensorSpec
from ..records.options import extended


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
    from ..export.artifact_cache import default_cache_dir
    from ..export.onnx_export import DEFAULT_OPSET, cached_artifact, onnx_versions, prepare_onnx
    from ..export.resolve import resolve_model

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
        from ..export.tflite_export import export_tflite, quantize_tflite

        kw: dict[str, Any] = {"cache_dir": cache, "batch": spec.batch, "input_shapes": spec.input_shapes,
                              "seed": spec.seed, "progress": say}
        fp32 = export_tflite(source, precision=spec.precision, **kw)
        artifact = fp32 if spec.precision == "fp32" or fp32.precision == spec.precision else quantize_tflite(
            source, fp32, spec.precision, calibration=calibration,  # calibration feeds what the run feeds
            plan=input_plan(fp32.inputs, spec, cache), **kw)
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
    from ..export.quantize import onnx_given_precision, quantize_onnx

    given = onnx_given_precision(fp32.path) if source.kind == "onnx" else None
    if given is not None:  # the user's file is already quantised: run it as it is, labelled so
        if spec.precision not in ("fp32", given[0]):
            raise ModelError(f"{spec.model} is already {given[0]} ({given[1]}); edgeprof runs it as given",
                             hint="leave out --precision, or give the fp32 model to convert")
        artifact = dataclasses.replace(fp32, precision=given[0], export_options=extended(
            fp32.export_options, OnnxExportOptions, precision_as_given=True, quantized_by=given[1]))
        return Prepared(artifact, artifact, source)
    if spec.precision == "fp32" or (spec.runtime == "tensorrt" and spec.precision == "fp16"):
        return Prepared(fp32, fp32, source)  # TensorRT builds fp16 engines from the fp32 ONNX

    plan = input_plan(fp32.inputs, spec, cache)  # calibration feeds what the run feeds (constants, data, ranges)
    artifact = quantize_onnx(fp32, spec.precision, cache_dir=cache, shapes=plan.shapes, seed=spec.seed,
                             calibration=calibration, progress=say, plan=plan,
                             graph_opt=spec.runtime_options.get("graph_optimization_level"))
    loadable(artifact.path, f"the {spec.precision} model quantised from {spec.model}")
    return Prepared(artifact, fp32, source)



def input_plan(specs: tuple[TensorSpec, ...], spec: RunSpec, cache_dir: Path | None = None, *,
               batch_given: bool = False) -> InputPlan:
    """What feeds each input and its shape (export/inputs.plan_inputs): every problem is one line, found before
    anything is pushed. `batch_given`: --batch was on the command line."""
    data = load_input_data(spec.input_data, cache_dir / "inputs" if cache_dir else None) \
        if spec.input_data else None
    return plan_inputs(specs, batch=spec.batch, seed=spec.seed, shapes=spec.input_shapes, data=data,
                       values=spec.input_values, ranges=spec.input_ranges, batch_given=batch_given)


def input_params(artifact: Artifact, spec: RunSpec, cache_dir: Path | None = None) -> list[dict[str, Any]]:
    """The agent's input specs for `artifact` under `spec` (InputPlan.request_inputs)."""
    return input_plan(artifact.inputs, spec, cache_dir).request_inputs()


def export_target(spec: RunSpec, facts: Facts | None, device: str, opset: int | None = None) -> capability.OnnxTarget:
    """The ONNX IR / opset a torch model of `spec` is exported at for a device with `facts` (capability.onnx_target,
    from the exporter's default); raises CapabilityError for an --opset the device cannot load."""
    from ..export.onnx_export import DEFAULT_OPSET

    return capability.onnx_target(spec.runtime, facts, DEFAULT_OPSET, opset, device)


