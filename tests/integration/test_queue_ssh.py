"""The lab queue across boards: three real sshd boards (tests/integration/sshd.py), two `edgeprof worker`
processes and two producers submitting sweeps at once with `--queue --wait`, on a real PostgreSQL. No board ever
runs two cells at once (checked from the cells' own times and from each board's lease log), and every cell ends
as exactly one row."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
from test_queue_local import edgeprof, jobs, wait_for
from test_sweep_local import write_model
from test_sweep_ssh import inventory, lease_log_alternates

from edgeprof.lab import queue
from edgeprof.lab import sweep_state as ledger
from edgeprof.store import Store

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

FAST = ("settings: {min_duration_s: 0.3, min_queries: 20, warmup_s: 0.1, timeout_s: 90, retries: 1, "
        "retry_backoff_s: 0.3, lease_wait_s: 120}\n")


def test_two_workers_two_producers_three_boards_never_overlap(sshd_hosts, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              pg_url: str) -> None:
    queue.upgrade(pg_url)
    names = ("alpha", "beta", "gamma")
    hosts = {n: sshd_hosts.start_host(n) for n in names}
    inv = inventory(tmp_path / "devices.yaml", sshd_hosts,
                    {n: (hosts[n], {"rack": "1"}, sys.executable) for n in names})
    # every board belongs to controller hostA (the smallest edit: one `controller:` line per device)
    text = inv.read_text().replace("    port:", "    controller: hostA\n    port:")
    inv.write_text(text)
    for h in hosts.values():  # host workdirs outlive a test (the lab is per session): start a fresh log
        (Path(h.workdir) / "edgeprof.lease.log").unlink(missing_ok=True)
    write_model(tmp_path / "m.onnx")
    for i in (1, 2):
        (tmp_path / f"p{i}.yaml").write_text(f"name: p{i}\nmodels: [m.onnx]\ndevices: [alpha, beta, gamma]\n"
                                             "runtimes: [\"null\", onnxruntime]\nthreads: [1, 2]\n" + FAST)
    workers = [edgeprof("worker", "--queue", "lab.hostA", "--db", pg_url, "--inventory", str(inv),
                        "--concurrency", "3", "--poll", "0.2") for _ in range(2)]
    try:
        wait_for(lambda: len(queue.lab_status(Store(pg_url)).workers) == 2, 60, "both workers' heartbeats")
        producers = [edgeprof("sweep", str(tmp_path / f"p{i}.yaml"), "--queue", "--wait", "--db", pg_url,
                              "--inventory", str(inv)) for i in (1, 2)]
        sweep_ids = []
        for p in producers:
            out, err = p.communicate(timeout=400)
            assert p.returncode == 0, err
            sweep_ids.append(out.strip().splitlines()[0])
            assert "12 cells queued (priority 10): 12 on lab.hostA" in err, err
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        werrs = [w.communicate(timeout=60)[1] for w in workers]
    assert all(w.returncode == 0 for w in workers), werrs
    assert all("start " in e for e in werrs), "both workers ran cells: " + " | ".join(werrs)
    store = Store(pg_url)
    for sid in sweep_ids:
        rec = ledger.get_sweep(store, sid)
        assert rec.status == "done" and rec.counts() == {"ok": 12, "failed": 0, "skipped": 0, "pending": 0}
        assert len(store.list(sweep_id=sid, limit=None)) == 12  # every cell exactly one row
        assert {j["status"] for j in jobs(pg_url, sid)} == {"succeeded"}
        assert {j["lock"] for j in jobs(pg_url, sid)} == {f"board:{n}" for n in names}
    # boards run in parallel: some cells of different boards overlap in time
    everything = sorted((r.sweep.started_at_unix, r.sweep.ended_at_unix, r.device)
                        for r in store.iter_results(limit=None))
    assert any(e1 > s2 and d1 != d2 for (_, e1, d1), (s2, _, d2) in zip(everything, everything[1:], strict=False))
    for name in names:
        spans = sorted((r.sweep.started_at_unix, r.sweep.ended_at_unix,
                        r.sweep.controller) for r in store.iter_results(device=name, limit=None))
        assert len(spans) == 8
        for (_, e1, c1), (s2, _, c2) in zip(spans, spans[1:], strict=False):
            assert e1 <= s2, f"{name}: a cell of {c1} ran until {e1}, one of {c2} started at {s2}"
        # the board's own lease log: every acquisition released before the next, by whoever held it
        events = lease_log_alternates(hosts[name], name)
        assert sum(1 for ev in events if ev["event"] == "acquired") == 8


def write_run_failing_model(path: Path, dim: int = 128) -> Path:
    """x[batch,16,dim] reshaped to a fixed [1, 16*dim]: exports and loads, and fails on the board at run time
    for batch > 1 (a measurement failure, not a transport one)."""
    import onnx
    from onnx import TensorProto, helper

    shape = helper.make_tensor("s", TensorProto.INT64, [2], [1, 16 * dim])
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["y"])], "bad",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16, dim])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16 * dim])], [shape])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def job_attempts(url: str, sweep_id: str) -> list[tuple[str, int]]:
    import psycopg

    with psycopg.connect(queue.conninfo(url)) as conn:
        return [(r[0], int(r[1])) for r in conn.execute(
            "SELECT status::text, attempts FROM procrastinate_jobs WHERE args->>'sweep_id' = %s ORDER BY id",
            (sweep_id,)).fetchall()]


def test_a_board_down_goes_back_to_the_queue_until_it_is_up_and_a_failed_measurement_runs_once(  # type: ignore[no-untyped-def]
        sshd_hosts, tmp_path: Path, pg_url: str) -> None:
    queue.upgrade(pg_url)
    host = sshd_hosts.start_host("delta")
    inv = inventory(tmp_path / "devices.yaml", sshd_hosts, {"delta": (host, {"rack": "1"}, sys.executable)})
    write_model(tmp_path / "m.onnx")
    write_run_failing_model(tmp_path / "bad.onnx")
    (tmp_path / "up.yaml").write_text("name: up\nmodels: [m.onnx]\ndevices: [delta]\nruntimes: [\"null\"]\n"
                                      "settings: {min_duration_s: 0.3, min_queries: 20, warmup_s: 0.1, "
                                      "timeout_s: 90, retries: 4, retry_backoff_s: 2, lease_wait_s: 60}\n")
    (tmp_path / "bad.yaml").write_text("name: bad\nmodels: [bad.onnx]\ndevices: [delta]\nruntimes: [onnxruntime]\n"
                                       "batch: [2]\nsettings: {min_duration_s: 0.3, min_queries: 20, warmup_s: 0, "
                                       "timeout_s: 90, retries: 4, retry_backoff_s: 2, lease_wait_s: 60}\n")
    sshd_hosts.stop_host(host)  # the board is down when its cell is first taken
    up = edgeprof("sweep", str(tmp_path / "up.yaml"), "--queue", "--db", pg_url, "--inventory", str(inv))
    out, err = up.communicate(timeout=120)
    assert up.returncode == 0, err
    up_id = out.strip().splitlines()[0]
    worker = edgeprof("worker", "--queue", "lab.default", "--db", pg_url, "--inventory", str(inv), "--poll", "0.2",
                      "--until-idle")
    try:
        # the first attempt failed to connect and gave the job back (todo again, one attempt counted)
        wait_for(lambda: any(s == "todo" and n >= 1 for s, n in job_attempts(pg_url, up_id)), 60,
                 "the cell to be given back to the queue")
        sshd_hosts._launch(host, keep_port=True)  # the board is back, on the same port
        _, werr = worker.communicate(timeout=180)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
    assert worker.returncode == 0, werr
    assert "back to the queue, retried in 2.0 s" in werr, werr
    store = Store(pg_url)
    (state,) = ledger.get_sweep(store, up_id).cells
    assert state.status == "ok", (state.status, state.reason)
    row = store.get(state.run_id)  # type: ignore[arg-type]
    assert row.sweep is not None and row.sweep.attempts >= 2  # the attempt that connected counts them all
    (job,) = job_attempts(pg_url, up_id)
    assert job == ("succeeded", row.sweep.attempts), job  # procrastinate counts every run of the job
    # a measurement that fails on the board is a row at once: one attempt, never given back
    bad = edgeprof("sweep", str(tmp_path / "bad.yaml"), "--queue", "--db", pg_url, "--inventory", str(inv))
    out, err = bad.communicate(timeout=120)
    assert bad.returncode == 0, err
    bad_id = out.strip().splitlines()[0]
    worker = edgeprof("worker", "--queue", "lab.default", "--db", pg_url, "--inventory", str(inv), "--poll", "0.2",
                      "--until-idle")
    _, werr = worker.communicate(timeout=180)
    assert worker.returncode == 0, werr
    (state,) = ledger.get_sweep(store, bad_id).cells
    assert state.status == "failed" and state.attempts == 1, (state.status, state.attempts, state.reason)
    assert "Reshape" in (state.reason or "") or "shape" in (state.reason or ""), state.reason
    assert "back to the queue" not in werr and werr.count("start ") == 1, werr
    assert job_attempts(pg_url, bad_id) == [("succeeded", 1)]
