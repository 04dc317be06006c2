"""Fixtures for the phone tests: the real adb clients found here, a stand-in phone (phone_adbd.py + phone_tree.py) on a
loopback port outside 5555–5585, and a private adb server port per test whose server is killed afterwards (only
ours: `adb kill-server` on that port). EDGEPROF_REQUIRE_ADB=1 (CI) makes a missing client or stand-in a failure."""

from __future__ import annotations

import glob
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import phone_adbd as adbd  # noqa: E402
import phone_tree as tree  # noqa: E402


def _missing(reason: str) -> None:
    if os.environ.get("EDGEPROF_REQUIRE_ADB"):
        pytest.fail(f"EDGEPROF_REQUIRE_ADB is set but {reason}")
    pytest.skip(reason)


def clients() -> list[pytest.param]:
    """Debian's adb (29) and adbutils' bundled adb (36), each where installed."""
    found = []
    debian = "/usr/bin/adb"
    found.append(pytest.param(debian if os.path.exists(debian) else None, id="debian-adb"))
    try:
        import adbutils

        bundled: str | None = str(adbutils.adb_path())
    except Exception:  # noqa: BLE001
        bundled = next(iter(glob.glob(os.path.join(sys.prefix, "lib/python*/site-packages/adbutils/binaries/adb"))),
                       None)
    found.append(pytest.param(bundled, id="adbutils-adb"))
    return found


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5555 <= port <= 5585:
            return port


@pytest.fixture(params=clients())
def adb_client(request: pytest.FixtureRequest) -> str:
    path = request.param
    if path is None or not os.path.exists(path):
        _missing(f"adb client {request.node.callspec.id} is not installed")
    return str(path)


@pytest.fixture
def server_port(adb_client: str):
    port = free_port()
    yield port
    try:
        subprocess.run([adb_client, "kill-server"], env=dict(os.environ, ANDROID_ADB_SERVER_PORT=str(port)),
                       capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:  # a wedged server (seen once under load): kill it by the port it serves
        subprocess.run(["pkill", "-9", "-f", f"tcp:(localhost:)?{port} fork-server"], capture_output=True, timeout=10)


@pytest.fixture
def phone_root(tmp_path: Path) -> Path:
    reason = adbd.can_run()
    if reason is not None:
        _missing(reason)
    return tree.build(tmp_path / "phone")


@pytest.fixture
def phone(phone_root: Path):
    d = adbd.StandInAdbd(phone_root)
    yield d
    d.close()

