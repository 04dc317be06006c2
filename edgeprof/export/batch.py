"""Which dimension is the batch: the names the common exporters give dim 0, and a static batch.

Owns: `is_batch_dim` (dim 0, dynamic, unnamed or named like a batch: torch's `batch`, `batch_size`, `N`;
keras2onnx / onnxconverter's `N`, `None`; tf2onnx / onnxruntime's `unk__123`; Paddle2ONNX's `DynamicDimension.0`
and `p2o.DynamicDimension.0`; torch dynamo's `s6`; any `batch…` / `…_batch`), `batch_name` (such a name anywhere,
without the generated names an exporter gives every dynamic dim, when asked), `static_batch` (dim 0 fixed at the
same N > 1 on every input of rank 2+: N is the batch), `batch_dim` (the dim of an input that is its batch: a
batch dim 0, else the first dim named like a batch without the generated names, as a sequence-first GRU's
x[5, batch, 8] has it at dim 1 — not a one-letter N or B after a leading 1, where it counts something else), `declared_batch_dim` (the same read from a stored declared shape, for labels).
Does not own: the input plan that uses them (inputs.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import TensorSpec

__all__ = ["BATCH_SYMBOLS", "BATCH_PATTERN", "is_batch_dim", "batch_name", "static_batch", "batch_dim",
           "declared_batch_dim"]

# dim-0 symbols that mean "the batch" (case-insensitive), as the common exporters write them: torch's `batch`,
# `batch_size`, `N`; keras2onnx / onnxconverter's `N` and `None`; a `?` or `-1` written as a name
BATCH_SYMBOLS = ("batch", "batch_size", "batchsize", "bs", "n", "b", "nb", "num_batches", "none", "?", "-1",
                 "batch_dim", "batchdim", "n_batch", "nbatch")
# ... and generated names: tf2onnx / onnxruntime `unk__123`, Paddle2ONNX `DynamicDimension.0` (`p2o.` in newer ones), torch dynamo's
# sympy symbols `s0`, `s77`; any `batch…` / `…_batch` name
BATCH_PATTERN = re.compile(r"^(unk__\d+|(p2o\.)?dynamicdimension\.\d+|s\d+|batch[_\w]*|\w+_batch)$", re.IGNORECASE)
_LETTERS = ("n", "b")  # one-letter batch names: after a leading 1, a count rather than the batch (batch_dim)
_GENERATED = re.compile(r"^(unk__\d+|(p2o\.)?dynamicdimension\.\d+|s\d+)$", re.IGNORECASE)  # name every dynamic dim


def is_batch_dim(spec: TensorSpec, i: int) -> bool:
    """Dim `i` of `spec` is the batch: dim 0, dynamic, and unnamed or named like a batch (BATCH_SYMBOLS,
    BATCH_PATTERN)."""
    if i != 0 or not spec.shape:
        return False
    d = spec.shape[0]
    if d is None or (isinstance(d, int) and d < 0):
        return True
    return isinstance(d, str) and batch_name(d)


def batch_name(d: str, generated: bool = True) -> bool:
    """A dimension name that means the batch (BATCH_SYMBOLS, BATCH_PATTERN); `generated` False: not the names an
    exporter gives every dynamic dim (unk__n, DynamicDimension.k, s6), which mean the batch on dim 0 only."""
    if not generated and _GENERATED.match(d):
        return False
    return d.lower() in BATCH_SYMBOLS or BATCH_PATTERN.match(d) is not None


def static_batch(specs: Sequence[TensorSpec]) -> tuple[int, tuple[str, ...]] | None:
    """(N, the inputs) when the model's batch is static at N > 1: every input of rank 2 or more has dim 0 fixed at
    the same N (a face detector's 10x3x640x640). Rank-0/1 inputs (a sample rate, a scale) do not count; a model
    with any such input whose dim 0 is 1 or dynamic, or with a dim named like a batch anywhere (a sequence-first
    x[5, batch, 8]), has no static batch (None)."""
    ranked = [s for s in specs if len(s.shape) >= 2]
    if any(isinstance(d, str) and batch_name(d, generated=False) for s in specs for d in s.shape):
        return None  # a dim named like the batch elsewhere (a GRU's x[seq, batch, input]): dim 0 is not it
    sizes = {s.shape[0] if isinstance(s.shape[0], int) else -1 for s in ranked}
    if len(sizes) != 1 or min(sizes) <= 1:
        return None
    return sizes.pop(), tuple(s.name for s in ranked)


def batch_dim(spec: TensorSpec) -> int | None:
    """The dim of `spec` that is its batch: 0 when dim 0 is (is_batch_dim), else the first later dim named like a
    batch (batch_name without the generated names, which mean the batch on dim 0 only: a GRU's x[5, batch, 8] has
    it at 1), else None."""
    if is_batch_dim(spec, 0):
        return 0
    # a leading dim fixed at 1 is itself the batch, set to one: a later one-letter N or B there counts something
    # else (trueocr's reading-order model: feats[1, N, 16], N text lines)
    ones = tuple(spec.shape[:1]) == (1,)
    return next((i for i, d in enumerate(spec.shape) if i > 0 and isinstance(d, str) and batch_name(d, False)
                 and not (ones and d.lower() in _LETTERS)), None)


def declared_batch_dim(declared: str | None) -> int:
    """batch_dim of a declared shape as stored (TensorSpec.shape_str: "[5, batch, 8]"); 0 when none is named off
    dim 0 (a static batch is dim 0)."""
    words = [w.strip() for w in (declared or "").strip("[]").split(",")]
    dims = tuple(int(w) if w.lstrip("-").isdigit() else None if w == "?" else w for w in words if w)
    return batch_dim(TensorSpec("declared", dims, "float32")) or 0
