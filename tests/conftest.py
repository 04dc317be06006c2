"""Test-wide isolation: every test session gets its own HOME, XDG dirs and results database, so nothing
touches the user's ~/.cache, ~/.local/share or ~/.ssh (onnxruntime also writes under HOME)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


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
    yield home
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


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
