"""Streaming-step calibration models for kernels.py's "tiny" kind: `stream_chain(g)` writes into kernels._G `g` a
chain of 16 to 48 small ops on one frame's features, as streaming speech models ship one step — a denoiser's,
a voice-activity detector's, a keyword spotter's: slices and concatenations of a cached context, reshapes and
transposes, 1×k and depthwise convolutions of a few channels, small matmuls, elementwise activations and adds,
each reading what the op before it wrote, on tensors of 16 to 2048 elements.

Why: such a step runs 50 nodes of about a microsecond each, and the tables held no model of many µs-sized nodes.
The profiler's per-node excess (fit._timed_us) leaves a trivial node a tenth of a µs, while in a timed run each
node costs the executor about half a µs to one: Hush's DeepFilterNet encoder (54 nodes, 77 µs) was predicted at
44 µs, its two decoders and FlashVAD 29–48 % under at 1 and 2 threads (round 11). Timed whole and profiled like
every other model, a chain's p50 holds its nodes' real cost, which its kernels' samples and the model level learn.
Does not own: the graph under construction (kernels._G), the per-run overhead the one-to-three-op tiny models pin
(kernels._tiny), the FLOPs (export/flops.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["stream_chain"]


def stream_chain(g: Any) -> None:
    """A chain of small ops on a [1, C, 1, F] frame into `g` (kernels._G): see the module docstring."""
    rng: np.random.Generator = g.rng
    c, f = int(rng.choice([1, 2, 4, 8, 16])), int(rng.choice([16, 32, 64, 128]))
    x = g.input([1, c, 1, f])
    cache = g.input([1, c, 1, 2])  # a cached context of two frames' worth, carried between steps
    t, shape = x, [1, c, 1, f]
    for _ in range(int(rng.integers(16, 49))):
        op = str(rng.choice(["cat", "act", "binary", "conv", "dw", "reshape", "matmul"],
                            p=[0.12, 0.2, 0.2, 0.14, 0.12, 0.1, 0.12]))
        if op == "cat":  # the cached context before the frame, then the frame's width again
            if shape[1] != c:
                continue
            both = g.node("Concat", [cache, t], axis=3)
            t = g.node("Slice", [both, *(g.const([1], np.int64, [v]) for v in (2, shape[3] + 2, 3))])
        elif op == "act":
            t = g.node(str(rng.choice(["Relu", "Sigmoid", "Tanh", "LeakyRelu"])), [t])
        elif op == "binary":
            t = g.node(str(rng.choice(["Add", "Mul"])), [t, g.const([1, shape[1], 1, 1])])
        elif op == "conv":  # 1×k over the features, a few channels out
            cout, k = int(rng.choice([1, 2, 4, 8, 16])), int(rng.choice([1, 3, 5]))
            t = g.node("Conv", [t, g.const([cout, shape[1], 1, k])], pads=[0, k // 2, 0, k // 2])
            g.flops += 2.0 * cout * shape[1] * k * shape[3]
            shape = [1, cout, 1, shape[3]]
        elif op == "dw":
            t = g.node("Conv", [t, g.const([shape[1], 1, 1, 3])], pads=[0, 1, 0, 1], group=shape[1])
            g.flops += 2.0 * shape[1] * 3 * shape[3]
        elif op == "reshape":  # to [1, F, C] and back, as a GRU's input is made
            y = g.node("Transpose", [g.node("Reshape", [t, g.const([3], np.int64, [1, shape[1], shape[3]])])],
                       perm=[0, 2, 1])
            t = g.node("Reshape", [g.node("Transpose", [y], perm=[0, 2, 1]),
                                   g.const([4], np.int64, shape)])
        else:  # a small linear over the features
            n = int(rng.choice([16, 32, 64]))
            t = g.node("MatMul", [t, g.const([shape[3], n])])
            g.flops += 2.0 * shape[1] * shape[3] * n
            shape = [shape[0], shape[1], 1, n]
    g.output(t, shape)
