"""FLOPs per inference, counted on an ONNX graph after shape inference with concrete input shapes.

Owns: the counting convention below and `count_flops` / `flop_breakdown`.
Does not own: measuring anything, or choosing the input shapes (callers pass batch-1 shapes for the
per-inference figure stored on an Artifact).

Convention (one FLOP = one multiply, add, compare or transcendental; a multiply-accumulate = 2 FLOPs):

- Conv: 2 · |Y| · (C_in/group) · k_h · k_w (any spatial rank; depthwise is group = C_in), + |Y| with a bias.
- ConvTranspose: 2 · |X| · (C_out/group) · k_h · k_w, + |Y| with a bias.
- MatMul: 2 · |Y| · K (numpy broadcasting of batch dims included).
- Gemm: 2 · M · N · K, + M · N when C is given (alpha/beta scaling is not counted).
- Elementwise arithmetic and activations (Add, Mul, Relu, Clip, Sigmoid, Erf, Gelu, ...): 1 per output
  element, whatever the function's real cost.
- BatchNormalization (inference): 2 per element (scale, shift). LayerNormalization, InstanceNormalization,
  GroupNormalization: 5 per element (mean, variance, normalise, scale, shift).
- Softmax, LogSoftmax: 5 per element (max, subtract, exp, sum, divide).
- MaxPool, AveragePool, LpPool: |Y| · kernel size. Global pools and Reduce*: 1 per input element.
- STFT, DFT: per transform of length n, what onnxruntime's CPU kernel does (signal/dft.cc): a radix-2 FFT when n
  is a power of 2 (5 · n · log2 n), else Bluestein's chirp-z: two radix-2 FFTs of m = the power of 2 ≥ 2n − 1 and
  its complex products (2 · 5 · m · log2 m + 6 · m + 24 · n); times the frames and batch (STFT) or the transforms
  along the other axes (DFT). n: the STFT's window, else the output's bins (2 · (bins − 1) when onesided).
- Einsum: 2 per point of the full index space of its operands (a multiply-add each: the product of every
  letter's size, an ellipsis's dims broadcast from the right), 1 per point for a single operand (a transpose or
  a reduction).
- Data movement (Reshape, Transpose, Gather, Concat, Slice, Pad, Resize, Cast, Shape, ...): 0.
- Anything else (LSTM, If/Loop bodies, custom domains, ...) counts 0 and is listed in
  `FlopCount.uncounted`, so a caller can say the figure is a lower bound.

`count_flops` returns None when a counted node's shapes cannot be inferred (dynamic dims left unresolved,
ops that shape inference does not know).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import onnx

__all__ = ["FlopCount", "count_flops", "flop_breakdown", "fft_length", "fft_flops"]

_ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Reciprocal", "Neg", "Abs", "Exp", "Log", "Sin", "Cos",
    "Tan", "Floor", "Ceil", "Round", "Sign", "Mod", "Max", "Min", "Sum", "Mean", "Relu", "LeakyRelu",
    "PRelu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf", "Gelu", "Elu", "Selu", "Celu",
    "Softplus", "Softsign", "Mish", "ThresholdedRelu", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "IsNaN", "IsInf",
})
_NORM5 = frozenset({"LayerNormalization", "InstanceNormalization", "GroupNormalization"})
_SOFTMAX = frozenset({"Softmax", "LogSoftmax"})
_POOL = frozenset({"MaxPool", "AveragePool", "LpPool"})
_REDUCE = frozenset({
    "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax",
    "ArgMin",
})
_FREE = frozenset({
    "Reshape", "Transpose", "Gather", "GatherElements", "GatherND", "Concat", "Split", "Slice", "Squeeze",
    "Unsqueeze", "Flatten", "Identity", "Shape", "Size", "Constant", "ConstantOfShape", "Cast", "CastLike",
    "Expand", "Tile", "Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Dropout", "Range",
    "ScatterElements", "ScatterND", "NonZero", "TopK", "OneHot", "Trilu", "EyeLike",
    "QuantizeLinear", "DequantizeLinear",
})


@dataclass
class FlopCount:
    total: int
    by_op: dict[str, int] = field(default_factory=dict)
    uncounted: set[str] = field(default_factory=set)  # op types present but not in the convention


class _UnknownShape(Exception):
    pass


def _load(model: onnx.ModelProto | str | Path) -> onnx.ModelProto:
    import onnx

    if isinstance(model, (str, Path)):
        return onnx.load(str(model))
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    return copy


def _with_concrete_shapes(model: onnx.ModelProto, input_shapes: Mapping[str, tuple[int, ...]]) -> onnx.ModelProto:
    import onnx

    for inp in model.graph.input:
        if inp.name not in input_shapes or not inp.type.HasField("tensor_type"):
            continue
        shape = inp.type.tensor_type.shape
        shape.ClearField("dim")
        for d in input_shapes[inp.name]:
            shape.dim.add().dim_value = int(d)
    del model.graph.value_info[:]  # symbolic shapes from the exporter would shadow the concrete ones
    return onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)


def _shapes(model: onnx.ModelProto) -> dict[str, tuple[int, ...] | None]:
    out: dict[str, tuple[int, ...] | None] = {}
    for init in model.graph.initializer:
        out[init.name] = tuple(init.dims)
    for vi in (*model.graph.input, *model.graph.value_info, *model.graph.output):
        if vi.name in out and out[vi.name] is not None:
            continue
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
            out[vi.name] = None
            continue
        dims = tuple(int(d.dim_value) for d in tt.shape.dim if d.HasField("dim_value"))
        out[vi.name] = dims if len(dims) == len(tt.shape.dim) else None
    return out


def _attr(node: Any, name: str, default: Any) -> Any:
    import onnx

    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def fft_length(node: Any, shape: Callable[[str], tuple[int, ...]]) -> int:
    """The length n of each transform of an STFT or DFT node (the convention above); raises if its shapes are
    unknown."""
    if node.op_type == "STFT" and len(node.input) > 2 and node.input[2]:
        return int(shape(node.input[2])[0])  # the window, which onnxruntime prefers to frame_length
    y = shape(node.output[0])
    if node.op_type == "STFT":
        bins = y[2]
    else:
        bins = y[_dft_axis(node, len(y))]
    return 2 * (bins - 1) if _attr(node, "onesided", 1 if node.op_type == "STFT" else 0) else bins


def _dft_axis(node: Any, rank: int) -> int:
    """A DFT's transformed axis (the attribute to opset 17; opset 20's axis input, a value this count cannot read,
    is taken at its default place, the one before the last); negative counts from the back of all `rank` dims."""
    axis = int(_attr(node, "axis", 1 if rank > 2 else 0))
    return min(axis if axis >= 0 else rank + axis, rank - 2)


def fft_flops(n: int) -> int:
    """One transform of length n as onnxruntime computes it (the convention above)."""
    if n < 2:
        return 0
    if n & (n - 1) == 0:
        return int(5 * n * math.log2(n))
    m = 1 << (2 * n - 2).bit_length()  # the power of 2 ≥ 2n − 1
    return int(10 * m * math.log2(m) + 6 * m + 24 * n)


def einsum_flops(equation: str, shapes: list[tuple[int, ...]]) -> int:
    """An Einsum's FLOPs by the convention above, from its equation and its operands' shapes."""
    terms = equation.replace(" ", "").split("->")[0].split(",")
    sizes: dict[str, int] = {}
    for term, dims in zip(terms, shapes, strict=False):
        if "..." in term:  # the ellipsis's dims take letters of their own, counted from the right
            n = len(dims) - (len(term) - 3)
            term = term.replace("...", "".join(chr(0x100 + n - 1 - i) for i in range(n)))
        for letter, d in zip(term, dims, strict=False):
            sizes[letter] = max(sizes.get(letter, 1), int(d))
    return (2 if len(terms) > 1 else 1) * math.prod(sizes.values())


def _node_flops(node: Any, shape: Callable[[str], tuple[int, ...]]) -> int | None:
    """FLOPs of one node; None if its op type is outside the convention. `shape(name)` raises if unknown."""
    op = node.op_type
    has = [bool(n) for n in node.input]
    if op == "Conv":
        y, w = shape(node.output[0]), shape(node.input[1])
        return 2 * math.prod(y) * math.prod(w[1:]) + (math.prod(y) if len(has) > 2 and has[2] else 0)
    if op == "ConvTranspose":
        x, w, y = shape(node.input[0]), shape(node.input[1]), shape(node.output[0])
        return 2 * math.prod(x) * math.prod(w[1:]) + (math.prod(y) if len(has) > 2 and has[2] else 0)
    if op == "MatMul":  # also onnxruntime's FusedMatMul read as one: transA folds a Transpose into it
        a, y = shape(node.input[0]), shape(node.output[0])
        k = (a[0] if _attr(node, "transBatchA", 0) else a[-2]) if _attr(node, "transA", 0) else a[-1]
        return 2 * math.prod(y) * k
    if op == "Gemm":
        a, y = shape(node.input[0]), shape(node.output[0])
        k = a[0] if _attr(node, "transA", 0) else a[1]
        return 2 * math.prod(y) * k + (math.prod(y) if len(has) > 2 and has[2] else 0)
    if op in _ELEMENTWISE:
        return math.prod(shape(node.output[0]))
    if op == "BatchNormalization":
        return 2 * math.prod(shape(node.output[0]))
    if op in _NORM5 or op in _SOFTMAX:
        return 5 * math.prod(shape(node.output[0]))
    if op in _POOL:
        return math.prod(shape(node.output[0])) * math.prod(_attr(node, "kernel_shape", []))
    if op in _REDUCE:
        return math.prod(shape(node.input[0]))
    if op == "STFT":
        y = shape(node.output[0])  # [batch, frames, bins, 2]
        return y[0] * y[1] * fft_flops(fft_length(node, shape))
    if op == "DFT":
        y = shape(node.output[0])  # [..., bins at axis, ..., 2]
        return math.prod(y[:-1]) // max(y[_dft_axis(node, len(y))], 1) * fft_flops(fft_length(node, shape))
    if op == "Einsum":
        eq = _attr(node, "equation", b"")
        return einsum_flops(eq.decode() if isinstance(eq, bytes) else str(eq), [shape(i) for i in node.input if i])
    if op in _FREE:
        return 0
    return None


def flop_breakdown(model: onnx.ModelProto | str | Path,
                   input_shapes: Mapping[str, tuple[int, ...]]) -> FlopCount | None:
    """FLOPs by op type (see the module docstring); None if a counted node's shapes are unknown."""
    import onnx

    try:
        inferred = _with_concrete_shapes(_load(model), input_shapes)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError):
        return None
    shapes = _shapes(inferred)

    def shape(name: str) -> tuple[int, ...]:
        s = shapes.get(name)
        if s is None:
            raise _UnknownShape(name)
        return s

    result = FlopCount(total=0)
    for node in inferred.graph.node:
        if node.domain not in ("", "ai.onnx"):
            result.uncounted.add(f"{node.domain}.{node.op_type}")
            continue
        try:
            n = _node_flops(node, shape)
        except _UnknownShape:
            return None
        if n is None:
            result.uncounted.add(node.op_type)
            continue
        if n:
            result.by_op[node.op_type] = result.by_op.get(node.op_type, 0) + n
            result.total += n
    return result


def count_flops(model: onnx.ModelProto | str | Path, input_shapes: Mapping[str, tuple[int, ...]]) -> int | None:
    """FLOPs for one run of `model` with `input_shapes` (name → concrete shape); None if not inferable."""
    counted = flop_breakdown(model, input_shapes)
    return None if counted is None else counted.total
