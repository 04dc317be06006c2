"""Stored predictions (DB schema 5): saving one, and finding those of measured configurations.

Owns: `save_prediction` (one row of the predictions table, the record as JSON beside its summary columns),
`latest_by_key` (the newest prediction of each configuration key: what `results show`, `compare` and the report
put beside a measured run of that key) and `of_sweep` (the predictions a sweep made before it measured).
A row whose JSON cannot be read is left out with a message in `skipped`, as the runs' rows are.
Does not own: the record (records/prediction.py), making predictions (predict/), the table (schema.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from ..errors import StoreError
from ..records.jsonio import dumps_json
from ..records.prediction import StoredPrediction
from .db import Store
from .schema import predictions

__all__ = ["latest_by_key", "of_sweep", "save_prediction"]


def save_prediction(store: Store, p: StoredPrediction) -> StoredPrediction:
    """Store `p`; the record with its row id."""
    row = {"created_at": p.created_at, "config_key": p.config_key, "device": p.device, "model": p.model,
           "runtime": p.runtime, "runtime_version": p.runtime_version, "precision": p.precision, "batch": p.batch,
           "threads": p.threads, "table_id": p.table_id, "p50_ms": p.p50_ms, "low_ms": p.low_ms,
           "high_ms": p.high_ms, "level": p.level, "covered_ops": p.covered_ops, "covered_flops": p.covered_flops,
           "sweep_id": p.sweep_id, "record_json": dumps_json(p.to_dict(), sort_keys=True)}
    try:
        with store.engine.begin() as conn:
            key = conn.execute(predictions.insert().values(**row)).inserted_primary_key
            new_id = key[0] if key is not None else None
    except sa.exc.DBAPIError as e:
        raise StoreError(f"cannot store the prediction in {store.path or store.display_url}: "
                         f"{' '.join(str(e.orig).split())[:200]}",
                         hint="check the database given with --db / EDGEPROF_DB") from None
    from dataclasses import replace

    return replace(p, prediction_id=None if new_id is None else int(new_id))


def _read(store: Store, rows: Iterable[Any]) -> list[StoredPrediction]:
    out = []
    for pid, text in rows:
        where = f"results database {store.path or store.display_url}: prediction {pid}"
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise StoreError(f"{where} is not a JSON object")
            out.append(StoredPrediction.from_dict({**data, "prediction_id": pid}, where=where))
        except (ValueError, StoreError) as e:
            store.skipped.append(e.message if isinstance(e, StoreError) else f"{where} cannot be read ({e})")
    return out


def latest_by_key(store: Store, keys: Iterable[str]) -> dict[str, StoredPrediction]:
    """The newest stored prediction of each of `keys` (a key without one is absent from the answer)."""
    wanted = sorted(set(keys))
    found: dict[str, StoredPrediction] = {}
    for i in range(0, len(wanted), 500):
        q = (sa.select(predictions.c.id, predictions.c.record_json)
             .where(predictions.c.config_key.in_(wanted[i:i + 500]))
             .order_by(predictions.c.created_at.desc(), predictions.c.id.desc()))
        with store.engine.connect() as conn:
            for p in _read(store, conn.execute(q).all()):
                found.setdefault(p.config_key, p)
    return found


def of_sweep(store: Store, sweep_id: str) -> list[StoredPrediction]:
    """The predictions a sweep made (predict-first), in the order they were made."""
    q = (sa.select(predictions.c.id, predictions.c.record_json).where(predictions.c.sweep_id == sweep_id)
         .order_by(predictions.c.id))
    with store.engine.connect() as conn:
        return _read(store, conn.execute(q).all())
