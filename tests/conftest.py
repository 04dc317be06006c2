"""Test-wide isolation: every test session (each pytest-xdist worker) gets its own HOME, XDG dirs and results
database, so nothing touches the user's ~/.cache, ~/.local/share or ~/.ssh (onnxruntime also writes under HOME).
What is expensive to build and only read afterwards is shared by the run's workers: the export cache
($EDGEPROF_CACHE) and the bundled models' exports (`bundled_onnx`), built under a file lock (`shared_lock`)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
# the board-stack profiles and aarch64 recipes the lanes and their scripts share (nothing in edgeprof/ reads them)
sys.path.insert(0, str(REPO / "tests" / "lanes"))


@pytest.fixture(autouse=True)
def _fresh_sigint():
    """Each test starts with SIGINT as a fresh process has it: Python's handler, and edgeprof's interrupts module
    not installed. A test that calls the CLI in-process leaves the worker with edgeprof's handler, or with SIGINTs
    only counted after `settle()`; a later test in that worker that sends SIGINT (to itself, or to a child started
    from it) then met that state, not a fresh process's, and failed by the order xdist dealt the tests in."""
    import signal

    from edgeprof import interrupts

    def reset() -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)
        interrupts._installed = False
        interrupts._exit_quiet = False

    reset()
    yield
    reset()


@pytest.fixture(scope="session", autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                                             "EDGEPROF_DB", "EDGEPROF_CACHE")}
    os.environ["HOME"] = str(home)
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ.pop("EDGEPROF_DB", None)
    os.environ.pop("EDGEPROF_CACHE", None)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # one export cache for all the run's workers, as a serial run has one for the session: a model one worker
        # exported is cached for the others (the cache writes entries atomically; two builders of one key are safe)
        os.environ["EDGEPROF_CACHE"] = str(run_dir(tmp_path_factory, "artifacts"))
    yield home
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


class SharedExports:
    """The bundled models' ONNX exports, each done once per run (torch → ONNX of mobilenet_v2 alone is 30–60 s
    on 2 cores): `shared(name)` → (Artifact, progress messages) of a *fresh* export (cache_hit False,
    "exporting" in the messages) into `dir`, a directory no test writes to. Under pytest-xdist `dir` is shared by
    all the run's workers: the first to ask for a model exports it under a file lock (fcntl) and leaves the
    Artifact and messages in `records` as JSON; the others wait on the lock and read them. Each entry is also copied
    into the worker's default artifact cache (tests/conftest.py: $XDG_CACHE_HOME/edgeprof/artifacts), unless an
    earlier test exported it there already, so deploys of the model later in the session find it cached."""

    def __init__(self, root: Path, default_cache: Path) -> None:
        self.dir = root
        self.records = root.with_name(root.name + "-records")  # beside the cache, not in it
        self.records.mkdir(exist_ok=True)
        self.default_cache = default_cache
        self._done: dict[str, tuple[Any, list[str]]] = {}

    def __call__(self, name: str) -> tuple[Any, list[str]]:
        if name not in self._done:
            from edgeprof.records import Artifact

            record = self.records / f"{hashlib.sha256(name.encode()).hexdigest()[:16]}.json"
            with shared_lock(record.with_suffix(".lock")):
                if not record.exists():
                    artifact, messages = self._export(name)
                    tmp = record.with_suffix(f".tmp{os.getpid()}")
                    tmp.write_text(json.dumps({"artifact": artifact.to_dict(), "messages": messages}))
                    os.replace(tmp, record)
            done = json.loads(record.read_text())
            artifact = Artifact.from_dict(done["artifact"])
            self._seed(Path(artifact.path).parent)
            self._done[name] = (artifact, list(done["messages"]))
        return self._done[name]

    def _export(self, name: str) -> tuple[Any, list[str]]:
        from edgeprof.export.onnx_export import prepare_onnx
        from edgeprof.export.resolve import resolve_model

        messages: list[str] = []
        artifact = prepare_onnx(resolve_model(name), cache_dir=self.dir, progress=messages.append)
        return artifact, messages

    def copy_into(self, name: str, cache_dir: Path) -> Path:
        """A test's own copy of the shared entry of `name` in `cache_dir` (which then holds the entry a first
        export would have written there); returns the entry directory."""
        entry = Path(self(name)[0].path).parent
        self._seed(entry, Path(cache_dir))
        return Path(cache_dir) / entry.name

    def _seed(self, entry: Path, cache: Path | None = None) -> None:
        cache = self.default_cache if cache is None else cache
        target = cache / entry.name
        if target.exists():
            return
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".seed-", dir=cache))
        shutil.copytree(entry, tmp / entry.name)
        try:
            os.rename(tmp / entry.name, target)  # whole or not at all, as the cache itself writes entries
        except OSError:
            pass  # written meanwhile by a deploy: theirs is as good
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def shared_lock(path: Path) -> Iterator[None]:
    """An exclusive fcntl lock on `path` (created), held for the block: one builder at a time across the run's
    xdist workers (and any other process taking the same lock)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A directory `name` shared by every xdist worker of this run (beside their basetemps popen-gwN), or the
    session's own when the run has no workers. Writers take `shared_lock` on a file inside it."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.getbasetemp().parent / name
        path.mkdir(exist_ok=True)
        return path
    return tmp_path_factory.mktemp(name, numbered=False)


@pytest.fixture(scope="session")
def bundled_onnx(_isolated_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Any]:
    """The run's shared ONNX exports of the bundled models (SharedExports): read them, never write to them."""
    from edgeprof.export.artifact_cache import default_cache_dir

    return SharedExports(run_dir(tmp_path_factory, "bundled-onnx"), default_cache_dir())


@pytest.fixture
def python_exe() -> str:
    return sys.executable


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL for the whole session (tests/pg.py); skipped only when it cannot run here and
    EDGEPROF_REQUIRE_PG is unset (CI sets it: a missing PostgreSQL must fail, not skip)."""
    from pg import PgServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        if os.environ.get("EDGEPROF_REQUIRE_PG"):
            pytest.fail(f"EDGEPROF_REQUIRE_PG is set but {reason}")
        pytest.skip(reason)
    server = PgServer()
    try:
        server.init()
        server.start()
    except Exception:
        server.cleanup()
        raise
    yield server
    server.cleanup()


@pytest.fixture
def pg_url(pg_server) -> str:
    """A SQLAlchemy URL of a fresh, empty database on the session's PostgreSQL."""
    return str(pg_server.create_database())
