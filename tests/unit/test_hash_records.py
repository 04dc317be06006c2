"""export/hashes.py's records: processes hashing the same file at once leave one whole record; a hashes folder that
cannot be written costs a read, never an error; a file changed while it was read is not remembered."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edgeprof.export import hashes

REPO = Path(__file__).resolve().parents[2]


def test_concurrent_processes_leave_one_whole_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "m.bin"
    f.write_bytes(b"x" * (3 << 20))
    settle(f)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    code = ("import sys; from pathlib import Path; from edgeprof.export.hashes import sha256_of; "
            "print(sha256_of(Path(sys.argv[1])))")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONPATH": f"{REPO}:{REPO / 'agents'}", "PATH": "/usr/bin:/bin"}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(f)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(6)]
    outs = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert outs == {hashlib.sha256(f.read_bytes()).hexdigest()}
    records = list(hashes.hashes_dir().glob("*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["value"] in outs
    assert not list(hashes.hashes_dir().glob(".tmp-*"))


def test_an_unwritable_hashes_folder_costs_a_read_not_an_error(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "m.bin"
    f.write_bytes(b"y" * 1000)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    hashes.hashes_dir().parent.mkdir(parents=True)
    hashes.hashes_dir().write_text("a file where the folder would be")
    calls = []
    value = hashes.remembered("sha256", [f], lambda: calls.append(1) or hashlib.sha256(f.read_bytes()).hexdigest())
    assert value == hashlib.sha256(b"y" * 1000).hexdigest() and calls == [1]
    hashes.remembered("sha256", [f], lambda: calls.append(1) or value)
    assert calls == [1, 1]


def settle(f: Path) -> None:
    time.sleep(max(0.0, hashes.RACY_S - (time.time() - f.stat().st_ctime)) + 0.05)


def test_a_file_changed_lately_is_remembered_only_once_settled(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "m.bin"
    f.write_bytes(b"v" * 1000)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    hashes.sha256_of(f)
    assert not hashes.hashes_dir().exists() or not list(hashes.hashes_dir().glob("*.json"))
    settle(f)
    hashes.sha256_of(f)
    assert len(list(hashes.hashes_dir().glob("*.json"))) == 1


def test_a_file_changed_while_it_was_read_is_not_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "m.bin"
    f.write_bytes(b"z" * 1000)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(hashes, "RACY_S", 0.0)  # only the stat before and after the read decides here

    def racing() -> str:
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        f.write_bytes(b"w" * 1000)  # a writer finished just after the read
        return digest

    hashes.remembered("sha256", [f], racing)
    assert not hashes.hashes_dir().exists() or not list(hashes.hashes_dir().glob("*.json"))
    assert hashes.sha256_of(f) == hashlib.sha256(b"w" * 1000).hexdigest()
