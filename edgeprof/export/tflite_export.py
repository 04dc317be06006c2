"""Make a TFLite Artifact: torch → .tflite with litert-torch (fp32), int8 / fp16 with ai-edge-quantizer; user files.

Owns:
- torch → TFLite with `litert_torch.convert(module, (), example_kwargs)`. No TensorFlow is needed. The graph is
  exported at the run's concrete input shapes (batch included): TFLite graphs are static here, so the batch is
  part of the cache key. litert-torch narrows int64 inputs to int32 (`enable_x64=False`) and keeps NCHW; the
  Artifact's TensorSpecs say what the file really takes (int32, signature input names, graph order).
- int8 with ai-edge-quantizer: static int8 activations and weights (`static_wi8_ai8` settings, weights
  per-channel) with the model's inputs and outputs left float (QUANTIZE/DEQUANTIZE inside the graph), so the same
  seeded float inputs feed it. Calibration: seeded random samples or `--calibration DIR` (quantize.py). A file
  without signatures (the quantiser calibrates by signature) is given a `serving_default` one in a temporary
  copy; the result is loaded and allocated once on the host, or refused in one line that blames the conversion.
- fp16: LiteRT's float16 post-training quantisation (tflite_fp16.py: weights float16 behind DEQUANTIZE, compute
  and I/O float32), cached and load-checked like int8; no calibration.
- a user's .tflite: read with the LiteRT interpreter on the host, in a child process (reference.tflite_facts
  through loadcheck.call_in_child: a native crash or hang is one line) (inputs, dtypes, dynamic dims from
  `shape_signature`); `--precision int8` quantises a float user file the same way; a file with int8/uint8
  quantised tensors is int8 "as given" and is not quantised again; `--precision fp16` converts a float user file
  the same way, and a file whose weights are already float16 (DEQUANTIZE-fed) is fp16 "as given".
- the export check: the host's LiteRT interpreter against torch on the seeded inputs (fp32: max abs error).
- the cache (artifact_cache.py), keyed by the model's defining text, seed, shapes, precision, calibration, the
  litert-torch / ai-edge-quantizer / ai-edge-litert versions and this file's text.
- running every conversion inside a capture (capture.py, through artifact_cache.build_cached): litert-torch's,
  absl's and LiteRT's output goes to `cache_dir/<key>.log`; reading a user's file or building a builder for its
  input specs logs to `cache_dir/host.log`.
Does not own: ONNX (onnx_export.py), FLOPs (taken from the ONNX export of the same model when it is cached or
cheap), running on a device (the agent's tflite backend).
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..hostrun.loadcheck import LITERT, call_in_child, check_converted, op_refused
from ..hostrun.reference import TfliteTensor, interpreter_class, tflite_outputs, torch_check, torch_outputs
from ..records import Artifact, TensorSpec, TfliteExportOptions
from ..records.options import extended
from .artifact_cache import build_cached, code_version, dist_version, key_of
from .capture import capture, library_failure, to_terminal
from .hashes import sha256_of
from .inputs import InputPlan, make_inputs
from .quantize import calibration_fingerprint, calibration_samples
from .resolve import ModelSource, torch_module, user_import_path
from .tflite_fp16 import cast_fp16, quantizer_for

__all__ = ["prepare_tflite", "export_tflite", "quantize_tflite", "export_material", "read_tflite", "interpreter_class", "tflite_precisions", "TFLITE_PRECISIONS"]

TFLITE_PRECISIONS = ("fp32", "fp16", "int8")
SIGNATURE = "serving_default"
Progress = Callable[[str], None]


def tflite_precisions() -> tuple[str, ...]:
    return TFLITE_PRECISIONS


# ---------------------------------------------------------------------------------------- reading files


def read_tflite(path: Path, *, what: str | None = None) -> tuple[tuple[TensorSpec, ...], tuple[str, ...], dict[str, Any]]:
    """Input specs (graph order), output names and facts (op counts, quantised inputs, signature keys) of a
    .tflite file, read by LiteRT in a child process (loadcheck.call_in_child: a crash or hang is one line)."""
    import numpy as np

    interpreter_class()  # ModelError here when the host has no LiteRT
    read, error = call_in_child("tflite_facts", str(path), what=what or f"reading {path}", library=LITERT,
                                hint="LiteRT crashed reading the file, before any input was fed: check the file "
                                     "with plain ai-edge-litert, or try a newer one (pip install -U ai-edge-litert)")
    if error is not None:
        raise ModelError(f"{path} is not a valid TFLite model: {' '.join(error.split())[:300]}",
                         hint="convert it again or check the path")
    specs = []
    quantised = {}
    for t in (TfliteTensor(**{**d, "shape": tuple(d["shape"])}) for d in read["inputs"]):
        shape: tuple[int | str | None, ...] = tuple(None if x < 0 else x for x in t.shape)
        if t.dtype == "bool":
            low, high = 0.0, 2.0
        elif t.dtype in ("int8", "uint8") and t.scale:
            info = np.iinfo(t.dtype)
            low, high = float(info.min), float(info.max) + 1.0
            quantised[t.name] = {"scale": t.scale, "zero_point": t.zero_point}
        else:
            low, high = 0.0, 1.0
        specs.append(TensorSpec(t.name, shape, t.dtype, low, high))
    ops: dict[str, int] = read["op_counts"]
    # float16 constants DEQUANTIZEd to float32: the converter's fp16 weight quantisation (compute stays float32)
    fp16_weights = read["float16_tensors"] if "DEQUANTIZE" in ops else 0
    return tuple(specs), tuple(read["outputs"]), {"op_counts": ops, "quantized_inputs": quantised,
                                                 "quantized_tensors": read["quantized_tensors"],
                                                 "float16_weights": fp16_weights, "signatures": read["signatures"]}


def given_tflite_precision(facts: Mapping[str, Any]) -> str | None:
    """The precision a user's .tflite file runs at as given (read_tflite's facts): int8 when it holds quantised
    tensors, fp16 when its weights are float16 behind DEQUANTIZE, None for a float32 file."""
    if facts["quantized_inputs"] or facts["quantized_tensors"]:
        return "int8"
    return "fp16" if facts["float16_weights"] else None


def _user_tflite(source: ModelSource, say: Progress) -> Artifact:
    if source.path is None:  # pragma: no cover - resolve_model always sets it
        raise ValueError(f"model source {source.spec!r} has no path")
    say(f"{source.name}: reading {source.path}")
    specs, outputs, facts = read_tflite(source.path, what=f"reading {source.spec}")
    if not specs:
        raise ModelError(f"{source.spec} has no inputs", hint="edgeprof needs at least one input to feed")
    given = given_tflite_precision(facts)
    quantised = given == "int8"
    detail: dict[str, Any] = {}
    if quantised:
        detail = {"quantized_tensors": facts["quantized_tensors"]}
    elif given == "fp16":
        detail = {"weights": f"float16 ({facts['float16_weights']} tensors, DEQUANTIZE to float32: compute in float32)"}
    return Artifact(
        path=str(source.path), format="tflite", sha256=sha256_of(source.path),
        size_bytes=source.path.stat().st_size, inputs=specs, outputs=outputs, model_name=source.name,
        source=source.source, precision=given or "fp32",
        export_options=TfliteExportOptions(op_counts=facts["op_counts"], quantized_inputs=facts["quantized_inputs"],
                                           **({"precision_as_given": True, **detail} if given else {})),
        export_check=None, cache_hit=False,
    )


# ------------------------------------------------------------------------------------------- exporting


def _litert_torch() -> Any:
    try:
        import litert_torch
    except ImportError as e:
        raise ModelError("exporting a torch model to TFLite needs litert-torch",
                         hint="pip install 'edgeprof[tflite]'") from e
    return litert_torch


def _source_specs(source: ModelSource, seed: int) -> tuple[Any, tuple[TensorSpec, ...]]:
    """(torch module, declared input specs) for bundled models and builders."""
    module, specs, _outputs = torch_module(source, seed)
    return module, specs


def _export_fp32(source: ModelSource, out: Path, *, seed: int, shapes: Mapping[str, tuple[int, ...]],
                 say: Progress) -> Artifact:
    import torch

    litert_torch = _litert_torch()
    module, torch_specs = _source_specs(source, seed)
    missing = [s.name for s in torch_specs if s.name not in shapes]
    if missing:  # pragma: no cover - a measurement always passes every input
        raise ModelError(f"no concrete shape for input(s) {', '.join(missing)}")
    example = make_inputs(torch_specs, shapes, seed)
    say(f"{source.name}: exporting to TFLite (litert-torch, shapes "
        + ", ".join(f"{k}={'x'.join(map(str, v))}" for k, v in shapes.items()) + ")")
    started = time.perf_counter()
    try:
        with user_import_path(source.path.parent) if source.path else contextlib.nullcontext():
            edge = litert_torch.convert(module, (), {k: torch.from_numpy(v) for k, v in example.items()})
            edge.export(str(out))
    except Exception as e:  # the capture (artifact_cache.build_cached) names its log and keeps the tail
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise library_failure(ModelError(f"exporting {source.name} to TFLite failed: {type(e).__name__}: {first}",
                                         hint="try --runtime onnxruntime, or simplify the model's forward()")) from e
    seconds = time.perf_counter() - started
    specs, outputs, facts = read_tflite(out)
    by_name = {s.name: s for s in torch_specs}
    if {s.name for s in specs} != set(by_name):
        raise ModelError(f"TFLite export of {source.name} has inputs {[s.name for s in specs]}, "
                         f"expected {sorted(by_name)}", hint="the model must use every declared input")
    # The file's own shapes and dtypes (int64 → int32), with the declared value ranges.
    truthful = tuple(dataclasses.replace(by_name[s.name], shape=s.shape, dtype=s.dtype) for s in specs)
    say(f"{source.name}: checking TFLite against torch")
    feed = make_inputs(truthful, shapes, seed)
    check = torch_check(tflite_outputs(out, feed), torch_outputs(module, feed, {s.name: s.dtype for s in torch_specs}))
    if not check["ok"]:
        say(f"{source.name}: warning: TFLite differs from torch ({check.get('max_abs_error', check.get('reason'))})")
    narrowed = {s.name: f"{by_name[s.name].dtype} -> {s.dtype}" for s in specs if s.dtype != by_name[s.name].dtype}
    return Artifact(
        path=str(out), format="tflite", sha256="", size_bytes=0, inputs=truthful, outputs=outputs,
        model_name=source.name, source=source.source, precision="fp32",
        export_options=TfliteExportOptions(
            exporter="litert_torch.convert", litert_torch=dist_version("litert-torch"),
            torch=dist_version("torch"), seed=seed, shapes={k: list(v) for k, v in shapes.items()},
            static_shapes=True, layout="NCHW (as in torch)", narrowed_inputs=narrowed,
            op_counts=facts["op_counts"], export_seconds=round(seconds, 2),
        ),
        export_check=check, cache_hit=False,
        params=sum(p.numel() for p in module.parameters()),
    )


def _int8_recipe() -> Any:
    from ai_edge_quantizer import algorithm_manager, qtyping, recipe_manager

    rm = recipe_manager.RecipeManager()
    rm.add_static_config(regex=".*", operation_name=qtyping.TFLOperationName.ALL_SUPPORTED,
                         activation_num_bits=8, weight_num_bits=8)
    for op in (qtyping.TFLOperationName.INPUT, qtyping.TFLOperationName.OUTPUT):  # float model I/O
        rm.add_quantization_config(regex=".*", operation_name=op,
                                   algorithm_key=algorithm_manager.AlgorithmName.NO_QUANTIZE)
    return rm.get_quantization_recipe()


def _quantize_int8(fp32: Artifact, out: Path, *, seed: int, shapes: Mapping[str, tuple[int, ...]],
                   calibration: str | Path | None, say: Progress, plan: InputPlan | None = None) -> Artifact:
    quantizer = quantizer_for(fp32, "int8")
    say(f"{fp32.model_name}: quantising TFLite to int8 (ai-edge-quantizer, static, float I/O)")
    samples = calibration_samples(plan.specs if plan is not None else fp32.inputs, shapes, seed, calibration,
                                  fixed=plan.fixed() if plan is not None else None)
    sigs = read_tflite(Path(fp32.path))[2]["signatures"]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="edgeprof-tflite-q-") as tmp:
        src, sig, added = fp32.path, next(iter(sigs), SIGNATURE), False
        if not sigs:  # ai-edge-quantizer calibrates by signature: give a copy of the file one (names as read)
            src, added = str(Path(tmp) / "signed.tflite"), True
            _add_signature(Path(fp32.path), Path(src))
        try:
            q = quantizer.Quantizer(src)
            q.load_quantization_recipe(_int8_recipe())
            calib = q.calibrate({sig: samples})
            q.quantize(calib, enable_progress_report=False).export_model(str(out), overwrite=True)
        except Exception as e:  # the capture (artifact_cache.build_cached) names its log and keeps the tail
            missing_op = op_refused(LITERT, str(e), f"int8 quantisation of {fp32.model_name} (TFLite)")
            if missing_op is not None:  # the quantiser runs the graph to calibrate: the op is the cause
                raise missing_op from None
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise library_failure(ModelError(
                f"int8 quantisation of {fp32.model_name} (TFLite) failed: {type(e).__name__}: {first}",
                hint="the quantiser (ai-edge-quantizer) cannot convert this graph, your file is fine: run it with "
                     "--precision fp32")) from e
    _loads_in_litert(out, fp32.model_name, "int8")
    specs, outputs, facts = read_tflite(out)
    by_name = {s.name: s for s in fp32.inputs}
    truthful = tuple(dataclasses.replace(by_name.get(s.name, s), shape=s.shape, dtype=s.dtype) for s in specs)
    return dataclasses.replace(
        fp32, path=str(out), inputs=truthful, outputs=outputs, precision="int8", export_check=None, cache_hit=False,
        export_options=extended(
            fp32.export_options, TfliteExportOptions, fp32_sha256=fp32.sha256, precision="int8",
            quantizer="ai_edge_quantizer static int8 (weights per-channel, activations per-tensor), float model I/O",
            ai_edge_quantizer=dist_version("ai-edge-quantizer"),
            calibration=calibration_fingerprint(calibration, plan=plan), calibration_samples=len(samples),
            op_counts=facts["op_counts"], quantize_seconds=round(time.perf_counter() - started, 2),
            signature_added=SIGNATURE if added else None),
    )


def _add_signature(src: Path, out: Path) -> None:
    """Write a copy of a signature-less .tflite with one `serving_default` signature over subgraph 0, its inputs
    and outputs named after their tensors (the names read_tflite gives them)."""
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = fu.read_model(str(src))
    sg = model.subgraphs[0]

    def entry(index: int) -> Any:
        t = schema.TensorMapT()
        name = sg.tensors[index].name
        t.name, t.tensorIndex = name.decode() if isinstance(name, bytes) else name, int(index)
        return t

    sig = schema.SignatureDefT()
    sig.signatureKey, sig.subgraphIndex = SIGNATURE, 0
    sig.inputs, sig.outputs = [entry(i) for i in sg.inputs], [entry(i) for i in sg.outputs]
    model.signatureDefs = [sig]
    fu.write_model(model, str(out))


def _cast_fp16(fp32: Artifact, out: Path, *, say: Progress) -> Artifact:
    """`fp32` with float16 weights (tflite_fp16.cast_fp16), load-checked in a child and read back like int8."""
    art, _census = cast_fp16(fp32, out, say=say)
    _loads_in_litert(out, fp32.model_name, "fp16")
    specs, outputs, facts = read_tflite(out)
    if not facts["float16_weights"]:  # the label reader must see what was written
        raise ModelError(f"the fp16 conversion of {fp32.model_name} reads back without float16 weights",
                         hint="run it with --precision fp32")
    by_name = {s.name: s for s in fp32.inputs}
    truthful = tuple(dataclasses.replace(by_name.get(s.name, s), shape=s.shape, dtype=s.dtype) for s in specs)
    return dataclasses.replace(art, inputs=truthful, outputs=outputs,
                               export_options=extended(art.export_options, TfliteExportOptions,
                                                       op_counts=facts["op_counts"]))


def _loads_in_litert(path: Path, name: str, precision: str) -> None:
    """Load and allocate a converted .tflite once on the host, in a child process (loadcheck.py: a crash or hang
    there is a one-line refusal): a file LiteRT refuses fails here, before any push."""
    error = check_converted(path, what=f"the {precision} conversion of {name}", library=LITERT)
    if error is not None:
        raise ModelError(f"the {precision} conversion of {name} produced a file LiteRT cannot load: {error[:300]}",
                         hint="the quantiser (ai-edge-quantizer) cannot convert this graph, your file is fine: run "
                              "it with --precision fp32")


def _versions() -> dict[str, str]:
    return {d: dist_version(d) for d in ("litert-torch", "ai-edge-quantizer", "ai-edge-litert", "torch")}


def export_material(source: ModelSource, seed: int, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, Any]:
    """What decides the TFLite export of a torch model (the fp32 key is key_of(this + precision "fp32"))."""
    from .onnx_export import cache_key

    return {"source": cache_key(source, seed, {"format": "tflite"}), "code": code_version("tflite_export.py"),
            **_versions(), "shapes": {k: list(v) for k, v in shapes.items()}}


def _refuse(source: ModelSource, precision: str) -> None:
    if precision not in TFLITE_PRECISIONS:
        raise ModelError(f"--precision {precision}: TFLite models run as {', '.join(TFLITE_PRECISIONS)} here",
                         hint=f"run it with --precision {' or '.join(TFLITE_PRECISIONS)}")
    if source.kind == "onnx":
        raise ModelError(f"{source.spec} is an ONNX model; edgeprof does not convert ONNX to TFLite",
                         hint="run it with --runtime onnxruntime, or give the torch model")


def _torch_shapes(source: ModelSource, cache_dir: Path, batch: int, overrides: dict[str, tuple[int, ...]],
                  seed: int) -> dict[str, tuple[int, ...]]:
    """The concrete input shapes a torch model is exported at (a builder is built once for its input specs)."""
    declared = source.bundled.inputs if source.bundled is not None else None
    if declared is None:  # a builder: its example inputs declare the specs (imports torch, builds once)
        with capture(Path(cache_dir).expanduser() / "host.log", f"building {source.spec} for its input specs"):
            declared = _source_specs(source, seed)[1]
    return {s.name: s.concrete(batch, overrides) for s in declared}


def export_tflite(source: ModelSource, *, cache_dir: Path, batch: int = 1,
                  input_shapes: Mapping[str, tuple[int, ...]] | None = None, seed: int = 0,
                  progress: Progress | None = None, precision: str = "fp32") -> Artifact:
    """The fp32 TFLite Artifact of `source`: exported from torch through the cache (one build_cached), or a user's
    .tflite file read as is (an int8 file is int8 "as given"). `precision`: the run's, refused here when TFLite
    has no such precision."""
    say = to_terminal(progress)
    _refuse(source, precision)
    if source.kind == "tflite":
        with capture(Path(cache_dir).expanduser() / "host.log", f"reading {source.spec}"):
            return _user_tflite(source, say)
    shapes = _torch_shapes(source, cache_dir, batch, dict(input_shapes or {}), seed)
    fp32 = build_cached(cache_dir, key_of({**export_material(source, seed, shapes), "precision": "fp32"}), "tflite",
                        lambda out: _export_fp32(source, out, seed=seed, shapes=shapes, say=say),
                        what=f"exporting {source.name} to TFLite")
    if fp32.cache_hit:
        say(f"{source.name}: cached TFLite {fp32.path}")
    return fp32


def quantize_tflite(source: ModelSource, fp32: Artifact, precision: str, *, cache_dir: Path, batch: int = 1,
                    input_shapes: Mapping[str, tuple[int, ...]] | None = None, seed: int = 0,
                    calibration: str | Path | None = None, progress: Progress | None = None,
                    plan: InputPlan | None = None) -> Artifact:
    """`fp32` (export_tflite's) at `precision` through the cache (one build_cached); `plan`: the run's input plan
    for `fp32` (int8 calibration feeds what the run feeds: constants, data, ranges). fp32, or a file already at
    `precision`, is returned as it is."""
    say = to_terminal(progress)
    _refuse(source, precision)
    if precision == "fp32" or fp32.precision == precision:
        return fp32
    calib = calibration_fingerprint(calibration, plan=plan) if precision == "int8" else None  # fp16: no calibration
    if source.kind == "tflite":
        overrides = dict(input_shapes or {})
        shapes = plan.shapes if plan is not None else {s.name: s.concrete(batch, overrides) for s in fp32.inputs}
        material: dict[str, Any] = {"user_sha256": fp32.sha256, "precision": precision,
                                    "code": code_version("tflite_export.py"), **_versions(), "seed": seed,
                                    "shapes": {k: list(v) for k, v in shapes.items()}, "calibration": calib}
        what, done = f"quantising {source.spec} to {precision} TFLite", None
    else:
        exported = fp32.export_options.shapes if isinstance(fp32.export_options, TfliteExportOptions) else None
        shapes = {k: tuple(v) for k, v in (exported or {}).items()}  # what it was exported at
        material = {**export_material(source, seed, shapes), "precision": precision, "fp32": fp32.sha256,
                    "calibration": calib}
        what, done = f"quantising {source.name} to {precision} TFLite", f"{source.name}: cached {precision} TFLite"
    build: Callable[[Path], Artifact] = (lambda out: _cast_fp16(fp32, out, say=say)) if precision == "fp16" else (
        lambda out: _quantize_int8(fp32, out, seed=seed, shapes=shapes, calibration=calibration, say=say, plan=plan))
    if precision == "fp16":
        material["fp16_code"] = code_version("tflite_fp16.py")
    q = build_cached(cache_dir, key_of(material), "tflite", build, what=what)
    if q.cache_hit and done is not None:
        say(f"{done} {q.path}")
    return q


def prepare_tflite(source: ModelSource, *, cache_dir: Path, batch: int = 1,
                   input_shapes: Mapping[str, tuple[int, ...]] | None = None, seed: int = 0,
                   precision: str = "fp32", calibration: str | Path | None = None,
                   progress: Progress | None = None, plan_for: Callable[[Artifact], InputPlan] | None = None
                   ) -> Artifact:
    """A TFLite Artifact at `precision` for `source`: export_tflite, then quantize_tflite.

    Torch models are exported static at the concrete shapes (dynamic dim 0 = `batch`, others from
    `input_shapes`); a user's fp32 file is read as is (dynamic dims are resized on the device). `plan_for`: the
    run's input plan for the fp32 artifact (int8 calibration feeds what the run feeds: constants, data, ranges)."""
    fp32 = export_tflite(source, cache_dir=cache_dir, batch=batch, input_shapes=input_shapes, seed=seed,
                         progress=progress, precision=precision)
    if precision == "fp32" or fp32.precision == precision:
        return fp32
    return quantize_tflite(source, fp32, precision, cache_dir=cache_dir, batch=batch, input_shapes=input_shapes,
                           seed=seed, calibration=calibration, progress=progress,
                           plan=plan_for(fp32) if plan_for is not None else None)
