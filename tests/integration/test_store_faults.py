"""No measurement is lost (issue 14 item 2) and the results database is private (item 7): a SQLite database held
locked by another process, a corrupt file, a foreign database, file and directory modes."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
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
    import edgeprof.store.db as store_mod

    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_S", 0.1)
    monkeypatch.setattr(store_mod, "SAVE_RETRIES", 1)
    monkeypatch.setattr(store_mod, "SAVE_BACKOFF_S", 0.05)
    import edgeprof.session as runner_mod

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
    from edgeprof.files.modes import make_private_dir

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
    import edgeprof.session as runner_mod

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


def test_a_recovery_file_is_imported_and_removed_by_the_next_successful_save(tmp_path):
    """A run saved to a recovery file while the database was locked is stored by the next save that works, and
    its files removed; a recovery file meant for another database is left alone."""
    db, other = tmp_path / "r.sqlite", tmp_path / "other.sqlite"
    store = Store(str(db), busy_timeout_s=0.1, save_retries=1, save_backoff_s=0.05)
    lost, elsewhere = make_result(), make_result()
    stores = {db: Store(str(db), busy_timeout_s=0.1, save_retries=0),
              other: Store(str(other), busy_timeout_s=0.1, save_retries=0)}
    for path, r in ((db, lost), (other, elsewhere)):
        holder = hold_lock(path, 30)
        try:
            with pytest.raises(StoreError, match="was saved to"):
                stores[path].save(r)
        finally:
            holder.kill()
            holder.wait(10)
    saved = recovery_dir() / f"{lost.run_id}.json"
    assert saved.exists() and json.loads((recovery_dir() / f"{lost.run_id}.target").read_text()) == {
        "db": str(db.resolve())}
    nxt = make_result()
    store.save(nxt)  # the database works again: the stale file is imported and removed
    assert store.get(lost.run_id).to_dict() == lost.to_dict() and store.get(nxt.run_id).run_id == nxt.run_id
    assert not saved.exists() and not (recovery_dir() / f"{lost.run_id}.target").exists()
    assert (recovery_dir() / f"{elsewhere.run_id}.json").exists()  # another database's: not here
    with pytest.raises(StoreError, match="no run"):
        store.get(elsewhere.run_id)
    # a file already imported by hand is only removed
    assert Store(str(other)).import_recovered() == [elsewhere.run_id]
    assert not (recovery_dir() / f"{elsewhere.run_id}.json").exists()


def test_a_sweep_cell_whose_row_hit_a_locked_database_gets_it_from_the_recovery_file(tmp_path):
    """A local sweep whose database is locked when a cell's row is stored: the cell is not lost (recovery file,
    the sweep says so and is not ok); the next successful save imports it with the cell's state."""
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.lab.scheduler import SweepScheduler
    from edgeprof.lab.spec import expand, parse_sweep
    from edgeprof.records import local_device

    spec = parse_sweep("name: rec\nmodels: [ds_cnn]\ndevices: [local]\nruntimes: [\"null\"]\nbatch: [1, 2]\n"
                       "settings: {min_duration_s: 0.1, min_queries: 10, max_queries: 500, warmup_s: 0}\n",
                       str(tmp_path / "s.yaml"))
    dev = local_device()
    cells = expand(spec, [dev])
    db = tmp_path / "r.sqlite"
    store = Store(str(db), busy_timeout_s=0.1, save_retries=1, save_backoff_s=0.05)
    ledger.create_sweep(store, "sw-rec", "rec", None, {"name": "rec"}, cells)
    holder = hold_lock(db, 60)
    try:
        outcome = SweepScheduler(store, "sw-rec", cells[:1], [dev]).run()
    finally:
        holder.kill()
        holder.wait(10)
    assert not outcome.ok and outcome.counts["not run"] == 1
    (error,) = outcome.errors
    assert error.startswith(f"{cells[0].cell_id}: not stored: results database {db} stayed locked") and \
        "was saved to" in error, error
    (target,) = [p for p in recovery_dir().glob("*.target") if str(db.resolve()) in p.read_text()]
    run_id = target.name.removesuffix(".target")
    assert ledger.get_sweep(store, "sw-rec").counts()["pending"] == 2
    outcome = SweepScheduler(store, "sw-rec", cells[1:], [dev]).run()  # its first save imports the file
    assert outcome.ok, outcome.errors
    rec = ledger.get_sweep(store, "sw-rec")
    assert rec.counts() == {"ok": 2, "failed": 0, "skipped": 0, "pending": 0}
    assert rec.cells[0].run_id == run_id and store.get(run_id).sweep.cell_id == cells[0].cell_id
    assert len(store.list(sweep_id="sw-rec", limit=None)) == 2 and not target.exists()


@contextlib.contextmanager
def small_tmpfs(path: Path, size: str = "1m") -> Iterator[Path]:
    """A real small tmpfs at `path` (as root); skipped, naming why, where mounting is not permitted (the /dev/full
    stand-in above still covers a full disk there)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8): the /dev/full stand-in covers a full disk here")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here ({r.stderr.strip() or r.returncode}): the /dev/full "
                    "stand-in covers a full disk")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill the file system of `disk` to the last byte; returns the filler file (remove it to free the room)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
    return filler


def test_the_results_database_on_a_full_disk_goes_to_the_recovery_file_in_one_line(tmp_path, capsys, monkeypatch):
    """Issue 14 item 9: the results database on a really full (tmpfs) disk. deploy's run goes to the recovery file
    with a one-line error saying where; once there is room again, the next save imports it."""
    import edgeprof.session as runner_mod

    with small_tmpfs(tmp_path / "disk") as disk:
        db = disk / "r.sqlite"
        store = Store(str(db))
        filler: list[Path] = []
        real_deploy = runner_mod.deploy

        def deploy_then_fill(*a, **kw):  # the disk fills up while this run measures
            result = real_deploy(*a, **kw)
            # a row that needs new pages: 20000 samples that are not whole ns (stored as JSON numbers, not packed)
            result = dataclasses.replace(result, samples_ms=[1.0 + i / 7 for i in range(20000)])
            filler.append(fill(disk))
            return result

        monkeypatch.setattr(runner_mod, "deploy", deploy_then_fill)
        code = main([*DEPLOY, "--db", str(db)])
        err = capsys.readouterr().err
        assert filler and code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        (saved,) = [p for p in recovery_dir().glob("*.target") if str(db.resolve()) in p.read_text()]
        run_id = saved.name.removesuffix(".target")
        assert err.startswith(f"edgeprof: error: cannot write to results database {db} (database or disk is "
                              f"full): run {run_id} was saved to {recovery_dir() / (run_id + '.json')}"), err
        filler[0].unlink()
        store.save(make_result())  # room again: the recovered run is imported and its files removed
        assert store.get(run_id).run_id == run_id and not saved.exists()


def test_a_full_disk_under_the_database_and_the_recovery_folder_is_still_one_line(tmp_path, capsys, monkeypatch):
    """The results database and the recovery folder on the same full disk: one line that says the run could not
    be kept and how to keep the next one; the --json written before storing still holds it."""
    import edgeprof.session as runner_mod

    with small_tmpfs(tmp_path / "disk") as disk:
        monkeypatch.setenv("XDG_DATA_HOME", str(disk / "data"))
        (disk / "data" / "edgeprof").mkdir(parents=True)
        db = disk / "r.sqlite"
        Store(str(db))
        real_deploy = runner_mod.deploy

        def deploy_then_fill(*a, **kw):
            result = real_deploy(*a, **kw)
            result = dataclasses.replace(result, samples_ms=[1.0 + i / 7 for i in range(20000)])
            fill(disk)
            return result

        monkeypatch.setattr(runner_mod, "deploy", deploy_then_fill)
        out_json = tmp_path / "r.json"
        code = main([*DEPLOY, "--db", str(db), "--json", str(out_json)])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        run_id = json.loads(out_json.read_text())["run_id"]
        assert (f"cannot write to results database {db} (database or disk is full); the recovery file could not "
                f"be written either (No space left on device): run {run_id} is lost") in err, err
