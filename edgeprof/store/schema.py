"""The results database's tables and their schema version (history in the package docstring).

Owns: the table definitions, DB_SCHEMA_VERSION, the column limits, the configuration key a row is indexed by
(with re-keying the rows of a schema-2 database), and RunRow, a run as `Store.list` reads it (the runs table's
summary columns).
Does not own: opening, saving or loading (db.py).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..records import Result

# 3: config_key is the model's content hash + the shapes fed (rows re-keyed on open)
# 4: runs.top1, the accuracy pass's top-1 % (results list shows it; older rows have none: added on open)
# 5: predictions, what `edgeprof predict` and sweeps that predict first said (a new table: created on open)
DB_SCHEMA_VERSION = 5

metadata = sa.MetaData()

runs = sa.Table(
    "runs", metadata,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.String(40), nullable=False, index=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("device", sa.String(128), nullable=False, index=True),
    sa.Column("model", sa.String(256), nullable=False, index=True),
    sa.Column("runtime", sa.String(64), nullable=False),
    sa.Column("precision", sa.String(16), nullable=False),
    sa.Column("batch", sa.Integer, nullable=False),
    sa.Column("threads", sa.Integer),
    sa.Column("p50_ms", sa.Float),
    sa.Column("p99_ms", sa.Float),
    sa.Column("throughput_ips", sa.Float),
    sa.Column("mean_w", sa.Float),
    sa.Column("top1", sa.Float),  # accuracy mode: top-1 % (schema 4)
    sa.Column("sweep_id", sa.String(64), index=True),
    sa.Column("config_key", sa.String(64), index=True),
    sa.Column("schema_version", sa.Integer, nullable=False),
    sa.Column("result_json", sa.Text, nullable=False),
)

device_facts = sa.Table(
    "device_facts", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("device", sa.String(128), nullable=False, index=True),
    sa.Column("collected_at", sa.String(40), nullable=False),
    sa.Column("facts_json", sa.Text, nullable=False),
)

# a sweep: its spec and expanded cells (JSON), when and where it ran; one row per sweep
sweeps = sa.Table(
    "sweeps", metadata,
    sa.Column("sweep_id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(128), nullable=False, index=True),
    sa.Column("created_at", sa.String(40), nullable=False, index=True),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # running | done | interrupted
    sa.Column("controller", sa.String(256)),
    sa.Column("spec_path", sa.Text),
    sa.Column("spec_json", sa.Text, nullable=False),
)

# the state of every cell of a sweep: the latest run for it (ok / failed / skipped), attempts so far
sweep_cells = sa.Table(
    "sweep_cells", metadata,
    sa.Column("sweep_id", sa.String(64), primary_key=True),
    sa.Column("cell_id", sa.String(512), primary_key=True),
    sa.Column("device", sa.String(128), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending | ok | failed | skipped | cancelled (lab/sweep_state.py)
    sa.Column("run_id", sa.String(64)),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("reason", sa.Text),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("cell_json", sa.Text, nullable=False),
)

# a prediction from a calibration table (records/prediction.py), keyed by the configuration's identity as a measured
# run of it is (config_key), so a run's prediction is found by its key; the record itself in record_json (schema 5)
predictions = sa.Table(
    "predictions", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_at", sa.String(40), nullable=False, index=True),
    sa.Column("config_key", sa.String(64), nullable=False, index=True),
    sa.Column("device", sa.String(128), nullable=False, index=True),
    sa.Column("model", sa.String(256), nullable=False),
    sa.Column("runtime", sa.String(64), nullable=False),
    sa.Column("runtime_version", sa.String(64), nullable=False),
    sa.Column("precision", sa.String(16), nullable=False),
    sa.Column("batch", sa.Integer, nullable=False),
    sa.Column("threads", sa.Integer, nullable=False),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("p50_ms", sa.Float, nullable=False),
    sa.Column("low_ms", sa.Float, nullable=False),
    sa.Column("high_ms", sa.Float, nullable=False),
    sa.Column("level", sa.Float, nullable=False),
    sa.Column("covered_ops", sa.Float, nullable=False),
    sa.Column("covered_flops", sa.Float),
    sa.Column("sweep_id", sa.String(64), index=True),
    sa.Column("record_json", sa.Text, nullable=False),
)

meta = sa.Table(
    "meta", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(256), nullable=False),
)



@dataclass(frozen=True)
class RunRow:
    """One stored run as `Store.list` reads it: the runs table's summary columns (the Result itself is
    `Store.get`'s). Each field is the column of its name, so the listing selects exactly these; None where the run
    has no such figure (a failed or skipped row, a run without power or accuracy)."""

    run_id: str
    created_at: str
    status: str
    device: str
    model: str
    runtime: str
    precision: str
    batch: int
    threads: int | None
    p50_ms: float | None
    p99_ms: float | None
    throughput_ips: float | None
    mean_w: float | None
    top1: float | None
    sweep_id: str | None
    config_key: str | None

    @classmethod
    def columns(cls) -> list[sa.Column[Any]]:
        return [runs.c[f.name] for f in dataclasses.fields(cls)]

    def to_dict(self) -> dict[str, Any]:
        """`results list --json`'s object of the run (the columns in this order)."""
        return dataclasses.asdict(self)


MAX_ID_CHARS = 64  # runs.run_id, sweeps.sweep_id
STATUSES = ("ok", "failed", "skipped")


def column_length(col: sa.Column[Any]) -> int:
    return int(getattr(col.type, "length", None) or MAX_ID_CHARS)


def config_key(r: Result) -> str:
    """Identity of a measured configuration across nights: vocab.ConfigIdentity's key (device, model, runtime,
    precision, batch, threads, artifact source)."""
    return r.identity.key()


def rekey(conn: sa.Connection) -> None:
    """Recompute every row's config_key from its stored result (DB schema 3: content hash + shapes fed), so
    history and baselines continue across the change. A row that cannot be read keeps its key."""
    for run_id, text in conn.execute(sa.select(runs.c.run_id, runs.c.result_json)).all():
        try:
            key = config_key(Result.from_dict(json.loads(text)))
        except Exception:  # noqa: BLE001 - a row another version wrote badly: leave it as it was
            continue
        conn.execute(runs.update().where(runs.c.run_id == run_id).values(config_key=key))

