"""Following, cancelling and showing the lab queue: `sweep --wait`, `sweep --cancel`, `edgeprof lab`.

Owns: following a queued sweep until every cell has its row (riding out a database restart), cancelling one
(waiting cells never start, running ones are aborted, the ledger says so), and the lab status (busy boards,
queued cells, workers).
Does not own: the ledger (sweep_state.py), printing (cli/).
"""

from __future__ import annotations

import datetime as _dt
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ...errors import StoreError, StoreUnavailable
from ...records import Result, utc_now
from ...store import Store, sweep_cells, sweeps
from .. import sweep_state as ledger
from ..cell import Cell
from .db import FOLLOW_OUTAGE_S, STALLED_AFTER_S, TASK_NAME, lab_workers, require_upgraded
from .jobs import make_app


def job_counts(store: Store, sweep_id: str) -> Counter[str]:
    """Jobs of a sweep by procrastinate status (todo, doing, succeeded, failed, cancelled, aborted); a status
    with no job counts 0."""
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT status::text, count(*) FROM procrastinate_jobs WHERE task_name = :t AND args->>'sweep_id' = :s "
            "GROUP BY status"), {"t": TASK_NAME, "s": sweep_id}).all()
    return Counter({str(s): int(n) for s, n in rows})


@dataclass
class Followed:
    counts: dict[str, int]
    results: list[Result]
    cancelled: bool
    not_run: int


def follow(store: Store, sweep_id: str, on_result: Callable[[Result, int, int], None] | None = None,
           poll_s: float = 1.0, stop: threading.Event | None = None) -> Followed:
    """Wait until every cell of a queued sweep has its row (or no job is left to give it one)."""
    seen: set[str] = set()
    results: list[Result] = []
    outage_since: float | None = None
    while True:
        try:
            step = _follow_step(store, sweep_id, seen, results, on_result, poll_s)
            outage_since = None
        except (sa.exc.OperationalError, StoreUnavailable) as e:  # the database restarting: wait for it, a while
            outage_since = outage_since or time.monotonic()
            if time.monotonic() - outage_since > FOLLOW_OUTAGE_S:
                why = e.message if isinstance(e, StoreUnavailable) else str(e.orig).strip().splitlines()[0]
                raise StoreError(f"lost the database {store.display_url} for {FOLLOW_OUTAGE_S:.0f} s while "
                                 f"following sweep {sweep_id}: {why}",
                                 hint="the cells go on in the queue; follow again when the database is back") from None
            step = None
        if step is not None:
            return step
        if stop is not None and stop.wait(poll_s):
            raise KeyboardInterrupt
        if stop is None:
            time.sleep(poll_s)


def _follow_step(store: Store, sweep_id: str, seen: set[str], results: list[Result],
                 on_result: Callable[[Result, int, int], None] | None, poll_s: float) -> Followed | None:
    while True:
        with store.engine.connect() as conn:
            rows = conn.execute(sa.select(sweep_cells.c.cell_id, sweep_cells.c.status, sweep_cells.c.run_id)
                                .where(sweep_cells.c.sweep_id == sweep_id)).all()
            status = conn.execute(sa.select(sweeps.c.status).where(sweeps.c.sweep_id == sweep_id)).scalar()
        total = len(rows)
        for r in rows:
            if r.status != "pending" and r.run_id and r.run_id not in seen:
                res = store.get(r.run_id)  # the database gone meanwhile: this row is read at the next step
                seen.add(r.run_id)
                results.append(res)
                if on_result is not None:
                    on_result(res, len(seen), total)
        pending = sum(1 for r in rows if r.status == "pending")
        jobs = job_counts(store, sweep_id)
        live = jobs["todo"] + jobs["doing"]
        if not pending or status == "cancelled" or not live:
            counts = {"ok": 0, "failed": 0, "skipped": 0}
            for r in rows:
                if r.status != "pending":
                    counts[r.status] = counts.get(r.status, 0) + 1
            if pending and not live and status != "cancelled":
                # a job may have just ended: look once more before calling the cells not run
                time.sleep(poll_s)
                with store.engine.connect() as conn:
                    again = conn.execute(sa.select(sa.func.count()).select_from(sweep_cells).where(
                        sweep_cells.c.sweep_id == sweep_id, sweep_cells.c.status == "pending")).scalar_one()
                if again < pending:
                    continue
            return Followed(counts, results, status == "cancelled", pending)
        return None


@dataclass
class Cancelled:
    sweep_id: str
    waiting: int
    running: int


def cancel(store: Store, url: str, ref: str) -> Cancelled:
    """Cancel a queued sweep: waiting cells never start, running ones are aborted (agent stopped, no result
    row); both are marked `cancelled` in the ledger (`--resume` runs them later); the sweep is marked cancelled."""
    require_upgraded(store)
    sweep_id = ledger.resolve_sweep_id(store, ref)
    if sweep_id is None:
        raise StoreError(f"no sweep {ref!r} in {store.display_url}",
                         hint="edgeprof sweep --list shows the sweeps stored there")
    with store.engine.begin() as conn:
        conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id)
                     .values(status="cancelled", updated_at=utc_now()))
    # every cell without its row, waiting or running, is marked cancelled now; a running cell that ends before
    # its agent is stopped still stores its row over this (a measurement that finished is kept)
    ledger.cancel_cells(store, sweep_id, f"cancelled (edgeprof sweep --cancel at {utc_now()}); "
                                         f"edgeprof sweep --resume {sweep_id} --queue runs it")
    with store.engine.connect() as conn:
        jobs = conn.execute(sa.text(
            "SELECT id, status::text FROM procrastinate_jobs WHERE task_name = :t AND args->>'sweep_id' = :s "
            "AND status IN ('todo', 'doing')"), {"t": TASK_NAME, "s": sweep_id}).all()
    app = make_app(url)
    waiting = running = 0
    with app.open():
        for job_id, status in jobs:
            if app.job_manager.cancel_job_by_id(int(job_id), abort=True):
                if status == "todo":
                    waiting += 1
                else:
                    running += 1
    return Cancelled(sweep_id, waiting, running)


@dataclass
class LabStatus:
    busy: list[dict[str, Any]]  # board, sweep, cell, worker, since
    queued: list[dict[str, Any]]  # queue, board, cells, top priority
    workers: list[dict[str, Any]]  # name, queues, state, heartbeat age, alive


def lab_status(store: Store, stalled_after_s: float = STALLED_AFTER_S) -> LabStatus:
    require_upgraded(store)
    now = time.time()
    with store.engine.connect() as conn:
        busy = conn.execute(sa.text(
            "SELECT j.lock, j.queue_name, j.args->>'sweep_id' AS sweep_id, j.args->'cell' AS cell, j.worker_id, "
            "(SELECT max(e.at) FROM procrastinate_events e WHERE e.job_id = j.id AND e.type = 'started') AS since "
            "FROM procrastinate_jobs j WHERE j.status = 'doing' AND j.task_name = :t ORDER BY j.lock"),
            {"t": TASK_NAME}).all()
        queued = conn.execute(sa.text(
            "SELECT queue_name, lock, count(*) AS n, max(priority) AS top FROM procrastinate_jobs "
            "WHERE status = 'todo' AND task_name = :t GROUP BY queue_name, lock ORDER BY queue_name, lock"),
            {"t": TASK_NAME}).all()
        workers = conn.execute(sa.select(lab_workers).order_by(lab_workers.c.name)).all()
    out_busy = []
    for r in busy:
        cell = r.cell if isinstance(r.cell, dict) else json.loads(r.cell or "{}")
        c = Cell.from_dict(cell) if cell else None
        since = r.since.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if r.since else None
        out_busy.append({"board": str(r.lock).removeprefix("board:"), "queue": r.queue_name,
                         "sweep_id": r.sweep_id, "cell": c.cell_id if c else "?", "since": since})
    out_queued = [{"queue": r.queue_name, "board": str(r.lock).removeprefix("board:"), "cells": int(r.n),
                   "top_priority": int(r.top)} for r in queued]
    out_workers = [{"name": w.name, "queues": w.queues, "state": w.state or "idle",
                    "heartbeat_age_s": max(0.0, now - float(w.last_heartbeat)),
                    "alive": now - float(w.last_heartbeat) <= stalled_after_s} for w in workers]
    return LabStatus(out_busy, out_queued, out_workers)


def hostname() -> str:
    return socket.gethostname()
