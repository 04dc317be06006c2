"""The lab queue: sweep cells as jobs on procrastinate + PostgreSQL, for a lab bigger than one controller.

Owns: the PostgreSQL-only check and URL handling, `edgeprof db upgrade` (edgeprof's tables, procrastinate's
schema and migrations with the applied one recorded in edgeprof's `meta` table, the fetch index), the artifact
table (exported models stored by sha256 in PostgreSQL, fetched into a worker's artifact cache), submitting a
sweep's cells as jobs (one per cell: `lock="board:<device>"`, `queue="lab.<controller>"`, a priority, a
per-cell `queueing_lock` so submit and --resume are idempotent), the worker (procrastinate's worker plus a
reaper of stalled jobs at start and every minute, and a heartbeat row per edgeprof worker), the thin adapter
that runs one queued cell through the local sweep executor's per-cell code, following a sweep (--wait),
cancelling one, and the lab status.
Also owns when a cell's job is retried (`_retry_strategy`: a transport error goes back to the queue after the
sweep's backoff, within the cell's `retries`; a stopped worker or a lost database too; a failed measurement never).
Does not own: how a cell is measured, which errors are transport errors, leasing the device and turning an
attempt into a row (lab/scheduler.py, decide.py, lease.py, runner.py), the sweep file and cells (spec.py), the
results tables and the sweep ledger (store.py, ledger.py), printing (cli/).

Jobs in the queue (task `edgeprof.sweep_cell`), arguments as JSON (version 1):
  {"v": 1, "sweep_id": str, "cell": Cell.to_dict(), "after_run_id": str | null, "artifacts": [{"sha256",
   "entry"}]}
`after_run_id` is the run the cell had when it was submitted (null for a new cell): a worker runs the cell only
while the ledger still shows that run, so a cell that already has its final row for this submission is never
run twice (a stalled job retried after its worker died mid-commit, a duplicate submit).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hashlib
import io
import json
import logging
import os
import shutil
import socket
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from ..errors import ConfigError, EdgeprofError, StoreError, UserError
from ..records import Device, Result, utc_now
from ..store import Store, resolve_db_url, sweep_cells, sweeps
from . import ledger
from .spec import Cell

log = logging.getLogger("edgeprof.queue")

JOB_ARGS_VERSION = 1
TASK_NAME = "edgeprof.sweep_cell"
QUEUE_PREFIX = "lab."
DEFAULT_CONTROLLER = "default"  # devices without `controller:` (and `local`) go to queue lab.default
PRIORITIES = {"nightly": 0, "interactive": 10}
FETCH_INDEX = "edgeprof_procrastinate_jobs_fetch_idx"
SWEEP_INDEX = "edgeprof_procrastinate_jobs_sweep_idx"  # a sweep's jobs (--wait, --cancel, resubmit)
MIGRATION_KEY = "procrastinate_migration"
REAP_EVERY_S = 60.0
FOLLOW_OUTAGE_S = 600.0  # --wait rides out a database restart or failover this long
STALLED_AFTER_S = 30.0  # a worker whose heartbeat is older than this is dead; its cell is retried
QUEUED_STATUS = "queued"
QUEUE_CONTROLLER = "queue"  # sweeps.controller of a queued sweep (no one process owns it)

# tables of the lab queue (beside store.py's): created by `edgeprof db upgrade`
lab_metadata = sa.MetaData()

# exported models, one row per file tree of an artifact-cache entry (a tar, named by its sha256). PostgreSQL and
# not a shared directory: every worker already reaches the database, its rows are transactional (a half-written
# upload is never seen), and nothing else has to be mounted on every controller host.
lab_artifacts = sa.Table(
    "lab_artifacts", lab_metadata,
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("entry", sa.String(256), nullable=False),  # the cache entry directory name
    sa.Column("size_bytes", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
)

# edgeprof workers: who they are, what they take, what they do now, when they last said so
lab_workers = sa.Table(
    "lab_workers", lab_metadata,
    sa.Column("name", sa.String(256), primary_key=True),  # host:pid
    sa.Column("queues", sa.Text, nullable=False),
    sa.Column("started_at", sa.String(40), nullable=False),
    sa.Column("last_heartbeat", sa.Float, nullable=False),  # unix time
    sa.Column("state", sa.Text),
)


# -- database ------------------------------------------------------------------------------------------------


def postgres_url(db: str | None) -> str:
    """The SQLAlchemy URL of --db / EDGEPROF_DB, which must be PostgreSQL (psycopg 3 driver)."""
    url = resolve_db_url(db)
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError as e:
        raise StoreError(f"bad database URL {url!r}: {e}", hint="use postgresql://USER@HOST/DB") from None
    if u.get_backend_name() != "postgresql":
        shown = u.render_as_string(hide_password=True)
        raise ConfigError(f"the queue needs PostgreSQL: {shown} is {u.get_backend_name()}",
                          hint="pass --db postgresql://USER@HOST/DB (or set EDGEPROF_DB); see docs/lab.md")
    if u.drivername in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
    return u.render_as_string(hide_password=False)


def conninfo(url: str) -> str:
    """A libpq connection string for psycopg / procrastinate from a SQLAlchemy URL."""
    return sa.engine.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def display(url: str) -> str:
    return sa.engine.make_url(url).render_as_string(hide_password=True)


def _procrastinate() -> Any:
    try:
        import procrastinate
    except ImportError:
        raise ConfigError("the queue needs procrastinate, which is not installed",
                          hint="pip install 'edgeprof[lab]'") from None
    return procrastinate


def open_store(db: str | None) -> tuple[Store, str]:
    url = postgres_url(db)
    _psycopg_connect(url).close()  # a one-line error when the server is not there
    return Store(url), url


def _psycopg_connect(url: str) -> Any:
    import psycopg

    try:
        return psycopg.connect(conninfo(url))
    except psycopg.OperationalError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StoreError(f"cannot connect to {display(url)}: {first}",
                         hint="is PostgreSQL running, and does the database exist? see docs/lab.md") from None


def upgrade(db: str | None) -> list[str]:
    """Bring the database up to date: edgeprof's tables, procrastinate's schema or its newer migrations, the lab
    tables and the fetch index. Idempotent; two at once serialise on an advisory lock. Returns what was done."""
    url = postgres_url(db)
    procrastinate = _procrastinate()
    done: list[str] = []
    _psycopg_connect(url).close()  # a one-line error when the server is not there
    Store(url)  # edgeprof's own tables and schema version (store.py)
    done.append("edgeprof tables up to date")
    schema = procrastinate.schema.SchemaManager
    migrations = sorted(p.name for p in Path(schema.get_migrations_path()).glob("*.sql"))
    with _psycopg_connect(url) as conn:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('edgeprof db upgrade'))")
            exists = conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()[0] is not None
            row = conn.execute("SELECT value FROM meta WHERE key = %s", (MIGRATION_KEY,)).fetchone()
            applied = row[0] if row else None
            latest = migrations[-1] if migrations else "none"
            if not exists:
                conn.execute(schema.get_schema())
                done.append(f"procrastinate schema created ({latest})")
            elif applied is None:
                done.append(f"procrastinate schema found (not created by edgeprof): assumed at {latest}")
            else:
                todo = [m for m in migrations if m > applied]
                for name in todo:
                    conn.execute((Path(schema.get_migrations_path()) / name).read_text(encoding="utf-8"))
                done.append(f"procrastinate migrations applied: {', '.join(todo)}" if todo
                            else f"procrastinate schema up to date ({latest})")
            if row is None:
                conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s)", (MIGRATION_KEY, latest))
            else:
                conn.execute("UPDATE meta SET value = %s WHERE key = %s", (latest, MIGRATION_KEY))
            conn.execute(f"CREATE INDEX IF NOT EXISTS {FETCH_INDEX} ON procrastinate_jobs "
                         "(lock, status, priority DESC, id)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {SWEEP_INDEX} ON procrastinate_jobs ((args->>'sweep_id'))")
    engine = sa.create_engine(url, future=True)
    try:
        with engine.begin() as c:
            lab_metadata.create_all(c)
    finally:
        engine.dispose()
    done.append("lab tables and the queue's indexes up to date")
    return done


def _require_upgraded(store: Store) -> None:
    with store.engine.connect() as conn:
        ok = conn.execute(sa.text("SELECT to_regclass('procrastinate_jobs'), to_regclass('lab_workers')")).one()
    if ok[0] is None or ok[1] is None:
        raise StoreError(f"{store.display_url} has no lab queue yet",
                         hint=f"run: edgeprof db upgrade --db {store.display_url}")


def make_app(url: str | None, connector: Any = None) -> Any:
    """A procrastinate App on the database (or on `connector`, e.g. the in-memory one in unit tests) with
    edgeprof's one task registered."""
    procrastinate = _procrastinate()
    if connector is None:
        assert url is not None, "make_app needs a URL or a connector"
        connector = procrastinate.PsycopgConnector(conninfo=conninfo(url))
    app = procrastinate.App(connector=connector)
    app.task(name=TASK_NAME, pass_context=True, retry=_retry_strategy(procrastinate))(_task)
    return app


def _retry_strategy(procrastinate: Any) -> Any:
    """When procrastinate retries a cell's job.

    - A transport error (the board unreachable, the connection lost): the job is given back to the queue and
      retried after the sweep's backoff (retry_backoff_s × 2^(attempt-1), decide.on_error) while the cell's
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


# -- artifacts -----------------------------------------------------------------------------------------------


def _tar_entry(entry: Path) -> bytes:
    """A deterministic tar of one cache entry directory (sorted names, no owners or times)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in sorted(p for p in entry.rglob("*") if p.is_file() and not p.name.startswith(".")):
            info = tarfile.TarInfo(str(path.relative_to(entry)))
            info.size = path.stat().st_size
            info.mode = 0o644
            with path.open("rb") as f:
                tar.addfile(info, f)
    return buf.getvalue()


def put_artifact(store: Store, entry: Path) -> dict[str, str]:
    """Store one artifact-cache entry directory by the sha256 of its tar (once); returns its reference."""
    blob = _tar_entry(entry)
    digest = hashlib.sha256(blob).hexdigest()
    with store.engine.begin() as conn:
        have = conn.execute(sa.select(lab_artifacts.c.sha256).where(lab_artifacts.c.sha256 == digest)).first()
        if have is None:
            stmt = pg.insert(lab_artifacts).values(
                sha256=digest, entry=entry.name, size_bytes=len(blob), created_at=utc_now(), content=blob
            ).on_conflict_do_nothing()
            conn.execute(stmt)
    return {"sha256": digest, "entry": entry.name}


def fetch_artifact(store: Store, ref: dict[str, str], cache_dir: Path) -> Path:
    """Make sure the cache entry `ref` names exists in cache_dir (unpacked from the database when missing)."""
    target = cache_dir / ref["entry"]
    marker = target / ".edgeprof-lab-sha256"
    if marker.is_file() and marker.read_text().strip() == ref["sha256"]:
        return target
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(lab_artifacts.c.content).where(lab_artifacts.c.sha256 == ref["sha256"])).first()
    if row is None:
        raise StoreError(f"artifact {ref['sha256'][:12]} ({ref['entry']}) is not in {store.display_url}",
                         hint="submit the sweep again: edgeprof sweep FILE --queue exports and stores it")
    blob = bytes(row[0])
    if hashlib.sha256(blob).hexdigest() != ref["sha256"]:
        raise StoreError(f"artifact {ref['sha256'][:12]} in {store.display_url} does not match its sha256",
                         hint="submit the sweep again to store it afresh")
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".lab-", dir=cache_dir))
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r") as tar:
            for member in tar.getmembers():
                if not member.isfile() or member.name.startswith(("/", "..")) or "/../" in member.name:
                    raise StoreError(f"artifact {ref['sha256'][:12]} holds an unexpected path {member.name!r}")
                dest = tmp / member.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                assert src is not None
                with dest.open("wb") as f:
                    shutil.copyfileobj(src, f)
        (tmp / ".edgeprof-lab-sha256").write_text(ref["sha256"] + "\n")
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:  # another worker on this host unpacked it meanwhile
            if not (marker.is_file() and marker.read_text().strip() == ref["sha256"]):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _export_key(c: Cell) -> tuple[Any, ...]:
    return (c.model, c.runtime, c.precision, c.batch, tuple(sorted(c.inputs.items())), c.settings.get("seed"))


def export_cells(store: Store, cells: Sequence[Cell], cache_dir: Path | None = None,
                 say: Callable[[str], None] | None = None) -> tuple[dict[tuple[Any, ...], list[dict[str, str]]],
                                                                     dict[tuple[Any, ...], UserError]]:
    """Export each distinct model of the cells once, here, and store its cache entries in the database.
    Returns export key → artifact references, and export key → the error of a model that failed to export."""
    from .. import runner as runner_mod
    from ..export.onnx_export import default_cache_dir

    cache = cache_dir or default_cache_dir()
    refs: dict[tuple[Any, ...], list[dict[str, str]]] = {}
    errors: dict[tuple[Any, ...], UserError] = {}
    for c in cells:
        if c.skip or c.runtime == "null":
            continue
        key = _export_key(c)
        if key in refs or key in errors:
            continue
        if say is not None:
            say(f"exporting {c.model_label} ({c.runtime} {c.precision})")
        try:
            prepared = runner_mod.prepare(c.run_spec(), cache, None)
        except UserError as e:
            errors[key] = e
            continue
        entries: list[Path] = []
        for art in (prepared.fp32, prepared.artifact):
            if art is None:
                continue
            entry = Path(art.path).parent
            if entry.parent.resolve() == cache.resolve() and entry.name not in [e.name for e in entries]:
                entries.append(entry)
        refs[key] = [put_artifact(store, e) for e in entries]
    return refs, errors


# -- submitting ----------------------------------------------------------------------------------------------


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
           priority: int, cache_dir: Path | None = None, say: Callable[[str], None] | None = None) -> Submitted:
    """Queue the cells of a sweep already in the ledger (ledger.create_sweep), one job per cell.

    Statically skipped cells and cells whose model failed to export become their rows here (they need no
    board). A cell that already has a job waiting is left alone (its queueing lock), so submitting twice or
    resuming while jobs wait adds nothing."""
    from procrastinate import exceptions as pexc

    _require_upgraded(store)
    by_name = {d.name: d for d in devices}
    refs, errors = export_cells(store, cells, cache_dir, say)
    with store.engine.connect() as conn:
        current = {r.cell_id: r.run_id for r in conn.execute(
            sa.select(sweep_cells.c.cell_id, sweep_cells.c.run_id).where(sweep_cells.c.sweep_id == sweep_id))}
        waiting = {r[0] for r in conn.execute(sa.text(
            "SELECT queueing_lock FROM procrastinate_jobs WHERE status = 'todo' AND task_name = :t "
            "AND args->>'sweep_id' = :s"), {"t": TASK_NAME, "s": sweep_id})}
    from .scheduler import cell_result

    final = 0
    jobs = []
    out = Submitted(sweep_id, 0, 0, 0)
    for c in cells:
        error = errors.get(_export_key(c))
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
                       artifacts=refs.get(_export_key(c), []))
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
    _maybe_done(store, sweep_id)


def _maybe_done(store: Store, sweep_id: str) -> None:
    """A queued sweep with no pending cell left is done."""
    with store.engine.begin() as conn:
        pending = conn.execute(sa.select(sa.func.count()).select_from(sweep_cells).where(
            sweep_cells.c.sweep_id == sweep_id, sweep_cells.c.status == "pending")).scalar_one()
        if not pending:
            conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id, sweeps.c.status == QUEUED_STATUS)
                         .values(status="done", updated_at=utc_now()))


# -- working -------------------------------------------------------------------------------------------------


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
    try:
        return run_queued_cell(env, sweep_id, Cell.from_dict(cell), after_run_id, list(artifacts),
                               should_abort=context.should_abort, attempt=int(getattr(job, "attempts", 0)) + 1)
    except CellAborted as e:
        raise pexc.JobAborted(str(e)) from None


def run_queued_cell(env: WorkerEnv, sweep_id: str, cell: Cell, after_run_id: str | None,
                    artifacts: list[dict[str, str]], should_abort: Callable[[], bool] = lambda: False,
                    attempt: int = 1) -> str:
    """Run one queued cell unless it already has its final row; returns what happened (for the job's result).
    First the recovery files this host wrote for the database while it was away are imported (store.py): a
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
        _maybe_done(env.store, sweep_id)
        return f"not run: already has its row {row.run_id} ({row.status})"
    if sweep_status == "cancelled":  # taken just as the sweep was cancelled: not run, and not retried either
        return f"not run: sweep {sweep_id} was cancelled"
    try:
        device = env.inventory.get(cell.device)
    except UserError as e:
        result = _failed_row(cell, sweep_id, f"this worker ({env.name}) cannot reach the device: {e.one_line()}")
        ledger.commit_cell(env.store, sweep_id, cell, result, 0)
        _maybe_done(env.store, sweep_id)
        return f"failed: {result.reason}"
    from ..export.onnx_export import default_cache_dir

    try:
        for ref in artifacts:
            fetch_artifact(env.store, ref, env.cache_dir or default_cache_dir())
    except UserError as e:
        result = _failed_row(cell, sweep_id, f"artifact: {e.one_line()}")
        ledger.commit_cell(env.store, sweep_id, cell, result, 0)
        _maybe_done(env.store, sweep_id)
        return f"failed: {result.reason}"
    env.set_running(cell.device, f"{sweep_id} {cell.cell_id}")
    env.on_event(f"start {sweep_id} {cell.cell_id}")
    runner = SchedulerCell(env, sweep_id, cell, device, attempt)
    try:
        outcome = runner.run(should_abort)
    finally:
        env.set_running(cell.device, None)
    if outcome is None:
        if should_abort():
            env.on_event(f"aborted {sweep_id} {cell.cell_id}")
            raise CellAborted(f"cell {cell.cell_id} stopped before it ended; nothing stored")
        given_back = runner.runner.given_back
        if given_back is not None:
            env.on_event(f"transport error {sweep_id} {cell.cell_id} (attempt {attempt} of "
                         f"{int(cell.setting('retries')) + 1}): back to the queue, retried in "
                         f"{given_back.wait_s:.1f} s: {given_back.reason}")
            raise CellTransportRetry(given_back.reason, given_back.wait_s)
        env.on_event(f"not stored {sweep_id} {cell.cell_id}: will be retried")
        raise CellNotStored(f"cell {cell.cell_id} ended without its row being stored (see the log above)")
    _maybe_done(env.store, sweep_id)
    env.on_event(f"{outcome.status} {sweep_id} {cell.cell_id}")
    return f"{outcome.status}: run {outcome.run_id}"


def _failed_row(cell: Cell, sweep_id: str, reason: str) -> Result:
    from .scheduler import cell_result

    return cell_result(cell, "failed", reason, sweep_id=sweep_id, attempts=0)


class SchedulerCell:
    """The adapter from a queued cell to the local sweep executor's per-cell path (lab/scheduler.py).

    Today that path is `_DeviceWorker.run()` on a one-cell SweepRunner: it opens the transport, takes the
    board's on-device lease (the second layer under the queue's `board:` lock), runs one attempt of the cell
    with its timeout (a transport error the cell's `retries` allow is handed back: `runner.given_back`), commits
    the row with the cell's state (ledger.commit_cell) and releases the
    lease. When scheduler.py exposes a shared `run_cell`, only `run()` below changes."""

    def __init__(self, env: WorkerEnv, sweep_id: str, cell: Cell, device: Device, attempt: int = 1) -> None:
        from .scheduler import SweepRunner

        kw: dict[str, Any] = {"cache_dir": env.cache_dir, "log": lambda m: log.warning("%s", m),
                              "first_attempt": attempt, "give_back_retries": True}
        if env.lease_ttl_s is not None:
            kw["lease_ttl_s"] = env.lease_ttl_s
        self.runner = SweepRunner(env.store, sweep_id, [cell], [device], **kw)
        self.device = device
        self.cell = cell

    def run(self, should_abort: Callable[[], bool]) -> Result | None:
        """Run and commit the cell; None when it was stopped (abort) before its row was stored."""
        from .scheduler import _DeviceWorker

        worker = _DeviceWorker(self.runner, self.device, [self.cell])
        self.runner._workers = [worker]  # so runner.stop() also stops the agent measuring right now
        done = threading.Event()

        def watch() -> None:
            while not done.wait(0.5):
                try:
                    abort = should_abort()
                except Exception:
                    abort = False
                if abort:
                    self.runner.stop()
                    return

        watcher = threading.Thread(target=watch, daemon=True, name=f"abort-{self.device.name}")
        watcher.start()
        try:
            worker.run()  # commits the row; catches and logs its own bugs
        finally:
            done.set()
            watcher.join(5)
        results = list(self.runner.results)
        return results[0] if results else None


def reap_stalled(url: str, queues: Sequence[str], stalled_after_s: float = STALLED_AFTER_S) -> list[int]:
    """Give the cells of dead workers (no heartbeat for stalled_after_s) on `queues` back to the queue."""
    app = make_app(url)

    async def go() -> list[int]:
        async with app.open_async():
            return await _reap(app, queues, stalled_after_s)

    return asyncio.run(go())


def _cell_key(job: Any) -> str | None:
    """The "sweep cell" key of a job (the form WorkerEnv.running uses), or None when it is not a cell of ours."""
    args = job.task_kwargs or {}
    try:
        return f"{args.get('sweep_id')} {Cell.from_dict(args['cell']).cell_id}"
    except Exception:
        return None


async def _reap(app: Any, queues: Sequence[str], stalled_after_s: float,
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


async def _reap_orphans(app: Any, queues: Sequence[str], worker_id: int | None, mine: Iterable[str],
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
    _psycopg_connect(url).close()  # a one-line error when the server is not there
    store = Store(url)
    _require_upgraded(store)
    env = WorkerEnv(store, inventory, cache_dir, lease_ttl_s=lease_ttl_s, on_event=on_event or (lambda _m: None))
    env.publish = lambda: _heartbeat(store, env, queues)
    app = make_app(url)
    heartbeat_s = max(0.2, min(10.0, stalled_after_s / 3.0))

    orphans_seen: set[int] = set()

    async def reaper(worker: Any) -> None:
        while True:
            try:
                reaped = await _reap(app, queues, stalled_after_s, lambda: list(env.running.values()))
                if reaped:
                    env.on_event(f"reaped stalled jobs {reaped}")
                orphans = await _reap_orphans(app, queues, worker.worker_id, list(env.running.values()),
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

    async def until_idle(worker: Any) -> None:
        idle = 0
        while True:
            await asyncio.sleep(max(poll_s, 0.5))
            left = await asyncio.to_thread(_live_jobs, store, queues)
            idle = idle + 1 if left == 0 else 0
            if idle >= 2:
                worker.stop()
                return

    async def main() -> None:
        from concurrent.futures import ThreadPoolExecutor

        from procrastinate import worker as pworker

        # cells run in the loop's default executor (procrastinate runs sync tasks there): one thread per board
        # this worker may drive, plus a few for the heartbeat and the bookkeeping
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=concurrency + 4, thread_name_prefix="edgeprof-cell"))
        async with app.open_async():
            reaped = await _reap(app, queues, stalled_after_s)
            if reaped:
                env.on_event(f"reaped stalled jobs {reaped}")
            worker = pworker.Worker(
                app, queues=list(queues), name=env.name, concurrency=concurrency, wait=True,
                fetch_job_polling_interval=poll_s, abort_job_polling_interval=min(poll_s * 2, 5.0),
                listen_notify=True, additional_context={"edgeprof": env},
                # on SIGINT/SIGTERM a running cell is stopped at once (nothing stored) and goes back to the queue
                shutdown_graceful_timeout=0.5, update_heartbeat_interval=heartbeat_s,
                stalled_worker_timeout=stalled_after_s, install_signal_handlers=True)
            tasks = [asyncio.create_task(reaper(worker)), asyncio.create_task(beat())]
            if stop_when_idle:
                tasks.append(asyncio.create_task(until_idle(worker)))
            try:
                await worker.run()
            finally:
                for t in tasks:
                    t.cancel()
                with _suppress():
                    await asyncio.to_thread(_forget_worker, store, env.name)

    env.on_event(f"worker {env.name} on {', '.join(queues)} ({display(url)})")
    asyncio.run(main())


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return True


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


# -- following, cancelling, status ------------------------------------------------------------------------


def job_counts(store: Store, sweep_id: str) -> dict[str, int]:
    """Jobs of a sweep by procrastinate status (todo, doing, succeeded, failed, cancelled, aborted)."""
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT status::text, count(*) FROM procrastinate_jobs WHERE task_name = :t AND args->>'sweep_id' = :s "
            "GROUP BY status"), {"t": TASK_NAME, "s": sweep_id}).all()
    return {str(s): int(n) for s, n in rows}


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
        except sa.exc.OperationalError as e:  # the database restarting: wait for it, a while
            outage_since = outage_since or time.monotonic()
            if time.monotonic() - outage_since > FOLLOW_OUTAGE_S:
                raise StoreError(f"lost the database {store.display_url} for {FOLLOW_OUTAGE_S:.0f} s while "
                                 f"following sweep {sweep_id}: {str(e.orig).strip().splitlines()[0]}",
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
                seen.add(r.run_id)
                res = store.get(r.run_id)
                results.append(res)
                if on_result is not None:
                    on_result(res, len(seen), total)
        pending = sum(1 for r in rows if r.status == "pending")
        jobs = job_counts(store, sweep_id)
        live = jobs.get("todo", 0) + jobs.get("doing", 0)
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
    _require_upgraded(store)
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
    _require_upgraded(store)
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
