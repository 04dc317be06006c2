"""The sweep ledger: sweeps and the state of their cells in the results database.

Owns: sweep ids, creating a sweep record (spec text and expanded cells as JSON), committing a cell's result
together with the cell's new state in one transaction (store.save(..., also=...)), marking a sweep running /
done / interrupted, and reading sweeps back (by id prefix, latest, list) for --resume, check and report.
Does not own: the tables (store/schema.py), what a cell is (spec.py), running cells (scheduler.py).
"""

from __future__ import annotations

import datetime as _dt
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..agentlink.lease import controller_name
from ..errors import AmbiguousId, StoreError
from ..records import Result, utc_now
from ..store import Store, sweep_cells, sweeps
from .cell import Cell

# a cell's state in the ledger: `pending` until it ends; then the status of its result row (ok, failed, skipped);
# or `cancelled` (`edgeprof sweep --cancel`: no result row, nothing measured; `--resume` runs it again). A
# cancelled cell is neither a failure of its board nor a cell that silently never ran (docs/lab.md).
CANCELLED = "cancelled"
UNFINISHED = ("pending", CANCELLED)  # cells --resume runs again (with the failed ones)


def new_sweep_id() -> str:
    return "sw-" + _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]



@dataclass
class CellState:
    cell: Cell
    status: str  # pending | ok | failed | skipped | cancelled
    run_id: str | None
    attempts: int
    reason: str | None
    updated_at: str


@dataclass
class SweepRecord:
    sweep_id: str
    name: str
    created_at: str
    updated_at: str
    status: str
    controller: str | None
    spec_path: str | None
    spec: dict[str, Any]
    cells: list[CellState] = field(default_factory=list)
    inventory: str | None = None  # the devices.yaml the sweep was started with (--resume reads it again)

    def counts(self) -> dict[str, int]:
        out = {"ok": 0, "failed": 0, "skipped": 0, "pending": 0}  # "cancelled" only when some cell is
        for c in self.cells:
            out[c.status] = out.get(c.status, 0) + 1
        return out


def create_sweep(store: Store, sweep_id: str, name: str, spec_path: str | None, spec: dict[str, Any],
                 cells: list[Cell]) -> None:
    now = utc_now()
    body = dict(spec)
    body["cells"] = [c.to_dict() for c in cells]
    with store.engine.begin() as conn:
        conn.execute(sweeps.insert().values(sweep_id=sweep_id, name=name, created_at=now, updated_at=now,
                                            status="running", controller=controller_name(), spec_path=spec_path,
                                            spec_json=json.dumps(body)))
        if cells:
            conn.execute(sweep_cells.insert(), [
                {"sweep_id": sweep_id, "cell_id": c.cell_id, "device": c.device, "status": "pending",
                 "run_id": None, "attempts": 0, "reason": None, "updated_at": now,
                 "cell_json": json.dumps(c.to_dict())} for c in cells])


ANY_RUN = object()  # commit_cell's `after` when the cell's current row is not checked (one controller)


class _CellTaken(Exception):
    """Raised inside commit_cell's transaction (rolling it back) when the cell no longer has the row expected."""


def commit_cell(store: Store, sweep_id: str, cell: Cell, result: Result, attempts: int,
                after: object = ANY_RUN) -> bool:
    """Store the cell's result row and its new state in one transaction; True when the cell took this row.

    `after` (the lab queue's after_run_id: the run the cell had when its job was submitted, None for a new cell)
    makes the cell's update a compare-and-set: when the cell's row changed meanwhile (the same job run twice, a
    PostgreSQL restart having given it back while it still ran), the cell keeps the row it has, this measurement is
    stored as a run alone, outside the sweep (as store.import_recovered does), and False is returned."""

    def update(conn: sa.Connection) -> None:
        where = [sweep_cells.c.sweep_id == sweep_id, sweep_cells.c.cell_id == cell.cell_id]
        if after is not ANY_RUN:
            where.append(sweep_cells.c.run_id.is_(None) if after is None else sweep_cells.c.run_id == after)
        done = conn.execute(sweep_cells.update().where(*where)
                            .values(status=result.status, run_id=result.run_id, attempts=attempts,
                                    reason=result.reason, updated_at=utc_now()))
        if after is not ANY_RUN and not done.rowcount:
            raise _CellTaken()
        conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id).values(updated_at=utc_now()))

    try:
        store.save(result, sweep_id=sweep_id, also=update)
    except _CellTaken:
        store.save(result)
        return False
    return True


def cancel_cells(store: Store, sweep_id: str, reason: str) -> int:
    """Mark every pending cell of a sweep cancelled with `reason` (no result row); returns how many."""
    with store.engine.begin() as conn:
        done = conn.execute(sweep_cells.update().where(sweep_cells.c.sweep_id == sweep_id,
                                                       sweep_cells.c.status == "pending")
                            .values(status=CANCELLED, reason=reason, updated_at=utc_now()))
    return int(done.rowcount or 0)


def reopen_cells(store: Store, sweep_id: str, cell_ids: list[str]) -> None:
    """Cancelled cells about to run again (--resume) are pending again; other cells are left as they are."""
    if not cell_ids:
        return
    with store.engine.begin() as conn:
        conn.execute(sweep_cells.update().where(sweep_cells.c.sweep_id == sweep_id,
                                                sweep_cells.c.cell_id.in_(cell_ids),
                                                sweep_cells.c.status == CANCELLED)
                     .values(status="pending", reason=None, updated_at=utc_now()))


def set_status(store: Store, sweep_id: str, status: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id)
                     .values(status=status, updated_at=utc_now(), controller=controller_name()))


def resolve_sweep_id(store: Store, ref: str) -> str | None:
    """A sweep id from an exact id or a unique prefix; None when nothing matches. `last` is the newest."""
    with store.engine.connect() as conn:
        if ref in ("last", "latest"):
            row = conn.execute(sa.select(sweeps.c.sweep_id).order_by(sweeps.c.created_at.desc(),
                                                                     sweeps.c.sweep_id.desc()).limit(1)).first()
            return row[0] if row else None
        rows = conn.execute(sa.select(sweeps.c.sweep_id).where(sweeps.c.sweep_id.like(
            ref.replace("%", "").replace("_", "\\_") + "%", escape="\\")).limit(3)).all()
    ids = [r[0] for r in rows]
    if ref in ids:
        return ref
    if len(ids) > 1:
        raise AmbiguousId(f"sweep id prefix {ref!r} is ambiguous ({', '.join(ids)}, …)",
                         hint="give more characters of the sweep id")
    return ids[0] if ids else None


def get_sweep(store: Store, ref: str) -> SweepRecord:
    sweep_id = resolve_sweep_id(store, ref)
    if sweep_id is None:
        raise StoreError(f"no sweep {ref!r} in {store.display_url}",
                         hint="edgeprof sweep --list shows the sweeps stored there")
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(sweeps).where(sweeps.c.sweep_id == sweep_id)).one()
        cell_rows = conn.execute(sa.select(sweep_cells).where(sweep_cells.c.sweep_id == sweep_id)).all()
    spec = json.loads(row.spec_json)  # what create_sweep wrote: read here, once, into the record
    order = {c["cell_id"]: i for i, c in enumerate(spec.get("cells", []))}
    inventory = spec.get("inventory")
    states = [CellState(Cell.from_dict(json.loads(r.cell_json)), r.status, r.run_id, r.attempts, r.reason,
                        r.updated_at) for r in cell_rows]
    states.sort(key=lambda s: order.get(s.cell.cell_id, len(order)))
    return SweepRecord(row.sweep_id, row.name, row.created_at, row.updated_at, row.status, row.controller,
                       row.spec_path, spec, states, inventory if isinstance(inventory, str) else None)


def list_sweeps(store: Store, limit: int = 20, name: str | None = None) -> list[dict[str, Any]]:
    q = sa.select(sweeps.c.sweep_id, sweeps.c.name, sweeps.c.created_at, sweeps.c.updated_at, sweeps.c.status,
                  sweeps.c.controller)
    if name:
        q = q.where(sweeps.c.name == name)
    q = q.order_by(sweeps.c.created_at.desc(), sweeps.c.sweep_id.desc()).limit(limit)
    out = []
    with store.engine.connect() as conn:
        for r in conn.execute(q):
            d = dict(r._mapping)
            counts = conn.execute(sa.select(sweep_cells.c.status, sa.func.count()).where(
                sweep_cells.c.sweep_id == r.sweep_id).group_by(sweep_cells.c.status)).all()
            d["counts"] = {s: int(n) for s, n in counts}
            out.append(d)
    return out


def previous_sweep(store: Store, sweep: SweepRecord) -> str | None:
    """The newest sweep with the same name created before `sweep` (the natural baseline of a nightly)."""
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(sweeps.c.sweep_id).where(
            sweeps.c.name == sweep.name, sweeps.c.created_at <= sweep.created_at,
            sweeps.c.sweep_id != sweep.sweep_id).order_by(sweeps.c.created_at.desc(),
                                                          sweeps.c.sweep_id.desc()).limit(1)).first()
    return row[0] if row else None
