"""The model level: the few numbers that turn a model's kernel sum into its p50 (fit.Predictor._level_features: Σ
kernel µs, ± the kernels, conv bytes, reorder bytes, 1), fitted on the table's whole models, and, from round 25 on,
recentred on the table's own folds.

Owns: nnls_rel (the level's non-negative least squares in relative error) and recentre (the level times the folds'
median error). Does not own: the features (fit.Predictor), the folds (fit.held_out_errors), when either is used
(fit.fit, FitOptions.recentre).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["nnls_rel", "recentre"]


def nnls_rel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min Σ((x·c − y)/y)² over c ≥ 0 (few columns: every active set is tried)."""
    w = 1.0 / np.maximum(y, 1e-9)
    xw, yw = x * w[:, None], y * w
    best: tuple[float, np.ndarray] | None = None
    n = x.shape[1]
    for r in range(1, n + 1):
        for cols in itertools.combinations(range(n), r):
            c, *_ = np.linalg.lstsq(xw[:, cols], yw, rcond=None)
            if np.any(c < 0):
                continue
            full = np.zeros(n)
            full[list(cols)] = c
            err = float(np.sum((xw @ full - yw) ** 2))
            if best is None or err < best[0]:
                best = (err, full)
    return best[1] if best is not None else np.zeros(n)


def recentre(level: Sequence[float], held: Sequence[tuple[str, float]],
             generated: Iterable[str]) -> tuple[tuple[float, ...], list[tuple[str, float]], float]:
    """The level fitted in-sample prices each model's kernels with models that saw them; a model the table never
    ran is priced by its neighbours alone, and on the table's folds such predictions are off by a median that is
    not 0 (onnxruntime at 2 threads: short on every kept table of rounds 18–25, c giving ×1.06–1.13, and held-out
    real models a median 18–21 % short). The level is multiplied by e^c, c the median log(measured / predicted) of the generated
    models held out by fold (the reference models are too few to centre on), and every held-out error is moved by
    −c, so the interval is the recentred prediction's. Returns (level, held errors, c); c = 0 without generated
    models held out."""
    names = set(generated)
    errs = [e for n, e in held if n in names]
    if not errs:
        return tuple(level), list(held), 0.0
    c = float(np.median(errs))
    return tuple(v * math.exp(c) for v in level), [(n, e - c) for n, e in held], c
