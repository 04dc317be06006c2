"""Arguments and helpers shared by command modules (database, inventory, device lookup)."""

from __future__ import annotations

import argparse
import errno
import os
import tempfile
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
        from ..inventory.devices import load_inventory  # type: ignore[import-not-found,unused-ignore]
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
    problem = _write_probe(p, folder)
    if problem is not None:
        raise ConfigError(f"{flag} {path}: not writable ({problem})", hint="give a path you can write")


def _write_probe(p: Path, folder: Path) -> str | None:
    """Why `p` cannot be written, found by trying (os.access says yes to root on a read-only mount or a 0555
    folder, and gives no reason): an existing regular file is opened for append (nothing changes), else a
    temporary file is made and removed in its folder. None when it can be written."""
    try:
        if p.exists() and p.is_file():
            os.close(os.open(p, os.O_WRONLY | os.O_APPEND))
        elif p.exists():  # a device or FIFO (--json /dev/stdout): opening it could block or write
            return None if os.access(p, os.W_OK) else "permission denied"
        else:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".edgeprof-write-probe-")
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        return {errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
                errno.EPERM: "permission denied", errno.ENOSPC: "no space left on the device",
                errno.EDQUOT: "disk quota exceeded"}.get(e.errno or 0, e.strerror or str(e))
    return None
