"""The share of a convolution's kernel taps that land inside its input (round 13, after held-out-12's run).

export/flops.py counts a convolution's FLOPs over every tap of its kernel at every output position, the padded
border's too (the convention reports use). onnxruntime's convolutions skip the taps that fall in the padding (MLAS's
NCHWc kernels compute only the input rows and columns a tap reaches), so a 3×3 convolution padded by 1 on a 1×1
map runs its centre tap alone and reads a ninth of its weight: mb-capcha-ocr's ResNet-18 runs its last eleven
convolutions on 2×2 and 1×1 maps, and priced by the convention's FLOPs and whole weights it came out +131 %.
The predictor's kernels carry the work that runs: FLOPs × the share of (output position, tap) pairs inside the
input, and the weight's bytes × the share of taps any output position reaches.

Not for 1-D convolutions (round 15): onnxruntime's NCHWc transformer blocks only 2-D ones, and its 1-D path
computes every tap, the padding's zeros too. Timed here (1 thread, 64 channels, depthwise): on a 1-long input a
29-wide kernel padded by 14 took 21.7 µs against 13.3 µs for a 1-wide one, where one tap lands in the input; a dense
9-wide on a 1-long input 9.2 against 5.9 µs — while a 2-D 3×3 padded by 1 on a 1×1 map took what a 1×1 took (6.8
against 6.6 µs, 64 or 60 channels). Priced on the taps inside, akiki's VAD (padded 1-D convolutions over short
sequences) came out +35 % at 1 thread; on every tap +12 % (round 15, its round's table re-read).

Owns: conv_taps. Does not own: the FLOPs convention (export/flops.py), the kernel's other bytes (graph.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def _ints(node: Any, name: str) -> list[int] | None:
    for a in node.attribute:
        if a.name == name:
            return list(a.ints)
    return None


def _auto_pad(node: Any) -> str:
    for a in node.attribute:
        if a.name == "auto_pad":
            return a.s.decode() if isinstance(a.s, bytes) else str(a.s)
    return "NOTSET"


def conv_taps(node: Any, x: Sequence[int], w: Sequence[int], y: Sequence[int]) -> tuple[float, float]:
    """(share of (output position, tap) pairs inside the input, share of the kernel's taps any output position
    reaches) of an NCHW convolution with input dims x, weight dims w and output dims y; (1, 1) for a 1-D one (every
    tap runs: the module docstring) and where the shapes do not say (a rank that disagrees, an unknown dim)."""
    rank = len(w) - 2
    if rank < 2 or len(x) != rank + 2 or len(y) != rank + 2 or any(d <= 0 for d in (*x[2:], *w[2:], *y[2:])):
        return 1.0, 1.0
    strides = _ints(node, "strides") or [1] * rank
    dil = _ints(node, "dilations") or [1] * rank
    pads = _ints(node, "pads")
    mode = _auto_pad(node)
    begin = []
    for i in range(rank):
        if pads and len(pads) == 2 * rank:
            begin.append(pads[i])
        elif mode in ("SAME_UPPER", "SAME_LOWER"):
            total = max((y[2 + i] - 1) * strides[i] + (w[2 + i] - 1) * dil[i] + 1 - x[2 + i], 0)
            begin.append(total // 2 if mode == "SAME_UPPER" else total - total // 2)
        else:
            begin.append(0)
    pairs, taps = 1.0, 1.0
    for i in range(rank):
        n_in, n_out, k = x[2 + i], y[2 + i], w[2 + i]
        inside = 0
        reached = set()
        for t in range(k):
            off = t * dil[i] - begin[i]
            # output positions o with 0 ≤ o·s + off < n_in
            lo = max(0, math.ceil(-off / strides[i]))
            hi = min(n_out - 1, (n_in - 1 - off) // strides[i])
            if hi >= lo:
                inside += hi - lo + 1
                reached.add(t)
        pairs *= inside / (n_out * k)
        taps *= len(reached) / k
    return pairs, taps
