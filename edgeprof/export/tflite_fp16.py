"""fp16 TFLite: LiteRT's float16 post-training quantisation of a float32 .tflite with ai-edge-quantizer.

Owns:
- the recipe: ai-edge-quantizer's FLOAT_CASTING algorithm, weight-only (weights num_bits 16, dtype FLOAT, compute
  FLOAT, explicit DEQUANTIZE) on every op it can cast (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
  CONV_2D_TRANSPOSE, EMBEDDING_LOOKUP). The weights are stored float16 and each feeds its op through a DEQUANTIZE
  to float32: compute stays float32 on LiteRT's CPU kernels; XNNPACK's fp16 path and the GPU delegate read the
  float16 constants. The model's inputs and outputs stay float32, activations are not touched.
- the census of the converted file, read from its flatbuffer (`weight_census`): how many constant tensors are
  float16 and how many float32 constants are left (biases, and the constants of ops the algorithm cannot cast:
  ADD, MUL, ...), and which ops consume each. The quantiser itself reports nothing of the kind.
- `cast_fp16`: the conversion of an fp32 TFLite Artifact into the fp16 one (the caller, tflite_export.quantize_tflite,
  runs it through the cache and the capture, and load-checks the result in a child).
Does not own: the cache key, the load check, reading a user's file (tflite_export.py), int8 (tflite_export.py).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..records import Artifact, TfliteExportOptions
from ..records.options import extended
from .artifact_cache import dist_version
from .capture import library_failure

__all__ = ["CAST_OPS", "WeightCensus", "cast_fp16", "fp16_recipe", "quantizer_for", "weight_census"]

# the ops ai-edge-quantizer's FLOAT_CASTING materialises (algorithm_manager.py registers these five)
CAST_OPS = ("FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D_TRANSPOSE", "EMBEDDING_LOOKUP")
NO_CAST_HINT = ("the fp16 conversion (ai-edge-quantizer float casting) stores only the weights of fully-connected, "
                "convolution and embedding ops in float16: run it with --precision fp32")


@dataclasses.dataclass(frozen=True)
class WeightCensus:
    """The constant tensors of a .tflite file by type, and the ops that consume them (flatbuffer reading)."""

    fp16_tensors: int  # float16 constants (each DEQUANTIZEd to float32 before its op)
    fp16_bytes: int
    fp32_tensors: int  # float32 constants left as they were (biases; constants of ops that are not cast)
    fp32_bytes: int
    ops_cast: dict[str, int]  # ops fed a DEQUANTIZEd float16 constant, by op name
    ops_left: dict[str, int]  # ops with float32 constants and no float16 one, by op name

    def text(self) -> str:
        left = f", {self.fp32_tensors} float32 constants left" if self.fp32_tensors else ""
        kept = ", ".join(f"{k} {v}" for k, v in sorted(self.ops_left.items()))
        return (f"float16 ({self.fp16_tensors} weight tensors, DEQUANTIZE to float32: compute in float32; "
                f"{sum(self.ops_cast.values())} ops cast{left}" + (f"; ops not cast: {kept}" if kept else "") + ")")


def fp16_recipe() -> Any:
    """ai-edge-quantizer's recipe for float16 weights, float32 compute (weight-only FLOAT_CASTING on CAST_OPS)."""
    from ai_edge_quantizer import algorithm_manager, qtyping, recipe_manager

    rm = recipe_manager.RecipeManager()
    for name in CAST_OPS:  # add_weight_only_config: FLOAT dtype for FLOAT_CASTING, compute FLOAT, explicit DQ
        rm.add_weight_only_config(regex=".*", operation_name=qtyping.TFLOperationName(name), num_bits=16,
                                  algorithm_key=algorithm_manager.AlgorithmName.FLOAT_CASTING)
    return rm.get_quantization_recipe()


def weight_census(path: Path) -> WeightCensus:
    """Count the constant (buffer-backed) float tensors of every subgraph of `path` and the ops reading them."""
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = fu.read_model(str(path))
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    fp16 = fp32 = fp16_bytes = fp32_bytes = 0
    cast: Counter[str] = Counter()
    left: Counter[str] = Counter()

    def size(t: Any) -> int:  # a buffer's bytes: inline data, or (files over 2 GB) an offset past the flatbuffer
        buf = model.buffers[t.buffer] if 0 < t.buffer < len(model.buffers) else None
        if buf is None:
            return 0
        return len(buf.data) if buf.data is not None else int(buf.size) if buf.offset > 1 else 0

    for sg in model.subgraphs:
        const16 = {i for i, t in enumerate(sg.tensors) if t.type == schema.TensorType.FLOAT16 and size(t)}
        const32 = {i for i, t in enumerate(sg.tensors) if t.type == schema.TensorType.FLOAT32 and size(t)}
        fp16, fp32 = fp16 + len(const16), fp32 + len(const32)
        fp16_bytes += sum(size(sg.tensors[i]) for i in const16)
        fp32_bytes += sum(size(sg.tensors[i]) for i in const32)
        dequantized: set[int] = set()
        for op in sg.operators or []:
            code = model.operatorCodes[op.opcodeIndex]
            name = names.get(max(code.builtinCode, code.deprecatedBuiltinCode), str(code.builtinCode))
            inputs = {int(i) for i in (op.inputs if op.inputs is not None else []) if i >= 0}
            if name == "DEQUANTIZE":
                if inputs & const16:
                    dequantized.update(int(o) for o in op.outputs)
                continue
            if inputs & dequantized:
                cast[name] += 1
            elif inputs & const32:
                left[name] += 1
    return WeightCensus(fp16, fp16_bytes, fp32, fp32_bytes, dict(cast), dict(left))


def quantizer_for(fp32: Artifact, precision: str) -> Any:
    """ai-edge-quantizer's `quantizer` module, to convert `fp32` to `precision`; a file that is not float32 (a
    user's int8 or fp16 file runs as given) or a host without the quantiser is one line."""
    try:
        from ai_edge_quantizer import quantizer
    except ImportError as e:
        raise ModelError(f"{precision} TFLite needs ai-edge-quantizer on the host",
                         hint="pip install 'edgeprof[tflite]'") from e
    if fp32.precision != "fp32":
        weights = getattr(fp32.export_options, "weights", None)
        what = f" ({weights})" if weights else ""
        raise ModelError(f"{fp32.model_name} is already {fp32.precision}{what}; edgeprof runs it as given",
                         hint="leave out --precision, or give the float32 model to convert")
    return quantizer


def cast_fp16(fp32: Artifact, out: Path, *, say: Any) -> tuple[Artifact, WeightCensus]:
    """`fp32` (a float32 .tflite) with its castable weights stored float16, written to `out`: the fp16 Artifact
    (export_options: the census as `weights`, the algorithm, the versions) and the census. A file already int8 or
    fp16 is refused (it runs as given); a graph with nothing to cast is refused rather than labelled fp16."""
    quantizer = quantizer_for(fp32, "fp16")
    say(f"{fp32.model_name}: converting TFLite weights to float16 (ai-edge-quantizer float casting, compute float32)")
    started = time.perf_counter()
    try:
        q = quantizer.Quantizer(fp32.path)
        q.load_quantization_recipe(fp16_recipe())
        q.quantize().export_model(str(out), overwrite=True)
    except Exception as e:  # the capture (artifact_cache.build_cached) names its log and keeps the tail
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise library_failure(ModelError(
            f"fp16 conversion of {fp32.model_name} (TFLite) failed: {type(e).__name__}: {first}",
            hint="the quantiser (ai-edge-quantizer) cannot convert this graph, your file is fine: run it with "
                 "--precision fp32")) from e
    census = weight_census(out)
    if not census.fp16_tensors:
        out.unlink(missing_ok=True)
        raise ModelError(f"{fp32.model_name} has no weights the fp16 conversion can cast "
                         f"({census.fp32_tensors} float32 constants, none in {', '.join(CAST_OPS)})", hint=NO_CAST_HINT)
    options = extended(fp32.export_options, TfliteExportOptions, fp32_sha256=fp32.sha256, precision="fp16",
                       weights=census.text(), quantizer="ai_edge_quantizer float casting (weight-only float16, "
                       "explicit DEQUANTIZE), float compute and I/O", ai_edge_quantizer=dist_version("ai-edge-quantizer"),
                       weight_census=dataclasses.asdict(census),
                       quantize_seconds=round(time.perf_counter() - started, 2))
    art = dataclasses.replace(fp32, path=str(out), precision="fp16", export_check=None, cache_hit=False,
                              export_options=options)
    return art, census
