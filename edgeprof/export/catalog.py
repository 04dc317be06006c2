"""The bundled-model catalogue with parameters and FLOPs, as plain data for `edgeprof models`.

Owns: `list_models_info`, which exports each bundled model at its default shape (or reads the artifact
cache) to learn its parameter count and FLOPs. Does not own: printing (the CLI) or the models themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import edgeprof_models

from .onnx_export import cached_artifact, prepare_onnx
from .resolve import resolve_model

__all__ = ["list_models_info"]


def list_models_info(cache_dir: Path, *, progress: Callable[[str], None] | None = None, seed: int = 0,
                     export: bool = True) -> list[dict[str, Any]]:
    """One dict per bundled model: name, task, description, inputs (TensorSpec dicts), params, flops.

    Parametric models appear under their default shape (e.g. `gemm:1760x16x1760`). params and flops come from
    the exported artifact (flops at batch 1). With `export=False` nothing is exported: params and flops are
    filled from the cache only, else None. The first call with an empty cache exports every model (~25 s).
    """
    rows: list[dict[str, Any]] = []
    for base in edgeprof_models.names():
        model = edgeprof_models.get(base)
        row: dict[str, Any] = {
            "name": model.name, "task": model.task, "description": model.description,
            "inputs": [t.to_dict() for t in model.inputs], "params": None, "flops": None,
        }
        if export:
            artifact = prepare_onnx(resolve_model(model.name), cache_dir=cache_dir, seed=seed, progress=progress)
            row["params"], row["flops"] = artifact.params, artifact.flops
        else:
            cached = cached_artifact(resolve_model(model.name), cache_dir=cache_dir, seed=seed)
            if cached is not None:
                row["params"], row["flops"] = cached.params, cached.flops
        rows.append(row)
    return rows
