"""Submitting a sweep to the lab queue: one job per cell.

Owns: a cell's job (`lock="board:<device>"`, `queue="lab.<controller>"`, a priority, a per-cell
`queueing_lock` so submit and --resume are idempotent), the rows of cells that need no board (static skips,
export failures), and marking the sweep queued. Jobs' arguments (version 1):
  {"v": 1, "sweep_id": str, "cell": Cell.to_dict(), "after_run_id": str | null, "artifacts": [{"sha256",
   "entry"}]}
Does not own: the task that runs a job (jobs.py), the artifacts (artifacts.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ...errors import ConfigError, UserError
from ...records import Device, utc_now
from ...store import Store, sweep_cells, sweeps
from .. import sweep_state as ledger
from ..cell import Cell, export_key
from ..rows import cell_result
from .artifacts import Exported, export_cells
from .db import (
    DEFAULT_CONTROLLER,
    JOB_ARGS_VERSION,
    PRIORITIES,
    QUEUE_CONTROLLER,
    QUEUE_PREFIX,
    QUEUED_STATUS,
    TASK_NAME,
    maybe_done,
    require_upgraded,
)
from .jobs import make_app


def queue_of(device: Device) -> str:
    return QUEUE_PREFIX + (getattr(device, "controller", None) or DEFAULT_CONTROLLER)


def board_lock(device_name: str) -> str:
    return f"board:{device_name}"


def queueing_lock(sweep_id: str, cell_id: str) -> str:
    return f"cell:{sweep_id}:{cell_id}"


def parse_priority(value: str | int | None) -> int:
    """`nightly` (0), `interactive` (10) or an integer; higher runs first."""
    if value is None:
        return PRIORITIES["interactive"]
    if isinstance(value, int):
        return value
    if value in PRIORITIES:
        return PRIORITIES[value]
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"--priority {value!r}: give nightly, interactive or an integer",
                          hint="higher runs first: nightly is 0, interactive 10") from None


def cell_job(sweep_id: str, cell: Cell, device: Device, *, priority: int, after_run_id: str | None,
             artifacts: list[dict[str, str]]) -> Any:
    """The procrastinate job of one cell: on its controller's queue, holding its board's lock while it runs,
    and at most one waiting per cell (queueing lock)."""
    from procrastinate import jobs as pjobs

    args: dict[str, Any] = {"v": JOB_ARGS_VERSION, "sweep_id": sweep_id, "cell": cell.to_dict(),
                            "after_run_id": after_run_id, "artifacts": artifacts}
    return pjobs.Job(id=None, queue=queue_of(device), priority=priority, lock=board_lock(cell.device),
                     queueing_lock=queueing_lock(sweep_id, cell.cell_id), task_name=TASK_NAME, task_kwargs=args)


@dataclass
class Submitted:
    sweep_id: str
    submitted: int  # new jobs
    already: int  # cells already waiting in the queue (idempotent resubmit)
    final: int  # skip rows and export failures stored at once, no job
    queues: dict[str, int] = field(default_factory=dict)


def submit(store: Store, url: str, sweep_id: str, cells: Sequence[Cell], devices: Sequence[Device], *,
           priority: int, cache_dir: Path | None = None, say: Callable[[str], None] | None = None,
           exported: Exported | None = None) -> Submitted:
    """Queue the cells of a sweep already in the ledger (ledger.create_sweep), one job per cell.

    Statically skipped cells and cells whose model failed to export become their rows here (they need no
    board). A cell that already has a job waiting is left alone (its queueing lock), so submitting twice or
    resuming while jobs wait adds nothing. `exported`: export_cells' answer for these cells when the caller
    exported them first (cli/sweep.py does, so that a Ctrl-C while exporting has queued nothing)."""
    from procrastinate import exceptions as pexc

    require_upgraded(store)
    by_name = {d.name: d for d in devices}
    refs, errors = exported if exported is not None else export_cells(store, cells, cache_dir, say)
    with store.engine.connect() as conn:
        current = {r.cell_id: r.run_id for r in conn.execute(
            sa.select(sweep_cells.c.cell_id, sweep_cells.c.run_id).where(sweep_cells.c.sweep_id == sweep_id))}
        waiting = {r[0] for r in conn.execute(sa.text(
            "SELECT queueing_lock FROM procrastinate_jobs WHERE status = 'todo' AND task_name = :t "
            "AND args->>'sweep_id' = :s"), {"t": TASK_NAME, "s": sweep_id})}
    final = 0
    jobs = []
    out = Submitted(sweep_id, 0, 0, 0)
    for c in cells:
        error = errors.get(export_key(c))
        if c.skip or error is not None:
            result = (cell_result(c, "skipped", c.skip, sweep_id=sweep_id, attempts=0) if c.skip else
                      cell_result(c, "failed", f"export failed: {error.one_line()}", sweep_id=sweep_id,  # type: ignore[union-attr]
                                  attempts=0, stderr_tail=error.detail))  # type: ignore[union-attr]
            ledger.commit_cell(store, sweep_id, c, result, 0)
            final += 1
            continue
        qlock = queueing_lock(sweep_id, c.cell_id)
        if qlock in waiting:
            out.already += 1
            continue
        device = by_name.get(c.device)
        if device is None:
            raise UserError(f"sweep cell {c.cell_id} names device {c.device!r}, which is not in the inventory",
                            hint="pass --inventory with the devices.yaml the sweep was made with")
        job = cell_job(sweep_id, c, device, priority=priority, after_run_id=current.get(c.cell_id),
                       artifacts=refs.get(export_key(c), []))
        jobs.append(job)
        out.queues[job.queue] = out.queues.get(job.queue, 0) + 1
    out.final = final
    # cancelled cells submitted again (--resume) are pending again, so --wait waits for their rows
    ledger.reopen_cells(store, sweep_id, [Cell.from_dict(j.task_kwargs["cell"]).cell_id for j in jobs])
    if jobs:
        app = make_app(url)
        with app.open():
            try:
                app.job_manager.batch_defer_jobs(jobs)
                out.submitted = len(jobs)
            except pexc.AlreadyEnqueued:  # another submitter raced us: one by one, keeping what is there
                for job in jobs:
                    try:
                        app.job_manager.defer_job(job)
                        out.submitted += 1
                    except pexc.AlreadyEnqueued:
                        out.already += 1
                        out.queues[job.queue] -= 1
    _mark_queued(store, sweep_id)
    return out


def _mark_queued(store: Store, sweep_id: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id)
                     .values(status=QUEUED_STATUS, controller=QUEUE_CONTROLLER, updated_at=utc_now()))
    maybe_done(store, sweep_id)

