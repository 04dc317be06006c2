"""A content-keyed cache of derived artifacts (ONNX and TFLite exports, quantised models), one directory per entry.

Owns: the cache directory (`default_cache_dir`), the entry layout `cache_dir/<key>/model.<ext>` + `meta.json` (the Artifact as JSON, path relative),
atomic writes (built in a temporary directory, renamed into place: an interrupted or failed build leaves no
entry and no temporary folder), a write refused for room or permission (a full disk, a read-only folder:
errors.DISK_ERRNOS, also when a library wrapped the OSError) as one DiskError line naming the cache, and validation on read (size and sha256
of the model file, and the size of each file the build wrote beside it (`beside`: an ONNX model's data files past
2 GiB), must match meta.json, else the entry is ignored and rebuilt; the sha256 is read once per change of the file,
remembered across processes (hashes.py)). A build runs inside a capture
(capture.py): the libraries' output goes to `cache_dir/<key>.log`, beside the entry, not to the terminal.
the version of the export code that goes into the keys (`code_version`, below). Does not own: what else goes
into a key (each exporter hashes whatever decides its file) or building the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import DiskError, ModelError, UserError, disk_advice, disk_error_in, disk_text
from ..files.modes import make_private_dir
from ..records import Artifact
from .capture import capture

__all__ = ["cached", "build_cached", "cache_write_error", "about_cache", "CACHE_ENV", "log_path", "read_entry", "sha256_file", "dist_version", "text_hash", "key_of",
           "default_cache_dir", "code_version"]

LAYOUT = 1
CACHE_ENV = "EDGEPROF_CACHE"
_STALE_TMP_S = 3600.0


def default_cache_dir() -> Path:
    """`$EDGEPROF_CACHE`, else `$XDG_CACHE_HOME/edgeprof/artifacts`, else `~/.cache/edgeprof/artifacts`."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "edgeprof" / "artifacts"
    return Path.home() / ".cache" / "edgeprof" / "artifacts"


def code_version(module: str) -> str:
    """The version of export module `module` ("onnx_export.py", ...) that goes into cache keys: the sha256 of its
    text, so a change to the code that writes an artifact makes new keys and a cached file is never one that an
    older exporter wrote (a move of code between modules costs one re-export, never a stale artifact)."""
    return text_hash(Path(__file__).resolve().parent / module)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# sha256 of cache files this process has read, by (device, inode, size, mtime): a sweep checks one entry for
# each of its cells (an export ahead, then the cell's own plan), and a file rewritten since has another key
_VERIFIED: dict[tuple[int, int, int, int], str] = {}


def verified_sha256(path: Path) -> str:
    """sha256_file(path), read once per process for a file left as it was (same inode, size and mtime), and
    remembered across processes (hashes.py)."""
    from .hashes import sha256_of

    st = Path(path).stat()
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = sha256_of(Path(path))
    return _VERIFIED[key]


def text_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def dist_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def key_of(material: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()


def read_entry(entry: Path, ext: str) -> Artifact | None:
    """The Artifact in one entry directory, or None if missing, unreadable or not matching its file."""
    try:
        meta = json.loads((entry / "meta.json").read_text())
        if not isinstance(meta, dict) or meta.pop("cache_layout", None) != LAYOUT:
            return None
        beside = meta.pop("beside", {})  # files the build wrote next to the model (an ONNX model's data files)
        stored = Artifact.from_dict(meta)  # the typed record: an unknown or missing field is a broken entry
        model = entry / f"model.{ext}"
        if model.stat().st_size != stored.size_bytes or verified_sha256(model) != stored.sha256:
            return None
        if any((entry / name).stat().st_size != size for name, size in beside.items()):
            return None
        return dataclasses.replace(stored, path=str(model), cache_hit=True)
    except (OSError, ValueError, KeyError, TypeError, UserError):
        return None


def cached(cache_dir: Path, key: str, ext: str) -> Artifact | None:
    """The Artifact stored under `key`, or None when absent or broken."""
    return read_entry(Path(cache_dir).expanduser() / key, ext)


def log_path(cache_dir: Path, key: str) -> Path:
    """Where the libraries' output of building entry `key` is kept (appended on every build)."""
    return Path(cache_dir).expanduser() / f"{key}.log"


def cache_write_error(cache_dir: Path, e: OSError, what: str) -> DiskError:
    """The one line for a write under the cache that failed for want of room or permission (DISK_ERRNOS)."""
    return DiskError(f"cannot write the export cache {cache_dir} ({what}): {disk_text(e)}; no entry was written "
                     "there", hint=f"{disk_advice(e)}, or point the cache at another folder with "
                     f"{CACHE_ENV}=DIR (edgeprof worker: --cache-dir DIR)", path=str(cache_dir), errno=e.errno)


def about_cache(e: OSError, cache_dir: Path) -> bool:
    """`e` is about the cache: a file under it (or a folder above it that was being made), or a write through a descriptor (a library's print into the
    capture's log under it) that names no file, when it is a lack of room rather than of permission (a build
    reading the user's file without permission is the user's file's problem, not the cache's)."""
    if e.filename is None:
        return e.errno not in (errno.EACCES, errno.EPERM)
    try:
        path, cache = Path(os.fsdecode(e.filename)).resolve(), cache_dir.resolve()
        return path.is_relative_to(cache) or cache.is_relative_to(path)  # in it, or a folder made for it
    except (OSError, ValueError, TypeError):
        return False


def _store(cache_dir: Path, key: str, ext: str, build: Callable[[Path], Artifact], what: str) -> None:
    """Build entry `key` in a temporary folder and rename it into place (build_cached's cold path)."""
    entry = cache_dir / key
    make_private_dir(cache_dir)  # 0700 (files/modes.py): entries are mkdtemp folders, 0700 too
    now = time.time()
    for p in cache_dir.glob(".tmp-*"):
        with contextlib.suppress(OSError):
            if now - p.stat().st_mtime > _STALE_TMP_S:
                shutil.rmtree(p, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key[:16]}-", dir=cache_dir))
    try:
        model = tmp / f"model.{ext}"
        with capture(log_path(cache_dir, key), what):
            artifact = build(model)
        if not model.is_file():
            raise ModelError(f"building {artifact.model_name} ({ext}) wrote no file",
                             hint="this is a bug in edgeprof: please report it")
        artifact = dataclasses.replace(artifact, path=str(model), sha256=sha256_file(model),
                                       size_bytes=model.stat().st_size)
        meta = artifact.to_dict()
        beside = {p.name: p.stat().st_size for p in sorted(tmp.iterdir()) if p.is_file() and p != model}
        meta.update(path=f"model.{ext}", cache_hit=False, cache_layout=LAYOUT, **({"beside": beside} if beside else {}))
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
        if entry.exists() and read_entry(entry, ext) is None:
            trash = Path(tempfile.mkdtemp(prefix=f".tmp-old-{key[:16]}-", dir=cache_dir))
            os.replace(entry, trash / "old")
            shutil.rmtree(trash, ignore_errors=True)
        if not entry.exists():
            try:
                os.rename(tmp, entry)
            except OSError:
                if read_entry(entry, ext) is None:
                    raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_cached(cache_dir: Path, key: str, ext: str, build: Callable[[Path], Artifact],
                 what: str = "building a cache entry") -> Artifact:
    """The cached Artifact for `key`, else `build(tmp_model_path)` once, stored atomically, and returned.

    `build` writes the model at the path it is given and returns an Artifact describing it (any path); it runs
    inside a capture whose log is `log_path(cache_dir, key)` (`what` heads its section there)."""
    cache_dir = Path(cache_dir).expanduser()
    entry = cache_dir / key
    hit = read_entry(entry, ext)
    if hit is not None:
        return hit
    try:
        _store(cache_dir, key, ext, build, what)
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        disk = disk_error_in(e)
        if disk is None or not about_cache(disk, cache_dir):
            raise
        raise cache_write_error(cache_dir, disk, what) from e
    final = read_entry(entry, ext)
    if final is None:  # pragma: no cover - only if the entry vanished between rename and read
        raise ModelError(f"cache entry {entry} disappeared while it was written",
                         hint="another process may be cleaning the cache; try again")
    return dataclasses.replace(final, cache_hit=False)
