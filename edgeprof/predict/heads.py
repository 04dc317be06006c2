"""The "head" calibration models of kernels.py: `head(g)` writes into kernels._G `g` a small MLP head, then Einsums,
tree ensembles and a PRelu on their own inputs — kernels whose data stays in the cache from one run to the next, and
ops no other kind measures (einsums.py, trees.py, _prelu here). Moved out of kernels.py in round 18.
Does not own: the graph under construction (kernels._G), the kinds' order (kernels.calibration_models).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .einsums import einsum_op
from .trees import tree_op

__all__ = ["head"]


def head(g: Any) -> None:
    """A small MLP head: Flatten (half the time) then one to four Gemms with bias, each maybe followed by an
    activation; widths 16-1536 in and out, so one Gemm's weights span 2 kB to 3 MB in a model of a few MB at most;
    then (round 16) one to three Einsums on their own inputs (einsums.py: a weight of up to 4 MB), the model's
    whole data up to about 25 MB; then (round 18) none, one or two tree ensembles on their own inputs (trees.py) and
    one PRelu (_prelu)."""
    rng: np.random.Generator = g.rng
    if rng.random() < 0.5:
        a, b = int(rng.choice([4, 8, 16])), int(rng.choice([16, 32, 64, 96]))
        t, width = g.node("Flatten", [g.input([1, a, b])], axis=1), a * b
    else:
        width = int(rng.choice([32, 64, 128, 256, 512]))
        t = g.input([1, width])
    for _ in range(int(rng.integers(1, 5))):
        out = int(rng.choice([16, 32, 64, 96, 128, 256, 512]))
        t = g.node("Gemm", [t, g.const([out, width]), g.const([out])], transB=1)
        g.flops += 2.0 * width * out
        if rng.random() < 0.6:
            t = g.node(str(rng.choice(["Relu", "Sigmoid", "Tanh"])), [t])
        width = out
    g.output(t, [1, width])
    for _ in range(int(rng.integers(1, 4))):  # Einsums beside it, on their own inputs (see the docstring)
        einsum_op(g)
    for _ in range(int(rng.choice([0, 1, 2]))):  # tree ensembles beside it (round 18: trees.py)
        tree_op(g)
    _prelu(g)


def _prelu(g: Any) -> None:
    """One PRelu on its own input, its slope per channel ([C, 1, 1] or [1, C, 1, 1], as torch and keras2onnx write
    it) or one for all: onnxruntime 1.32's PRelu ran ~20× an Add of the same broadcast per element (1.8 ms against
    84 µs on [1, 10, 143, 191] at one thread), and with no samples of its own it was priced as its unary family's
    Relu (MTCNN's P-net, round 18: three PRelus, 15 ms profiled, priced 1.4 ms). The per-element price holds for
    inputs of both signs only (below)."""
    rng: np.random.Generator = g.rng
    c = int(rng.choice([1, 8, 10, 16, 32, 64, 128]))
    hw = int(rng.choice([1, 4, 12, 24, 48, 96, 160]))
    dims = [1, c, hw, hw] if rng.random() < 0.8 else [1, c, hw * hw]
    slope = [c] + [1] * (len(dims) - 2) if rng.random() < 0.5 else [1, c] + [1] * (len(dims) - 2)
    if rng.random() < 0.15:
        slope = [1]
    # its input half negative, as a convolution's output is: the graph's input is fed uniform [0, 1), and onnxruntime's
    # PRelu runs ~0.5 ns an element on data of one sign and ~7 on mixed signs (a branch it mispredicts)
    mixed = g.node("Sub", [g.input(dims), g.const([1], value=[0.5])])
    g.output(g.node("PRelu", [mixed, g.const(slope)]), dims)
