"""Results database: SQLAlchemy Core, SQLite by default, any SQLAlchemy URL (PostgreSQL) by --db / EDGEPROF_DB.

Owns: the tables, where the database lives, saving a Result atomically (one transaction: a run is either wholly
stored or absent), listing and loading runs, and device facts with timestamps. No measurement is lost: a locked
SQLite database is waited for (busy timeout) and the save retried with backoff up to a bound; if it still cannot be
written, the Result goes to a recovery file ($XDG_DATA_HOME/edgeprof/recovered/<run_id>.json, with a
<run_id>.target naming the database) that the next successful save to that database imports and removes by itself
(with its sweep cell's state), or `edgeprof results import FILE` stores by hand. A corrupt or foreign database
file is refused in one line.
Privacy (fsmode.py's rule): the SQLite file is created 0600 and its folder 0700 (recovery files too), narrowed
further by a stricter umask; a database that exists keeps the mode its owner gave it.
Does not own: what a Result contains (records.py) or comparisons (compare.py).

Database schema history: 1 — runs, device_facts, meta.
  2 — sweeps and sweep_cells (added by lab/ledger.py's users; runs, device_facts and meta unchanged, so a
      version-1 database is upgraded in place by creating the two tables).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from .errors import StoreError, UserError
from .fsmode import make_private_dir, private_mode
from .outputs import visible
from .records import Result, dumps_json, utc_now

# 3: config_key is the model's content hash + the shapes fed (rows re-keyed on open)
# 4: runs.top1, the accuracy pass's top-1 % (results list shows it; older rows have none: added on open)
DB_SCHEMA_VERSION = 4

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
    sa.Column("status", sa.String(16), nullable=False),  # pending | ok | failed | skipped | cancelled (lab/ledger.py)
    sa.Column("run_id", sa.String(64)),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("reason", sa.Text),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("cell_json", sa.Text, nullable=False),
)

meta = sa.Table(
    "meta", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(256), nullable=False),
)


# a locked SQLite database: each attempt waits up to BUSY_TIMEOUT_S (SQLite's busy handler), then the save is
# retried SAVE_RETRIES times after SAVE_BACKOFF_S × 2^n: about a minute in all before the recovery file is written
BUSY_TIMEOUT_S = 10.0
SAVE_RETRIES = 3
SAVE_BACKOFF_S = 1.0


def recovery_dir() -> Path:
    return default_db_path().parent / "recovered"


RECOVERY_TARGET_SUFFIX = ".target"  # beside <run_id>.json: which database the run was meant for (JSON)


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), private_mode(0o600))
    with os.fdopen(fd, "w") as f:
        f.write(text)


def write_recovery(result: Result, target: str | None = None) -> Path:
    """Write `result` as JSON to the recovery directory (private); returns the file. `target` (a Store's
    recovery_key) is written beside it, so the next successful save to that database imports it by itself."""
    folder = recovery_dir()
    make_private_dir(folder)
    stem = safe_stem(result.run_id)
    path = folder / f"{stem}.json"
    _write_private(path, result.to_json(indent=2) + "\n")
    if target is not None:
        _write_private(folder / f"{stem}{RECOVERY_TARGET_SUFFIX}", json.dumps({"db": target}) + "\n")
    return path


# a run id as edgeprof makes them (records.new_run_id: 20261201-051200-ab12cd), or any name like a device's:
# letters, digits, . _ -, at most 64, starting with a letter or digit. Only such an id ever becomes a file name.
RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def safe_stem(run_id: str) -> str:
    """A file name stem for `run_id` that stays in its folder: the id itself when it is one edgeprof could have
    made (RUN_ID_RE), else `run-<sha256 of it>` (an imported `../../x` never names a path)."""
    if RUN_ID_RE.match(run_id) and ".." not in run_id:
        return run_id
    return "run-" + hashlib.sha256(run_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _sqlite_path(url: str) -> Path | None:
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return None
    if u.get_backend_name() != "sqlite" or not u.database or ":memory:" in u.database or u.query.get("mode") == "memory":
        return None
    return Path(u.database)


def _in_memory(url: str) -> bool:
    """A SQLite URL of no file: `sqlite://`, `sqlite:///:memory:`, `file::memory:` or `mode=memory`."""
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return False
    if u.get_backend_name() != "sqlite":
        return False
    db = u.database or ""
    return not db or ":memory:" in db or "mode=memory" in db or u.query.get("mode") == "memory"


def _one_line(what: object, limit: int = 240) -> str:
    """A driver's message (PostgreSQL's span lines) as one visible line of at most `limit` characters."""
    text = visible(" ".join(str(what).split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _locked(e: sa.exc.DBAPIError) -> bool:
    text = str(e.orig).lower()
    return "locked" in text or "busy" in text


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "edgeprof" / "results.sqlite"


def resolve_db_url(db: str | None = None) -> str:
    """--db wins, then EDGEPROF_DB, then $XDG_DATA_HOME/edgeprof/results.sqlite. A plain path means SQLite."""
    value = db or os.environ.get("EDGEPROF_DB")
    if not value:
        path = default_db_path()
        make_private_dir(path.parent)
        return f"sqlite:///{path}"
    if "://" in value:
        return value
    path = Path(value).expanduser()
    if path.parent and not path.parent.exists():
        raise StoreError(f"results database folder {str(path.parent)!r} does not exist",
                         hint="create it, or pass --db with another path or a database URL")
    return f"sqlite:///{path.resolve()}"


def config_key(r: Result) -> str:
    """Identity of a measured configuration across nights: vocab.ConfigIdentity's key (device, model, runtime,
    precision, batch, threads, artifact source)."""
    return r.identity.key()


def _rekey(conn: sa.Connection) -> None:
    """Recompute every row's config_key from its stored result (DB schema 3: content hash + shapes fed), so
    history and baselines continue across the change. A row that cannot be read keeps its key."""
    for run_id, text in conn.execute(sa.select(runs.c.run_id, runs.c.result_json)).all():
        try:
            key = config_key(Result.from_dict(json.loads(text)))
        except Exception:  # noqa: BLE001 - a row another version wrote badly: leave it as it was
            continue
        conn.execute(runs.update().where(runs.c.run_id == run_id).values(config_key=key))


class Store:
    def __init__(self, url: str | None = None, *, busy_timeout_s: float | None = None,
                 save_retries: int | None = None, save_backoff_s: float | None = None) -> None:
        self.url = resolve_db_url(url)
        busy_timeout_s = BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s
        self.save_retries = SAVE_RETRIES if save_retries is None else save_retries
        self.save_backoff_s = SAVE_BACKOFF_S if save_backoff_s is None else save_backoff_s
        self.skipped: list[str] = []  # rows get_many / iter_results left out (CorruptRowError messages)
        self.path = _sqlite_path(self.url)
        if self.path is None and _in_memory(self.url):
            raise StoreError(f"--db {url or self.url}: an in-memory SQLite database is gone when edgeprof exits, "
                             "and every run stored in it with it",
                             hint="give a file path (e.g. --db results.sqlite) or a PostgreSQL URL")
        try:
            connect_args = {"timeout": busy_timeout_s} if self.path is not None else {}
            if self.path is not None and not self.path.exists():
                # create the file private before SQLite does (SQLite would create it 0644)
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, private_mode(0o600))
                os.close(fd)
            self.engine = sa.create_engine(self.url, future=True, connect_args=connect_args)
            with self.engine.begin() as conn:
                self._refuse_foreign(conn)
                metadata.create_all(conn)
                row = conn.execute(sa.select(meta.c.value).where(meta.c.key == "schema_version")).first()
                version = None if row is None else self._schema_version(row[0])
                if version is None:
                    conn.execute(meta.insert().values(key="schema_version", value=str(DB_SCHEMA_VERSION)))
                elif version < DB_SCHEMA_VERSION:  # older: create_all above added the new tables
                    if "top1" not in {c["name"] for c in sa.inspect(conn).get_columns("runs")}:
                        conn.execute(sa.text("ALTER TABLE runs ADD COLUMN top1 FLOAT"))
                    if version < 3:
                        _rekey(conn)
                    conn.execute(meta.update().where(meta.c.key == "schema_version")
                                 .values(value=str(DB_SCHEMA_VERSION)))
                elif version > DB_SCHEMA_VERSION:
                    raise StoreError(
                        f"results database {self.display_url} has schema version {version}, newer than this "
                        f"edgeprof understands ({DB_SCHEMA_VERSION})",
                        hint="upgrade edgeprof, or point --db at another database",
                    )
        except sa.exc.ArgumentError as e:
            raise StoreError(f"bad database URL {url!r}: {e}", hint="use a path or a SQLAlchemy URL") from None
        except sa.exc.OperationalError as e:
            if self.path is not None and _locked(e):
                raise StoreError(f"results database {self.path} is locked by another program (waited "
                                 f"{busy_timeout_s:g} s)", hint="wait for the other edgeprof to finish, or pass "
                                 "--db with another path") from None
            raise StoreError(f"cannot open results database {self.display_url}: {_one_line(e.orig)}",
                             hint="check the path or URL given with --db / EDGEPROF_DB") from None
        except sa.exc.DatabaseError as e:  # "file is not a database": corrupt, or another program's file
            raise StoreError(f"results database {self.path or self.display_url} is not a readable SQLite "
                             f"database ({_one_line(e.orig)})",
                             hint=f"move it aside (mv {self.path} {self.path}.bad) so edgeprof starts a new one, "
                                  "or pass --db with another path" if self.path is not None else
                                  "check the database URL given with --db / EDGEPROF_DB") from None
        except OSError as e:
            raise StoreError(f"cannot create results database {self.path}: {e.strerror}",
                             hint="check the folder's permissions, or pass --db with another path") from None
        except ModuleNotFoundError as e:
            raise StoreError(f"database driver missing for {self.display_url}: {e}",
                             hint="pip install 'edgeprof[postgres]' for PostgreSQL") from None

    def _schema_version(self, value: object) -> int:
        """The `meta` table's schema version as a whole number from 1, else one line naming the database."""
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()) or len(text) > 6 or int(text) < 1:
            raise StoreError(f"results database {self.path or self.display_url} has a corrupt schema version "
                             f"{visible(text[:40])!r} in its meta table (a whole number such as {DB_SCHEMA_VERSION})",
                             hint="restore the database from a backup, or pass --db with another path")
        return int(text)

    def _refuse_foreign(self, conn: sa.Connection) -> None:
        """A database with tables but no edgeprof `meta` schema version belongs to another program: refused, so
        edgeprof never adds its tables to someone else's database."""
        names = set(sa.inspect(conn).get_table_names())
        if not names or "meta" in names:
            return
        where = str(self.path) if self.path is not None else self.display_url
        raise StoreError(f"results database {where} is not an edgeprof database (it has other tables: "
                         f"{', '.join(sorted(names)[:5])})",
                         hint="pass --db with the path of an edgeprof results database, or a new path")

    @property
    def display_url(self) -> str:
        try:
            return sa.engine.make_url(self.url).render_as_string(hide_password=True)
        except Exception:
            return self.url

    def save(self, result: Result, sweep_id: str | None = None,
             also: Callable[[sa.Connection], None] | None = None, *, recover: bool = True) -> None:
        """Store a result in one transaction; `also(conn)` runs in the same transaction (e.g. a sweep cell's
        state, so a cell and its run are committed together or not at all). Once it is stored, the recovery
        files left for this database by an earlier failed save are imported (`import_recovered`)."""
        lat, power = result.latency_ms, result.power
        row = {
            "run_id": result.run_id, "created_at": result.created_at, "status": result.status,
            "device": result.device, "model": result.model, "runtime": result.runtime,
            "precision": result.precision, "batch": result.batch, "threads": result.threads,
            "p50_ms": lat.p50 if lat else None, "p99_ms": lat.p99 if lat else None,
            "throughput_ips": result.throughput_ips, "mean_w": power.mean_w if power else None,
            "top1": result.accuracy.top1 if result.accuracy is not None else None, "sweep_id": sweep_id, "config_key": config_key(result),
            "schema_version": result.schema_version, "result_json": result.to_json(),
        }
        attempt = 0
        while True:
            try:
                with self.engine.begin() as conn:
                    conn.execute(runs.insert().values(**row))
                    if also is not None:
                        also(conn)
                if recover:
                    self.import_recovered()
                return
            except sa.exc.OperationalError as e:
                if _locked(e) and attempt < self.save_retries:
                    time.sleep(self.save_backoff_s * (2 ** attempt))
                    attempt += 1
                    continue
                raise self._unsaved(result, _one_line(e.orig), locked=_locked(e)) from None
            except sa.exc.IntegrityError:
                raise  # the same run id twice: the caller's bug, nothing is lost
            except sa.exc.DatabaseError as e:
                raise self._unsaved(result, _one_line(e.orig), locked=False) from None

    def _unsaved(self, result: Result, why: str, *, locked: bool) -> StoreError:
        """The error for a result that could not be stored, after writing it to a recovery file."""
        what = (f"results database {self.path or self.display_url} stayed locked by another program "
                f"({self.save_retries + 1} attempts)" if locked
                else f"cannot write to results database {self.path or self.display_url} ({why})")
        try:
            saved = write_recovery(result, self.recovery_key)
        except OSError as e:
            return StoreError(f"{what}; the recovery file could not be written either ({e.strerror}): run "
                              f"{result.run_id} is lost", hint="rerun with --json PATH to keep the result")
        return StoreError(f"{what}: run {result.run_id} was saved to {saved}",
                          hint=f"store it later with: edgeprof results import {saved}")

    @property
    def recovery_key(self) -> str:
        """What a recovery file names as its database: the SQLite file's path, else the URL without password."""
        return str(self.path.resolve()) if self.path is not None else self.display_url

    def import_recovered(self) -> list[str]:
        """Import the recovery files written for this database when a save failed (the database locked, down or
        full), then remove them: each run is stored with its sweep cell's state when that cell is still
        pending (so the sweep shows it as if the save had worked), else as a run alone (the cell was run again
        meanwhile: the measurement is kept, the sweep's cell keeps its newer row). A run already stored only
        has its file removed. Files for another database, or not written by a save (no `.target` beside
        them), are left alone. Never raises: a file that cannot be imported now stays for the next time.
        Returns the run ids imported."""
        folder = recovery_dir()
        try:
            targets = sorted(folder.glob(f"*{RECOVERY_TARGET_SUFFIX}"))
        except OSError:
            return []
        done = []
        for target in targets:
            run_file = target.with_suffix(".json")
            try:
                if json.loads(target.read_text()).get("db") != self.recovery_key:
                    continue
                if not run_file.exists():
                    target.unlink()
                    continue
                result = Result.from_dict(json.loads(run_file.read_text()))
                self._import_one(result)
                done.append(result.run_id)
            except sa.exc.IntegrityError:
                pass  # already stored (imported by hand, or by another process): only the file goes
            except Exception:
                continue  # unreadable now, or the database went away again: left for the next save
            for f in (run_file, target):
                try:
                    f.unlink()
                except FileNotFoundError:
                    pass
        return done

    def _import_one(self, result: Result) -> None:
        sweep = result.sweep
        if sweep is None:
            self.save(result, recover=False)
            return
        with self.engine.connect() as conn:
            cell = conn.execute(sa.select(sweep_cells.c.status).where(
                sweep_cells.c.sweep_id == sweep.sweep_id, sweep_cells.c.cell_id == sweep.cell_id)).first()
        if cell is None or cell.status != "pending":
            # no such cell here, or it has its row (run again) or was cancelled: the run alone, outside the sweep
            self.save(result, recover=False)
            return

        def update(conn: sa.Connection) -> None:
            conn.execute(sweep_cells.update()
                         .where(sweep_cells.c.sweep_id == sweep.sweep_id, sweep_cells.c.cell_id == sweep.cell_id,
                                sweep_cells.c.status == "pending")
                         .values(status=result.status, run_id=result.run_id, attempts=sweep.attempts,
                                 reason=result.reason, updated_at=utc_now()))
            conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep.sweep_id).values(updated_at=utc_now()))

        self.save(result, sweep_id=sweep.sweep_id, also=update, recover=False)

    def import_file(self, path: str | Path) -> Result:
        """Store a Result JSON file (a recovery file, or a --json output), checked like a fresh result
        (`validate_result`): a regular file of at most MAX_IMPORT_BYTES (no FIFO, no device), one JSON object."""
        data = json.loads(_read_import(path))
        if not isinstance(data, dict) or "run_id" not in data:
            raise StoreError(f"{path} is not an edgeprof result (no run_id)",
                             hint="give a file written by edgeprof (recovered/<run_id>.json or --json)")
        try:
            result = Result.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise StoreError(f"{path} is not a readable edgeprof result: {visible(str(e))[:200]}",
                             hint="give a file written by edgeprof (recovered/<run_id>.json or --json)") from None
        validate_result(result, str(path))
        sweep = getattr(result, "sweep", None)
        try:  # a file imported by hand: the other recovery files wait for the next save
            self.save(result, sweep_id=getattr(sweep, "sweep_id", None), recover=False)
        except sa.exc.IntegrityError:
            raise StoreError(f"run {result.run_id} from {path} is already stored in {self.display_url}",
                             hint=f"nothing to do: edgeprof results show {result.run_id}") from None
        return result

    def _load(self, run_id: str, text: object) -> Result:
        """A stored row's Result, or one CorruptRowError naming the row (its JSON is not JSON, not an object, or
        not a result)."""
        try:
            data = json.loads(text) if isinstance(text, (str, bytes)) else None
            if not isinstance(data, dict):
                raise ValueError(f"the stored JSON is {'not JSON' if data is None else type(data).__name__}, "
                                 "not an object")
            return Result.from_dict(data)
        except Exception as e:  # noqa: BLE001 - any defect of a row written by something else
            text = e.message if isinstance(e, UserError) else str(e)  # a UserError: its line without the hint
            why = visible(" ".join(str(text).split()))[:160] or type(e).__name__
            raise CorruptRowError(f"results database {self.path or self.display_url}: run {visible(run_id)[:80]!r}"
                                  f" cannot be read ({why})", run_id=run_id,
                                  hint="restore it from a backup or delete the row; the other runs still show") \
                from None

    def get_many(self, run_ids: Iterable[str], warn: Callable[[str], None] | None = None) -> list[Result]:
        """The results of `run_ids` in order, skipping (with `warn(message)`) rows that cannot be read, so one
        corrupt row does not hide the others (report, compare, check)."""
        out = []
        for rid in run_ids:
            try:
                out.append(self.get(rid))
            except CorruptRowError as e:
                self.skipped.append(e.message)
                if warn is not None:
                    warn(e.message)
        return out

    def get(self, run_id: str) -> Result:
        if len(run_id) > MAX_ID_CHARS or not run_id:
            raise StoreError(f"no run {visible(run_id[:40])!r}{'…' if len(run_id) > 40 else ''} "
                             f"({len(run_id)} characters) in {self.display_url}",
                             hint=f"run ids have 1 to {MAX_ID_CHARS} characters; edgeprof results list shows them")
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    sa.select(runs.c.run_id, runs.c.result_json).where(
                        runs.c.run_id.like(_escape_like(run_id) + "%", escape="\\")).limit(3)
                ).all()
        except sa.exc.DBAPIError as e:
            raise StoreError(f"cannot read results database {self.path or self.display_url}: "
                             f"{_one_line(e.orig)}") from None
        if not rows:
            raise StoreError(f"no run {visible(run_id)!r} in {self.display_url}",
                             hint="edgeprof results list shows run ids")
        exact = [r for r in rows if r[0] == run_id]
        if len(rows) > 1 and not exact:
            raise StoreError(f"run id prefix {visible(run_id)!r} is ambiguous "
                             f"({', '.join(visible(str(r[0]))[:80] for r in rows)}, …)",
                             hint="give more characters of the run id")
        row = (exact or rows)[0]
        return self._load(str(row[0]), row[1])

    def list(self, *, device: str | None = None, model: str | None = None, status: str | None = None,
             sweep_id: str | None = None, config: str | None = None, limit: int | None = 50) -> list[dict[str, Any]]:
        """Stored runs, newest first. `model` matches the model string as typed, its base name or a substring.
        A filter longer than its column (which no stored value can match) or a limit beyond MAX_LIST_LIMIT is one
        StoreError line."""
        for what, val, col in (("device", device, runs.c.device), ("model", model, runs.c.model),
                               ("status", status, runs.c.status), ("sweep id", sweep_id, runs.c.sweep_id),
                               ("configuration", config, runs.c.config_key)):
            if val is not None and len(val) > _length(col):
                raise StoreError(f"{what} filter of {len(val)} characters: no stored {what} is longer than "
                                 f"{_length(col)}", hint=f"give a {what} as `edgeprof results list` shows it")
        if limit is not None and not 0 <= limit <= MAX_LIST_LIMIT:
            raise StoreError(f"limit {limit}: out of range (0..{MAX_LIST_LIMIT}; 0 lists all)")
        q = sa.select(runs.c.run_id, runs.c.created_at, runs.c.status, runs.c.device, runs.c.model,
                      runs.c.runtime, runs.c.precision, runs.c.batch, runs.c.threads, runs.c.p50_ms,
                      runs.c.p99_ms, runs.c.throughput_ips, runs.c.mean_w, runs.c.top1, runs.c.sweep_id,
                      runs.c.config_key)
        for col, val in ((runs.c.device, device), (runs.c.status, status),
                         (runs.c.sweep_id, sweep_id), (runs.c.config_key, config)):
            if val is not None:
                q = q.where(col == val)
        if model is not None:  # the model as typed, its base name, or any part of it: `alexa` finds kws/alexa.tflite
            q = q.where(sa.or_(runs.c.model == model,
                               runs.c.model.like("%" + _escape_like(model) + "%", escape="\\")))
        q = q.order_by(runs.c.created_at.desc(), runs.c.run_id.desc())
        if limit:
            q = q.limit(limit)
        try:
            with self.engine.connect() as conn:
                return [dict(r._mapping) for r in conn.execute(q)]
        except sa.exc.DBAPIError as e:
            raise StoreError(f"cannot read results database {self.path or self.display_url}: "
                             f"{_one_line(e.orig)}") from None

    def iter_results(self, **filters: Any) -> Iterator[Result]:
        """The results of `list(**filters)`, skipping rows that cannot be read (their messages in `skipped`)."""
        for row in self.list(**filters):
            yield from self.get_many([row["run_id"]])

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(runs)).scalar_one())

    def save_facts(self, device: str, facts: dict[str, Any]) -> str:
        ts = utc_now()
        with self.engine.begin() as conn:
            conn.execute(device_facts.insert().values(device=device, collected_at=ts,
                                                      facts_json=dumps_json(facts, sort_keys=True)))
        return ts

    def latest_facts(self, device: str) -> tuple[str, dict[str, Any]] | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(device_facts.c.collected_at, device_facts.c.facts_json)
                .where(device_facts.c.device == device).order_by(device_facts.c.id.desc()).limit(1)
            ).first()
        return (row[0], json.loads(row[1])) if row else None


def _escape_like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


MAX_ID_CHARS = 64  # runs.run_id, sweeps.sweep_id
MAX_LIST_LIMIT = 10**9
MAX_IMPORT_BYTES = 512 << 20  # a result JSON with its raw samples is far smaller
STATUSES = ("ok", "failed", "skipped")


def _length(col: sa.Column[Any]) -> int:
    return int(getattr(col.type, "length", None) or MAX_ID_CHARS)


class CorruptRowError(StoreError):
    """A stored row whose result JSON cannot be read; names the run. `run_id`: that row's id."""

    def __init__(self, message: str, *, run_id: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.run_id = run_id


def _read_import(path: str | Path) -> str:
    """The text of a result file to import: a regular file (checked before and after a non-blocking open, so a
    FIFO or /dev/zero is refused at once) of at most MAX_IMPORT_BYTES, UTF-8, JSON."""
    hint = "give the path of a result JSON file"
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"cannot import {path}: not a regular file", hint=hint)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise StoreError(f"cannot import {path}: not a regular file", hint=hint)
            if st.st_size > MAX_IMPORT_BYTES:
                raise StoreError(f"cannot import {path}: {st.st_size} bytes, more than a result file can be "
                                 f"({MAX_IMPORT_BYTES >> 20} MiB)", hint=hint)
            raw = f.read(MAX_IMPORT_BYTES + 1)
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror or e}", hint=hint) from None
    if len(raw) > MAX_IMPORT_BYTES:
        raise StoreError(f"cannot import {path}: more than {MAX_IMPORT_BYTES >> 20} MiB", hint=hint)
    try:
        text = raw.decode("utf-8")
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise StoreError(f"{path} is not JSON: {visible(str(e))[:160]}", hint=hint) from None
    return text


def validate_result(r: Result, where: str) -> None:
    """A Result from outside (an imported file) checked as edgeprof would have made it: a run id like a device
    name (RUN_ID_RE), a known status, names within their columns, a batch from 1, and no negative, NaN or
    infinite latency, sample, throughput or memory. One StoreError line naming `where` and the field."""
    def bad(field: str, why: str) -> StoreError:
        return StoreError(f"{where}: field {field}: {why}",
                          hint="import files written by edgeprof (recovered/<run_id>.json or deploy --json)")

    if not isinstance(r.run_id, str) or not RUN_ID_RE.match(r.run_id) or ".." in r.run_id:
        shown_id = visible(str(r.run_id))
        raise bad("run_id", f"{shown_id[:40]!r}{'…' if len(shown_id) > 40 else ''} ({len(str(r.run_id))} "
                  "characters) is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                  "or digit")
    if r.status not in STATUSES:
        raise bad("status", f"{visible(str(r.status))[:40]!r} is not one of {', '.join(STATUSES)}")
    for field, col in (("device", runs.c.device), ("model", runs.c.model), ("runtime", runs.c.runtime),
                       ("precision", runs.c.precision), ("created_at", runs.c.created_at)):
        value = getattr(r, field)
        if not isinstance(value, str) or not value or len(value) > _length(col):
            raise bad(field, f"must be text of 1 to {_length(col)} characters "
                      f"(got {len(value) if isinstance(value, str) else type(value).__name__})")
    sweep = r.sweep
    if sweep is not None and (not isinstance(sweep.sweep_id, str) or len(sweep.sweep_id) > MAX_ID_CHARS):
        raise bad("sweep.sweep_id", f"must be text of at most {MAX_ID_CHARS} characters")
    if isinstance(r.batch, bool) or not isinstance(r.batch, int) or not 1 <= r.batch <= 2**31 - 1:
        raise bad("batch", f"{r.batch!r} is not a batch size (1 or more)")
    if r.threads is not None and (isinstance(r.threads, bool) or not isinstance(r.threads, int)
                                  or not 0 <= r.threads <= 2**31 - 1):
        raise bad("threads", f"{r.threads!r} is not a thread count")

    def number(field: str, v: object) -> None:
        if v is None:
            return
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise bad(field, f"{v!r} is not a finite number from 0")

    lat = r.latency_ms
    if lat is not None:
        for name in ("p50", "p90", "p95", "p97", "p99", "p999", "min", "max", "mean", "std"):
            number(f"latency_ms.{name}", getattr(lat, name, None))
    number("throughput_ips", r.throughput_ips)
    if r.memory_mb is not None:
        for name in ("rss_before_load", "rss_after_load", "peak_rss"):
            number(f"memory_mb.{name}", getattr(r.memory_mb, name, None))
    samples = r.samples_ms or []
    if not isinstance(samples, list):
        raise bad("samples_ms", "is not a list of numbers")
    for i, v in enumerate(samples):
        number(f"samples_ms[{i}]", v)
