"""The lab queue's worker process: procrastinate's worker, a reaper of stalled jobs, a heartbeat row.

Owns: `edgeprof worker` (cells from its queues until SIGINT/SIGTERM, one job per board at a time by the
`board:` lock), reaping jobs of dead workers at start and every minute, giving back jobs orphaned under a live
worker, and the heartbeat row per edgeprof worker.
Does not own: running one cell (jobs.py), the tables (db.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from ...records import utc_now
from ...store import Store
from ..cell import Cell
from .db import REAP_EVERY_S, STALLED_AFTER_S, TASK_NAME, connect, display, lab_workers, log, require_upgraded
from .jobs import WorkerEnv, make_app

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
RESTART_FIRST_S, RESTART_MAX_S = 1.0, 30.0  # a worker loop that ended by itself starts again 1 s doubling to 30 s later


def reap_stalled(url: str, queues: Sequence[str], stalled_after_s: float = STALLED_AFTER_S) -> list[int]:
    """Give the cells of dead workers (no heartbeat for stalled_after_s) on `queues` back to the queue."""
    app = make_app(url)

    async def go() -> list[int]:
        async with app.open_async():
            return await reap_stalled_jobs(app, queues, stalled_after_s)

    return asyncio.run(go())


def _cell_key(job: Any) -> str | None:
    """The "sweep cell" key of a job (the form WorkerEnv.running uses), or None when it is not a cell of ours."""
    args = job.task_kwargs or {}
    try:
        return f"{args.get('sweep_id')} {Cell.from_dict(args['cell']).cell_id}"
    except Exception:
        return None


async def reap_stalled_jobs(app: Any, queues: Sequence[str], stalled_after_s: float,
                mine: Callable[[], Iterable[str]] = lambda: ()) -> list[int]:
    """Retry the running jobs of workers silent for stalled_after_s, except the cells this process runs now
    (`mine`: "sweep cell" strings; its own heartbeat may merely be late)."""
    ids = []
    for q in queues:
        for job in await app.job_manager.get_stalled_jobs(queue=q, task_name=TASK_NAME,
                                                          seconds_since_heartbeat=stalled_after_s):
            key = _cell_key(job)  # None: not a cell this edgeprof can read, not one of ours either
            if key is not None and key in set(mine()):
                continue
            await app.job_manager.retry_job(job)
            ids.append(job.id)
    return ids


async def reap_orphans(app: Any, queues: Sequence[str], worker_id: int | None, mine: Iterable[str],
                        seen: set[int]) -> list[int]:
    """Retry this worker's jobs that the database says it runs but it does not: the database went away while a
    job's end was being recorded, so the job stayed `doing` under a live worker (its heartbeat is fresh, so no
    stalled-job query finds it) and its board's lock blocked every later cell. A job is given back only when it
    was seen orphaned one round before too (`seen`, updated here), never while it is merely being started."""
    if worker_id is None:
        return []
    running = set(mine)
    orphans = []
    for q in queues:
        for job in await app.job_manager.list_jobs_async(queue=q, status="doing", worker_id=worker_id):
            if job.task_name == TASK_NAME and _cell_key(job) not in running:
                orphans.append(job)
    ids = []
    for job in orphans:
        if job.id in seen:
            await app.job_manager.retry_job(job)
            ids.append(job.id)
    seen.clear()
    seen.update(j.id for j in orphans if j.id not in ids)
    return ids


def run_worker(url: str, queues: Sequence[str], inventory: Any, *, cache_dir: Path | None = None,
               stalled_after_s: float = STALLED_AFTER_S, reap_every_s: float = REAP_EVERY_S,
               poll_s: float = 0.5, concurrency: int = 8, lease_ttl_s: float | None = None,
               on_event: Callable[[str], None] | None = None, stop_when_idle: bool = False) -> None:
    """Run cells from `queues` until SIGINT/SIGTERM (or, with stop_when_idle, until nothing is left to do).

    One job per board at a time is the database's doing (the `board:` lock); `concurrency` bounds how many
    boards this worker drives at once."""
    connect(url).close()  # a one-line error when the server is not there
    store = Store(url)
    require_upgraded(store)
    env = WorkerEnv(store, inventory, cache_dir, lease_ttl_s=lease_ttl_s, on_event=on_event or (lambda _m: None))
    env.publish = lambda: _heartbeat(store, env, queues)
    app = make_app(url)
    heartbeat_s = max(0.2, min(10.0, stalled_after_s / 3.0))

    orphans_seen: set[int] = set()

    async def reaper(worker: Any) -> None:
        while True:
            try:
                reaped = await reap_stalled_jobs(app, queues, stalled_after_s, env.mine)
                if reaped:
                    env.on_event(f"reaped stalled jobs {reaped}")
                orphans = await reap_orphans(app, queues, worker.worker_id, env.mine(),
                                              orphans_seen)
                if orphans:
                    env.on_event(f"gave back orphaned jobs {orphans}")
            except Exception as e:  # the database restarting: try again next round
                log.warning("reaping stalled jobs failed: %s", e)
            await asyncio.sleep(reap_every_s)

    async def beat() -> None:
        while True:
            try:
                await asyncio.to_thread(_heartbeat, store, env, queues)
            except Exception as e:
                log.warning("heartbeat failed: %s", e)
            await asyncio.sleep(heartbeat_s)

    async def until_idle(worker: Any, idle_stop: asyncio.Event) -> None:
        idle = 0
        while True:
            await asyncio.sleep(max(poll_s, 0.5))
            left = await asyncio.to_thread(_live_jobs, store, queues)
            idle = idle + 1 if left == 0 else 0
            if idle >= 2:
                idle_stop.set()
                worker.stop()
                return

    async def main() -> None:
        from concurrent.futures import ThreadPoolExecutor

        from procrastinate import worker as pworker

        # cells run in the loop's default executor (procrastinate runs sync tasks there): one thread per board
        # this worker may drive, plus a few for the heartbeat and the bookkeeping
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=concurrency + 4, thread_name_prefix="edgeprof-cell"))
        idle_stop = asyncio.Event()

        def make_worker() -> Any:
            return pworker.Worker(
                app, queues=list(queues), name=env.name, concurrency=concurrency, wait=True,
                fetch_job_polling_interval=poll_s, abort_job_polling_interval=min(poll_s * 2, 5.0),
                listen_notify=True, additional_context={"edgeprof": env},
                # on SIGINT/SIGTERM a running cell is stopped at once (nothing stored) and goes back to the queue
                shutdown_graceful_timeout=0.5, update_heartbeat_interval=heartbeat_s,
                stalled_worker_timeout=stalled_after_s, install_signal_handlers=False)

        def side_tasks(worker: Any) -> list[asyncio.Task[None]]:
            tasks = [asyncio.create_task(reaper(worker)), asyncio.create_task(beat())]
            if stop_when_idle:
                tasks.append(asyncio.create_task(until_idle(worker, idle_stop)))
            return tasks

        try:
            with _StopSignals() as stopping:
                async with app.open_async():
                    reaped = await reap_stalled_jobs(app, queues, stalled_after_s)
                    if reaped:
                        env.on_event(f"reaped stalled jobs {reaped}")
                    await _keep_running(make_worker, side_tasks, stopping, idle_stop, env.on_event)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(_forget_worker, store, env.name)

    env.on_event(f"worker {env.name} on {', '.join(queues)} ({display(url)})")
    asyncio.run(main())



class _StopSignals:
    """SIGINT and SIGTERM while the worker runs, as procrastinate's own handler (signals.py): the first stops the
    procrastinate worker running now (`current`) and the loop that would start another; a second one gets the
    default handling. Only in the main thread (signal handlers cannot be installed elsewhere)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.current: list[Any] = []
        self.handled = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> _StopSignals:
        if self.handled:
            for sig in STOP_SIGNALS:
                self.loop.add_signal_handler(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handled and not self.event.is_set():
            for sig in STOP_SIGNALS:
                self.loop.remove_signal_handler(sig)

    def _on_signal(self) -> None:
        self.event.set()
        for sig in STOP_SIGNALS:
            self.loop.remove_signal_handler(sig)
        for w in self.current:
            w.stop()


async def _keep_running(make_worker: Callable[[], Any], side_tasks: Callable[[Any], list[asyncio.Task[None]]],
                        stopping: _StopSignals, idle_stop: asyncio.Event, on_event: Callable[[str], None]) -> None:
    """Run procrastinate workers one after the other until a stop signal (or idle_stop): procrastinate's worker
    ends when one of its loops (fetching jobs, the heartbeat) hits a database error -- a PostgreSQL restart or
    failover --, aborting the cells it ran (they go back to the queue, reaped as stalled); the edgeprof worker
    then carries on with a new one, RESTART_FIRST_S doubling to RESTART_MAX_S later."""
    wait = RESTART_FIRST_S
    while not stopping.event.is_set():
        worker = make_worker()
        stopping.current[:] = [worker]
        tasks = side_tasks(worker)
        started, why = time.monotonic(), "one of its tasks failed: see the error logged above"
        try:
            await worker.run()
        except _database_errors() as e:  # anything else is a bug: the worker ends with its traceback
            why = _one_line(e)
        finally:
            stopping.current.clear()
            for t in tasks:
                t.cancel()
        if stopping.event.is_set() or idle_stop.is_set():
            return
        if time.monotonic() - started > RESTART_MAX_S:
            wait = RESTART_FIRST_S
        on_event(f"the queue's worker loop stopped ({why}), as it does when the database goes away: starting it "
                 f"again in {wait:.0f} s")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stopping.event.wait(), wait)
        wait = min(wait * 2, RESTART_MAX_S)


def _database_errors() -> tuple[type[BaseException], ...]:
    """What procrastinate's worker raises when the database goes away: its ConnectorException (a psycopg error
    wrapped) and psycopg's OperationalError unwrapped (a query cut off, psycopg_pool's PoolTimeout)."""
    import psycopg
    from procrastinate.exceptions import ConnectorException

    return (ConnectorException, psycopg.OperationalError)


def _one_line(e: BaseException) -> str:
    cause = e.__cause__ or e
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__


def _heartbeat(store: Store, env: WorkerEnv, queues: Sequence[str]) -> None:
    now = time.time()
    with store.engine.begin() as conn:
        stmt = pg.insert(lab_workers).values(
            name=env.name, queues=",".join(queues), started_at=utc_now(), last_heartbeat=now, state=env.state)
        conn.execute(stmt.on_conflict_do_update(index_elements=["name"],
                                                set_={"last_heartbeat": now, "state": env.state,
                                                      "queues": ",".join(queues)}))


def _live_jobs(store: Store, queues: Sequence[str]) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(sa.text(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = :t AND status IN ('todo', 'doing') "
            "AND queue_name = ANY(:q)"), {"t": TASK_NAME, "q": list(queues)}).scalar_one())


def _forget_worker(store: Store, name: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(lab_workers.delete().where(lab_workers.c.name == name))

