"""The results database connection: opening (creating, upgrading or refusing a database), saving a Result in
one transaction with retries and a recovery file, importing, listing and loading runs, and device facts.

Owns: Store.
Does not own: the tables (schema.py), where the database lives (location.py), recovery files (recovery.py),
checking imported results (imports.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from edgeprof_agent.messages import Facts, MessageError

from ..errors import AmbiguousId, StoreError, StoreUnavailable, UserError
from ..files.modes import private_mode
from ..files.output import visible
from ..records import Result, dumps_json, utc_now
from .imports import read_import, validate_result
from .location import in_memory, resolve_db_url, sqlite_path
from .recovery import RECOVERY_TARGET_SUFFIX, recovery_dir, write_recovery
from .schema import (
    DB_SCHEMA_VERSION,
    MAX_ID_CHARS,
    RunRow,
    column_length,
    config_key,
    device_facts,
    meta,
    metadata,
    rekey,
    runs,
    sweep_cells,
    sweeps,
)

# a locked SQLite database: each attempt waits up to BUSY_TIMEOUT_S (SQLite's busy handler), then the save is
# retried SAVE_RETRIES times after SAVE_BACKOFF_S × 2^n: about a minute in all before the recovery file is written
BUSY_TIMEOUT_S = 10.0
SAVE_RETRIES = 3
SAVE_BACKOFF_S = 1.0
MAX_LIST_LIMIT = 10**9


def _one_line(what: object, limit: int = 240) -> str:
    """A driver's message (PostgreSQL's span lines) as one visible line of at most `limit` characters."""
    text = visible(" ".join(str(what).split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _locked(e: sa.exc.DBAPIError) -> bool:
    text = str(e.orig).lower()
    return "locked" in text or "busy" in text


def _disk_hint(e: sa.exc.DBAPIError) -> str | None:
    """What to do when SQLite says the disk is full or the file read-only; None for other errors."""
    text = str(e.orig).lower()
    if "full" in text:
        return "free space on the disk that holds it, or pass --db with a path on another disk"
    if "readonly" in text or "read-only" in text:
        return "make it (and its folder) writable, or pass --db with another path"
    return None


def _escape_like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class CorruptRowError(StoreError):
    """A stored row whose result JSON cannot be read; names the run. `run_id`: that row's id."""

    def __init__(self, message: str, *, run_id: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.run_id = run_id


class _CellNotPending(Exception):
    """A recovered run's sweep cell was no longer pending when its row was written (rolls that write back)."""


class Store:
    def __init__(self, url: str | None = None, *, busy_timeout_s: float | None = None,
                 save_retries: int | None = None, save_backoff_s: float | None = None) -> None:
        self.url = resolve_db_url(url)
        busy_timeout_s = BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s
        self.save_retries = SAVE_RETRIES if save_retries is None else save_retries
        self.save_backoff_s = SAVE_BACKOFF_S if save_backoff_s is None else save_backoff_s
        self.skipped: list[str] = []  # rows get_many / iter_results left out (CorruptRowError messages)
        self.path = sqlite_path(self.url)
        if self.path is None and in_memory(self.url):
            raise StoreError(f"--db {url or self.url}: an in-memory SQLite database is gone when edgeprof exits, "
                             "and every run stored in it with it",
                             hint="give a file path (e.g. --db results.sqlite) or a PostgreSQL URL")
        created: list[bool] = []
        try:
            self._open(url, busy_timeout_s, created)
        except BaseException:
            if created:  # a new database that could not be made whole (a full disk): no half-made file is left
                self._remove_new()
            raise

    def _remove_new(self) -> None:
        """Remove the database file this Store created and its journals (only called for a new one)."""
        if self.path is None:
            return
        engine = getattr(self, "engine", None)
        if engine is not None:
            with contextlib.suppress(Exception):
                engine.dispose()
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def _open(self, url: str | None, busy_timeout_s: float, created: list[bool]) -> None:
        """Connect, and create, upgrade or refuse the database (`created` gets True when this made the file)."""
        try:
            connect_args = {"timeout": busy_timeout_s} if self.path is not None else {}
            if self.path is not None and not self.path.exists():
                # create the file private before SQLite does (SQLite would create it 0644)
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, private_mode(0o600))
                os.close(fd)
                created.append(True)
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
                        rekey(conn)
                    conn.execute(meta.update().where(meta.c.key == "schema_version")
                                 .values(value=str(DB_SCHEMA_VERSION)))
                elif version > DB_SCHEMA_VERSION:
                    raise StoreError(
                        f"results database {self.display_url} has schema version {version}, newer than this "
                        f"edgeprof understands ({DB_SCHEMA_VERSION})",
                        hint="upgrade edgeprof, or point --db at another database",
                    )
        except sa.exc.ArgumentError as e:
            raise StoreError(f"bad database URL {visible(self.display_url)!r}: {e}",
                             hint="use a path or a SQLAlchemy URL") from None
        except sa.exc.OperationalError as e:
            if self.path is not None and _locked(e):
                raise StoreError(f"results database {self.path} is locked by another program (waited "
                                 f"{busy_timeout_s:g} s)", hint="wait for the other edgeprof to finish, or pass "
                                 "--db with another path") from None
            raise StoreError(f"cannot open results database {self.display_url}: {_one_line(e.orig)}",
                             hint=_disk_hint(e) or "check the path or URL given with --db / EDGEPROF_DB") from None
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
            "schema_version": result.schema_version, "result_json": result.to_json(packed=True),
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
        then = "free space there, then store it with" if "full" in why.lower() else "store it later with"
        return StoreError(f"{what}: run {result.run_id} was saved to {saved}",
                          hint=f"{then}: edgeprof results import {saved}")

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
                if json.loads(target.read_text())["db"] != self.recovery_key:  # no "db": not ours, left
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
            done = conn.execute(sweep_cells.update()
                                .where(sweep_cells.c.sweep_id == sweep.sweep_id,
                                       sweep_cells.c.cell_id == sweep.cell_id, sweep_cells.c.status == "pending")
                                .values(status=result.status, run_id=result.run_id, attempts=sweep.attempts,
                                        reason=result.reason, updated_at=utc_now()))
            if not done.rowcount:  # the cell took another run's row since it was read: this run goes alone
                raise _CellNotPending()
            conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep.sweep_id).values(updated_at=utc_now()))

        try:
            self.save(result, sweep_id=sweep.sweep_id, also=update, recover=False)
        except _CellNotPending:
            self.save(result, recover=False)

    def import_file(self, path: str | Path) -> Result:
        """Store a Result JSON file (a recovery file, or a --json output), checked like a fresh result
        (`validate_result`): a regular file of at most MAX_IMPORT_BYTES (no FIFO, no device), one JSON object."""
        data = json.loads(read_import(path))
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
            raise _read_error(e)(f"cannot read results database {self.path or self.display_url}: "
                                 f"{_one_line(e.orig)}") from None
        if not rows:
            raise StoreError(f"no run {visible(run_id)!r} in {self.display_url}",
                             hint="edgeprof results list shows run ids")
        exact = [r for r in rows if r[0] == run_id]
        if len(rows) > 1 and not exact:
            raise AmbiguousId(f"run id prefix {visible(run_id)!r} is ambiguous "
                             f"({', '.join(visible(str(r[0]))[:80] for r in rows)}, …)",
                             hint="give more characters of the run id")
        row = (exact or rows)[0]
        return self._load(str(row[0]), row[1])

    def list(self, *, device: str | None = None, model: str | None = None, status: str | None = None,
             sweep_id: str | None = None, config: str | None = None, limit: int | None = 50) -> list[RunRow]:
        """Stored runs (RunRow: the summary columns), newest first. `model` matches the model string as typed, its base name or a substring.
        A filter longer than its column (which no stored value can match) or a limit beyond MAX_LIST_LIMIT is one
        StoreError line."""
        for what, val, col in (("device", device, runs.c.device), ("model", model, runs.c.model),
                               ("status", status, runs.c.status), ("sweep id", sweep_id, runs.c.sweep_id),
                               ("configuration", config, runs.c.config_key)):
            if val is not None and len(val) > column_length(col):
                raise StoreError(f"{what} filter of {len(val)} characters: no stored {what} is longer than "
                                 f"{column_length(col)}", hint=f"give a {what} as `edgeprof results list` shows it")
        if limit is not None and not 0 <= limit <= MAX_LIST_LIMIT:
            raise StoreError(f"limit {limit}: out of range (0..{MAX_LIST_LIMIT}; 0 lists all)")
        q = sa.select(*RunRow.columns())
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
                return [RunRow(**r._mapping) for r in conn.execute(q)]
        except sa.exc.DBAPIError as e:
            raise _read_error(e)(f"cannot read results database {self.path or self.display_url}: "
                                 f"{_one_line(e.orig)}") from None

    def iter_results(self, **filters: Any) -> Iterator[Result]:
        """The results of `list(**filters)`, skipping rows that cannot be read (their messages in `skipped`)."""
        for row in self.list(**filters):
            yield from self.get_many([row.run_id])

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(runs)).scalar_one())

    def save_facts(self, device: str, facts: Facts) -> str:
        """Store a board's facts as the agent sent them (its Facts record's JSON), timestamped; the timestamp."""
        ts = utc_now()
        with self.engine.begin() as conn:
            conn.execute(device_facts.insert().values(device=device, collected_at=ts,
                                                      facts_json=dumps_json(facts.to_dict(), sort_keys=True)))
        return ts

    def latest_facts(self, device: str) -> tuple[str, Facts] | None:
        """The newest stored facts of `device` with their timestamp (None: none stored); StoreError naming the
        device and the field for a row that is not the agent's facts."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(device_facts.c.collected_at, device_facts.c.facts_json)
                .where(device_facts.c.device == device).order_by(device_facts.c.id.desc()).limit(1)
            ).first()
        if row is None:
            return None
        try:
            return row[0], Facts.from_dict(json.loads(row[1]))
        except (ValueError, MessageError) as e:
            raise StoreError(f"the facts of {visible(device)} stored at {row[0]} cannot be read: {_one_line(e)}",
                             hint="run edgeprof devices check to store them again") from None


def _read_error(e: sa.exc.DBAPIError) -> type[StoreError]:
    """StoreUnavailable for a database that did not answer (OperationalError), StoreError for the rest."""
    return StoreUnavailable if isinstance(e, sa.exc.OperationalError) else StoreError
