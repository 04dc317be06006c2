"""The agent's lease files (issue 14 item 6): never follow a symbolic link planted in the workdir, created 0600;
a full or read-only disk is named as such (ErrorKind.DISK), not reported as an agent bug."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from edgeprof_agent import lease
from edgeprof_agent.__main__ import disk_error
from edgeprof_agent.protocol import OpError
from edgeprof_agent.vocab import ErrorKind


def test_lease_and_log_are_created_private(tmp_path):
    old = os.umask(0o022)
    try:
        lz = lease.Lease(str(tmp_path), on_expire=lambda: None)
        got = lz.acquire({"controller": "c"}, ttl_s=60)
        assert got["acquired"]
        lz.release()
    finally:
        os.umask(old)
    for name in (lease.LEASE_FILE, lease.LOG_FILE):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name


def test_a_planted_symlink_log_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / lease.LOG_FILE).symlink_to(victim)
    lz = lease.Lease(str(work), on_expire=lambda: None)
    assert lz.acquire({"controller": "c"}, ttl_s=60)["acquired"]
    lz.release()
    assert victim.read_text() == "precious\n"


def test_a_planted_symlink_lease_is_refused(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / lease.LEASE_FILE).symlink_to(victim)
    lz = lease.Lease(str(work), on_expire=lambda: None)
    with pytest.raises(OpError) as info:
        lz.acquire({"controller": "c"}, ttl_s=60)
    assert info.value.type == ErrorKind.BAD_PATH and "symbolic link" in info.value.message
    assert victim.read_text() == "precious\n"
    assert lease.read_holder(str(work / lease.LEASE_FILE)) == {}


@pytest.mark.parametrize(("code", "word"), [(errno.ENOSPC, "full"), (errno.EROFS, "read-only")])
def test_disk_errors_name_the_disk_and_the_workdir(code, word):
    e = disk_error(OSError(code, os.strerror(code), "/w/artifacts/x.part"), "/w")
    assert e.type == ErrorKind.DISK
    assert e.message == f"the board's disk is {word} at /w"
