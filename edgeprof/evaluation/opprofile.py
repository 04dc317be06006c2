"""Per-op profiles: from the agent's per-node totals to shares, per-op-type totals, top ops and a side-by-side
view of the same model across runtimes (the layer-wise view of convnet-benchmarks).

Owns: `summarize` (agent answer → Result.ops, an OpsProfile), `top`, `normalise_op_type` (one vocabulary across
onnxruntime, TFLite and TensorRT names) and `side_by_side` (rows = op types, columns = runs).
Does not own: collecting the profile (the agent's opprof.py, in a separate pass after the timed loop) or
printing (cli/ui.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from edgeprof_agent.messages import OpsProfileReply

from ..records import OpsProfile

__all__ = ["summarize", "top", "normalise_op_type", "side_by_side"]

# TFLite builtin op names and common TensorRT layer kinds → onnxruntime (ONNX) op types
_ALIASES = {
    "CONV_2D": "Conv", "DEPTHWISE_CONV_2D": "Conv", "TRANSPOSE_CONV": "ConvTranspose",
    "FULLY_CONNECTED": "MatMul", "BATCH_MATMUL": "MatMul", "Gemm": "MatMul", "FusedMatMul": "MatMul",
    "ADD": "Add", "MUL": "Mul", "SUB": "Sub", "DIV": "Div", "MEAN": "ReduceMean", "SUM": "ReduceSum",
    "AVERAGE_POOL_2D": "AveragePool", "MAX_POOL_2D": "MaxPool", "RESHAPE": "Reshape", "TRANSPOSE": "Transpose",
    "SOFTMAX": "Softmax", "PAD": "Pad", "CONCATENATION": "Concat", "RELU": "Relu", "RELU6": "Clip",
    "HARD_SWISH": "HardSwish", "LOGISTIC": "Sigmoid", "TANH": "Tanh", "GELU": "Gelu", "GATHER": "Gather",
    "QUANTIZE": "QuantizeLinear", "DEQUANTIZE": "DequantizeLinear", "SQUARED_DIFFERENCE": "Sub",
    "RSQRT": "Sqrt", "STRIDED_SLICE": "Slice", "SLICE": "Slice", "CAST": "Cast",
    "FusedConv": "Conv", "QLinearConv": "Conv", "ConvInteger": "Conv", "QLinearMatMul": "MatMul",
    "MatMulInteger": "MatMul", "MatMulNBits": "MatMul", "GlobalAveragePool": "ReduceMean",
    "Convolution": "Conv", "CaskConvolution": "Conv", "CaskGemmConvolution": "Conv", "MatrixMultiply": "MatMul",
    "ElementWise": "Add", "Reformat": "Reformat", "Pooling": "AveragePool", "Activation": "Relu",
}


def normalise_op_type(op_type: str) -> str:
    return _ALIASES.get(op_type, op_type)


def summarize(raw: OpsProfileReply) -> OpsProfile:
    """The agent's profile answer (the run reply's ops) → per-run times (ms), shares of the profiled total,
    per-op-type totals."""
    iterations = raw.iterations or 0
    scale = {"us": 1e-3, "ms": 1.0, "ns": 1e-6}.get(raw.unit or "us", 1e-3)
    nodes = []
    for row in raw.nodes:
        name, op_type, provider, total, calls = (list(row) + [None] * 5)[:5]
        per_run = float(total) * scale / iterations if iterations else None
        nodes.append({"name": name, "op_type": op_type, "provider": provider, "ms_per_run": per_run,
                      "calls": calls})
    total_ms = sum(n["ms_per_run"] or 0.0 for n in nodes)
    for n in nodes:
        n["share"] = (n["ms_per_run"] or 0.0) / total_ms if total_ms else None
    nodes.sort(key=lambda n: -(n["ms_per_run"] or 0.0))
    by_type: dict[str, dict[str, Any]] = {}
    for n in nodes:
        t = by_type.setdefault(n["op_type"] or "?", {"op_type": n["op_type"] or "?", "ms_per_run": 0.0,
                                                     "nodes": 0})
        t["ms_per_run"] += n["ms_per_run"] or 0.0
        t["nodes"] += 1
    op_types = sorted(by_type.values(), key=lambda t: -t["ms_per_run"])
    for t in op_types:
        t["share"] = t["ms_per_run"] / total_ms if total_ms else None
    run_total = raw.run_total_us
    return OpsProfile(
        available=raw.available and bool(nodes), source=raw.source, reason=raw.reason,
        iterations=iterations, profiled_ms_per_run=total_ms if nodes else None,
        run_ms_per_run=(float(run_total) * scale / iterations) if run_total and iterations else None,
        nodes=nodes, op_types=op_types,
        op_counts=dict(raw.op_counts) if raw.op_counts else None,
        providers=list(raw.providers) if raw.providers else None,
        note="a separate pass after the timed loop; profiling slows runs, so these times are for shares, not latency",
    )


def top(ops: OpsProfile, k: int = 10, by: str = "node") -> list[dict[str, Any]]:
    """The k most expensive nodes (by="node") or op types (by="op_type")."""
    return list((ops.nodes if by == "node" else ops.op_types)[:k])


_RUN_LABEL = re.compile(r"\s+")


def side_by_side(runs: Sequence[tuple[str, OpsProfile | None]]) -> dict[str, Any]:
    """Op types (normalised) × runs: ms per run and share for each; rows sorted by the largest share anywhere.

    runs: (label, Result.ops or None) pairs, e.g. label "onnxruntime int8"."""
    labels = [_RUN_LABEL.sub(" ", label) for label, _ in runs]
    table: dict[str, list[dict[str, float] | None]] = {}
    notes: dict[str, str] = {}
    for col, (label, ops) in enumerate(runs):
        if not ops or not ops.available:
            notes[label] = (ops.reason if ops else None) or "no op profile (deploy with --profile-ops)"
            continue
        for t in ops.op_types:
            key = normalise_op_type(t["op_type"])
            cells = table.setdefault(key, [None] * len(runs))
            cell = cells[col] or {"ms_per_run": 0.0, "share": 0.0}
            cell["ms_per_run"] += t["ms_per_run"] or 0.0
            cell["share"] += t["share"] or 0.0
            cells[col] = cell
    rows = sorted(table.items(), key=lambda kv: -max((c or {}).get("share", 0.0) for c in kv[1]))
    return {"columns": labels, "rows": [{"op_type": k, "cells": v} for k, v in rows], "notes": notes}
