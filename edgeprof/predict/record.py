"""A prediction as it is stored: one model × one table → records.StoredPrediction, keyed as a measured run is.

Owns: `table_id` (a table's identity: the first 16 hex digits of the sha256 of its canonical JSON, so two copies of
one table share it and a recalibrated table does not) and `stored_prediction` (the configuration's
vocab.ConfigIdentity key — device, model content, runtime, precision, batch, threads, shapes fed, single-stream —
which is the key `Result.identity` gives a measured run of the same configuration, so `results show`, `compare`
and the report find the prediction of a run by that key alone).
Does not own: the prediction (fit.py, service.py), the record (records/prediction.py), the store (store/).
"""

from __future__ import annotations

import hashlib
import json

from ..records import utc_now
from ..records.prediction import StoredPrediction
from ..vocab import ConfigIdentity
from .fit import Prediction
from .service import ModelGraph
from .table import CalibrationTable

__all__ = ["stored_prediction", "table_id"]


def table_id(table: CalibrationTable) -> str:
    text = json.dumps(table.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stored_prediction(model: str, graph: ModelGraph, table: CalibrationTable, p: Prediction, *, batch: int,
                      table_path: str, sweep_id: str | None = None) -> StoredPrediction:
    k = table.key
    shapes = tuple((n, tuple(int(d) for d in s)) for n, s in graph.shapes.items())
    ident = ConfigIdentity(k.device_name, model, k.runtime, k.precision, batch, k.threads, graph.source,
                           graph.content, shapes)
    return StoredPrediction(
        config_key=ident.key(), created_at=utc_now(), device=k.device_name, model=model, source=graph.source,
        content=graph.content, runtime=k.runtime, runtime_version=k.runtime_version, precision=k.precision,
        batch=batch, threads=k.threads, shapes=shapes, table_id=table_id(table), table_path=table_path,
        p50_ms=p.p50_ms, low_ms=p.low_ms, high_ms=p.high_ms, level=p.level, covered_ops=p.covered_ops,
        covered_flops=p.covered_flops, uncovered=tuple(dict(u) for u in p.uncovered), warnings=tuple(p.warnings),
        sweep_id=sweep_id, extra={"throughput_ips": p.throughput_ips, "kernels": p.kernels, "method": p.method})
