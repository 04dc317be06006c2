"""The lab queue's database: PostgreSQL only, its URL, `edgeprof db upgrade`, the lab tables.

Owns: the PostgreSQL-only check and URL handling, connecting with a one-line error, `edgeprof db upgrade`
(edgeprof's tables, procrastinate's schema and migrations with the applied one recorded in edgeprof's `meta`
table, the fetch and sweep indexes, the lab tables), the queue's constants, and marking a queued sweep done.
Does not own: edgeprof's results tables (store/schema.py), jobs (jobs.py), artifacts (artifacts.py).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ...errors import ConfigError, StoreError
from ...records import utc_now
from ...store import Store, resolve_db_url, sweep_cells, sweeps

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

# tables of the lab queue (beside store/schema.py's): created by `edgeprof db upgrade`
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


def procrastinate_lib() -> Any:
    try:
        import procrastinate
    except ImportError:
        raise ConfigError("the queue needs procrastinate, which is not installed",
                          hint="pip install 'edgeprof[lab]'") from None
    return procrastinate


def open_store(db: str | None) -> tuple[Store, str]:
    url = postgres_url(db)
    connect(url).close()  # a one-line error when the server is not there
    return Store(url), url


def connect(url: str) -> Any:
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
    procrastinate = procrastinate_lib()
    done: list[str] = []
    connect(url).close()  # a one-line error when the server is not there
    Store(url)  # edgeprof's own tables and schema version (store/)
    done.append("edgeprof tables up to date")
    schema = procrastinate.schema.SchemaManager
    migrations = sorted(p.name for p in Path(schema.get_migrations_path()).glob("*.sql"))
    with connect(url) as conn:
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


def require_upgraded(store: Store) -> None:
    with store.engine.connect() as conn:
        ok = conn.execute(sa.text("SELECT to_regclass('procrastinate_jobs'), to_regclass('lab_workers')")).one()
    if ok[0] is None or ok[1] is None:
        raise StoreError(f"{store.display_url} has no lab queue yet",
                         hint=f"run: edgeprof db upgrade --db {store.display_url}")


def maybe_done(store: Store, sweep_id: str) -> None:
    """A queued sweep with no pending cell left is done."""
    with store.engine.begin() as conn:
        pending = conn.execute(sa.select(sa.func.count()).select_from(sweep_cells).where(
            sweep_cells.c.sweep_id == sweep_id, sweep_cells.c.status == "pending")).scalar_one()
        if not pending:
            conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id, sweeps.c.status == QUEUED_STATUS)
                         .values(status="done", updated_at=utc_now()))

