"""Fixtures of the stack-matrix lane: the board stack stand-in venvs (scripts/build-stack-venvs.py).

The venvs are built (or reused) once per session under a cache keyed by each profile's hash: $EDGEPROF_STACKS_CACHE,
else the user's ~/.cache/edgeprof/stacks (read at import, before tests/conftest.py points HOME at a temp dir).
A stack whose venv could not be built FAILS its tests with the builder's reason; nothing is skipped silently.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILDER = REPO / "scripts" / "build-stack-venvs.py"
ORIG_ENV = dict(os.environ)
CACHE = Path(os.environ.get("EDGEPROF_STACKS_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "edgeprof" / "stacks")

# the real-sshd fixtures of tests/integration (ssh_lab, sshd_hosts, client_home), loaded under their own name
sys.path.insert(0, str(REPO / "tests" / "integration"))
_spec = importlib.util.spec_from_file_location("integration_fixtures", REPO / "tests" / "integration" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)
ssh_lab, sshd_hosts, client_home = _fixtures.ssh_lab, _fixtures.sshd_hosts, _fixtures.client_home


@pytest.fixture(scope="session")
def stack_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """The builder's report entry per profile name (status built / reused / failed, versions found)."""
    out = tmp_path_factory.mktemp("stacks") / "report.json"
    p = subprocess.run([sys.executable, str(BUILDER), "--cache", str(CACHE), "--json", str(out)], env=ORIG_ENV,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=3600)
    sys.stderr.write(p.stdout)
    if not out.exists():
        pytest.fail(f"scripts/build-stack-venvs.py wrote no report (exit {p.returncode}): {p.stdout[-2000:]}")
    return {str(e["name"]): e for e in json.loads(out.read_text())["stacks"]}


@pytest.fixture(scope="session")
def stack_entry(stack_report: dict[str, dict[str, object]]) -> Callable[[str], dict[str, object]]:
    """stack_entry(name) → the report entry of a built venv; fails the test (with the reason) when it is not."""
    def get(name: str) -> dict[str, object]:
        entry = stack_report[name]
        if entry["status"] == "failed":
            pytest.fail(f"stack {name}: its venv could not be built: {entry['error']}")
        return entry
    return get


@pytest.fixture(scope="session")
def stack_cache() -> Path:
    """The cache directory of the stand-in venvs (what the lane's builder run uses)."""
    return CACHE


@pytest.fixture(scope="session")
def artifact_cache() -> Path:
    """Exports of the bundled models persist beside the venvs, so a rerun of the lane exports nothing."""
    d = CACHE / "artifacts"
    d.mkdir(parents=True, exist_ok=True)
    return d
