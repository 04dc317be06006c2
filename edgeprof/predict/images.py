"""A convolution onnxruntime runs image by image: at more than one thread, priced as that many one-image kernels.

onnxruntime's unblocked float Conv (a 1-D one, or a 2-D one its NCHWc transformer leaves alone: output channels not a
multiple of the block) is MLAS's MlasConv (onnxruntime/core/mlas/lib/convolve.cpp). MlasConvPrepare picks its algorithm
per image: a pointwise convolution (stride 1, no padding, a kernel of one tap) is one GEMM straight on the input
(GemmDirect); one with more filters than output positions an image expands the whole image and then runs one GEMM
(ExpandThenGemm); any other is expanded and multiplied in segments (ExpandThenGemmSegmented). MlasConv threads over
images and groups only for the third; the first two walk the images and groups one after another, and each image's
GEMM, as small as it is, is split over the thread pool again: at 2 threads a batch of short sequences pays a pool
dispatch per image (Remora's 1000 chunks of 24 to 3 positions through 64 filters, round 26: 4.6-9x their price as one
kernel of 0.2-1.6 GFLOP; the model ran slower at 2 threads than at 1). A table's own samples of a one-image kernel of
that size carry that dispatch, so such a kernel is priced as its calls' one-image kernels. At one thread it is not:
a call inside MLAS's loop pays no dispatch and finds its weight in the cache, and a whole node of that size, as the
calibration timed it, cost 1.4-2.5x a call there (Remora at 1 thread: −29 % as one kernel, +34 % priced per image).

Owns: image_calls (graph.py records Kernel.images and Kernel.image_bytes), one_image and image_sample (fit.py prices
the one-image kernel and fits a sample of such a kernel as one image's, both at more than one thread). Does not own:
which convolutions are blocked (variants.variant's alignment), a grouped one whose weight is a graph input
(variants.group_calls).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .graph import Kernel


def image_calls(node: Any, x: Sequence[int], w: Sequence[int], y: Sequence[int], variant: str) -> float:
    """The images × groups MLAS walks one after another for a float Conv of input shape `x`, weight `w` and output
    `y` (N, C, spatial...) whose key variant is `variant`: 0 unless onnxruntime runs it unblocked (a 1-D one, or a
    2-D one whose output channels are not a multiple of 8: the NCHWc transformer blocks no other), its algorithm is
    GemmDirect or ExpandThenGemm, and there are two calls or more."""
    if len(x) < 3 or len(w) < 3 or not (variant.startswith("1d/") or (len(w) == 4 and w[0] % 8 != 0)):
        return 0.0
    attrs = {a.name: a for a in node.attribute}
    group = int(attrs["group"].i) if "group" in attrs else 1
    dims = len(w) - 2
    strides = list(attrs["strides"].ints) if "strides" in attrs else [1] * dims
    pads = list(attrs["pads"].ints) if "pads" in attrs else [0] * (2 * dims)
    auto = attrs["auto_pad"].s.decode() if "auto_pad" in attrs else "NOTSET"
    taps = math.prod(w[2:])
    padded = any(pads) or (auto not in ("NOTSET", "VALID") and taps > 1)
    pointwise = taps == 1 and all(s == 1 for s in strides) and not padded
    expand_all = w[0] // max(group, 1) > math.prod(y[2:])
    calls = x[0] * group
    return float(calls) if (pointwise or expand_all) and calls > 1 else 0.0


def one_image(k: Kernel, threads: int) -> Kernel | None:
    """One call of a kernel MLAS runs image by image (Kernel.images > 1) at `threads` > 1: its FLOPs, output and
    calls (a grouped one's Kernel.spans) a call's share, its bytes one image's and the whole weight
    (Kernel.image_bytes); None for any other kernel, or at one thread (the module's docstring says why)."""
    if k.images <= 1 or threads <= 1:
        return None
    n = k.images
    return dataclasses.replace(k, flops=k.flops / n, bytes=k.image_bytes or k.bytes / n, out_elems=k.out_elems / n,
                               reorder_bytes=k.reorder_bytes / n, spans=k.spans / n, images=0.0, image_bytes=0.0)


def image_sample(k: Kernel, us: float, threads: int) -> tuple[Kernel, float]:
    """A calibration sample as the cost models of a table of `threads` take it: a kernel MLAS ran image by image as
    one image's call and its share of the time (one_image), any other as it is."""
    one = one_image(k, threads)
    return (k, us) if one is None else (one, us / k.images)
