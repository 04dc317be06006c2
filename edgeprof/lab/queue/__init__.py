"""The lab queue: sweep cells as jobs on procrastinate + PostgreSQL, for a lab bigger than one controller.

A package by responsibility; this module names what the rest of edgeprof and the tests use:
  db.py        the PostgreSQL-only check and URL handling, `edgeprof db upgrade`, the lab tables, constants
  artifacts.py exported models stored by sha256 in PostgreSQL, fetched into a worker's artifact cache
  submit.py    a sweep's cells as jobs (one per cell: board lock, controller queue, priority, queueing lock)
  jobs.py      the one task: a queued cell through the sweep's per-cell path (board.run_cell), its retries
  worker.py    `edgeprof worker`: procrastinate's worker, the reaper of stalled jobs, the heartbeat row
  status.py    following a sweep (--wait), cancelling one, the lab status
Does not own: how a cell is measured, which errors are transport errors, leasing the device and turning an
attempt into a row (lab/board.py, cell_decisions.py, lease.py, run/), the sweep file and cells (spec.py, cell.py),
the results tables and the sweep ledger (store/, sweep_state.py), printing (cli/).

`after_run_id` in a job is the run the cell had when it was submitted (null for a new cell): a worker runs the
cell only while the ledger still shows that run, so a cell that already has its final row for this submission
is never run twice (a stalled job retried after its worker died mid-commit, a duplicate submit).
"""

from .artifacts import export_cells, fetch_artifact, put_artifact, tar_entry
from .db import (
    DEFAULT_CONTROLLER,
    FETCH_INDEX,
    FOLLOW_OUTAGE_S,
    JOB_ARGS_VERSION,
    MIGRATION_KEY,
    PRIORITIES,
    QUEUE_CONTROLLER,
    QUEUE_PREFIX,
    QUEUED_STATUS,
    REAP_EVERY_S,
    STALLED_AFTER_S,
    SWEEP_INDEX,
    TASK_NAME,
    conninfo,
    display,
    lab_artifacts,
    lab_metadata,
    lab_workers,
    maybe_done,
    open_store,
    postgres_url,
    require_upgraded,
    upgrade,
)
from .jobs import CellAborted, CellNotStored, CellTransportRetry, WorkerEnv, make_app, run_queued_cell
from .status import Cancelled, Followed, LabStatus, cancel, follow, hostname, job_counts, lab_status
from .submit import Submitted, board_lock, cell_job, parse_priority, queue_of, queueing_lock, submit
from .worker import reap_orphans, reap_stalled, reap_stalled_jobs, run_worker

__all__ = [
    "DEFAULT_CONTROLLER", "FETCH_INDEX", "FOLLOW_OUTAGE_S", "JOB_ARGS_VERSION", "MIGRATION_KEY", "PRIORITIES",
    "QUEUE_CONTROLLER", "QUEUE_PREFIX", "QUEUED_STATUS", "REAP_EVERY_S", "STALLED_AFTER_S", "SWEEP_INDEX",
    "TASK_NAME", "Cancelled", "CellAborted", "CellNotStored", "CellTransportRetry", "Followed", "LabStatus",
    "Submitted", "WorkerEnv", "board_lock", "cancel", "cell_job", "conninfo", "display", "export_cells",
    "fetch_artifact", "follow", "hostname", "job_counts", "lab_artifacts", "lab_metadata", "lab_status",
    "lab_workers", "make_app", "maybe_done", "open_store", "parse_priority", "postgres_url", "put_artifact",
    "queue_of", "queueing_lock", "reap_orphans", "reap_stalled", "reap_stalled_jobs", "require_upgraded",
    "run_queued_cell", "run_worker", "submit", "tar_entry", "upgrade",
]
