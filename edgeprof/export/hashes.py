"""Content hashes of large files, remembered across processes so that a user's model is read once, not every run.

Owns: `remembered(kind, paths, compute)`, a digest of one or more files kept in `hashes_dir()/<name>.json`
(`$XDG_CACHE_HOME/edgeprof/hashes`, else `~/.cache/edgeprof/hashes`: beside the artifact cache's default folder,
one for the user whatever cache a run names, never inside an artifact cache, whose folders hold entries only),
where <name> is the sha256 of (kind, the files' absolute paths). A record holds,
for each file, its path, size, mtime_ns, ctime_ns, inode and device as they were when it was hashed; it is used
only while every one of them is the same now (a rewrite, even to the same size, changes mtime and ctime; a file
replaced by a rename is another inode), else the files are read again. A digest is remembered only when the
files' stat before and after the read agree (a file written while it was hashed is not remembered) and no file
changed in the RACY_S seconds before (file times are coarse, a kernel tick on ext4 and 2 s on FAT: a rewrite of
the same size in the same tick would look unchanged, git's "racy clean" case; such a file is read again next time). Writes are
atomic (a temporary file renamed into place: two processes hashing the same file both write whole records, the
last one stays); a record that does not parse or does not match is ignored and rewritten; a cache folder that
cannot be written (read-only, full) only costs the next run another read. `sha256_of(path)` is the common case:
one file's sha256.
Does not own: the hash functions (artifact_cache.sha256_file, external_data's content hash), the artifact
entries beside it (artifact_cache.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..files.modes import make_private_dir

__all__ = ["remembered", "sha256_of", "hashes_dir", "LAYOUT"]

LAYOUT = 1
RACY_S = 2.0


def hashes_dir() -> Path:
    """`$XDG_CACHE_HOME/edgeprof/hashes`, else `~/.cache/edgeprof/hashes`."""
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "edgeprof" / "hashes"
    return Path.home() / ".cache" / "edgeprof" / "hashes"


def _stat(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns,
            "inode": st.st_ino, "dev": st.st_dev}


def _record_path(kind: str, paths: Sequence[Path]) -> Path:
    name = hashlib.sha256(json.dumps([kind, [str(p) for p in paths]]).encode()).hexdigest()
    return hashes_dir() / f"{name[:40]}.json"


def _read(record: Path, kind: str, stats: list[dict[str, Any]]) -> Any:
    """The remembered value, or None when there is none, it is unreadable, or any file changed since."""
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("layout") != LAYOUT or data.get("kind") != kind:
        return None
    if data.get("files") != stats:
        return None
    return data.get("value")


def _write(record: Path, kind: str, stats: list[dict[str, Any]], value: Any) -> None:
    with contextlib.suppress(OSError):
        make_private_dir(record.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=record.parent)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump({"layout": LAYOUT, "kind": kind, "files": stats, "value": value}, f, sort_keys=True)
            os.replace(tmp, record)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def remembered(kind: str, paths: Sequence[Path], compute: Callable[[], Any],
               valid: Callable[[Any], bool] = lambda v: v is not None) -> Any:
    """compute() (a JSON value: a digest, or a list of them) for the files `paths`, remembered (hashes_dir()) by
    their path, size, mtime, ctime, inode and device: the files are read again only when one of those changed (or
    the record's value is not `valid`)."""
    files = [Path(p).resolve() for p in paths]
    stats = [_stat(p) for p in files]  # a missing file raises here, as reading it would
    record = _record_path(kind, files)
    value = _read(record, kind, stats)
    if value is not None and valid(value):
        return value
    value = compute()
    try:
        now = time.time_ns()
        settled = all(now - max(s["mtime_ns"], s["ctime_ns"]) >= RACY_S * 1e9 for s in stats)
        if settled and [_stat(p) for p in files] == stats:  # unchanged while it was read: the value is the files'
            _write(record, kind, stats, value)
    except OSError:
        pass
    return value


def sha256_of(path: Path) -> str:
    """The sha256 of the file at `path` (artifact_cache.sha256_file), read once per change of the file."""
    from .artifact_cache import sha256_file

    return str(remembered("sha256", [path], lambda: sha256_file(path), valid=_is_sha256))


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) is not None
