"""A kernel's variant: the part of its key (graph.Kernel.key, "op/variant") that says which of the runtime's code
paths runs it, read from its node and shapes alone (onnxruntime's CPU provider; tflite.py has LiteRT's own).

Owns: convolutions (depthwise, grouped, pointwise, dense k×k, and a few output channels; the channel alignment
onnxruntime's blocked kernels need), matmuls (against weights or two activations), reductions (over the innermost
axes or strided ones) and Transposes (the path onnxruntime's Transpose::Compute takes). Does not own: reading the
graph or its shapes (graph.py), the cost models keyed by it (fit.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["variant"]

_REDUCES = frozenset({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceProd",
                      "ReduceSumSquare", "ReduceLogSumExp"})


def _reduce_variant(node: Any, attrs: Mapping[str, Any], shape: Mapping[str, tuple[int, ...]],
                    consts: Mapping[str, Any]) -> str:
    """"last" when the reduced axes are the innermost ones that are not of size 1 (each output reads one run of
    contiguous memory), else "strided" (magika's ReduceMean over axis 1 of [n, 1536, 128] ran 6× dearer per byte
    than the table's last-axis ones, round 7). The axes: the attribute (opset < 18) or the constant input 1."""
    from onnx import numpy_helper

    dims = shape.get(node.input[0]) if node.input else None
    if not dims:
        return ""
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1] in consts:
        axes = numpy_helper.to_array(consts[node.input[1]]).reshape(-1).tolist()
    rank = len(dims)
    picked = sorted({int(a) % rank for a in axes}) if axes else list(range(rank))
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


def variant(base: str, wi: int, node: Any, shape: Mapping[str, tuple[int, ...]], inits: frozenset[str],
            consts: Mapping[str, Any] | None = None) -> str:
    """The variant of a kernel whose standard op is `base` and whose weight is its input `wi` (-1: none). Costs
    per FLOP differ by an order of magnitude between a depthwise, a pointwise and a dense k×k convolution, one with
    at most 4 output channels ("n": basic_pitch's one-channel heads ran at a tenth of the FLOP/s of the other
    unaligned convolutions, round 7), and between a matmul against weights and two activations; per byte between a
    reduction or a Transpose that reads contiguous memory and one that does not."""
    from onnx import helper

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
        if group > 1 and w[1] == 1:
            return f"dw/{align}"
        if group > 1:
            return f"group/{align}"
        return f"{'1x1' if k == 1 else 'kxk'}/{align}"
    if base in ("MatMul", "Gemm"):
        return "w" if 0 <= wi < len(node.input) and node.input[wi] in inits else "a"
    if base in _REDUCES:
        return _reduce_variant(node, attrs, shape, consts or {})
    if base == "Transpose":
        return _transpose_variant(node, attrs, shape)
    return ""
