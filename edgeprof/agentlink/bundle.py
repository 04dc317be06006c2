"""The agent zipapp: built from edgeprof_agent's sources, deterministic (sorted entries, fixed timestamps), named
by its sha256 (agent-<sha256>.pyz in a private cache directory).

Owns: building it. Does not own: pushing it (push.py) or starting it (session.py).
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import tempfile
import zipfile
from pathlib import Path

import edgeprof_agent

from ..fsmode import make_private_dir

_ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def _agent_source_files() -> list[tuple[str, Path]]:
    base = Path(edgeprof_agent.__file__).resolve().parent
    files = []
    for p in sorted(base.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        files.append(("edgeprof_agent/" + p.relative_to(base).as_posix(), p))
    return files


def build_agent_bytes() -> bytes:
    """The agent zipapp as bytes: deterministic (sorted entries, fixed timestamps), so its hash names it."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        main = "import sys\nfrom edgeprof_agent.__main__ import main\nsys.exit(main())\n"
        info = zipfile.ZipInfo("__main__.py", _ZIP_TIME)
        info.external_attr = 0o644 << 16
        zf.writestr(info, main)
        for arcname, path in _agent_source_files():
            info = zipfile.ZipInfo(arcname, _ZIP_TIME)
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def build_agent(cache_dir: Path | None = None) -> tuple[Path, str]:
    """Write the agent zipapp to the cache as agent-<sha256>.pyz; returns (path, sha256)."""
    data = build_agent_bytes()
    sha = hashlib.sha256(data).hexdigest()
    cache_dir = cache_dir or Path(tempfile.gettempdir()) / f"edgeprof-agent-{os.getuid()}"
    make_private_dir(cache_dir)
    path = cache_dir / f"agent-{sha}.pyz"
    if not path.exists():
        tmp = path.with_suffix(f".tmp{secrets.token_hex(4)}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path, sha
