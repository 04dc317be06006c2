"""The lab queue's artifacts: exported models stored by sha256 in PostgreSQL, fetched into a worker's cache.

Owns: exporting each distinct model of a sweep's cells once at submit (by lab/cell.export_key, the key the local
sweep uses too; a generation cell is not exported here: its worker's generation kind builds its GGUF or
onnxruntime-genai folder, cached there), a deterministic tar of an artifact-cache entry, storing it once, unpacking it safely on a worker.
Does not own: exporting (run.prepare, export/), the cache directory (export/).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from ...errors import ModelError, StoreError, UserError
from ...records import utc_now
from ...store import Store
from ..cell import Cell, export_key
from .db import lab_artifacts


def tar_entry(entry: Path) -> bytes:
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


# one PostgreSQL bytea value holds at most 1 GB; the tar is built in memory and sent as one value
BYTEA_LIMIT = 1_000_000_000 - (1 << 20)


def put_artifact(store: Store, entry: Path) -> dict[str, str]:
    """Store one artifact-cache entry directory by the sha256 of its tar (once); returns its reference.
    An entry past BYTEA_LIMIT is refused in one line (ModelError): its cell fails, the sweep goes on."""
    size = sum(p.stat().st_size for p in entry.rglob("*") if p.is_file() and not p.name.startswith("."))
    if size > BYTEA_LIMIT:
        raise ModelError(f"{entry.name}: {size / 2**30:.2f} GiB of exported model is too large for the lab queue "
                         f"(one PostgreSQL value holds at most 1 GB): queued sweeps of such models are not supported "
                         f"yet", hint="run this model with edgeprof sweep on one controller (no --queue)")
    blob = tar_entry(entry)
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



# export key → artifact references, and export key → the error of a model that failed to export
Exported = tuple[dict[tuple[Any, ...], list[dict[str, str]]], dict[tuple[Any, ...], UserError]]


def export_cells(store: Store, cells: Sequence[Cell], cache_dir: Path | None = None,
                 say: Callable[[str], None] | None = None) -> Exported:
    """Export each distinct model of the cells once, here, and store its cache entries in the database.
    Returns export key → artifact references, and export key → the error of a model that failed to export."""
    from ... import run as measurement
    from ...export.onnx_export import default_cache_dir

    cache = cache_dir or default_cache_dir()
    refs: dict[tuple[Any, ...], list[dict[str, str]]] = {}
    errors: dict[tuple[Any, ...], UserError] = {}
    for c in cells:
        if c.skip or c.runtime == "null" or not c.forward_pass:  # another kind's worker builds its model (cached)
            continue
        key = export_key(c)
        if key in refs or key in errors:
            continue
        if say is not None:
            say(f"exporting {c.model_label} ({c.runtime} {c.precision})")
        try:
            prepared = measurement.prepare(c.run_spec(), cache, None)
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
        try:
            refs[key] = [put_artifact(store, e) for e in entries]
        except ModelError as e:
            errors[key] = e
    return refs, errors

