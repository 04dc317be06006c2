"""Scatter calibration ops for kernels.py's "misc" models: `scatter_op(g, shape)` writes one of two on its own
input and output into kernels._G `g`.

- ScatterElements (two draws in five): every row of a [rows, width] tensor scattered by data-dependent row indices into
  a zero tensor of half as many rows, summed or replaced, as a graph network's message sums do (PaiNN's ran 200× the
  copy price; round 10);
- ScatterND (the other three): a state cache as streaming exports update it (torch's index_put): k of its rows (1 to
  16, at constant indices) replaced by a new input's, so the op's time is the copy of the whole cache, not the
  update. GTCRN's 18 such cache updates were priced at 10× their time from ScatterElements' samples (round 10).
The `reduction` attribute exists for both from opset 16 only.
`gather_pow_op(g, kind, shape)`: a Gather along an inner axis or a Pow that calls pow(), one of which ends every misc
model (round 20).
Does not own: the graph under construction (kernels._G), the misc model around it (kernels._misc).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["scatter_op", "gather_pow_op"]


def scatter_op(g: Any, shape: list[int]) -> None:
    """One ScatterElements or ScatterND over a new input of `shape` (rank 4, batch 1) into `g`."""
    rng: np.random.Generator = g.rng
    x = g.input(shape)
    rows, width = shape[1] * shape[2], shape[3]
    src = g.node("Reshape", [x, g.const([2], np.int64, [rows, width])])
    if rng.random() < 0.4:
        idx = g.node("Cast", [g.node("Mul", [g.node("Sigmoid", [src]), g.const([], value=rows / 2)])],
                     to=7)  # int64 row indices in range from any data, so that nothing is folded
        attrs = {"reduction": str(rng.choice(["add", "none"]))}
        zeros = g.const([rows // 2 + 1, width], value=np.zeros((rows // 2 + 1, width)))
        out = g.node("ScatterElements", [zeros, idx, src], axis=0, **(attrs if g.opset >= 16 else {}))
        g.output(out, [rows // 2 + 1, width])
        return
    k = min(rows, int(rng.choice([1, 2, 4, 16])))
    at = g.const([k, 1], np.int64, np.sort(rng.choice(rows, size=k, replace=False)).reshape(k, 1))
    attrs = {"reduction": str(rng.choice(["none", "none", "add"]))}
    out = g.node("ScatterND", [src, at, g.input([k, width])], **(attrs if g.opset >= 16 else {}))
    g.output(out, [rows, width])


def gather_pow_op(g: Any, kind: str, rank4: list[int]) -> None:
    """A Gather along an inner axis (variants._gather_blocks: columns of a batch, a cost per block copied), or a Pow
    that calls pow() per element (variants._pow_general: 10^x, or |x| to a constant power onnxruntime does not square
    or root), ≈ 4 ns an element where an Add costs a tenth (round 20: fastGRAHSP's column selections and 10^x
    outputs were priced as row lookups and as Adds)."""
    rng: np.random.Generator = g.rng
    if kind == "gather":
        rows, cols = int(rng.choice([64, 256, 1000, 4096])), int(rng.choice([16, 53, 256]))
        k = int(rng.choice([1, 4, 16, cols // 2]))
        y = g.node("Gather", [g.input([rows, cols]), g.const([k], np.int64, list(rng.choice(cols, k)))], axis=1)
        g.output(y, [rows, k])
        return
    x = g.input(rank4)
    if rng.random() < 0.5:
        y = g.node("Pow", [g.const([], value=10.0), x])
    else:
        y = g.node("Pow", [g.node("Abs", [x]), g.const([], value=float(rng.choice([0.3, 1.5, 2.2, 0.75])))])
    g.output(y, rank4)
