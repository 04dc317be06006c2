"""Einsum calibration ops for kernels.py's "head" models (its "misc" models until round 16): `einsum_op(g)` writes
one Einsum on its own input(s) and output into kernels._G `g`, in one of the three forms exporters write:

- a grouped linear, "btgi,gio->btgo" against a constant weight (DeepFilterNet's and Hush's grouped GRU inputs and
  outputs): a frame of 1 or a sequence of up to 100 steps, 1 to 16 groups of 8 to 256 features (round 13: up to
  64 until then, where Hush's deep-filter decoder reads a weight of 0.6 MB, 4.6× the largest sample's bytes);
- a batched matrix product, "bij,bjk->bik", of two inputs;
- attention scores, "bhqd,bhkd->bhqk" (a terrain U-Net's attention, torch's einsum exports).
onnxruntime's CPU Einsum pays a fixed cost per call that its FLOPs do not show (Hush's ERB decoder: two Einsums of
a few kFLOP took 7 µs each, where the roofline fallback priced them at 0.9 µs; round 11). Sizes are bounded so a
call stays under a few MFLOP to a few tens.
Beside a misc model's STFTs and Resizes of milliseconds, onnxruntime's Einsum ran 2-6× slower than in a small model
whose data stays in the cache (round 16: a 1 MB grouped linear took 115 µs in a misc model's profile, 44 µs alone);
the head models are of the second kind, as the streaming stages that use Einsum most are.
Does not own: the graph under construction (kernels._G), the model around it (heads.head), the FLOPs
(export/flops.py's einsum_flops).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["einsum_op"]

_MACS = 1 << 21  # a grouped linear over a sequence stays under ≈ 4 MFLOP a step × steps (a frame of 1 past it)


def einsum_op(g: Any) -> None:
    """One Einsum into `g` (kernels._G): see the module docstring."""
    rng: np.random.Generator = g.rng
    form = int(rng.choice(3, p=[0.5, 0.25, 0.25]))
    if form == 0:
        t = int(rng.choice([1, 1, 4, 25, 100]))
        groups = int(rng.choice([1, 2, 4, 8, 16]))
        i, o = (int(rng.choice([8, 16, 32, 64, 128, 256])) for _ in range(2))
        if t * groups * i * o > _MACS:  # a weight of up to 1 M floats (4 MB) is written for one frame
            t = 1
        x = g.input([1, t, groups, i])
        y = g.node("Einsum", [x, g.const([groups, i, o])], equation="btgi,gio->btgo")
        g.output(y, [1, t, groups, o])
    elif form == 1:
        b, m, k, n = (int(rng.choice(v)) for v in ([1, 4, 8], [1, 8, 64, 256], [16, 64, 256], [8, 64, 256]))
        y = g.node("Einsum", [g.input([b, m, k]), g.input([b, k, n])], equation="bij,bjk->bik")
        g.output(y, [b, m, n])
    else:
        h, q, d = int(rng.choice([1, 4, 8])), int(rng.choice([16, 64, 256])), int(rng.choice([16, 32, 64]))
        y = g.node("Einsum", [g.input([1, h, q, d]), g.input([1, h, q, d])], equation="bhqd,bhkd->bhqk")
        g.output(y, [1, h, q, q])
