"""Where the results database lives: --db, EDGEPROF_DB or $XDG_DATA_HOME/edgeprof/results.sqlite, and what
a URL names (a SQLite file, an in-memory SQLite database, another server).

Owns: resolving --db to a URL, the default path, the SQLite file behind a URL, and refusing an output path
that is the results database or one of its journal files (`refuse_db_path`, for every command that writes a
file: report --out, check --junit, deploy --json, sweep --id-file).
Does not own: opening the database (db.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import sqlalchemy as sa

from ..errors import ConfigError, StoreError
from ..files.modes import make_private_dir

# SQLite's companions of a database file: the rollback journal, the write-ahead log and its shared memory
DB_COMPANIONS = ("", "-journal", "-wal", "-shm")


def sqlite_path(url: str) -> Path | None:
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return None
    if u.get_backend_name() != "sqlite" or not u.database or ":memory:" in u.database or u.query.get("mode") == "memory":
        return None
    return Path(u.database)


def in_memory(url: str) -> bool:
    """A SQLite URL of no file: `sqlite://`, `sqlite:///:memory:`, `file::memory:` or `mode=memory`."""
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return False
    if u.get_backend_name() != "sqlite":
        return False
    db = u.database or ""
    return not db or ":memory:" in db or "mode=memory" in db or u.query.get("mode") == "memory"



def default_db_path() -> Path:
    base = os.getenv("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "edgeprof" / "results.sqlite"


DB_FORMS = "give a SQLite file path (results.sqlite), sqlite:///PATH or postgresql://USER@HOST/DB"


def check_db_url(value: str, where: str) -> None:
    """One StoreError line naming `where` (--db / EDGEPROF_DB) and the value when `value` is no URL SQLAlchemy
    reads or names a kind of database it has no dialect for (`bogus://`), with the forms that are accepted."""
    from ..files.output import visible

    try:
        u = sa.engine.make_url(value)
    except sa.exc.ArgumentError:
        shown = re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", value)  # a password, as render_as_string hides it
        raise StoreError(f"{where} {visible(shown)!r} is not a database URL", hint=DB_FORMS) from None
    if u.drivername == "postgres":  # the queue reads it as postgresql+psycopg (lab/queue/db.py)
        u = u.set(drivername="postgresql")
    try:
        u.get_dialect()
    except sa.exc.NoSuchModuleError:
        raise StoreError(f"{where} {visible(u.render_as_string(hide_password=True))!r}: no database kind "
                         f"{visible(u.drivername)!r} is known (SQLAlchemy has no such dialect)", hint=DB_FORMS) from None
    except ImportError:  # a known kind whose driver is not installed: said when it is opened (db.py)
        pass


def resolve_db_url(db: str | None = None) -> str:
    """--db wins, then EDGEPROF_DB, then $XDG_DATA_HOME/edgeprof/results.sqlite. A plain path means SQLite; a URL
    SQLAlchemy cannot read is one StoreError line naming where it came from (check_db_url)."""
    value = db or os.getenv("EDGEPROF_DB")
    if not value:
        path = default_db_path()
        make_private_dir(path.parent)
        return f"sqlite:///{path}"
    if "://" in value:
        check_db_url(value, "--db" if db else "EDGEPROF_DB")
        return value
    path = Path(value).expanduser()
    if path.parent and not path.parent.exists():
        raise StoreError(f"results database folder {str(path.parent)!r} does not exist",
                         hint="create it, or pass --db with another path or a database URL")
    return f"sqlite:///{path.resolve()}"


def refuse_db_path(path: str | os.PathLike[str], db_url: str | None, flag: str) -> None:
    """One ConfigError line when writing `path` would overwrite the SQLite results database `db_url` (a path or
    URL, as --db / EDGEPROF_DB give it) or its -journal / -wal / -shm: compared after resolving links, and by
    inode when the file exists. Other databases (PostgreSQL) have no file to protect."""
    if str(path) == "-":
        return
    try:
        db = sqlite_path(resolve_db_url(db_url))
    except Exception:  # noqa: BLE001 - an unusable --db is reported when the database is opened, not here
        return
    if db is None:
        return
    target = Path(path).expanduser()
    try:
        resolved = target.resolve()
        db_resolved = db.resolve()
    except (OSError, RuntimeError):
        return
    for suffix in DB_COMPANIONS:
        companion = Path(str(db_resolved) + suffix)
        same = resolved == companion
        if not same:
            try:
                same = os.path.samefile(target, companion)
            except OSError:
                same = False
        if same:
            what = "the results database" if not suffix else f"the results database's {suffix[1:]} file"
            raise ConfigError(f"{flag} {path}: is {what} ({companion}); writing it would destroy the stored runs",
                              hint="give another output path")
