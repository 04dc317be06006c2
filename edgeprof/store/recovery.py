"""Recovery files: a Result that could not be stored, written as JSON (private) beside the name of the database
it was meant for, so the next successful save there imports it (db.Store.import_recovered).

Owns: the recovery folder, writing a recovery file, the file name a run id may become (safe_stem).
Does not own: importing them (db.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path

from ..files.modes import make_private_dir, private_mode
from ..records import Result
from .location import default_db_path


def recovery_dir() -> Path:
    return default_db_path().parent / "recovered"


RECOVERY_TARGET_SUFFIX = ".target"  # beside <run_id>.json: which database the run was meant for (JSON)


def _write_private(path: Path, text: str) -> None:
    """Write `path` whole or not at all (a temporary file beside it, renamed): a full disk leaves no half file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), private_mode(0o600))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_recovery(result: Result, target: str | None = None) -> Path:
    """Write `result` as JSON to the recovery directory (private); returns the file. `target` (a Store's
    recovery_key) is written beside it, so the next successful save to that database imports it by itself."""
    folder = recovery_dir()
    make_private_dir(folder)
    stem = safe_stem(result.run_id)
    path = folder / f"{stem}.json"
    _write_private(path, result.to_json(indent=2, packed=True) + "\n")
    if target is not None:
        try:
            _write_private(folder / f"{stem}{RECOVERY_TARGET_SUFFIX}", json.dumps({"db": target}) + "\n")
        except BaseException:
            with contextlib.suppress(OSError):
                path.unlink()  # a run file without its target would never be imported by itself: none, then
            raise
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
