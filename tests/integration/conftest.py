"""Fixtures for integration tests against real OpenSSH sshd servers on loopback (see sshd.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sshd import SSHLab, missing_reason


@pytest.fixture(scope="session")
def ssh_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHLab]:
    """Client keys for the session; hosts started through `sshd_hosts`. Skips when sshd is not installed."""
    reason = missing_reason()
    if reason:
        if os.environ.get("EDGEPROF_REQUIRE_SSHD"):  # CI sets this: a missing sshd must fail, not skip
            pytest.fail(f"EDGEPROF_REQUIRE_SSHD is set but {reason}")
        pytest.skip(reason)
    lab = SSHLab(tmp_path_factory.mktemp("sshlab"))
    yield lab
    lab.stop_all()


@pytest.fixture
def sshd_hosts(ssh_lab: SSHLab, tmp_path: Path) -> Iterator[SSHLab]:
    """The lab, with every host started in this test stopped afterwards. `ssh_lab.start_host(name, ...)`."""
    before = list(ssh_lab.hosts)
    yield ssh_lab
    for h in ssh_lab.hosts[:]:
        if h not in before:
            ssh_lab.stop_host(h)
            ssh_lab.hosts.remove(h)


@pytest.fixture
def three_hosts(sshd_hosts: SSHLab) -> list:  # type: ignore[type-arg]
    """Three devices on distinct ports, each with its own workdir (one with a space) and env."""
    base = sshd_hosts.base
    return [
        sshd_hosts.start_host("alpha", workdir=str(base / "work alpha" / "edgeprof"), env={"EDGEPROF_T": "a b"}),
        sshd_hosts.start_host("beta", env={"EDGEPROF_T": "beta", "OMP_NUM_THREADS": "1"}),
        sshd_hosts.start_host("gamma", env={"EDGEPROF_T": "$(touch pwned);'\""}),
    ]


@pytest.fixture
def client_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean HOME for the client side: no ~/.ssh keys, config or known_hosts; no ssh-agent."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.chdir(tmp_path)
    os.chmod(home / ".ssh", 0o700)
    return home
