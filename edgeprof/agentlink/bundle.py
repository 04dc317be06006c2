"""The agent zipapp: built from edgeprof_agent's sources, deterministic (sorted entries, fixed timestamps), named
by its sha256 (agent-<sha256>.pyz in a private cache directory). Beside each source it holds that source's
bytecode for the host's Python, which a device running the same Python imports instead of compiling. The bytecode
is compiled in a fresh interpreter with a fixed hash seed: marshal's output depends on the compiling process's
reference counts (which constants it marks as shared) and a frozenset constant's order on the hash seed, so bytecode
compiled inside a long-running host process differed from one build to the next (the test suite saw it).

Owns: building it. Does not own: pushing it (push.py) or starting it (link.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import marshal
import os
import secrets
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import edgeprof_agent

from ..files.modes import make_private_dir

_ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def _agent_source_files() -> list[tuple[str, Path]]:
    base = Path(edgeprof_agent.__file__).resolve().parent
    files = []
    for p in sorted(base.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        files.append(("edgeprof_agent/" + p.relative_to(base).as_posix(), p))
    return files


_BUILT: dict[str, bytes] = {}  # _sources_key -> the zipapp built from those sources in this process


def _sources_key(files: list[tuple[str, Path]]) -> str:
    """What the zipapp is built from: this Python (the bytecode's) and each source's name, mtime and size."""
    stats = [(arcname, st.st_mtime_ns, st.st_size) for arcname, st in ((a, p.stat()) for a, p in files)]
    return hashlib.sha256(repr((sys.version, stats)).encode()).hexdigest()


def build_agent_bytes() -> bytes:
    """The agent zipapp as bytes: deterministic (sorted entries, fixed timestamps), so its hash names it. Built
    once per process while the agent's sources are unchanged (compiling them takes ~0.15 s)."""
    files = _agent_source_files()
    key = _sources_key(files)
    if key not in _BUILT:
        _BUILT.clear()
        _BUILT[key] = _zipapp(files)
    return _BUILT[key]


def _zipapp(files: list[tuple[str, Path]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        main = "import sys\nfrom edgeprof_agent.__main__ import main\nsys.exit(main())\n"
        info = zipfile.ZipInfo("__main__.py", _ZIP_TIME)
        info.external_attr = 0o644 << 16
        zf.writestr(info, main)
        for (arcname, path), code in zip(files, _compiled(files), strict=True):
            source = path.read_bytes()
            # beside each source its bytecode for this host's Python (an unchecked hash-based pyc, PEP 552): a
            # device with the same Python imports it without compiling (zipimport cannot cache what it compiles);
            # any other Python finds the magic number differs and compiles the source, as before
            pyc = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source) + code
            for name, data in ((arcname, source), (arcname + "c", pyc)):
                info = zipfile.ZipInfo(name, _ZIP_TIME)
                info.external_attr = 0o644 << 16
                zf.writestr(info, data)
    return buf.getvalue()


# compiles each (arcname, path) pair of argv and writes each code object's marshal bytes, length-prefixed
_COMPILE = ("import marshal, sys\n"
            "a = sys.argv[1:]\n"
            "for name, path in zip(a[::2], a[1::2]):\n"
            "    with open(path, 'rb') as f:\n"
            "        b = marshal.dumps(compile(f.read(), name, 'exec', dont_inherit=True))\n"
            "    sys.stdout.buffer.write(len(b).to_bytes(8, 'little') + b)\n")


def _compiled(files: list[tuple[str, Path]]) -> list[bytes]:
    """Each source's code object as marshal bytes, compiled by this Python in a fresh interpreter (-I, hash seed
    0): the same sources give the same bytes in every host process. Where no interpreter can be started (an
    embedded Python), compiled here."""
    args = [x for arcname, path in files for x in (arcname, str(path))]
    try:
        out = subprocess.run([sys.executable, "-I", "-c", _COMPILE, *args], capture_output=True, check=True,
                             timeout=120, env={"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "")}).stdout
    except (OSError, subprocess.SubprocessError):
        return [marshal.dumps(compile(path.read_bytes(), arcname, "exec", dont_inherit=True))
                for arcname, path in files]
    codes, i = [], 0
    while i < len(out):
        n = int.from_bytes(out[i:i + 8], "little")
        codes.append(out[i + 8:i + 8 + n])
        i += 8 + n
    return codes


def build_agent(cache_dir: Path | None = None) -> tuple[Path, str]:
    """Write the agent zipapp to the cache as agent-<sha256>.pyz; returns (path, sha256). The cache also says
    which zipapp the current sources give (sources-<key>: its sha256), so a new process finds it unbuilt."""
    cache_dir = cache_dir or Path(tempfile.gettempdir()) / f"edgeprof-agent-{os.getuid()}"
    make_private_dir(cache_dir)
    known = cache_dir / f"sources-{_sources_key(_agent_source_files())}"
    try:
        sha = known.read_text().strip()
    except OSError:
        sha = ""
    if len(sha) == 64 and (cache_dir / f"agent-{sha}.pyz").is_file():
        return cache_dir / f"agent-{sha}.pyz", sha
    data = build_agent_bytes()
    sha = hashlib.sha256(data).hexdigest()
    path = cache_dir / f"agent-{sha}.pyz"
    if not path.exists():
        _write(path, data)
    _write(known, sha.encode())
    return path, sha


def _write(target: Path, content: bytes) -> None:
    """Write a cache file whole or not at all (another process may be reading it)."""
    tmp = target.with_name(f"{target.name}.tmp{secrets.token_hex(4)}")
    tmp.write_bytes(content)
    os.replace(tmp, target)
