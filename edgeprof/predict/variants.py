"""A kernel's variant: the part of its key (graph.Kernel.key, "op/variant") that says which of the runtime's code
paths runs it, read from its node and shapes alone (onnxruntime's CPU provider; tflite.py has LiteRT's own).

Owns: convolutions (depthwise, grouped, pointwise, dense k×k, and a few output channels; the channel alignment
onnxruntime's blocked kernels need; 1-D ones apart, and 1-D pools), matmuls (against weights, an integer one's uint8
weights apart, or two activations), reductions (over the innermost axes or strided ones), Transposes (the path
onnxruntime's Transpose::Compute takes), binary elementwise ops broadcast by rows, Softmaxes over narrow rows and
per-axis DequantizeLinears over short rows (`row_spans`), the im2col-and-GEMM calls of an unblocked grouped
convolution (`group_calls`), Fourier transforms (a power-of-2 length or not) and the family each variant makes
(`variant_family`). Does not own: reading the graph or its shapes (graph.py), the cost models keyed by it (fit.py,
cost.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["variant", "variant_family", "row_spans", "group_calls", "ROWS_BELOW"]

_INTEGER_MATMULS = frozenset({"MatMulInteger", "MatMulIntegerToFloat", "DynamicQuantizeMatMul"})
_REDUCES = frozenset({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceProd",
                      "ReduceSumSquare", "ReduceLogSumExp"})


def _reduce_variant(node: Any, attrs: Mapping[str, Any], shape: Mapping[str, tuple[int, ...]],
                    consts: Mapping[str, Any]) -> str:
    """"last" when the reduced axes are the innermost ones that are not of size 1 (each output reads one run of
    contiguous memory), else "strided" (magika's ReduceMean over axis 1 of [n, 1536, 128] ran 6× dearer per byte
    than the table's last-axis ones, round 7). The axes: the attribute (opset < 18) or the constant input 1. A
    reduced axis of size 1 reads nothing (onnxruntime drops it before it picks its loop): from round 27 on a batch
    norm's moments over axes 0, 2, 3 of a [1, C, H, W] map are "last", each channel one contiguous run (NudeNet's
    Xception: 41 ReduceMeans of 0.1-8 MB at 20-33 GB/s, which the strided ones' 2-6 GB/s priced at 7× their time)."""
    from onnx import numpy_helper

    dims = shape.get(node.input[0]) if node.input else None
    if not dims:
        return ""
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1] in consts:
        axes = numpy_helper.to_array(consts[node.input[1]]).reshape(-1).tolist()
    rank = len(dims)
    picked = sorted({int(a) % rank for a in axes}) if axes else list(range(rank))
    picked = [i for i in picked if dims[i] != 1] or picked
    after = [d for i, d in enumerate(dims) if i > picked[0] and i not in picked]
    return "last" if all(d == 1 for d in after) else "strided"


def _moves_one_axis(perm: Sequence[int]) -> bool:
    """onnxruntime's IsTransposeMovingSingleAxis (onnxruntime/core/framework/transpose_helper.cc): at the first
    axis out of place, either the axis found there was moved out to it, or that position's own axis was moved in
    further; either way the other axes keep their order."""
    i = next((j for j, a in enumerate(perm) if a != j), None)
    if i is None:
        return False
    return any((rest := [a for a in perm if a != moved]) == sorted(rest) for moved in (perm[i], i))


def _transpose_variant(node: Any, attrs: Mapping[str, Any], shape: Mapping[str, tuple[int, ...]]) -> str:
    """How onnxruntime's CPU Transpose::Compute (onnxruntime/core/providers/cpu/tensor/transpose.cc) runs it:
    "reshape" when the dims above 1 keep their order (IsTransposeReshape: a copy), "single" when one axis moves
    (SingleAxisTranspose, block copies), "blocks" when the last axis stays last (DoTransposeImpl), else
    "elementwise" (DoTransposeEltWise, one element at a time: fsmn_vad's [0, 3, 2, 1] ran 2 ns an element, 13× the
    table's NCHW → NHWC price, round 7)."""
    dims = shape.get(node.input[0]) if node.input else None
    if not dims:
        return ""
    rank = len(dims)
    perm = [int(a) % rank for a in attrs.get("perm", list(range(rank))[::-1])]
    big = [a for a in perm if dims[a] != 1]
    if big == sorted(big):
        return "reshape"
    if _moves_one_axis(perm):
        return "single"
    return "blocks" if perm[-1] == rank - 1 else "elementwise"


_POOLS = frozenset({"MaxPool", "AveragePool", "LpPool"})
_BINARY = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"})
ROWS_BELOW = 128  # a row of fewer elements than this costs onnxruntime's broadcast loop more than its elements
SOFTMAX_ROWS_BELOW = 16  # a Softmax row of fewer elements costs more per row than per element (_softmax_rows)


def _softmax_rows(node: Any, shape: Mapping[str, tuple[int, ...]], opset: int) -> float:
    """The rows of a Softmax / LogSoftmax whose rows hold fewer than SOFTMAX_ROWS_BELOW elements: onnxruntime's
    CPU Softmax (softmax.cc, ComputeSoftmax) walks its input as rows of the axis' width — from opset 13 the axis
    itself (over the last axis only: another is transposed there first, "axis"), below 13 everything from the
    axis on, flattened —, at a fixed cost a row: ≈ 14-35 ns here, where a wide row costs ≈ 0.7 ns an element
    (MTCNN's P-net, opset 12, axis 3 of [1, 143, 191, 2]: 27 000 rows of 2, 0.36 ms, priced per element at
    0.04 ms, round 18). 0 for wider rows."""
    dims = shape.get(node.input[0]) if node.input else None
    if not dims:
        return 0.0
    axis_attr = next((int(a.i) for a in node.attribute if a.name == "axis"), -1 if opset >= 13 else 1)
    axis = axis_attr % len(dims)
    if opset >= 13 and any(d != 1 for d in dims[axis + 1:]):
        return 0.0
    width = math.prod(dims[axis:])
    rows = math.prod(dims[:axis])
    return float(rows) if width < SOFTMAX_ROWS_BELOW and rows > 1 else 0.0


_SPECIAL_EXPONENTS = (0.5, 1.0, 2.0, 3.0)  # onnxruntime's Pow: a scalar exponent it computes without pow() (pow.cc)


def _pow_general(node: Any, consts: Mapping[str, Any]) -> bool:
    """A Pow that calls pow() per element (≈ 4 ns here): its exponent is not a constant scalar onnxruntime squares,
    cubes, square-roots or passes through. fastGRAHSP's 10^x outputs ran ≈ 10× the binary family's price (round
    20), where the table's Pows were layer norms' x^2."""
    if len(node.input) < 2:
        return False
    exponent = consts.get(node.input[1])
    if exponent is None:
        return True
    from onnx import numpy_helper

    try:
        values = numpy_helper.to_array(exponent).ravel()
    except Exception:  # noqa: BLE001 - an initializer onnx cannot read: taken as general
        return True
    return not (values.size == 1 and float(values[0]) in _SPECIAL_EXPONENTS)


def _gather_blocks(node: Any, shape: Mapping[str, tuple[int, ...]]) -> float:
    """The blocks a Gather along an inner axis copies: one per outer index and gathered index (prod(data[:axis]) ×
    indices), ≈ 7 ns each in onnxruntime here, whatever their size (a 1000 × 53 batch's 49 columns: 356 µs;
    fastGRAHSP's column selections were priced as row lookups, at a twentieth of that, round 20). 0 along axis 0
    or with one outer index (a lookup of rows, which the tables measure as Gather)."""
    data = shape.get(node.input[0]) if node.input else None
    idx = shape.get(node.input[1]) if len(node.input) > 1 else None
    if not data or idx is None:
        return 0.0
    axis = next((int(a.i) for a in node.attribute if a.name == "axis"), 0) % len(data)
    outer = math.prod(data[:axis])
    return float(outer * math.prod(idx)) if axis > 0 and outer > 1 else 0.0


def group_calls(node: Any, shapes: Mapping[str, tuple[int, ...]], variant: str, one_d: bool = False) -> float:
    """The calls (images × groups, Kernel.spans) of a grouped convolution whose weight is a graph input, or
    (`one_d`) of any 1-D grouped one: onnxruntime's unblocked Conv runs one im2col and GEMM per image and group
    (conv.cc), a fixed cost each. The first kind is fitted on its calls where FLOPs stand (CenterFace's depthwise
    3×3 over 960 channels of a 1×1 map, batch 10, took 1.5 ms for 0.2 MFLOP, round 10); a 1-D one keeps its FLOPs
    and its calls join its neighbours' features (cost._calls_beside: ≈ 0.09 µs a call; pulsevad's depthwise ones
    over 64-128 channels of 21 frames ran 3× what samples of their FLOPs over fewer, longer channels took, round
    15). 0 for any other kernel."""
    if not variant.startswith(("1d/dw", "1d/group") if one_d else ("dw", "group")) or not shapes.get(node.input[0]):
        return 0.0
    group = next((int(a.i) for a in node.attribute if a.name == "group"), 1)
    return float(shapes[node.input[0]][0] * group)


DQ_ROWS_BELOW = 32  # a per-axis DequantizeLinear whose axis has fewer elements inside it costs per row (_dq_rows)


def _dq_rows(node: Any, shape: Mapping[str, tuple[int, ...]]) -> float:
    """The inner loops of a per-axis DequantizeLinear whose rows (the elements inside its axis) hold fewer than
    DQ_ROWS_BELOW: onnxruntime 1.32's CPU kernel (quantize_linear.cc, DequantizeLinearApply) walks the dims before
    the axis and the axis, loading that row's scale and zero point, then the row's elements: a weight quantised per
    output channel of a MatMul ([K, N], axis 1) is a row of one element each, 1.7 ns an element here against 0.13
    for per-tensor or axis 0 (a [256, 2048] weight: 0.89 ms against 0.07). A QDQ graph keeps such a DequantizeLinear
    at run time wherever onnxruntime does not fuse the MatMul (its activation read by more than one node: a
    transformer's projections; muggle-speech's decoder step at int8, round 22: 42 of them, 11.5 ms profiled, priced
    0.9 ms by bytes). 0 for per-tensor, blocked (a scale of rank > 1) or rows of DQ_ROWS_BELOW or more."""
    if node.op_type != "DequantizeLinear" or len(node.input) < 2:
        return 0.0
    x, scale = shape.get(node.input[0]), shape.get(node.input[1])
    if not x or scale is None or len(scale) != 1 or scale[0] <= 1:
        return 0.0
    from onnx import helper

    axis = next((int(helper.get_attribute_value(a)) for a in node.attribute if a.name == "axis"), 1) % len(x)
    inside = math.prod(x[axis + 1:])
    return float(math.prod(x[:axis + 1])) if inside < DQ_ROWS_BELOW else 0.0


def row_spans(base: str, node: Any, shape: Mapping[str, tuple[int, ...]], opset: int = 13) -> float:
    """The rows of a Softmax over narrow rows (_softmax_rows, in a graph of default-domain `opset`), or how many
    rows onnxruntime's CPU broadcast loop walks for a binary elementwise op one of whose inputs is a
    vector along the last axis ([C], [1, 1, C]) or a scalar of rank ≤ 1 against a last axis of 1: it runs one
    call per row of the output's last dim, ≈ 8.5 ns each on this x86 host (a [1, 13312, 4] × [4] Mul took 124 µs,
    the same elements × a scalar 9 µs; [n, 1] × [1] 455 µs, × [1, 1] 9 µs: basic_pitch's batch-norm Mul and Add,
    round 7); a per-axis DequantizeLinear's rows (_dq_rows); 0 when the op runs otherwise, or its rows hold
    ROWS_BELOW elements or more."""
    if base in ("Softmax", "LogSoftmax"):
        return _softmax_rows(node, shape, opset)
    if base == "Gather":
        return _gather_blocks(node, shape)
    if base == "DequantizeLinear":
        return _dq_rows(node, shape)
    if base not in _BINARY or len(node.input) != 2 or not node.output or node.output[0] not in shape:
        return 0.0
    out = shape[node.output[0]]
    ins = [shape.get(i) for i in node.input]
    if not out or any(s is None for s in ins):
        return 0.0
    last = out[-1]
    small = min(ins, key=lambda s: math.prod(s or (1,)))
    n = math.prod(small or (1,))
    if n == 1:
        rowwise = len(small or ()) <= 1 and last == 1
    else:
        rowwise = n == last and bool(small) and small[-1] == last  # type: ignore[index]
    return float(math.prod(out) // max(last, 1)) if rowwise and last < ROWS_BELOW and math.prod(out) > n else 0.0


def variant(base: str, wi: int, node: Any, shape: Mapping[str, tuple[int, ...]], inits: frozenset[str],
            consts: Mapping[str, Any] | None = None, opset: int = 0) -> str:
    """The variant of a kernel whose standard op is `base` and whose weight is its input `wi` (-1: none). Costs
    per FLOP differ by an order of magnitude between a depthwise, a pointwise and a dense k×k convolution, one with
    at most 4 output channels ("n": basic_pitch's one-channel heads ran at a tenth of the FLOP/s of the other
    unaligned convolutions, round 7) and a 1-D one ("1d/...": atspm's batch-64 1-D CNN ran at half the FLOP/s of the
    2-D keys, which onnxruntime runs blocked, round 7), and between a matmul against weights and two activations; per byte between a
    reduction or a Transpose that reads contiguous memory and one that does not, between a binary op over
    whole tensors and one broadcast row by row ("rows"), between a Resize's modes (nearest, linear, cubic), and between
    a Softmax over the last axis and one over another (onnxruntime transposes it);
    an STFT or DFT of a power-of-2 length (a radix-2 FFT) and
    of another (Bluestein's: round 10 timed 5-10x the price per frame)."""
    from onnx import TensorProto, helper

    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if base == "Conv" and 0 <= wi < len(node.input) and len(shape.get(node.input[wi], ())) >= 2:
        w = shape[node.input[wi]]
        group = int(attrs.get("group", 1))
        k = math.prod(w[2:]) if len(w) > 2 else 1
        # channels a multiple of 16 / 8 run onnxruntime's blocked (NCHWc) kernels on x86: ~2× the FLOP/s
        align = "c16" if w[0] % 16 == 0 and (w[1] * group) % 16 == 0 else \
            "c8" if w[0] % 8 == 0 and (w[1] * group) % 8 == 0 else "c1"
        if group == 1 and w[0] <= 4:  # a few output channels (a mask or pitch head): MLAS's GEMM of M ≤ 4 rows
            return "n"
        if len(w) == 3:  # 1-D: onnxruntime's NCHWc transformer blocks only 2-D convolutions, whatever the channels
            return "1d/" + ("dw" if group > 1 and w[1] == 1 else "group" if group > 1 else "1x1" if k == 1 else "kxk")
        if group > 1 and w[1] == 1:
            return f"dw/{align}"
        if group > 1:
            return f"group/{align}"
        return f"{'1x1' if k == 1 else 'kxk'}/{align}"
    if base in _POOLS and node.input and len(shape.get(node.input[0], ())) == 3:
        return "1d"  # onnxruntime's 1-D pools: ≈ 2.5× a 2-D pool's price per byte here (round 8's cnn1d models)
    if base in ("MatMul", "Gemm"):
        if not (0 <= wi < len(node.input) and node.input[wi] in inits):
            return "a"
        weight = (consts or {}).get(node.input[wi])
        # an integer matmul on uint8 weights (quantize_dynamic's old default): MLAS's u8u8 kernel, without the
        # u8s8 one's byte multiply-adds, ran pnm's decoder at 123 GFLOP/s where int8 weights ran 400 (round 22)
        u8 = node.op_type in _INTEGER_MATMULS and getattr(weight, "data_type", 0) == TensorProto.UINT8
        return "w/u8" if u8 else "w"
    if base == "Einsum":  # against a constant weight (a grouped linear) or between activations (attention scores,
        # batched products): onnxruntime pre-transposes a constant once; one table's key of both at once priced
        # Hush's µs-sized grouped linears at 3–7× their time and a U-Net's attention at 1–2× (round 12)
        return "w" if any(i in inits for i in node.input) else "a"
    if base in _REDUCES:
        return _reduce_variant(node, attrs, shape, consts or {})
    if base in ("STFT", "DFT"):  # onnxruntime's radix-2 FFT, or Bluestein's chirp-z around it (export/flops.py)
        from ..export.flops import fft_length

        try:
            n = fft_length(node, lambda name: shape[name])
        except (KeyError, IndexError):
            return ""
        return "pow2" if n > 0 and n & (n - 1) == 0 else "bluestein"
    if base == "Transpose":
        return _transpose_variant(node, attrs, shape)
    if base in ("Softmax", "LogSoftmax") and _softmax_rows(node, shape, opset):
        return "rows"  # narrow rows (a detector's two-class scores): a cost a row, at any opset
    if base in ("Softmax", "LogSoftmax") and opset >= 13:  # below 13 the input is flattened from the axis on
        dims = shape.get(node.input[0]) if node.input else None
        axis = int(attrs.get("axis", -1)) % len(dims) if dims else -1
        # over an axis with others inside it onnxruntime transposes it last and back (softmax.cc): YOLO11's DFL
        # Softmax over axis 1 of [1, 16, 4, 8400] and its attention Softmax ran 4.7 ms, priced 0.4 ms (round 12)
        return "axis" if dims and any(d != 1 for d in dims[axis + 1:]) else ""
    if base in ("Resize", "Upsample"):  # its mode: a cubic one ran ~40× a nearest one's price per byte (round 12)
        mode = attrs.get("mode", b"nearest")
        return mode.decode() if isinstance(mode, bytes) else str(mode)
    if base == "Gather" and _gather_blocks(node, shape):
        return "inner"  # along an inner axis: a cost per block copied (row_spans gives the blocks)
    if base == "Pow" and _pow_general(node, consts or {}):
        return "general"
    if row_spans(base, node, shape, opset):
        return "rows"
    return ""


_VARIANT_FAMILIES = frozenset({"conv", "convinteger", "matmul", "matmulinteger", "reduce", "binary", "pool", "fft",
                               "DequantizeLinear"})


def variant_family(family: str, variant: str) -> str:
    """A kernel's family (graph.Kernel.family, before its 8-bit dtype) from its op's family and its variant: the
    variant's first part for the families whose code paths differ by it (a depthwise convolution is not a dense
    one), not the channel alignment; an integer matmul's whole variant (its uint8 weights run another kernel)."""
    if not variant or family not in _VARIANT_FAMILIES:
        return family
    return f"{family}/{variant if family == 'matmulinteger' else variant.split('/')[0]}"


# ops whose output differs from step to step though their inputs do not
_DRAWN = frozenset({"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
                    "Bernoulli", "Dropout"})


def loop_invariant(body: Any) -> frozenset[str]:
    """The values a Loop body reads or makes that are the same at every step: what it reads from outside (the
    graph's weights, values made before the Loop), the loop-carried values it passes on unchanged (tf2onnx's Keras
    cells carry their weights round the loop so), and what its nodes make from those alone (a weight sliced, split
    or cast every step). A matmul against such a value reads a weight that is warm from the step before, not a
    fresh activation (round 16: Nakdimon's recurrent MatMuls, 30 µs, priced as activation products at 170 µs)."""
    ins = [i.name for i in body.input]
    outs = [o.name for o in body.output]
    made = {o for n in body.node for o in n.output if o}
    passed = {n.output[0]: n.input[0] for n in body.node if n.op_type == "Identity" and n.input and n.output}
    carried = [i for j, i in enumerate(ins[2:]) if j + 1 < len(outs) and passed.get(outs[j + 1], outs[j + 1]) == i]
    inv = set(carried) | {i for n in body.node for i in n.input if i and i not in made and i not in ins}
    for n in body.node:
        if n.op_type in _DRAWN or any(a.HasField("g") or a.graphs for a in n.attribute):
            continue
        if all(not i or i in inv for i in n.input):
            inv.update(o for o in n.output if o)
    return frozenset(inv)

