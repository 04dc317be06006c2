"""The lab queue's one task: a queued cell run through the sweep's per-cell path, and when its job is retried.

Owns: the procrastinate App with edgeprof's task (`edgeprof.sweep_cell`), what a worker's jobs share
(WorkerEnv), running one queued cell (`run_queued_cell`: only while the ledger still shows the run it was
submitted after, so a cell is never run twice; its artifacts fetched; then lab/board.run_cell on a one-cell
SweepScheduler), and the retry strategy (a transport error goes back to the queue after the sweep's backoff, within
the cell's `retries`; a stopped worker or a lost database too; a failed measurement never).
Does not own: how a cell is measured (board.py, cell_decisions.py, run/), the worker process (worker.py).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ...errors import EdgeprofError, UserError
from ...records import Device, Result
from ...store import Store, sweep_cells, sweeps
from .. import sweep_state as ledger
from ..board import CellEnd
from ..cell import Cell
from ..rows import cell_result
from ..scheduler import SweepScheduler, run_cell
from .artifacts import fetch_artifact
from .db import JOB_ARGS_VERSION, TASK_NAME, conninfo, log, maybe_done, procrastinate_lib


def make_app(url: str | None, connector: Any = None) -> Any:
    """A procrastinate App on the database (or on `connector`, e.g. the in-memory one in unit tests) with
    edgeprof's one task registered."""
    procrastinate = procrastinate_lib()
    if connector is None:
        assert url is not None, "make_app needs a URL or a connector"
        connector = _listener_riding_outages(procrastinate)(conninfo=conninfo(url))
    app = procrastinate.App(connector=connector)
    app.task(name=TASK_NAME, pass_context=True, retry=_retry_strategy(procrastinate))(_task)
    return app


LISTEN_RETRY_MAX_S = 10.0


def _listener_riding_outages(procrastinate: Any) -> Any:
    """procrastinate's PsycopgConnector whose LISTEN loop rides out the database going away.

    procrastinate 3.x (psycopg_connector.py, listen_notify) reconnects the moment its LISTEN connection dies;
    while the server is still shutting down or starting again, that connect raises ConnectorException, the
    worker's "listener" side task fails and procrastinate stops the whole worker (worker.py,
    _monitor_side_tasks), aborting the cells it runs -- a PostgreSQL restart ended `edgeprof worker`. Here the
    loop connects again, 0.5 s doubling to 10 s apart, and says so once per outage; the notifications missed
    meanwhile cost nothing, since the worker also polls for jobs (fetch_job_polling_interval) and aborts
    (abort_job_polling_interval)."""
    import asyncio

    base = procrastinate.PsycopgConnector

    class Connector(base):  # type: ignore[misc, valid-type]
        async def listen_notify(self, on_notification: Any, channels: Any) -> None:
            wait, told = 0.5, False
            while True:
                started = time.monotonic()
                try:
                    await base.listen_notify(self, on_notification=on_notification, channels=channels)
                    return
                except procrastinate.exceptions.ConnectorException as e:
                    if time.monotonic() - started > 2 * LISTEN_RETRY_MAX_S:  # it listened a while: a new outage
                        wait, told = 0.5, False
                    if not told:
                        cause = str(e.__cause__ or e).strip().splitlines()
                        log.warning("the queue's LISTEN connection is lost (%s); connecting again every %.0f s "
                                    "at most, polling for jobs meanwhile", cause[0] if cause else "database error",
                                    LISTEN_RETRY_MAX_S)
                        told = True
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, LISTEN_RETRY_MAX_S)

    return Connector


def _retry_strategy(procrastinate: Any) -> Any:
    """When procrastinate retries a cell's job.

    - A transport error (the board unreachable, the connection lost): the job is given back to the queue and
      retried after the sweep's backoff (retry_backoff_s × 2^(attempt-1), cell_decisions.on_error) while the cell's
      attempts (the job's) are within its `retries`; the last attempt stores the failed row. Between attempts the
      board's lock is free: another worker, or this one later, takes the cell.
    - A worker stopped mid-cell (SIGTERM, systemctl stop) or the database going away mid-cell (restart,
      failover): retried up to 8 times, 2 s × 2^n apart: the cell reruns once the worker or database is back.
    - Anything else is not retried: a failed measurement is a row at once (never retried)."""
    base = procrastinate.RetryStrategy(max_attempts=8, wait=2, exponential_wait=2,
                                       retry_exceptions={procrastinate.exceptions.JobAborted, CellNotStored,
                                                         sa.exc.OperationalError})

    class CellRetry(procrastinate.BaseRetryStrategy):
        def get_retry_decision(self, *, exception: BaseException, job: Any) -> Any:
            if isinstance(exception, CellTransportRetry):
                return procrastinate.RetryDecision(retry_in={"seconds": exception.wait_s})
            return base.get_retry_decision(exception=exception, job=job)

    return CellRetry()



@dataclass
class WorkerEnv:
    """What a worker's jobs share: the results store, the worker's inventory, its artifact cache."""

    store: Store
    inventory: Any  # inventory.Inventory
    cache_dir: Path | None = None
    name: str = field(default_factory=ledger.controller_name)
    lease_ttl_s: float | None = None
    on_event: Callable[[str], None] = lambda _m: None
    running: dict[str, str] = field(default_factory=dict)  # board → "sweep cell" (one cell per board)
    publish: Callable[[], None] = lambda: None  # write the heartbeat row now (state changed)
    taken: Counter[str] = field(default_factory=Counter)  # "sweep cell" → jobs of it this process runs now
    _taken_lock: threading.Lock = field(default_factory=threading.Lock)

    def mine(self) -> list[str]:
        """The "sweep cell" keys this process works on now: the reapers never give these back. A job counts from
        its task's first line, not only once its board runs it: one started as the database restarts may spend
        seconds reading before that, and given back then it would run twice."""
        with self._taken_lock:
            return sorted(set(self.running.values()) | {k for k, n in self.taken.items() if n > 0})

    @contextlib.contextmanager
    def taking(self, key: str) -> Iterator[None]:
        with self._taken_lock:
            self.taken[key] += 1
        try:
            yield
        finally:
            with self._taken_lock:
                self.taken[key] -= 1
                if self.taken[key] <= 0:
                    del self.taken[key]

    @property
    def state(self) -> str:
        return "; ".join(f"running {v}" for _, v in sorted(self.running.items())) or "idle"

    def set_running(self, board: str, what: str | None) -> None:
        if what is None:
            self.running.pop(board, None)
        else:
            self.running[board] = what
        try:
            self.publish()
        except Exception as e:  # the next heartbeat says it; never fail a cell for it
            log.warning("could not publish the worker state: %s", e)


class CellAborted(EdgeprofError):
    """The cell was stopped (cancel or worker shutdown): nothing stored, the job ends aborted or is retried."""


class CellNotStored(EdgeprofError):
    """The cell ended but its row could not be stored (the database went away): the job is retried."""


class CellTransportRetry(EdgeprofError):
    """A transport error on an attempt the cell's `retries` still allow: nothing stored, the job is retried
    after `wait_s` (the sweep's backoff for this attempt)."""

    def __init__(self, message: str, wait_s: float) -> None:
        super().__init__(message)
        self.wait_s = wait_s


def _task(context: Any, sweep_id: str, cell: dict[str, Any], after_run_id: str | None = None,
          artifacts: Iterable[dict[str, str]] = (), v: int = 1) -> str:
    from procrastinate import exceptions as pexc

    env: WorkerEnv = context.additional_context["edgeprof"]
    if v > JOB_ARGS_VERSION:
        raise UserError(f"job for sweep {sweep_id} has arguments version {v}, newer than this worker's "
                        f"({JOB_ARGS_VERSION})", hint="upgrade edgeprof on this controller host")
    job = getattr(context, "job", None)
    the_cell = Cell.from_dict(cell)
    try:
        with env.taking(f"{sweep_id} {the_cell.cell_id}"):
            return run_queued_cell(env, sweep_id, the_cell, after_run_id, list(artifacts),
                                   should_abort=context.should_abort, attempt=int(getattr(job, "attempts", 0)) + 1)
    except CellAborted as e:
        raise pexc.JobAborted(str(e)) from None


def run_queued_cell(env: WorkerEnv, sweep_id: str, cell: Cell, after_run_id: str | None,
                    artifacts: list[dict[str, str]], should_abort: Callable[[], bool] = lambda: False,
                    attempt: int = 1) -> str:
    """Run one queued cell unless it already has its final row; returns what happened (for the job's result).
    First the recovery files this host wrote for the database while it was away are imported (store/db.py): a
    cell whose row went to such a file (its job retried as CellNotStored) gets that row and is not run again.
    `attempt` is the job's (1 the first time): a transport error on an attempt within the cell's `retries`
    raises CellTransportRetry (the queue retries the job after the backoff); on the last one the row is failed."""
    recovered = env.store.import_recovered()
    if recovered:
        env.on_event(f"imported recovered runs {', '.join(recovered)}")
    with env.store.engine.connect() as conn:
        row = conn.execute(sa.select(sweep_cells.c.status, sweep_cells.c.run_id).where(
            sweep_cells.c.sweep_id == sweep_id, sweep_cells.c.cell_id == cell.cell_id)).first()
        sweep_status = conn.execute(sa.select(sweeps.c.status).where(sweeps.c.sweep_id == sweep_id)).scalar()
    if row is None:
        return f"not run: {sweep_id} has no cell {cell.cell_id} (sweep deleted?)"
    if row.run_id != after_run_id:
        maybe_done(env.store, sweep_id)
        return f"not run: already has its row {row.run_id} ({row.status})"
    if sweep_status == "cancelled":  # taken just as the sweep was cancelled: not run, and not retried either
        return f"not run: sweep {sweep_id} was cancelled"
    if should_abort():  # its worker loop stopped (the database went away) while this job was being read
        raise CellAborted(f"cell {cell.cell_id} stopped before it started; nothing run")
    try:
        device = env.inventory.get(cell.device)
    except UserError as e:
        result = _failed_row(cell, sweep_id, f"this worker ({env.name}) cannot reach the device: {e.one_line()}")
        ledger.commit_cell(env.store, sweep_id, cell, result, 0, after_run_id)
        maybe_done(env.store, sweep_id)
        return f"failed: {result.reason}"
    from ...export.onnx_export import default_cache_dir

    try:
        for ref in artifacts:
            fetch_artifact(env.store, ref, env.cache_dir or default_cache_dir())
    except UserError as e:
        result = _failed_row(cell, sweep_id, f"artifact: {e.one_line()}")
        ledger.commit_cell(env.store, sweep_id, cell, result, 0, after_run_id)
        maybe_done(env.store, sweep_id)
        return f"failed: {result.reason}"
    env.set_running(cell.device, f"{sweep_id} {cell.cell_id}")
    env.on_event(f"start {sweep_id} {cell.cell_id}")
    try:
        end = _run_on_board(env, sweep_id, cell, device, attempt, should_abort, after_run_id)
    finally:
        env.set_running(cell.device, None)
    outcome = end.row
    if outcome is None:
        if should_abort():
            env.on_event(f"aborted {sweep_id} {cell.cell_id}")
            raise CellAborted(f"cell {cell.cell_id} stopped before it ended; nothing stored")
        if end.retry is not None:
            env.on_event(f"transport error {sweep_id} {cell.cell_id} (attempt {attempt} of "
                         f"{int(cell.setting('retries')) + 1}): back to the queue, retried in "
                         f"{end.retry.wait_s:.1f} s: {end.retry.reason}")
            raise CellTransportRetry(end.retry.reason, end.retry.wait_s)
        env.on_event(f"not stored {sweep_id} {cell.cell_id}: will be retried")
        raise CellNotStored(f"cell {cell.cell_id} ended without its row being stored (see the log above)")
    maybe_done(env.store, sweep_id)
    env.on_event(f"{outcome.status} {sweep_id} {cell.cell_id}")
    return f"{outcome.status}: run {outcome.run_id}"


def _run_on_board(env: WorkerEnv, sweep_id: str, cell: Cell, device: Device, attempt: int,
                  should_abort: Callable[[], bool], after_run_id: str | None) -> CellEnd:
    """The cell through the sweep's per-cell path (board.run_cell) on a one-cell SweepScheduler: it opens the
    transport, takes the board's on-device lease (the second layer under the queue's `board:` lock), runs the
    job's attempt with the cell's timeout (a transport error the cell's `retries` allow is handed back:
    CellEnd.retry), commits the row (ledger.commit_cell, only while the cell still has `after_run_id`) and
    releases the lease. `should_abort` (a cancel, the worker stopping) is polled and stops the agent measuring."""
    kw: dict[str, Any] = {"cache_dir": env.cache_dir, "log": lambda m: log.warning("%s", m),
                          "give_back_retries": True, "after_run_ids": {cell.cell_id: after_run_id}}
    if env.lease_ttl_s is not None:
        kw["lease_ttl_s"] = env.lease_ttl_s
    sweep = SweepScheduler(env.store, sweep_id, [cell], [device], **kw)
    board = sweep.board(device)
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.5):
            try:
                abort = should_abort()
            except Exception:
                abort = False
            if abort:
                sweep.stop()
                return

    watcher = threading.Thread(target=watch, daemon=True, name=f"abort-{device.name}")
    watcher.start()
    try:
        return run_cell(board, cell, attempt, sweep.stop_event)  # commits the row; a bug is a failed row
    finally:
        board.close()
        done.set()
        watcher.join(5)


def _failed_row(cell: Cell, sweep_id: str, reason: str) -> Result:
    return cell_result(cell, "failed", reason, sweep_id=sweep_id, attempts=0)
