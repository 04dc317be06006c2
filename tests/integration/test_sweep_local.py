"""Sweeps on this machine (device `local`, agent subprocesses): cell timeout, Ctrl-C and resume, the device lease
(busy, released when the holder dies, expiring when the controller goes silent, refusing an unleased deploy)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof.agentlink.lease import DeviceLease, LeaseBusy
from edgeprof.cli.main import main
from edgeprof.lab import sweep_state as ledger
from edgeprof.lab.scheduler import SweepScheduler, run_sweep
from edgeprof.lab.spec import expand, parse_sweep
from edgeprof.records import local_device
from edgeprof.store import Store
from edgeprof.transport import open_transport

pytestmark = pytest.mark.slow


def write_model(path: Path, layers: int = 2, dim: int = 128) -> Path:
    rng = np.random.RandomState(0)
    w = (rng.standard_normal((dim, dim)) / np.sqrt(dim)).astype(np.float32)
    nodes, prev = [], "x"
    for i in range(layers):
        nodes.append(helper.make_node("MatMul", [prev, "w"], [f"h{i}"]))
        prev = f"h{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16, dim])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16, dim])],
                              [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def sweep_cells(tmp_path: Path, body: str):  # type: ignore[no-untyped-def]
    write_model(tmp_path / "m.onnx")
    spec = parse_sweep("name: local\nmodels: [m.onnx]\ndevices: [local]\n" + body, str(tmp_path / "s.yaml"))
    dev = local_device()
    return spec, expand(spec, [dev]), dev


def test_cell_timeout_stops_the_agent_and_the_sweep_goes_on(tmp_path: Path) -> None:
    spec, cells, dev = sweep_cells(tmp_path, """
runtimes: ["null", onnxruntime]
settings: {min_duration_s: 0.2, min_queries: 10, warmup_s: 0}
overrides:
  - match: {runtime: onnxruntime}
    min_duration_s: 60
    max_queries: 100000000
    timeout_s: 2
""")
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-t", spec.name, None, {"name": spec.name}, cells)
    t0 = time.monotonic()
    outcome = run_sweep(store, "sw-t", cells, [dev])
    assert time.monotonic() - t0 < 40
    by = {r.runtime: r for r in outcome.results}
    slow = by["onnxruntime"]
    assert slow.status == "failed"
    assert "timed out after 2 s" in (slow.reason or "") and "agent on the device was stopped" in (slow.reason or "")
    assert slow.latency_ms is None and slow.samples_ms == []
    assert by["null"].status == "ok"
    rec = ledger.get_sweep(store, "sw-t")
    assert rec.status == "done" and rec.counts() == {"ok": 1, "failed": 1, "skipped": 0, "pending": 0}
    stored = store.get(slow.run_id)
    assert stored.status == "failed" and stored.sweep is not None and stored.sweep.cell_id == "local/m.onnx/onnxruntime/fp32/b1/tauto"


def test_stop_keeps_finished_cells_and_resume_runs_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    spec, cells, dev = sweep_cells(tmp_path, """
threads: [1, 2, 3]
settings: {min_duration_s: 1.0, min_queries: 10, warmup_s: 0}
""")
    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    ledger.create_sweep(store, "sw-stop", spec.name, str(tmp_path / "s.yaml"), {"name": spec.name}, cells)
    runner = SweepScheduler(store, "sw-stop", cells, [dev])

    def stop_after_first() -> None:
        if runner.results and not runner.stop_event.is_set():
            runner.stop()  # what Ctrl-C does

    runner.on_change = stop_after_first
    outcome = runner.run()
    ledger.set_status(store, "sw-stop", "interrupted")
    assert outcome.interrupted
    assert [r.status for r in outcome.results] == ["ok"]
    rec = ledger.get_sweep(store, "sw-stop")
    assert rec.counts()["ok"] == 1 and rec.counts()["pending"] == 2
    assert store.count() == 1  # the interrupted cell left no row
    code = main(["sweep", "--resume", "sw-stop", "--db", db, "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "rerunning 2 of 3 cells" in err
    rec = ledger.get_sweep(store, "sw-stop")
    assert rec.status == "done" and rec.counts() == {"ok": 3, "failed": 0, "skipped": 0, "pending": 0}
    assert store.count() == 3


def test_lease_is_exclusive_released_with_its_holder_and_refuses_an_unleased_deploy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = local_device()
    stop = threading.Event()
    with open_transport(dev) as tr1, open_transport(dev) as tr2:
        first = DeviceLease(tr1, dev, {"controller": "first:1", "sweep_id": "sw-first"}, ttl_s=30)
        token = first.acquire(1.0, stop)
        assert token
        second = DeviceLease(tr2, dev, {"controller": "second:2", "sweep_id": "sw-second"}, ttl_s=30)
        waits: list[str] = []
        with pytest.raises(LeaseBusy, match="leased by sw-first from first:1"):
            second.acquire(1.5, stop, on_wait=waits.append)
        assert waits and "sw-first" in waits[0]
        # a plain deploy is refused while the board is leased ...
        write_model(tmp_path / "m.onnx")
        args = ["deploy", "--device", "local", "--model", str(tmp_path / "m.onnx"), "--min-duration", "0.1",
                "--min-queries", "5", "--warmup", "0", "--quiet", "--no-store"]
        assert main(args) == 2  # LeaseBusy, as a deploy on a leased phone: one line, no agent traceback
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "device local is leased by sw-first from first:1 since " in err[0], err
        # ... the holder dying (killed controller, lost connection) frees it at once
        assert first.link is not None
        first.link.proc.terminate()
        assert second.acquire(5.0, stop)
        second.release()
        assert main(args) == 0
        first.release()
    log = (Path.home() / ".cache" / "edgeprof" / "edgeprof.lease.log").read_text().splitlines()
    assert any('"sweep_id": "sw-second"' in x and '"event": "acquired"' in x for x in log)


def test_lease_expires_when_the_controller_goes_silent() -> None:
    dev = local_device()
    with open_transport(dev) as tr1, open_transport(dev) as tr2:
        silent = DeviceLease(tr1, dev, {"controller": "silent:1"}, ttl_s=1.0)
        silent.acquire(1.0, threading.Event())
        silent._closed.set()  # stop renewing, as a controller whose network went away would
        other = DeviceLease(tr2, dev, {"controller": "other:2"}, ttl_s=30)
        t0 = time.monotonic()
        assert other.acquire(15.0, threading.Event())
        assert time.monotonic() - t0 < 10
        other.release()
        silent.release()


def test_a_measurement_failure_is_not_retried(tmp_path: Path) -> None:
    spec, cells, dev = sweep_cells(tmp_path, """
settings: {min_duration_s: 0.2, min_queries: 10, warmup_s: 0, retries: 3, retry_backoff_s: 5}
""")
    cells[0].inputs = {"nosuch": (1, 16, 128)}  # the model has no such input: fails before measuring
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-f", spec.name, None, {"name": spec.name}, cells)
    t0 = time.monotonic()
    outcome = run_sweep(store, "sw-f", cells, [dev])
    assert time.monotonic() - t0 < 20  # no 5 s + 10 s + 20 s of backoff
    (r,) = outcome.results
    assert r.status == "failed" and "no input named 'nosuch'" in (r.reason or "")
    assert ledger.get_sweep(store, "sw-f").cells[0].attempts == 1


def test_ctrl_c_on_the_command_line(tmp_path: Path) -> None:
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: ctrlc\nmodels: [m.onnx]\ndevices: [local]\nthreads: [1, 2, 3, 4]\n"
                                     "settings: {min_duration_s: 1.5, min_queries: 10, warmup_s: 0}\n")
    db = tmp_path / "db.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "edgeprof", "sweep", str(tmp_path / "s.yaml"), "--db",
                             str(db), "--quiet", "--id-file", str(tmp_path / "id")], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("[1/4] ok"):
            time.sleep(0.5)  # into the second cell
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, "".join(lines) + rest
    assert "1 ok, 0 skipped, 0 failed, 3 not run" in rest and "edgeprof sweep --resume" in rest
    sweep_id = (tmp_path / "id").read_text().strip()
    rec = ledger.get_sweep(Store(str(db)), sweep_id)
    assert rec.status == "interrupted" and rec.counts()["ok"] == 1 and rec.counts()["pending"] == 3


def test_a_board_worker_that_breaks_fails_its_cells_and_the_exit_code_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 14: an internal error in a board worker (here: storing the first row fails) used to leave the cells
    pending, exit 0, and `check` passed with 0 checks. Now every cell ends as a failed row, exit 1, check exit 1."""
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: broken\nmodels: [m.onnx]\ndevices: [local]\nruntimes: ['null']\n"
                                     "threads: [1, 2]\nsettings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0}\n")
    db = str(tmp_path / "db.sqlite")
    real_commit = ledger.commit_cell
    calls: list[str] = []

    def commit_once_broken(store, sweep_id, cell, result, attempts, *after):  # type: ignore[no-untyped-def]
        calls.append(cell.cell_id)
        if len(calls) == 1:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return real_commit(store, sweep_id, cell, result, attempts, *after)

    monkeypatch.setattr(ledger, "commit_cell", commit_once_broken)
    from edgeprof.cli import sweep as sweep_cli

    through: list[str] = []

    def traced_run_sweep(store, sweep_id, *a, **kw):  # type: ignore[no-untyped-def]
        through.append(sweep_id)
        return run_sweep(store, sweep_id, *a, **kw)

    monkeypatch.setattr(sweep_cli, "run_sweep", traced_run_sweep)
    code = main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert len(through) == 1  # the command runs the sweep through the run_sweep the tests call
    assert "internal error in edgeprof on device local: OverflowError" in err
    sweep_id = (tmp_path / "id").read_text().strip()
    rec = ledger.get_sweep(Store(db), sweep_id)
    assert rec.counts() == {"ok": 0, "failed": 2, "skipped": 0, "pending": 0}
    assert all("not run: internal error in edgeprof" in (c.reason or "") for c in rec.cells)
    junit = tmp_path / "check.xml"
    assert main(["check", "--sweep", sweep_id, "--db", db, "--junit", str(junit)]) == 1
    assert junit.read_text().count("<error") == 2


def test_cells_left_pending_fail_the_sweep_and_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """When not even a failed row can be stored, the cells stay pending: the sweep exits 1 (not run) and check
    counts each pending cell as an error instead of passing with 0 checks."""
    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: pending\nmodels: [m.onnx]\ndevices: [local]\nruntimes: ['null']\n"
                                     "settings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0}\n")
    db = str(tmp_path / "db.sqlite")

    def commit_broken(*a: object) -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    monkeypatch.setattr(ledger, "commit_cell", commit_broken)
    code = main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "1 not run" in err
    sweep_id = (tmp_path / "id").read_text().strip()
    assert ledger.get_sweep(Store(db), sweep_id).counts()["pending"] == 1
    monkeypatch.undo()
    junit = tmp_path / "check.xml"
    assert main(["check", "--sweep", sweep_id, "--db", db, "--junit", str(junit)]) == 1
    err = capsys.readouterr().err
    assert "0 checks" not in err and "1 errors" in err
    assert "<error" in junit.read_text() and "never ran" in junit.read_text()


def test_a_sweeps_cooldown_and_power_rate_reach_the_run(tmp_path: Path) -> None:
    """`cooldown_c` and `power_rate_hz` in a sweep file reach the measurement as `deploy --cooldown --power-rate`
    do: the run waits for the temperature (here one every sensor is below: no wait) and stores both settings."""
    spec, cells, dev = sweep_cells(tmp_path, """
runtimes: ["null"]
settings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0, cooldown_c: 149, cooldown_timeout_s: 5}
overrides: [{match: {runtime: "null"}, power_rate_hz: 50}]
""")
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-cool", spec.name, None, {"name": spec.name}, cells)
    outcome = run_sweep(store, "sw-cool", cells, [dev])
    assert outcome.ok, outcome.results
    (result,) = outcome.results
    assert result.status == "ok" and result.settings is not None
    assert (result.settings.cooldown_c, result.settings.power_rate_hz) == (149.0, 50.0)
    stored = store.get(result.run_id)
    assert stored.settings is not None and stored.settings.cooldown_c == 149.0


def test_a_sweeps_profile_ops_profiles_its_cells(tmp_path: Path) -> None:
    """`profile_ops: true` in a sweep file is `deploy --profile-ops`: an onnxruntime cell gets its per-op profile
    and stores the setting; an override turns it off for a cell, which has no profile."""
    spec, cells, dev = sweep_cells(tmp_path, """
batch: [1, 2]
settings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0, idle_s: 0, profile_ops: true}
overrides: [{match: {batch: 2}, profile_ops: false}]
""")
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-ops", spec.name, None, {"name": spec.name}, cells)
    outcome = run_sweep(store, "sw-ops", cells, [dev], cache_dir=tmp_path / "cache")
    assert outcome.ok, outcome.results
    by_batch = {r.batch: r for r in outcome.results}
    profiled, plain = by_batch[1], by_batch[2]
    assert profiled.ops is not None and profiled.ops.available and profiled.ops.op_types
    assert profiled.settings.to_dict()["profile_ops"] is True
    assert plain.ops is None and plain.settings.to_dict()["profile_ops"] is None


def test_the_sweeps_wall_time_is_accounted_per_phase_and_board(tmp_path: Path) -> None:
    """A local sweep of three cells: the breakdown's phases (each row's parts, the board's connection, lease,
    facts, exports and stores, and what no phase covers) add up to the board's wall time, the timed windows are
    the rows' windows, and the report's Markdown has the same table."""
    from edgeprof.analysis.breakdown import stored_breakdown
    from edgeprof.report.phases import text_table

    spec, cells, dev = sweep_cells(tmp_path, """
runtimes: ["null", onnxruntime]
precisions: [fp32]
threads: [1, 2]
exclude:
  - {runtime: "null", threads: 2}
settings: {min_duration_s: 0.3, min_queries: 10, warmup_s: 0.2, idle_s: 0}
""")
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-ph", spec.name, None, {"name": spec.name}, cells)
    outcome = run_sweep(store, "sw-ph", cells, [dev])
    assert outcome.ok and len(outcome.results) == 3
    bd = outcome.breakdown()
    board = bd.boards["local"]
    assert board.cells == 3 and board.wall_s is not None and 0 < board.wall_s <= outcome.wall_s
    assert board.seconds["window"] == pytest.approx(sum(r.phases.window_s for r in outcome.results if r.phases))
    for key in ("board_connect", "lease", "board_facts", "store", "agent", "load", "between"):
        assert key in board.seconds, key
    assert sum(board.seconds.values()) == pytest.approx(board.wall_s, rel=1e-6)
    assert 0 < (bd.share() or 0) < 1
    lines = text_table(bd)
    assert lines[0].startswith("timed windows ") and any(line.startswith("lease") for line in lines)
    stored = stored_breakdown(store.get_many([r.run_id for r in outcome.results]))
    assert stored is not None and stored.window_s == pytest.approx(bd.window_s)
