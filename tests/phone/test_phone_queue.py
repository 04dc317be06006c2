"""A phone's cells through the lab queue: a sweep with a tflite cell and an onnxruntime cell on the stand-in phone
submitted to a real PostgreSQL queue (tests/pg.py), run by a real `edgeprof worker` process that owns the phone
(its devices.yaml names it): the tflite row is ok with the phone section (latency from benchmark_model), the
onnxruntime cell is a skip row with the phone's reason, and the phone's lease is released when the worker is done."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import phone_tree as tree
import pytest
from test_phone_cli import inventory

from edgeprof.cli.main import main
from edgeprof.lab import queue
from edgeprof.lab import sweep_state as ledger
from edgeprof.phone.lease import LOCK_DIR
from edgeprof.store import Store

pytestmark = pytest.mark.slow

def wait_for(pred: Callable[[], Any], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


SETTINGS = ("settings: {min_duration_s: 0.3, min_queries: 20, warmup_s: 0, timeout_s: 120, retries: 1, "
            "retry_backoff_s: 0.2, lease_wait_s: 60}\n")


def test_a_phone_cell_runs_through_a_queue_worker(adb_client, server_port, phone, pg_url, tmp_path, capsys):
    queue.upgrade(pg_url)
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    spec = tmp_path / "s.yaml"
    spec.write_text(f"name: qphone\ninventory: {inv}\nmodels: [ds_cnn]\ndevices: [phone]\n"
                    "runtimes: [tflite, onnxruntime]\nthreads: [1]\n" + SETTINGS)
    assert main(["sweep", str(spec), "--queue", "--db", pg_url, "--inventory", inv]) == 0
    cap = capsys.readouterr()
    sweep_id = cap.out.strip()
    assert sweep_id.startswith("sw-"), cap.err
    # the onnxruntime cell is a static skip row: stored at once, no job
    assert "1 cells queued (priority 10): 1 on lab.default" in cap.err and "1 stored at once" in cap.err, cap.err

    store = Store(pg_url)
    lock = phone.root / "data/local/tmp/edgeprof" / LOCK_DIR
    holders: list[dict[str, Any]] = []
    done = threading.Event()

    def watch_lease() -> None:  # who holds the phone while the worker runs (the stand-in's tree is local)
        while not done.is_set():
            try:
                holders.append(json.loads((lock / "holder.json").read_text()))
                return
            except (OSError, ValueError):
                time.sleep(0.02)

    watcher = threading.Thread(target=watch_lease, daemon=True)
    watcher.start()
    # a long-running worker (no --until-idle): the lease must go with the cell, not with the worker's exit
    worker = subprocess.Popen(
        [sys.executable, "-m", "edgeprof", "worker", "--queue", "lab.default", "--db", pg_url,
         "--inventory", inv, "--poll", "0.2", "--cache-dir", str(tmp_path / "worker-cache")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: worker.poll() is not None or ledger.get_sweep(store, sweep_id).status == "done",
                 300, "the sweep's cells to be done")
        assert worker.poll() is None, worker.communicate()[1][-3000:]
        # released after the cell while the worker keeps running (the row is committed just before)
        wait_for(lambda: not lock.exists(), 30, "the phone's lease to be released")
        assert worker.poll() is None
    finally:
        done.set()
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
        _, werr = worker.communicate(timeout=60)
    assert worker.returncode == 0, werr[-3000:]
    # the worker held the phone's lease for the cell, in the sweep's name
    assert [(h.get("sweep_id"), h.get("purpose")) for h in holders] == [(sweep_id, "sweep")]

    rec = ledger.get_sweep(store, sweep_id)
    assert rec.status == "done" and rec.counts() == {"ok": 1, "failed": 0, "skipped": 1, "pending": 0}
    by = {r.runtime: r for r in (store.get(x.run_id) for x in store.list(sweep_id=sweep_id, limit=None))}
    assert {k: r.status for k, r in by.items()} == {"tflite": "ok", "onnxruntime": "skipped"}
    assert by["onnxruntime"].reason == "runtime onnxruntime: a phone runs LiteRT (tflite) through benchmark_model"
    ph = by["tflite"]
    assert ph.device == "phone" and ph.phone is not None and "--num_threads=1" in ph.phone.command
    assert ph.latency_ms is not None and ph.latency_ms.source == "benchmark_model" and ph.latency_ms.n == 20
    assert ph.sweep is not None and ph.sweep.sweep_id == sweep_id and ph.sweep.attempts == 1
    assert ph.phone.tool == "benchmark_model" and ph.phone.binary and ph.phone.init_ms is not None
    env = ph.environment.device  # the phone's facts, read by the worker under the lease
    assert env is not None and env.kind == "phone" and env.board_model == "Google Pixel 6" and env.arch == "arm64-v8a"
    assert ph.memory_mb is not None and ph.memory_mb.peak_rss > 0
    assert not lock.exists()
