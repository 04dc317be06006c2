"""No measurement is lost (issue 14 item 2) and the results database is private (item 7): a SQLite database held
locked by another process, a corrupt file, a foreign database, file and directory modes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edgeprof.cli.main import main
from edgeprof.errors import StoreError
from edgeprof.records import Environment, Memory, Result, new_run_id, utc_now
from edgeprof.store import Store, recovery_dir

HOLDER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
"""


def make_result() -> Result:
    return Result(run_id=new_run_id(), status="ok", created_at=utc_now(), device="pi", model="m",
                  runtime="onnxruntime", precision="fp32", batch=1, threads=None, latency_ms=None,
                  throughput_ips=1.0, memory_mb=Memory(peak_rss=10.0), power=None, thermal=None, fidelity=None,
                  environment=Environment(), warnings=[], samples_ms=[1.0])


def hold_lock(db: Path, seconds: float) -> subprocess.Popen[str]:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "locked"
    return p


def test_a_locked_database_is_retried_until_it_frees(tmp_path):
    db = tmp_path / "r.sqlite"
    store = Store(str(db), busy_timeout_s=0.2, save_retries=4, save_backoff_s=0.2)
    holder = hold_lock(db, 0.8)
    try:
        r = make_result()
        store.save(r)  # waits, retries, succeeds once the other writer commits
    finally:
        holder.wait(10)
    assert store.get(r.run_id).run_id == r.run_id
    assert not (recovery_dir() / f"{r.run_id}.json").exists()


def test_a_database_locked_for_good_writes_a_recovery_file_that_imports(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    store = Store(str(db), busy_timeout_s=0.1, save_retries=2, save_backoff_s=0.05)
    r = make_result()
    holder = hold_lock(db, 30)
    try:
        started = time.monotonic()
        with pytest.raises(StoreError) as info:
            store.save(r)
        assert time.monotonic() - started < 10  # bounded
    finally:
        holder.kill()
        holder.wait(10)
    saved = recovery_dir() / f"{r.run_id}.json"
    line = info.value.one_line()
    assert line == (f"results database {db} stayed locked by another program (3 attempts): run {r.run_id} was "
                    f"saved to {saved} — store it later with: edgeprof results import {saved}")
    assert json.loads(saved.read_text())["run_id"] == r.run_id
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert main(["results", "import", str(saved), "--db", str(db)]) == 0
    assert f"stored run {r.run_id}" in capsys.readouterr().out
    assert Store(str(db)).get(r.run_id).to_dict() == r.to_dict()
    # importing it twice says so in one line
    assert main(["results", "import", str(saved), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "already stored" in err and len(err.strip().splitlines()) == 1


def test_deploy_json_is_kept_and_the_run_recovered_when_the_database_stays_locked(tmp_path, capsys, monkeypatch):
    import edgeprof.store as store_mod

    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_S", 0.1)
    monkeypatch.setattr(store_mod, "SAVE_RETRIES", 1)
    monkeypatch.setattr(store_mod, "SAVE_BACKOFF_S", 0.05)
    import edgeprof.runner as runner_mod

    db = tmp_path / "r.sqlite"
    Store(str(db))
    out_json = tmp_path / "r.json"
    holders = []
    real_deploy = runner_mod.deploy

    def deploy_then_lock(*a, **kw):  # another writer takes the database while this run measures
        result = real_deploy(*a, **kw)
        holders.append(hold_lock(db, 60))
        return result

    monkeypatch.setattr(runner_mod, "deploy", deploy_then_lock)
    try:
        code = main(["deploy", "--device", "local", "--model", "m", "--runtime", "null", "--min-duration", "0.1",
                     "--min-queries", "3", "--warmup", "0", "--db", str(db), "--json", str(out_json), "--quiet"])
    finally:
        for holder in holders:
            holder.kill()
            holder.wait(10)
    err = capsys.readouterr().err
    assert holders and code == 2 and "Traceback" not in err
    run_id = json.loads(out_json.read_text())["run_id"]
    assert f"run {run_id} was saved to" in err and "edgeprof results import" in err
    assert (recovery_dir() / f"{run_id}.json").exists()


def test_a_corrupt_database_file_is_one_line(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    db.write_bytes(b"this is not a database" * 200)
    with pytest.raises(StoreError) as info:
        Store(str(db))
    assert str(db) in info.value.message and "not a readable SQLite database" in info.value.message
    assert f"mv {db} {db}.bad" in (info.value.hint or "")
    assert main(["results", "list", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_foreign_database_is_refused_and_left_untouched(tmp_path):
    import sqlite3

    db = tmp_path / "other.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not an edgeprof database .*invoices"):
        Store(str(db))
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["invoices"]
    con.close()


def test_the_database_is_private_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("EDGEPROF_DB", raising=False)
    old = os.umask(0o022)
    try:
        store = Store()
        store.save(make_result())
    finally:
        os.umask(old)
    path = tmp_path / "data" / "edgeprof" / "results.sqlite"
    assert store.path == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_stricter_umask_is_respected(tmp_path):
    old = os.umask(0o077 | 0o200)  # also no write for the owner's group bits... and owner write off
    try:
        Store(str(tmp_path / "s.sqlite"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "s.sqlite").stat().st_mode) == 0o400


def test_caches_are_private(tmp_path):
    from edgeprof.agentlink import build_agent
    from edgeprof.fsmode import make_private_dir

    old = os.umask(0o022)
    try:
        path, _ = build_agent(tmp_path / "agent" / "cache")
        make_private_dir(tmp_path / "exports" / "onnx")
    finally:
        os.umask(old)
    for d in (path.parent, path.parent.parent, tmp_path / "exports", tmp_path / "exports" / "onnx"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    existing = tmp_path / "shared"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    make_private_dir(existing)  # a folder the user made stays as they made it
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755


def test_the_export_cache_is_created_private(tmp_path):
    from edgeprof.export.artifact_cache import build_cached

    cache = tmp_path / "xdg-cache" / "edgeprof" / "export"
    old = os.umask(0o022)
    try:
        try:
            build_cached(cache, "k" * 64, "onnx", lambda p: (_ for _ in ()).throw(RuntimeError("stop")))
        except Exception:
            pass  # the build itself is not the point: the folders it made are
    finally:
        os.umask(old)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.parent.stat().st_mode) == 0o700


DEPLOY = ["deploy", "--device", "local", "--model", "m", "--runtime", "null", "--min-duration", "0.1",
          "--min-queries", "3", "--warmup", "0", "--quiet"]


def test_an_unwritable_json_path_is_refused_before_measuring(tmp_path, capsys, monkeypatch):
    import edgeprof.runner as runner_mod

    monkeypatch.setattr(runner_mod, "deploy", lambda *a, **kw: pytest.fail("measured before checking --json"))
    for bad in (tmp_path / "nosuch" / "r.json", tmp_path):
        assert main([*DEPLOY, "--db", str(tmp_path / "r.sqlite"), "--json", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"edgeprof: error: --json {bad}: ") and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_json_write_failing_after_measuring_still_stores_the_run(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    code = main([*DEPLOY, "--db", str(db), "--json", "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.startswith("edgeprof: error: --json /dev/full: cannot write it (No space left on device); the run "
                          "is stored as ")
    assert Store(str(db)).count() == 1
