"""The lab queue's pure parts and its jobs on procrastinate's in-memory connector: URLs and the PostgreSQL-only
guard, priorities, the `controller:` field, the job of a cell (queue, board lock, queueing lock, arguments), the
board lock keeping one cell per board, priority order, idempotent submits, and the artifact tar."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest
from procrastinate import App, exceptions, testing

from edgeprof.cli.main import main
from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import load_inventory
from edgeprof.lab import queue
from edgeprof.lab.spec import Cell
from edgeprof.records import Device, local_device


def cell(device: str, batch: int = 1) -> Cell:
    return Cell(model="/m.onnx", model_label="m.onnx", device=device, runtime="null", precision="fp32",
                batch=batch, threads=None, settings={"min_duration_s": 1.0})


def _one_cell_sweep(tmp_path: Path, sweep_id: str):  # type: ignore[no-untyped-def]
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.lab.spec import expand, parse_sweep
    from edgeprof.store import Store

    spec = parse_sweep("version: 1\nname: one\nmodels: [ds_cnn]\ndevices: [local]\nruntimes: [\"null\"]\n"
                       "settings: {min_duration_s: 0.1, min_queries: 10, max_queries: 500, warmup_s: 0}\n",
                       str(tmp_path / "s.yaml"))
    dev = local_device()
    (c,) = expand(spec, [dev])
    store = Store(str(tmp_path / "r.sqlite"))
    ledger.create_sweep(store, sweep_id, "one", None, {"name": "one"}, [c])
    return store, dev, c


def test_postgres_url_accepts_postgresql_and_refuses_sqlite(tmp_path: Path) -> None:
    assert queue.postgres_url("postgresql://u:pw@db:5433/lab") == "postgresql+psycopg://u:pw@db:5433/lab"
    assert queue.postgres_url("postgresql+psycopg://u@db/lab") == "postgresql+psycopg://u@db/lab"
    assert queue.conninfo("postgresql+psycopg://u:pw@db:5433/lab") == "postgresql://u:pw@db:5433/lab"
    assert queue.display("postgresql+psycopg://u:pw@db/lab") == "postgresql+psycopg://u:***@db/lab"
    with pytest.raises(ConfigError) as e:
        queue.postgres_url(str(tmp_path / "r.sqlite"))
    assert e.value.one_line().startswith("the queue needs PostgreSQL: sqlite:///")
    assert "docs/lab.md" in e.value.one_line()


def test_sweep_queue_on_sqlite_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.yaml").write_text("version: 1\nname: s\nmodels: [ds_cnn]\ndevices: [local]\n")
    assert main(["sweep", str(tmp_path / "s.yaml"), "--queue", "--db", str(tmp_path / "r.sqlite")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "the queue needs PostgreSQL" in lines[0] and "docs/lab.md" in lines[0]
    assert not (tmp_path / "r.sqlite").exists()  # nothing created on the way
    assert main(["sweep", str(tmp_path / "s.yaml"), "--wait", "--db", str(tmp_path / "r.sqlite")]) == 2
    assert "--wait and --priority belong to --queue" in capsys.readouterr().err
    assert main(["worker", "--queue", "hostA", "--db", str(tmp_path / "r.sqlite")]) == 2
    assert "lab.<controller>" in capsys.readouterr().err


def test_priorities() -> None:
    assert queue.parse_priority(None) == 10
    assert queue.parse_priority("interactive") == 10
    assert queue.parse_priority("nightly") == 0
    assert queue.parse_priority("25") == 25 and queue.parse_priority(-3) == -3
    with pytest.raises(ConfigError, match="nightly, interactive or an integer"):
        queue.parse_priority("urgent")


def test_controller_field_in_devices_yaml(tmp_path: Path) -> None:
    (tmp_path / "devices.yaml").write_text(
        "version: 1\ndefaults: {controller: hostA}\ndevices:\n"
        "  a: {host: 10.0.0.1}\n  b: {host: 10.0.0.2, controller: hostB}\n")
    inv = load_inventory(str(tmp_path / "devices.yaml"), ssh_config_path=str(tmp_path / "none"))
    assert inv.get("a").controller == "hostA" and inv.get("b").controller == "hostB"
    assert queue.queue_of(inv.get("a")) == "lab.hostA" and queue.queue_of(inv.get("b")) == "lab.hostB"
    assert queue.queue_of(local_device()) == "lab.default"
    (tmp_path / "bad.yaml").write_text("version: 1\ndevices:\n  a: {host: 10.0.0.1, controller: 'host A'}\n")
    with pytest.raises(ConfigError, match=r"bad.yaml:3 devices.a.controller: must be a controller host name"):
        load_inventory(str(tmp_path / "bad.yaml"), ssh_config_path=str(tmp_path / "none"))


def test_cell_job_carries_queue_lock_queueing_lock_and_arguments() -> None:
    dev = Device(name="jetson-1", host="10.0.0.1", controller="hostA")
    c = cell("jetson-1")
    job = queue.cell_job("sw-1", c, dev, priority=0, after_run_id="run-7",
                         artifacts=[{"sha256": "ab" * 32, "entry": "e1"}])
    assert job.queue == "lab.hostA" and job.lock == "board:jetson-1" and job.priority == 0
    assert job.queueing_lock == f"cell:sw-1:{c.cell_id}" and job.task_name == queue.TASK_NAME
    args = job.task_kwargs
    assert args["v"] == queue.JOB_ARGS_VERSION and args["sweep_id"] == "sw-1" and args["after_run_id"] == "run-7"
    assert Cell.from_dict(args["cell"]) == c and args["artifacts"] == [{"sha256": "ab" * 32, "entry": "e1"}]


@pytest.fixture
def memory_app() -> App:
    return queue.make_app(None, connector=testing.InMemoryConnector())


def _fetch(app: App, queues: list[str]) -> object:
    async def go() -> object:
        worker_id = await app.job_manager.register_worker()
        return await app.job_manager.fetch_job(queues=queues, worker_id=worker_id)

    return asyncio.run(go())


def test_one_cell_per_board_and_higher_priority_first(memory_app: App) -> None:
    a, b = Device(name="a", host="h", controller="x"), Device(name="b", host="h", controller="x")
    jobs = [queue.cell_job("sw-night", cell("a", n), a, priority=0, after_run_id=None, artifacts=[])
            for n in (1, 2)]
    jobs += [queue.cell_job("sw-mine", cell("a", 3), a, priority=10, after_run_id=None, artifacts=[]),
             queue.cell_job("sw-mine", cell("b", 1), b, priority=10, after_run_id=None, artifacts=[])]
    with memory_app.open():
        memory_app.job_manager.batch_defer_jobs(jobs)
    first = _fetch(memory_app, ["lab.x"])
    second = _fetch(memory_app, ["lab.x"])
    assert first.task_kwargs["sweep_id"] == "sw-mine" and first.lock == "board:a"  # type: ignore[attr-defined]
    assert second.lock == "board:b"  # type: ignore[attr-defined]  # board a is busy: its other cells wait
    assert _fetch(memory_app, ["lab.x"]) is None
    assert _fetch(memory_app, ["lab.other"]) is None  # another controller's queue takes none of them


def test_submitting_a_waiting_cell_again_is_refused_by_its_queueing_lock(memory_app: App) -> None:
    dev = Device(name="a", host="h")
    job = queue.cell_job("sw-1", cell("a"), dev, priority=10, after_run_id=None, artifacts=[])
    with memory_app.open():
        memory_app.job_manager.batch_defer_jobs([job])
        with pytest.raises(exceptions.AlreadyEnqueued):
            memory_app.job_manager.defer_job(job)
        other = queue.cell_job("sw-2", cell("a"), dev, priority=10, after_run_id=None, artifacts=[])
        memory_app.job_manager.defer_job(other)  # the same cell of another sweep is another job


def test_artifact_tar_is_deterministic_and_complete(tmp_path: Path) -> None:
    entry = tmp_path / "abc123"
    entry.mkdir()
    (entry / "model.onnx").write_bytes(b"\x00model")
    (entry / "meta.json").write_text("{}")
    (entry / ".lock").write_text("")  # hidden files are cache bookkeeping, not the artifact
    one = queue.tar_entry(entry)
    (entry / "model.onnx").touch()  # a newer mtime changes nothing
    assert queue.tar_entry(entry) == one
    with tarfile.open(fileobj=io.BytesIO(one)) as tar:
        assert sorted(tar.getnames()) == ["meta.json", "model.onnx"]
    assert hashlib.sha256(one).hexdigest() == hashlib.sha256(queue.tar_entry(entry)).hexdigest()


def test_a_queued_cell_runs_through_the_sweep_executor_on_the_in_memory_queue(tmp_path: Path) -> None:
    """The task end to end without PostgreSQL: procrastinate's worker on its in-memory connector runs a null
    cell on `local` through the scheduler's per-cell path into a SQLite ledger; a second job for the same
    submission finds the row and runs nothing."""
    from edgeprof.inventory.devices import Inventory
    from edgeprof.lab import sweep_state as ledger

    store, dev, c = _one_cell_sweep(tmp_path, "sw-mem")
    app = queue.make_app(None, connector=testing.InMemoryConnector())
    env = queue.WorkerEnv(store, Inventory(path=None))
    events: list[str] = []
    env.on_event = events.append
    with app.open():
        for _ in range(2):
            app.job_manager.defer_job(queue.cell_job("sw-mem", c, dev, priority=10, after_run_id=None,
                                                     artifacts=[]))
            app.run_worker(queues=["lab.default"], wait=False, install_signal_handlers=False,
                           additional_context={"edgeprof": env}, listen_notify=False)
    rec = ledger.get_sweep(store, "sw-mem")
    assert [s.status for s in rec.cells] == ["ok"] and len(store.list(limit=None)) == 1
    assert events == [f"start sw-mem {c.cell_id}", f"ok sw-mem {c.cell_id}"]  # the second job ran nothing
    statuses = [j["status"] for j in app.connector.jobs.values()]  # type: ignore[attr-defined]
    assert statuses == ["succeeded", "succeeded"]


def test_reaping_retries_dead_workers_cells_but_not_the_ones_this_process_runs(memory_app: App) -> None:
    import datetime

    dev = Device(name="a", host="h")
    b = Device(name="b", host="h")
    jobs = [queue.cell_job("sw-1", cell("a"), dev, priority=10, after_run_id=None, artifacts=[]),
            queue.cell_job("sw-1", cell("b"), b, priority=10, after_run_id=None, artifacts=[])]
    with memory_app.open():
        memory_app.job_manager.batch_defer_jobs(jobs)
    connector = memory_app.connector

    async def go() -> list[int]:
        wid = await memory_app.job_manager.register_worker()
        assert await memory_app.job_manager.fetch_job(queues=["lab.default"], worker_id=wid) is not None
        assert await memory_app.job_manager.fetch_job(queues=["lab.default"], worker_id=wid) is not None
        # its heartbeat a minute old: dead, or merely late
        connector.workers[wid] -= datetime.timedelta(seconds=60)  # type: ignore[attr-defined]
        return await queue.reap_stalled_jobs(memory_app, ["lab.default"], 30.0,
                                 mine=lambda: [f"sw-1 {cell('b').cell_id}"])

    reaped = asyncio.run(go())
    by_lock = {j["lock"]: j for j in connector.jobs.values()}  # type: ignore[attr-defined]
    assert reaped == [by_lock["board:a"]["id"]]
    assert by_lock["board:a"]["status"] == "todo" and by_lock["board:b"]["status"] == "doing"


def test_a_job_left_doing_under_a_live_worker_is_given_back_after_two_rounds(memory_app: App) -> None:
    """The database went away while a job's end was recorded: the job stays `doing` under a worker whose heartbeat
    is fresh, so no stalled-job query finds it, and its board's lock would block every later cell. The worker gives
    it back once it has seen it orphaned twice, and never a job it is running."""
    dev, b = Device(name="a", host="h"), Device(name="b", host="h")
    jobs = [queue.cell_job("sw-1", cell("a"), dev, priority=10, after_run_id=None, artifacts=[]),
            queue.cell_job("sw-1", cell("b"), b, priority=10, after_run_id=None, artifacts=[])]
    with memory_app.open():
        memory_app.job_manager.batch_defer_jobs(jobs)
    connector = memory_app.connector

    async def go() -> tuple[list[int], list[int], list[int]]:
        wid = await memory_app.job_manager.register_worker()
        for _ in jobs:
            assert await memory_app.job_manager.fetch_job(queues=["lab.default"], worker_id=wid) is not None
        seen: set[int] = set()
        running = [f"sw-1 {cell('b').cell_id}"]  # this process runs b's cell; a's end was lost
        first = await queue.reap_orphans(memory_app, ["lab.default"], wid, running, seen)
        second = await queue.reap_orphans(memory_app, ["lab.default"], wid, running, seen)
        third = await queue.reap_orphans(memory_app, ["lab.default"], wid, running, seen)
        return first, second, third

    first, second, third = asyncio.run(go())
    by_lock = {j["lock"]: j for j in connector.jobs.values()}  # type: ignore[attr-defined]
    assert first == [] and second == [by_lock["board:a"]["id"]] and third == []
    assert by_lock["board:a"]["status"] == "todo" and by_lock["board:b"]["status"] == "doing"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once the socket is closed


def test_a_transport_error_goes_back_to_the_queue_with_the_sweeps_backoff_then_is_a_failed_row(
        tmp_path: Path) -> None:
    """An unreachable board: each attempt is one job run; the job is retried by procrastinate after the sweep's
    backoff (not waited out inside the cell) while the cell's `retries` allow, and the last attempt stores the
    failed row saying how many attempts were made."""
    import time

    from edgeprof.lab import sweep_state as ledger
    from edgeprof.lab.spec import expand, parse_sweep
    from edgeprof.store import Store

    (tmp_path / "devices.yaml").write_text(
        f"version: 1\ndevices:\n  gone: {{host: 127.0.0.1, port: {_closed_port()}, user: nobody, "
        "connect_timeout: 2}\n")
    inv = load_inventory(str(tmp_path / "devices.yaml"), ssh_config_path=str(tmp_path / "none"))
    spec = parse_sweep("version: 1\nname: gone\nmodels: [ds_cnn]\ndevices: [gone]\nruntimes: [\"null\"]\n"
                       "settings: {min_duration_s: 0.1, min_queries: 10, warmup_s: 0, retries: 2, "
                       "retry_backoff_s: 0.5}\n", str(tmp_path / "s.yaml"))
    (c,) = expand(spec, [inv.get("gone")])
    store = Store(str(tmp_path / "r.sqlite"))
    ledger.create_sweep(store, "sw-gone", "gone", None, {"name": "gone"}, [c])
    app = queue.make_app(None, connector=testing.InMemoryConnector())
    env = queue.WorkerEnv(store, inv)
    events: list[str] = []
    env.on_event = events.append
    with app.open():
        app.job_manager.defer_job(queue.cell_job("sw-gone", c, inv.get("gone"), priority=10, after_run_id=None,
                                                 artifacts=[]))
        waits = []
        for _ in range(3):
            t0 = time.monotonic()
            app.run_worker(queues=["lab.default"], wait=False, install_signal_handlers=False,
                           additional_context={"edgeprof": env}, listen_notify=False)
            waits.append(time.monotonic() - t0)
            (job,) = app.connector.jobs.values()  # type: ignore[attr-defined]
            if job["status"] == "todo":  # given back: due after the backoff, not before
                assert job["scheduled_at"] is not None
                assert app.job_manager.list_jobs(status="todo") and _fetch(app, ["lab.default"]) is None
                time.sleep((job["scheduled_at"] - _now()).total_seconds() + 0.05)
    starts = [e for e in events if e.startswith("transport error")]
    assert len(starts) == 2, events
    assert "(attempt 1 of 3): back to the queue, retried in 0.5 s" in starts[0], starts
    assert "(attempt 2 of 3): back to the queue, retried in 1.0 s" in starts[1], starts
    assert all(w < 10 for w in waits), waits  # no backoff waited inside the cell
    rec = ledger.get_sweep(store, "sw-gone")
    (state,) = rec.cells
    assert state.status == "failed" and state.attempts == 3, (state.status, state.attempts, state.reason)
    assert "gave up after 3 attempts" in (state.reason or ""), state.reason
    assert [j["status"] for j in app.connector.jobs.values()] == ["succeeded"]  # type: ignore[attr-defined]
    assert len(store.list(limit=None)) == 1


def _now():  # type: ignore[no-untyped-def]
    import datetime

    return datetime.datetime.now(datetime.timezone.utc)


def test_a_row_lost_to_a_database_outage_is_imported_at_the_retry_not_measured_again(tmp_path: Path) -> None:
    """The database fails as a queued cell's row is stored: the row goes to a recovery file and the job is
    retried (CellNotStored); the retry imports that file (with the cell's state) and runs nothing, and the file
    is gone."""
    import sqlite3
    import time

    import sqlalchemy as sa

    from edgeprof.inventory.devices import Inventory
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.store import recovery_dir

    store, dev, c = _one_cell_sweep(tmp_path, "sw-out")
    outage = {"on": True}

    @sa.event.listens_for(store.engine, "before_cursor_execute")
    def down(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if outage["on"] and statement.startswith("INSERT INTO runs"):
            outage["on"] = False  # one outage, at the moment the cell's row is stored
            raise sa.exc.OperationalError(statement, parameters, sqlite3.OperationalError("disk I/O error"))

    app = queue.make_app(None, connector=testing.InMemoryConnector())
    env = queue.WorkerEnv(store, Inventory(path=None))
    events: list[str] = []
    env.on_event = events.append
    with app.open():
        app.job_manager.defer_job(queue.cell_job("sw-out", c, dev, priority=10, after_run_id=None, artifacts=[]))
        for _ in range(2):
            app.run_worker(queues=["lab.default"], wait=False, install_signal_handlers=False,
                           additional_context={"edgeprof": env}, listen_notify=False)
            (job,) = app.connector.jobs.values()  # type: ignore[attr-defined]
            if job["status"] == "todo":
                time.sleep(max(0.0, (job["scheduled_at"] - _now()).total_seconds()) + 0.05)
    assert not outage["on"]
    assert [e.split(" ")[0] for e in events] == ["start", "not", "imported"], events
    rec = ledger.get_sweep(store, "sw-out")
    (state,) = rec.cells
    run_id = events[2].rsplit(" ", 1)[1]
    assert state.status == "ok" and state.run_id == run_id
    assert [r.run_id for r in store.list(limit=None)] == [run_id]  # measured once, stored once
    assert not (recovery_dir() / f"{run_id}.json").exists() and not (recovery_dir() / f"{run_id}.target").exists()
    jobs = list(app.connector.jobs.values())  # type: ignore[attr-defined]
    assert rec.status != "cancelled" and [j["status"] for j in jobs] == ["succeeded"]


def test_a_queued_and_a_local_sweep_compute_the_same_export_key_for_a_cell() -> None:
    """One export key (lab/cell.export_key) for the local sweep and the queue: they differed on the seed (the
    queue read the cell's own seed, None when a stored cell lacked it; the local sweep the effective one)."""
    from edgeprof.lab import cell as cell_mod
    from edgeprof.lab import scheduler
    from edgeprof.lab.queue import artifacts
    from edgeprof.lab.spec import Cell
    from edgeprof.vocab import SETTINGS

    assert artifacts.export_key is scheduler.export_key is cell_mod.export_key
    local = Cell(model="ds_cnn", model_label="ds_cnn", device="local", runtime="onnxruntime", precision="fp32",
                 batch=1, threads=None, inputs={"x": (1, 3)}, settings={k: s.default for k, s in SETTINGS.items()})
    queued = Cell.from_dict(json.loads(json.dumps(local.to_dict())))  # as a job's arguments carry it
    old = Cell.from_dict({k: v for k, v in local.to_dict().items() if k != "settings"})  # stored without a seed
    assert cell_mod.export_key(queued) == cell_mod.export_key(local) == cell_mod.export_key(old)
    reseeded = Cell.from_dict({**local.to_dict(), "settings": {**local.settings, "seed": 7}})
    assert cell_mod.export_key(reseeded) != cell_mod.export_key(local)


def test_a_job_run_twice_leaves_the_cell_one_row_the_other_measurement_stored_alone(tmp_path: Path) -> None:
    """A PostgreSQL restart can give a job back while it still runs, so two runs of one cell may both pass the
    'already has its row' check (CI saw 22 rows for 20 cells): the commit is a compare-and-set on the run the
    cell had when submitted, so the later one keeps its measurement as a run alone, outside the sweep."""
    from edgeprof.inventory.devices import Inventory
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.lab.rows import cell_result

    store, _, c = _one_cell_sweep(tmp_path, "sw-twice")
    env = queue.WorkerEnv(store, Inventory(path=None))
    other = cell_result(c, "failed", "the other run of this job", sweep_id="sw-twice", attempts=1)
    plain_set_running = env.set_running

    def set_running(board: str, what: str | None) -> None:  # the other run commits once this one passed its check
        if what is not None:
            assert ledger.commit_cell(store, "sw-twice", c, other, 1, None)
        plain_set_running(board, what)

    env.set_running = set_running  # type: ignore[method-assign]
    said = queue.run_queued_cell(env, "sw-twice", c, None, [])
    (state,) = ledger.get_sweep(store, "sw-twice").cells
    assert state.run_id == other.run_id and state.status == "failed"
    assert [r.run_id for r in store.list(sweep_id="sw-twice", limit=None)] == [other.run_id]
    (alone,) = [r for r in store.list(limit=None) if r.run_id != other.run_id]
    assert alone.status == "ok" and said == f"ok: run {alone.run_id}"  # measured and kept, not in the sweep
    assert not ledger.commit_cell(store, "sw-twice", c, cell_result(c, "failed", "x", sweep_id="sw-twice",
                                                                     attempts=1), 1, None)
    assert ledger.commit_cell(store, "sw-twice", c, cell_result(c, "failed", "y", sweep_id="sw-twice",
                                                                 attempts=1), 1, other.run_id)


def test_a_job_still_being_read_is_never_given_back_as_an_orphan(tmp_path: Path) -> None:
    """A job counts as this worker's from its task's first line: one that spends seconds on its first reads (the
    database restarting) is not yet on its board, and the orphan reaper gave it back after two rounds then, so
    it ran twice."""
    from edgeprof.inventory.devices import Inventory

    store, dev, c = _one_cell_sweep(tmp_path, "sw-read")
    app = queue.make_app(None, connector=testing.InMemoryConnector())
    env = queue.WorkerEnv(store, Inventory(path=None))
    rounds: list[list[int]] = []
    plain_import = store.import_recovered

    def slow_first_read() -> list[str]:  # two reaper rounds pass while the job reads (its first read only)
        (job,) = app.connector.jobs.values()  # type: ignore[attr-defined]
        seen: set[int] = set()
        for _ in range(0 if rounds else 2):
            rounds.append(asyncio.run(queue.reap_orphans(app, ["lab.default"], job["worker_id"], env.mine(), seen)))
        return plain_import()

    store.import_recovered = slow_first_read  # type: ignore[method-assign]
    with app.open():
        app.job_manager.defer_job(queue.cell_job("sw-read", c, dev, priority=10, after_run_id=None, artifacts=[]))
        app.run_worker(queues=["lab.default"], wait=False, install_signal_handlers=False,
                       additional_context={"edgeprof": env}, listen_notify=False)
    assert rounds == [[], []]
    assert [j["status"] for j in app.connector.jobs.values()] == ["succeeded"]  # type: ignore[attr-defined]
    assert len(store.list(limit=None)) == 1 and env.mine() == []
