"""The misc calibration models' projection (kernels._misc, from round 22): a MatMul against a weight, without a
bias, whose input another node reads too, as a transformer's query, key and value projections read one normalised
input. Quantised for an int8 table (export/quantize.py: QDQ, weights per output channel), onnxruntime fuses no
such MatMul (its activation's QuantizeLinear feeds more than one DequantizeLinear): it runs a float MatMul on a
weight dequantised at every run, per output channel — a row of one element each (variants._dq_rows), 13× a
per-tensor DequantizeLinear's price per element — which no other kind measures: muggle-speech's decoder step was
priced at a third of its int8 time (round 22). A float table measures a weight MatMul and an activation beside it.
Does not own: the graph under construction (kernels._G), the kinds' order (kernels.calibration_models).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["projection_op"]

_MAX_FLOPS = 1e8


def projection_op(g: Any) -> None:
    """x [1, T, K] → MatMul with a [K, N] weight, and a Sigmoid or Relu of x beside it: T of 1 to 64 tokens (fewer
    where its FLOPs would pass 10⁸), K of 64 to 1024, N of 64 to 4096 (a weight of 4 k to 4 M elements, up to 16 MB
    dequantised)."""
    rng: np.random.Generator = g.rng
    t, k = int(rng.choice([1, 4, 10, 16, 64])), int(rng.choice([64, 128, 256, 512, 1024]))
    n = int(rng.choice([64, 256, 512, 1024, 2048, 4096]))
    t = max(1, min(t, int(_MAX_FLOPS // (2 * k * n))))  # a quarter of a model's bound (kernels.MAX_FLOPS) at most
    x = g.input([1, t, k])
    g.output(g.node("MatMul", [x, g.const([k, n])]), [1, t, n])
    g.output(g.node(str(rng.choice(["Sigmoid", "Relu"])), [x]), [1, t, k])
    g.flops += 2.0 * t * k * n
