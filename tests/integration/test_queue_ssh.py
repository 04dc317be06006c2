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

from edgeprof.lab import ledger, queue
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
