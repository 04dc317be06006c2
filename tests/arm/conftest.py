"""Fixtures of the aarch64 lane: the arm64 board roots of tests/lanes/arm_recipes.py as boards behind a real sshd.

The roots are built, restored or reused once per session by scripts/build-arm-roots.py (as root) under
$EDGEPROF_ARM_CACHE, else the user's ~/.cache/edgeprof/arm-roots (read at import, before tests/conftest.py points
HOME at a temp dir). A root that could not be had FAILS its tests with the builder's reason; nothing is skipped.
Each venv of a root is a board: the host's sshd on loopback (tests/integration/sshd.py), the venv's wrapper
(`python-<venv>`: chroot into the root, Arm cpuinfo mounted) as the device's `python:`, a workdir inside the root.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 3600.0

sys.path.insert(0, str(REPO / "tests" / "arm"))
# the real-sshd fixtures of tests/integration (ssh_lab, client_home), loaded under their own name
sys.path.insert(0, str(REPO / "tests" / "integration"))
_spec = importlib.util.spec_from_file_location("integration_fixtures", REPO / "tests" / "integration" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)
ssh_lab, sshd_hosts, client_home = _fixtures.ssh_lab, _fixtures.sshd_hosts, _fixtures.client_home

from arm_recipes import ROOT_BY_NAME  # noqa: E402
from armlab import BUILDER, CACHE, ORIG_ENV, STACKS_ARTIFACTS, ArmBoard, device_yaml, venv_of  # noqa: E402
from sshd import SSHLab  # noqa: E402

# the builder's report entries, by root name: filled once the session's tests are collected (outside any test's
# timeout: a cold build takes half an hour), for the roots the selected tests need
_REPORTS: dict[str, dict[str, object]] = {}


def _run_builder(names: list[str], out: Path) -> str | None:
    """Run the builder for these roots into _REPORTS; the reason when it wrote no report."""
    args = [sys.executable, str(BUILDER), "--cache", str(CACHE), "--json", str(out)]
    for n in names:
        args += ["--only", n]
    try:
        p = subprocess.run(args, env=ORIG_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        return f"scripts/build-arm-roots.py did not finish in {BUILD_TIMEOUT_S:.0f} s: {e.stdout!r:.2000}"
    sys.stderr.write(p.stdout)
    if not out.exists():
        return f"scripts/build-arm-roots.py wrote no report (exit {p.returncode}): {p.stdout[-2000:]}"
    for e in json.loads(out.read_text())["roots"]:
        _REPORTS[str(e["name"])] = e
    return None


def roots_needed(item: pytest.Item) -> set[str]:
    """The roots a lane test runs on: its `venv` or `root` parameter; every root for a test that uses the
    roots without one; none for a test that uses no root."""
    if "arm_root" not in getattr(item, "fixturenames", ()):
        return set()
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "venv" in params:
        return {venv_of(params["venv"])[0].name}
    if "root" in params:
        return {params["root"]}
    return set(ROOT_BY_NAME)


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    needed = sorted(set().union(*(roots_needed(i) for i in session.items)) if session.items else set())
    if needed:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="edgeprof-arm-report-") as tmp:
            why = _run_builder(needed, Path(tmp) / "report.json")
        for name in needed:
            if why is not None:
                _REPORTS.setdefault(name, {"name": name, "status": "failed", "error": why})


@pytest.fixture(scope="session")
def arm_report(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, object]]:
    """arm_report(name) → the builder's report entry of that root (status built / restored / reused / failed):
    from the run after collection, else (a root no collected test named) from a run of its own now."""
    def get(name: str) -> dict[str, object]:
        if name not in _REPORTS:
            why = _run_builder([name], tmp_path_factory.mktemp("arm") / "report.json")
            if why is not None:
                pytest.fail(why)
        return _REPORTS[name]
    return get


@pytest.fixture(scope="session")
def arm_root(arm_report: Callable[[str], dict[str, object]]) -> Callable[[str], dict[str, object]]:
    """arm_root(name) → the report entry of a ready root; FAILS the test (with the reason) when it is not."""
    def get(name: str) -> dict[str, object]:
        entry = arm_report(name)
        if entry["status"] == "failed":
            pytest.fail(f"aarch64 root {name} could not be built: {entry['error']}")
        return entry
    return get


@pytest.fixture(scope="session")
def artifact_cache() -> Path:
    """Exports of the bundled models persist, so a rerun of the lane exports nothing: in the stack-matrix lane's
    artifact cache (tests/stacks), which holds ds_cnn's fp32 exports for the same onnxruntime releases already
    when that lane ran first (as in CI). Content-addressed by export options: sharing it is safe."""
    d = STACKS_ARTIFACTS
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def arm_board(ssh_lab: SSHLab, client_home: Path, arm_root: Callable[[str], dict[str, object]], artifact_cache: Path,
              monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ArmBoard]:
    """arm_board(venv name) → that venv of its root as a board (devices.yaml written, host key trusted); one sshd
    per root, started on first use and kept for the session."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(artifact_cache))

    def make(venv_name: str) -> ArmBoard:
        root, venv = venv_of(venv_name)
        entry = arm_root(root.name)
        host = ssh_lab.shared_host(root.name, client_home / ".ssh" / "known_hosts")
        workdir = Path(str(entry["tree"])) / "var" / "tmp" / "edgeprof" / f"work-{venv.name}"
        workdir.mkdir(parents=True, exist_ok=True)
        board = ArmBoard(root=root, venv=venv, entry=entry, device=f"arm-{venv.name}",
                         inventory=client_home.parent / "devices.yaml", workdir=workdir, host=host)
        board.inventory.write_text("version: 1\ndevices:\n" + device_yaml(board, ssh_lab))
        return board
    return make


