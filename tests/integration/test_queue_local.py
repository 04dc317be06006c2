"""The lab queue end to end on this machine: a real PostgreSQL (tests/pg.py), real `edgeprof worker` processes
and null-runtime / onnxruntime cells on the device `local`: submit and resume are idempotent, artifacts travel
through the database, --wait keeps the sweep's exit codes, priority order, cancel, and a worker killed with -9
mid-cell whose cell another worker finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_sweep_local import write_model

from edgeprof.cli.main import main
from edgeprof.lab import queue
from edgeprof.lab import sweep_state as ledger
from edgeprof.lab.spec import Cell
from edgeprof.store import Store

pytestmark = pytest.mark.slow

# a long cell: onnxruntime on a heavier model, so the samples stay few (a null cell held for seconds collects
# millions of samples)
HEAVY = "models: [heavy.onnx]\ndevices: [local]\nruntimes: [onnxruntime]\nthreads: [1]\n"


def slow_settings(seconds: float) -> str:
    return (f"settings: {{min_duration_s: {seconds}, min_queries: 10, max_queries: 200000, warmup_s: 0, "
            "timeout_s: 120, lease_wait_s: 120}\n")


FAST = ("settings: {min_duration_s: 0.2, min_queries: 20, warmup_s: 0.1, timeout_s: 60, retries: 1, "
        "retry_backoff_s: 0.3, lease_wait_s: 120}\n")


def edgeprof(*args: str, **kw: Any) -> subprocess.Popen[str]:
    env = {**(kw.pop("env", None) or os.environ), "PYTHONFAULTHANDLER": "1"}  # SIGABRT dumps every thread's stack
    return subprocess.Popen([sys.executable, "-m", "edgeprof", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)


def finish(p: subprocess.Popen[str], timeout: float, others: list[subprocess.Popen[str]]) -> tuple[str, str]:
    """p's output once it exits; when it has not exited after timeout s, fail with where p and the others are
    (faulthandler's dump of every thread on SIGABRT) and what they printed, instead of a bare TimeoutExpired."""
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    report = []
    for q in [p, *others]:
        if q.poll() is None:
            q.send_signal(signal.SIGABRT)
        try:
            _, err = q.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            q.kill()
            _, err = q.communicate()
        report.append(f"--- {' '.join(str(a) for a in q.args[3:5])} (rc {q.returncode}):\n{err[-6000:]}")
    raise AssertionError(f"{p.args[3]} did not finish in {timeout:.0f} s\n" + "\n".join(report))


def wait_for(pred: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def jobs(url: str, sweep_id: str | None = None) -> list[dict[str, Any]]:
    with psycopg.connect(queue.conninfo(url)) as conn:
        rows = conn.execute(
            "SELECT id, status::text, lock, queueing_lock, priority, queue_name, args FROM procrastinate_jobs "
            "WHERE (%s::text IS NULL OR args->>'sweep_id' = %s) ORDER BY id", (sweep_id, sweep_id)).fetchall()
    return [{"id": r[0], "status": r[1], "lock": r[2], "queueing_lock": r[3], "priority": r[4], "queue": r[5],
             "cell": r[6]["cell"], "sweep_id": r[6]["sweep_id"]} for r in rows]


def submit(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["sweep", *args, "--queue"])
    cap = capsys.readouterr()
    return rc, cap.out.strip(), cap.err


@pytest.fixture
def lab_db(pg_url: str) -> str:
    queue.upgrade(pg_url)
    return pg_url


@pytest.fixture
def workers() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in started:
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()


def start_worker(workers: list[subprocess.Popen[str]], url: str, *extra: str, queue_name: str = "lab.default",
                 env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    p = edgeprof("worker", "--queue", queue_name, "--db", url, "--stalled-after", "2", "--reap-every", "1",
                 "--poll", "0.2", *extra, env={**os.environ, **(env or {})})
    workers.append(p)
    return p


def test_submit_resume_idempotent_artifacts_from_the_database_every_cell_once(
        lab_db: str, tmp_path: Path, workers: list[subprocess.Popen[str]],
        capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: q\nmodels: [m.onnx]\ndevices: [local]\n"
                                     "runtimes: [\"null\", onnxruntime]\nprecisions: [fp32, fp16]\n" + FAST)
    rc, sweep_id, err = submit(str(tmp_path / "s.yaml"), "--db", lab_db, capsys=capsys)
    assert rc == 0, err
    assert sweep_id.startswith("sw-") and "3 cells queued (priority 10): 3 on lab.default" in err, err
    assert "1 stored at once" in err  # onnxruntime fp16 is a static skip row: no job
    js = jobs(lab_db, sweep_id)
    assert len(js) == 3
    assert {j["lock"] for j in js} == {"board:local"} and {j["queue"] for j in js} == {"lab.default"}
    assert {j["queueing_lock"] for j in js} == {f"cell:{sweep_id}:{Cell.from_dict(j['cell']).cell_id}" for j in js}
    # submitting the same cells again (resume while they wait) adds nothing
    rc, again, err = submit("--resume", sweep_id, "--db", lab_db, capsys=capsys)
    assert rc == 0 and again == sweep_id and "0 cells queued" in err and "3 already waiting" in err, err
    assert len(jobs(lab_db, sweep_id)) == 3
    with psycopg.connect(queue.conninfo(lab_db)) as conn:
        (n_art,) = conn.execute("SELECT count(*) FROM lab_artifacts").fetchone()
    assert n_art == 1  # the onnxruntime fp32 export, once
    # the worker has its own, empty artifact cache: the model comes from the database
    cache = tmp_path / "worker-cache"
    p = start_worker(workers, lab_db, "--until-idle", "--cache-dir", str(cache))
    out, werr = p.communicate(timeout=180)
    assert p.returncode == 0, werr
    store = Store(lab_db)
    rec = ledger.get_sweep(store, sweep_id)
    assert rec.status == "done" and rec.counts() == {"ok": 3, "failed": 0, "skipped": 1, "pending": 0}
    assert len(store.list(sweep_id=sweep_id, limit=None)) == 4  # every cell a row, exactly once
    assert {j["status"] for j in jobs(lab_db, sweep_id)} == {"succeeded"}
    markers = list(cache.glob("*/.edgeprof-lab-sha256"))
    assert len(markers) == 1 and (markers[0].parent / "meta.json").is_file()
    # a cell that already has its row is not run again, whatever the queue hands out
    done = rec.cells[0]
    env = queue.WorkerEnv(store, inventory=None)
    assert queue.run_queued_cell(env, sweep_id, done.cell, None, []).startswith("not run: already has its row")
    # nothing left to resume
    rc, _, err = submit("--resume", sweep_id, "--db", lab_db, capsys=capsys)
    assert rc == 0 and "0 cells queued" in err, err


def test_wait_follows_the_cells_and_keeps_the_exit_codes(lab_db: str, tmp_path: Path,
                                                         workers: list[subprocess.Popen[str]]) -> None:
    write_model(tmp_path / "m.onnx")
    (tmp_path / "ok.yaml").write_text("name: ok\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [\"null\"]\n"
                                      "batch: [1, 2]\n" + FAST)
    (tmp_path / "bad.yaml").write_text("name: bad\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [\"null\"]\n"
                                       "batch: [1, 2]\n" + FAST +
                                       "overrides: [{match: {batch: 2}, min_duration_s: 30, max_queries: "
                                       "100000000, timeout_s: 1}]\n")
    start_worker(workers, lab_db)
    ok = edgeprof("sweep", str(tmp_path / "ok.yaml"), "--queue", "--wait", "--db", lab_db)
    out, err = ok.communicate(timeout=120)
    assert ok.returncode == 0, err
    sweep_id = out.strip().splitlines()[0]
    assert "[2/2] ok" in err and f"sweep {sweep_id}: 2 ok, 0 skipped, 0 failed" in err, err
    bad = edgeprof("sweep", str(tmp_path / "bad.yaml"), "--queue", "--wait", "--db", lab_db)
    out, err = bad.communicate(timeout=120)
    assert bad.returncode == 1, err
    assert "1 ok, 0 skipped, 1 failed" in err and "timed out after 1 s" in err, err
    assert "edgeprof sweep --resume" in err and "--queue" in err
    # Ctrl-C while following: 130, the cells stay queued
    write_model(tmp_path / "heavy.onnx", layers=16, dim=256)
    (tmp_path / "slow.yaml").write_text("name: slow\n" + HEAVY + slow_settings(20))
    slow = edgeprof("sweep", str(tmp_path / "slow.yaml"), "--queue", "--wait", "--db", lab_db)
    wait_for(lambda: any(j["status"] == "doing" for j in jobs(lab_db) if j["cell"]["settings"]
                         ["min_duration_s"] == 20), 90, "the slow cell to start")
    slow.send_signal(signal.SIGINT)
    out, err = slow.communicate(timeout=30)
    assert slow.returncode == 130, err
    assert "its cells stay queued" in err


# a builder whose first load hangs (the submitter exports it before queuing the sweep's cells), then loads at once
HANGING_BUILDER = """\
import os, pathlib, time
mark = pathlib.Path(os.environ["HANG_MARK"])
if not mark.exists():
    mark.touch()
    time.sleep(120)
import torch
def build(seed):
    return torch.nn.Linear(4, 2), {"input": torch.zeros(1, 4)}
"""


def test_ctrl_c_while_the_submitter_exports_says_nothing_is_queued_and_resume_queues_it(
        lab_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hang.py").write_text(HANGING_BUILDER)
    (tmp_path / "s.yaml").write_text("name: hang\nmodels: [hang.py:build]\ndevices: [local]\n"
                                     "runtimes: [onnxruntime]\n" + FAST)
    mark = tmp_path / "mark"
    env = dict(os.environ, HANG_MARK=str(mark), EDGEPROF_CACHE=str(tmp_path / "cache"))
    p = edgeprof("sweep", str(tmp_path / "s.yaml"), "--queue", "--wait", "--db", lab_db, cwd=tmp_path, env=env)
    wait_for(lambda: mark.exists() or p.poll() is not None, 120, "the export to load the builder")
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err, err
    line = next(ln for ln in err.splitlines() if ln.startswith("edgeprof:"))
    sweep_id = line.split(" of sweep ")[1].split(":")[0]
    assert line == (f"edgeprof: interrupted while exporting the models of sweep {sweep_id}: none of its cells is "
                    f"queued (queue them: edgeprof sweep --resume {sweep_id} --queue)"), err
    assert jobs(lab_db, sweep_id) == []
    monkeypatch.setenv("HANG_MARK", str(mark))  # the builder loads at once now
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    rc, again, err = submit("--resume", sweep_id, "--db", lab_db, capsys=capsys)
    assert rc == 0 and again == sweep_id and f"sweep {sweep_id}: 1 cells queued" in err, err
    assert [j["status"] for j in jobs(lab_db, sweep_id)] == ["todo"]


def test_higher_priority_runs_first(lab_db: str, tmp_path: Path, workers: list[subprocess.Popen[str]],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "m.onnx")
    for name in ("nightly", "mine"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\nmodels: [m.onnx]\ndevices: [local]\n"
                                               "runtimes: [\"null\"]\nbatch: [1, 2, 3]\n" + FAST)
    rc, nightly, err = submit(str(tmp_path / "nightly.yaml"), "--priority", "nightly", "--db", lab_db,
                              capsys=capsys)
    assert rc == 0 and "(priority 0)" in err, err
    rc, mine, err = submit(str(tmp_path / "mine.yaml"), "--db", lab_db, capsys=capsys)  # interactive
    assert rc == 0 and "(priority 10)" in err, err
    rc, urgent, err = submit(str(tmp_path / "mine.yaml"), "--priority", "50", "--db", lab_db, capsys=capsys)
    assert rc == 0 and "(priority 50)" in err, err
    assert main(["sweep", str(tmp_path / "mine.yaml"), "--queue", "--priority", "soon", "--db", lab_db]) == 2
    assert "--priority 'soon'" in capsys.readouterr().err
    p = start_worker(workers, lab_db, "--until-idle", "--concurrency", "1")
    _, werr = p.communicate(timeout=180)
    assert p.returncode == 0, werr
    # the order the worker started the jobs in (procrastinate's events, microseconds): a result's
    # created_at has whole seconds, too coarse for cells of the null runtime
    with psycopg.connect(queue.conninfo(lab_db)) as conn:
        order = [r[0] for r in conn.execute(
            "SELECT j.args->>'sweep_id' FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id "
            "WHERE e.type = 'started' ORDER BY e.at, e.id").fetchall()]
    assert order == [urgent] * 3 + [mine] * 3 + [nightly] * 3, order
    assert sorted(r.sweep_id for r in Store(lab_db).list(limit=None)) == sorted(order)


def test_cancel_stops_the_running_cell_and_drops_the_waiting_ones(lab_db: str, tmp_path: Path,
                                                                 workers: list[subprocess.Popen[str]],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "m.onnx")
    write_model(tmp_path / "heavy.onnx", layers=16, dim=256)
    (tmp_path / "s.yaml").write_text("name: long\n" + HEAVY + "batch: [1, 2, 3]\n" + slow_settings(60))
    rc, sweep_id, err = submit(str(tmp_path / "s.yaml"), "--db", lab_db, capsys=capsys)
    assert rc == 0, err
    worker = start_worker(workers, lab_db)
    wait_for(lambda: any(j["status"] == "doing" for j in jobs(lab_db, sweep_id)), 60, "a cell to start")
    wait_for(lambda: any(b["sweep_id"] == sweep_id for b in queue.lab_status(Store(lab_db)).busy), 10,
             "lab status to show the board busy")
    wait_for(lambda: any(w["state"].startswith(f"running {sweep_id} local/") for w in
                         queue.lab_status(Store(lab_db)).workers), 10, "lab status to show what the worker runs")
    time.sleep(4)  # past the cell's set-up: the agent is measuring (a 60 s cell)
    t0 = time.monotonic()
    assert main(["sweep", "--cancel", sweep_id, "--db", lab_db]) == 0
    err = capsys.readouterr().err
    assert "2 waiting cells will not start, 1 running stopped" in err, err
    wait_for(lambda: not any(j["status"] in ("todo", "doing") for j in jobs(lab_db, sweep_id)), 30,
             "the running cell to be aborted")
    assert time.monotonic() - t0 < 30  # not the cell's 60 s
    assert sorted(j["status"] for j in jobs(lab_db, sweep_id)) == ["aborted", "cancelled", "cancelled"]
    store = Store(lab_db)
    rec = ledger.get_sweep(store, sweep_id)
    assert rec.status == "cancelled"
    # the running cell and the waiting ones alike: marked cancelled, no result row
    assert [c.status for c in rec.cells] == ["cancelled"] * 3, [(c.status, c.reason) for c in rec.cells]
    assert all((c.reason or "").startswith("cancelled (edgeprof sweep --cancel") for c in rec.cells)
    assert rec.counts() == {"ok": 0, "failed": 0, "skipped": 0, "pending": 0, "cancelled": 3}
    assert store.list(sweep_id=sweep_id, limit=None) == []  # nothing half-done stored
    assert worker.poll() is None  # the worker goes on with other work
    # check: cancelled cells are skipped tests saying so, neither errors of the board nor silence
    junit = tmp_path / "check.xml"
    assert main(["check", "--sweep", sweep_id, "--db", lab_db, "--junit", str(junit)]) == 0
    xml = junit.read_text()
    assert xml.count("<skipped") == 3 and "cell cancelled, not measured" in xml and "<error" not in xml, xml
    assert main(["sweep", "--list", "--db", lab_db]) == 0
    listed = capsys.readouterr().out
    assert "cancelled" in listed, listed
    # --resume runs them again: pending again, one job each; cancelled again here (the cells are long)
    rc, out, err = submit("--resume", sweep_id, "--db", lab_db, capsys=capsys)
    assert rc == 0, err
    assert "3 cells queued" in err, err
    assert ledger.get_sweep(store, sweep_id).counts()["pending"] == 3
    assert main(["sweep", "--cancel", sweep_id, "--db", lab_db]) == 0
    assert ledger.get_sweep(store, sweep_id).counts()["cancelled"] == 3


def test_a_worker_killed_mid_cell_has_its_cell_finished_by_another(lab_db: str, tmp_path: Path,
                                                                   workers: list[subprocess.Popen[str]],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "m.onnx")
    write_model(tmp_path / "heavy.onnx", layers=16, dim=256)
    (tmp_path / "s.yaml").write_text("name: kill\n" + HEAVY + "batch: [1, 2]\n" + slow_settings(4))
    rc, sweep_id, err = submit(str(tmp_path / "s.yaml"), "--db", lab_db, capsys=capsys)
    assert rc == 0, err
    first = start_worker(workers, lab_db)
    doing = wait_for(lambda: [j for j in jobs(lab_db, sweep_id) if j["status"] == "doing"], 60, "a cell to start")
    time.sleep(1.0)  # mid-cell
    os.kill(first.pid, signal.SIGKILL)  # its agents see their stdin close and exit, releasing the board's lease
    first.communicate(timeout=30)
    second = start_worker(workers, lab_db, "--until-idle")
    _, werr = second.communicate(timeout=180)
    assert second.returncode == 0, werr
    assert werr.count("reaped stalled jobs") == 1, werr  # the dead worker's cell, once
    assert werr.count("start ") == 2, werr  # each cell run once by this worker
    store = Store(lab_db)
    rec = ledger.get_sweep(store, sweep_id)
    assert rec.counts() == {"ok": 2, "failed": 0, "skipped": 0, "pending": 0}, rec.counts()
    assert rec.status == "done"
    killed_cell = Cell.from_dict(doing[0]["cell"]).cell_id
    rows = store.list(sweep_id=sweep_id, limit=None)
    assert len(rows) == 2 and {r.status for r in rows} == {"ok"}
    assert killed_cell in {store.get(r.run_id).sweep.cell_id for r in rows}
    assert {j["status"] for j in jobs(lab_db, sweep_id)} == {"succeeded"}


def test_lab_status_shows_queued_cells_and_workers(lab_db: str, tmp_path: Path,
                                                  workers: list[subprocess.Popen[str]],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: st\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [\"null\"]\n"
                                     "batch: [1, 2]\n" + FAST)
    rc, sweep_id, _ = submit(str(tmp_path / "s.yaml"), "--db", lab_db, "--priority", "nightly", capsys=capsys)
    assert rc == 0
    assert main(["lab", "status", "--db", lab_db, "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["queued"] == [{"queue": "lab.default", "board": "local", "cells": 2, "top_priority": 0}]
    assert st["busy"] == [] and st["workers"] == []
    start_worker(workers, lab_db, queue_name="lab.elsewhere")  # a worker on another queue takes none of them
    wait_for(lambda: queue.lab_status(Store(lab_db)).workers, 30, "the worker's heartbeat")
    assert main(["lab", "status", "--db", lab_db]) == 0
    text = capsys.readouterr().out
    assert "lab.elsewhere" in text and "lab.default" in text and "s ago" in text
    assert len(jobs(lab_db, sweep_id)) == 2 and {j["status"] for j in jobs(lab_db, sweep_id)} == {"todo"}


def test_a_postgresql_restart_mid_sweep_loses_nothing(pg_server, lab_db: str, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      workers: list[subprocess.Popen[str]]) -> None:
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: restart\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [\"null\"]\n"
                                     "batch: [1, 2, 3, 4, 5, 6]\n" + FAST.replace("0.2,", "0.5,", 1))
    start_worker(workers, lab_db)
    producer = edgeprof("sweep", str(tmp_path / "s.yaml"), "--queue", "--wait", "--db", lab_db)
    store = Store(lab_db)

    def some_done() -> bool:
        try:
            return bool(store.list(limit=1))
        except Exception:
            return False

    wait_for(some_done, 90, "the first cell's row")
    pg_server.restart()
    out, err = finish(producer, 180, workers)
    assert producer.returncode == 0, err
    sweep_id = out.strip().splitlines()[0]
    assert f"sweep {sweep_id}: 6 ok, 0 skipped, 0 failed" in err, err
    store = Store(lab_db)
    rec = ledger.get_sweep(store, sweep_id)
    assert rec.status == "done" and rec.counts()["ok"] == 6
    assert len(store.list(sweep_id=sweep_id, limit=None)) == 6  # every cell once: nothing lost, nothing twice
    assert workers[0].poll() is None  # the worker rode it out
    # a row that went to a recovery file during the outage was imported at the retry: no stale file is left
    from edgeprof.store import recovery_dir

    assert not [p for p in recovery_dir().glob("*.target") if store.recovery_key in p.read_text()]


def test_a_worker_rides_out_postgresql_restarting_again_and_again(pg_server, lab_db: str, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                 workers: list[subprocess.Popen[str]]) -> None:
    """procrastinate's worker stops when its LISTEN loop reconnects while the server is still down, or when a
    fetch or heartbeat query meets the restart (before the fix this ended `edgeprof worker` in 1 of 3 runs of
    this test, 2 of 3 with 12 restarts): the edgeprof worker rides it out, its listener connecting again and its
    worker loop started again."""
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: restarts\nmodels: [m.onnx]\ndevices: [local]\nruntimes: [\"null\"]\n"
                                     f"batch: [{', '.join(str(b) for b in range(1, 21))}]\n"
                                     + FAST.replace("0.2,", "0.5,", 1))
    start_worker(workers, lab_db)
    producer = edgeprof("sweep", str(tmp_path / "s.yaml"), "--queue", "--wait", "--db", lab_db)
    store = Store(lab_db)
    wait_for(lambda: store.list(limit=1), 90, "the first cell's row")
    for _ in range(10):
        pg_server.restart()
        time.sleep(1.3)
    out, err = finish(producer, 240, workers)
    assert producer.returncode == 0, err
    sweep_id = out.strip().splitlines()[0]
    assert f"sweep {sweep_id}: 20 ok, 0 skipped, 0 failed" in err, err
    rows = Store(lab_db).list(sweep_id=sweep_id, limit=None)
    if len(rows) != 20:  # every cell once; else what the worker did, to see why
        workers[0].send_signal(signal.SIGTERM)
        pytest.fail(f"{len(rows)} rows for 20 cells; the worker said:\n{workers[0].communicate(timeout=30)[1][-6000:]}")
    assert workers[0].poll() is None, workers[0].communicate()[1][-4000:]


def test_a_read_the_stopped_server_does_not_answer_is_unavailable_not_a_plain_store_error(  # type: ignore[no-untyped-def]
        pg_server, lab_db: str) -> None:
    """The follower of a queued sweep waits for StoreUnavailable (a run's row read as the server restarts
    ended `sweep --queue --wait` with exit 2); an unknown run stays a plain StoreError."""
    from edgeprof.errors import StoreError, StoreUnavailable

    store = Store(lab_db)
    with pytest.raises(StoreError) as unknown:
        store.get("20261204-000000-abcdef")
    assert not isinstance(unknown.value, StoreUnavailable)
    pg_server.stop()
    try:
        with pytest.raises(StoreUnavailable, match="cannot read results database"):
            store.get("20261204-000000-abcdef")
        with pytest.raises(StoreUnavailable):
            store.list(limit=1)
    finally:
        pg_server.start()
    assert store.list(limit=1) == []


def test_a_stopped_worker_gives_its_running_cell_back(lab_db: str, tmp_path: Path,
                                                     workers: list[subprocess.Popen[str]],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    write_model(tmp_path / "heavy.onnx", layers=16, dim=256)
    (tmp_path / "s.yaml").write_text("name: stop\n" + HEAVY + slow_settings(30))
    rc, sweep_id, err = submit(str(tmp_path / "s.yaml"), "--db", lab_db, capsys=capsys)
    assert rc == 0, err
    first = start_worker(workers, lab_db)
    wait_for(lambda: any(j["status"] == "doing" for j in jobs(lab_db, sweep_id)), 90, "the cell to start")
    time.sleep(4)  # past the cell's set-up: the agent is measuring (a 30 s cell)
    t0 = time.monotonic()
    first.send_signal(signal.SIGTERM)  # systemctl stop
    _, werr = first.communicate(timeout=60)
    assert first.returncode == 0, werr
    assert time.monotonic() - t0 < 20, "the running cell was stopped, not waited for"
    assert "aborted" in werr, werr
    (job,) = jobs(lab_db, sweep_id)
    assert job["status"] == "todo"  # back in the queue, nothing stored
    assert Store(lab_db).list(sweep_id=sweep_id, limit=None) == []
    with psycopg.connect(queue.conninfo(lab_db)) as conn:  # run it sooner than the retry's wait, and shorter
        conn.execute("UPDATE procrastinate_jobs SET scheduled_at = now(), args = jsonb_set(args, "
                     "'{cell,settings,min_duration_s}', '1') WHERE id = %s", (job["id"],))
    second = start_worker(workers, lab_db, "--until-idle")
    _, werr = second.communicate(timeout=120)
    assert second.returncode == 0, werr
    rec = ledger.get_sweep(Store(lab_db), sweep_id)
    assert rec.counts()["ok"] == 1 and rec.status == "done"
