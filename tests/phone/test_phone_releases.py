"""`edgeprof deploy --device phone` on a stand-in phone whose benchmark_model is an older release
(phone_tree.set_release; the formats and their sources: tests/data/phones/benchmark_model/SOURCES.md): what that
build printed is stored as its own (count, min, max, mean, std; its percentiles where it printed them), what it did
not print is null with the reason, and a run that gives no latency (--dry_run-like: count=0) ends in one line
(then the output's tail) and stores nothing; in a sweep it is a failed row with that tail, never ok."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.cli.main import main
from edgeprof.phone.benchmark import NO_PERCENTILES


def inventory(tmp_path: Path, d, adb_client: str, server_port: int) -> str:  # type: ignore[no-untyped-def]
    p = tmp_path / "devices.yaml"
    p.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(d)}'\n"
                 f"    adb: {adb_client}\n    adb_server_port: {server_port}\n"
                 f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    return str(p)


def deploy(inv: str, out: Path, db: Path | None = None) -> int:
    store = ["--db", str(db)] if db is not None else ["--no-store"]
    return main(["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--min-duration", "0.3",
                 "--min-queries", "12", "--warmup", "0", "--quiet", *store, "--json", str(out)])


def test_each_release_through_the_cli(adb_client, server_port, phone, tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port)
    for release, percentiles, first in (("litert", True, True), ("tensorflow", False, True),
                                        ("tensorflow-2019", False, False), ("tensorflow-2018", False, False)):
        tree.set_release(phone.root, release)
        out = tmp_path / f"{release}.json"
        assert deploy(inv, out) == 0, release
        text = " ".join(capsys.readouterr().out.split())
        r = json.loads(out.read_text())
        lat = r["latency_ms"]
        assert r["status"] == "ok" and lat["source"] == "benchmark_model" and lat["n"] == 12, release
        assert 0 < lat["min"] <= lat["mean"] <= lat["max"] and lat["std"] > 0, release
        assert lat["p99"] is None and r["throughput_ips"] is None and r["samples_ms"] == []
        if percentiles:
            assert lat["min"] <= lat["p5"] <= lat["p50"] <= lat["p95"] <= lat["max"]
        else:  # null, each with the reason; shown as not measured
            assert (lat["p5"], lat["p50"], lat["p95"]) == (None, None, None), release
            assert [lat["absent"][k] for k in ("p5", "p50", "p95")] == [NO_PERCENTILES] * 3
            assert "not measured: p50 — this benchmark_model build printed no percentiles" in text
        ph = r["phone"]
        assert ph["init_ms"] == pytest.approx(21.432) and ph["first_inference_ms"] > lat["mean"], release
        assert ph["memory_overall_delta_mb"] == (5.11719 if release != "tensorflow-2018" else None), release
        assert first or ph["first_inference_ms"] == pytest.approx(ph["warmup_mean_ms"])  # one warm-up run


def test_no_latency_is_one_line_and_stores_nothing(adb_client, server_port, phone, tmp_path, capsys):
    tree.set_release(phone.root, "dry-run")
    inv = inventory(tmp_path, phone, adb_client, server_port)
    db = tmp_path / "r.db"
    assert deploy(inv, tmp_path / "r.json", db) != 0
    captured = capsys.readouterr()
    [line, *tail] = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert line == ("edgeprof: error: device phone: benchmark_model's output is not a finished benchmark (the timed "
                    "runs' line gives no time: count=0, no run was timed)"), captured.err
    # then the output's tail, as every error with a detail (cli/main.py): the last 15 lines, indented
    assert 0 < len(tail) <= 15 and all(t.startswith("    ") for t in tail)
    assert any("count=0" in t for t in tail) and any("Inference (avg): nan" in t for t in tail)
    assert not (tmp_path / "r.json").exists()
    assert main(["results", "list", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.slow
def test_in_a_sweep_no_latency_is_a_failed_row_with_the_output_tail(adb_client, server_port, phone, tmp_path, capsys):
    from edgeprof.store import Store

    tree.set_release(phone.root, "dry-run")
    spec = tmp_path / "s.yaml"
    spec.write_text(f"name: old-phone\ninventory: {inventory(tmp_path, phone, adb_client, server_port)}\n"
                    "models: [ds_cnn]\ndevices: [phone]\nruntimes: [tflite]\n"
                    "settings: {min_duration_s: 0.3, min_queries: 12, warmup_s: 0, retries: 1}\n")
    db = tmp_path / "r.sqlite"
    code = main(["sweep", str(spec), "--db", str(db), "--quiet"])
    capsys.readouterr()
    s = Store(str(db))
    [row] = [s.get(r.run_id) for r in s.list(limit=10)]
    assert row.status == "failed" and row.latency_ms is None and code != 0
    assert row.reason is not None and "\n" not in row.reason
    assert "benchmark_model's output is not a finished benchmark (the timed runs' line gives no time: count=0, " \
           "no run was timed)" in row.reason
    assert row.stderr_tail is not None and "count=0" in row.stderr_tail and "Inference (avg): nan" in row.stderr_tail
    assert row.sweep is not None and row.sweep.attempts == 1  # a measurement failure is never retried
