"""Phones in sweeps, through the CLI: a sweep over this machine (device `local`, the agent as a subprocess, as the
local sweep tests run it) and the stand-in phone gives one report with both; the phone's onnxruntime cell is a
skip row with the one-line reason; a phone that vanishes mid-sweep is a failed row with the reason and the sweep
goes on."""

from __future__ import annotations

import csv
import threading
import time
from pathlib import Path

import phone_tree as tree
import pytest
from test_phone_cli import inventory

from edgeprof.cli.main import main
from edgeprof.store import Store

pytestmark = pytest.mark.slow

SETTINGS = "settings: {min_duration_s: 0.3, min_queries: 20, warmup_s: 0, retries: 1, retry_backoff_s: 0.2}\n"


def sweep_file(tmp_path: Path, inv: str, body: str) -> Path:
    p = tmp_path / "s.yaml"
    p.write_text(f"name: mixed\ninventory: {inv}\nmodels: [ds_cnn]\ndevices: [local, phone]\n{body}")
    return p


def rows(db: Path) -> list:  # type: ignore[type-arg]
    s = Store(str(db))
    return [s.get(r.run_id) for r in s.list(limit=100)]


def test_a_sweep_over_a_board_and_a_phone_gives_one_report(adb_client, server_port, phone, tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    spec = sweep_file(tmp_path, inv, "runtimes: [tflite, onnxruntime]\nthreads: [1]\n" + SETTINGS)
    db = tmp_path / "r.sqlite"
    assert main(["sweep", str(spec), "--dry-run"]) == 0  # the phone's skip is known before anything connects
    assert "a phone runs LiteRT (tflite) through" in " ".join(capsys.readouterr().out.split())
    assert main(["sweep", str(spec), "--db", str(db), "--quiet"]) == 0
    capsys.readouterr()
    by = {(r.device, r.runtime): r for r in rows(db)}
    assert {k: r.status for k, r in by.items()} == {("local", "tflite"): "ok", ("local", "onnxruntime"): "ok",
                                                   ("phone", "tflite"): "ok", ("phone", "onnxruntime"): "skipped"}
    assert by[("phone", "onnxruntime")].reason == \
        "runtime onnxruntime: a phone runs LiteRT (tflite) through benchmark_model"
    ph = by[("phone", "tflite")]
    assert ph.latency_ms is not None and ph.latency_ms.source == "benchmark_model" and ph.latency_ms.n == 20
    assert ph.sweep is not None and ph.sweep.sweep_id and ph.phone is not None and ph.threads == 1
    assert "--num_threads=1" in ph.phone.command
    assert by[("local", "tflite")].samples_ms  # the board's row keeps its raw samples
    # the lease was released when the sweep ended
    assert not (phone.root / "data/local/tmp/edgeprof/lease.lock").exists()

    for fmt in ("md", "csv", "html"):
        out = tmp_path / f"r.{fmt}"
        assert main(["report", "--sweep", "last", "--out", str(out), "--db", str(db)]) == 0, fmt
    md = (tmp_path / "r.md").read_text()
    assert "phone" in md and "local" in md and "benchmark_model" in md
    table = list(csv.DictReader((tmp_path / "r.csv").open()))
    phone_rows = [r for r in table if r["device"] == "phone" and r["status"] == "ok"]
    assert len(phone_rows) == 1 and phone_rows[0]["latency_source"] == "benchmark_model"
    assert phone_rows[0]["p99_ms"] == "" and float(phone_rows[0]["p50_ms"]) > 0  # absent, not 0
    board = [r for r in table if r["device"] == "local" and r["runtime"] == "tflite"][0]
    assert board["latency_source"] == "samples" and float(board["p99_ms"]) > 0
    html = (tmp_path / "r.html").read_text()
    assert "phone" in html and "benchmark_model" in html


def test_a_phone_that_vanishes_mid_sweep_is_a_failed_row_and_the_sweep_goes_on(adb_client, server_port, phone,
                                                                              tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    body = ("runtimes: [tflite]\nthreads: [1, 2]\n" + SETTINGS
            + "overrides:\n  - match: {device: phone}\n    min_duration_s: 4\n")
    spec = sweep_file(tmp_path, inv, body)
    trace = phone.root / "data/local/tmp/edgeprof/battery.trace"
    done = threading.Event()

    def unplug_when_measuring() -> None:  # the battery sampler's trace exists only while benchmark_model runs
        while not done.is_set():
            if trace.exists():
                phone.vanish()
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=unplug_when_measuring, daemon=True)
    watcher.start()
    db = tmp_path / "r.sqlite"
    try:
        code = main(["sweep", str(spec), "--db", str(db), "--quiet"])
    finally:
        done.set()
    capsys.readouterr()
    assert code == 1  # a failed cell
    by = {(r.device, r.threads): r for r in rows(db)}
    assert by[("local", 1)].status == by[("local", 2)].status == "ok"  # the sweep went on
    lost = [r for k, r in by.items() if k[0] == "phone"]
    assert [r.status for r in lost] == ["failed", "failed"]
    # the cell running when the phone went: lost mid-run, retried (the phone is gone), a failed row with the reason
    first = min(lost, key=lambda r: r.sweep.started_at_unix if r.sweep and r.sweep.started_at_unix else 0)
    assert first.latency_ms is None and first.sweep is not None and first.sweep.attempts == 2
    assert (first.reason or "").startswith("device 'phone' (adb ") and "gave up after 2 attempts" in (first.reason or "")
    # the phone's later cell is not attempted (the phone proved unreachable)
    later = max(lost, key=lambda r: r.sweep.started_at_unix if r.sweep and r.sweep.started_at_unix else 0)
    assert later is not first and (later.reason or "").startswith("not attempted: ")


def test_a_phone_cell_past_its_timeout_is_a_failed_row_and_the_next_cell_runs(adb_client, server_port, phone,
                                                                              tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    p = tmp_path / "s.yaml"
    p.write_text(f"name: slow\ninventory: {inv}\nmodels: [ds_cnn]\ndevices: [phone]\nruntimes: [tflite]\n"
                 "threads: [1, 2]\n" + SETTINGS + "overrides:\n  - match: {threads: 1}\n    min_duration_s: 30\n"
                 "    timeout_s: 3\n")
    db = tmp_path / "r.sqlite"
    assert main(["sweep", str(p), "--db", str(db), "--quiet"]) == 1
    capsys.readouterr()
    by = {r.threads: r for r in rows(db)}
    assert by[1].status == "failed" and by[1].reason == (
        "timed out after 3 s (the cell's timeout_s); the adb shell running benchmark_model was stopped")
    assert by[1].sweep is not None and by[1].sweep.attempts == 1
    assert by[2].status == "ok" and by[2].latency_ms is not None
