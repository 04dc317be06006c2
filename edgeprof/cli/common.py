"""Arguments and helpers shared by command modules (database, inventory, device lookup)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..errors import ConfigError, DeviceError
from ..records import Device, local_device
from ..store import Store, refuse_db_path


def add_db_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="PATH|URL", default=None,
                   help="results database: a SQLite path or a SQLAlchemy URL (default: $EDGEPROF_DB, else "
                        "$XDG_DATA_HOME/edgeprof/results.sqlite)")


def add_inventory_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--inventory", metavar="PATH", default=None,
                   help="devices.yaml to use (default: ./devices.yaml, then ~/.config/edgeprof/devices.yaml)")


def open_store(db: str | None) -> Store:
    return Store(db)


def resolve_device(name: str, inventory: str | None) -> Device:
    try:
        from ..inventory import load_inventory  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError:
        if name == "local":
            return local_device()
        raise DeviceError(f"unknown device {name!r}", hint="only 'local' is available in this build") from None
    return load_inventory(inventory).get(name)  # type: ignore[no-any-return,unused-ignore]


def check_writable(path: str, flag: str, db: str | None = None) -> None:
    """A one-line ConfigError now when `path` cannot be written later (missing folder, no permission, a folder),
    or when it is the results database or one of its journal files (store.refuse_db_path): `db` is the --db
    given; without it, the database $EDGEPROF_DB (or the default path) names is protected."""
    if path == "-":
        return
    refuse_db_path(path, db, flag)
    p = Path(path).expanduser()
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ConfigError(f"{flag} {path}: is a folder", hint="give a file path")
    if not folder.is_dir():
        raise ConfigError(f"{flag} {path}: folder {str(folder)!r} does not exist", hint="create it first")
    if (p.exists() and not os.access(p, os.W_OK)) or (not p.exists() and not os.access(folder, os.W_OK)):
        raise ConfigError(f"{flag} {path}: not writable (permission denied)", hint="give a path you can write")
