"""File modes of what edgeprof writes on the host: private by default.

Owns: the rule. The results database (SQLite file), its folder, recovery files and the export and agent caches
are created owner-only (files 0600, folders 0700). The user's umask still applies on top: a stricter umask
(e.g. 0277) narrows the mode further; a more permissive one (e.g. 0002) does not widen it — to share a results
database, chmod it (edgeprof leaves the mode of an existing file or folder alone) or use PostgreSQL.
Does not own: what goes in those files (store.py, export/).
"""

from __future__ import annotations

import os
from pathlib import Path


def private_mode(mode: int) -> int:
    """`mode` narrowed to the owner and further by the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return mode & 0o700 & ~umask


def make_private_dir(path: Path) -> None:
    """Create `path` and any missing parents as private folders; folders that exist are left as they are."""
    missing: list[Path] = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(d, private_mode(0o700))  # mkdir's mode is only masked by the umask: be exact
