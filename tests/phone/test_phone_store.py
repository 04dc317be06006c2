"""A phone run stored (result schema 8), through the CLI against the stand-in phone with both adb clients:
`deploy --device phone --model ds_cnn` stores a Result whose latency says it is benchmark_model's and what is
absent and why; `results show` (text and --json) and `results list` read it back from SQLite; a charging phone's
run is stored with power refused and the reason; the stored run compares against a board's result."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
import pytest
from test_phone_cli import inventory

from edgeprof.cli.main import main
from edgeprof.phone.benchmark import NOT_EMITTED
from edgeprof.records import RESULT_SCHEMA_VERSION, PhoneDeviceFacts, Result
from edgeprof.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"


def deploy(inv: str, db: Path, *extra: str) -> list[str]:
    return ["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--min-duration", "0.5",
            "--min-queries", "20", "--warmup", "0", "--quiet", "--db", str(db), *extra]


def bm(extra: str = "") -> str:
    return f"    benchmark_model: '{tree.benchmark_model_script()}'\n{extra}"


def test_deploy_stores_the_phone_result_and_results_show_reads_it(adb_client, server_port, phone, tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port, bm())
    db = tmp_path / "r.sqlite"
    assert main(deploy(inv, db, "--json", str(tmp_path / "r.json"))) == 0
    cap = capsys.readouterr()
    assert "stored as run " in cap.err
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["schema_version"] == RESULT_SCHEMA_VERSION == 12
    r = Store(str(db)).get(written["run_id"])
    assert r.to_dict() == written
    lat = r.latency_ms
    assert lat is not None and lat.source == "benchmark_model" and lat.n == 20
    assert lat.min <= lat.p5 <= lat.p50 <= lat.p95 <= lat.max  # type: ignore[operator]
    # nothing derived from the summary: the tail, the CV, throughput and the samples are absent, with the reason
    assert (lat.p90, lat.p97, lat.p99, lat.p999, lat.cv, lat.early_stop_p99) == (None,) * 6
    assert r.samples_ms == [] and r.throughput_ips is None
    assert lat.absent_reason("p99") == lat.absent_reason("samples") == NOT_EMITTED
    assert "window" in (lat.absent_reason("throughput_ips") or "")
    assert r.runtime == "tflite" and r.status == "ok" and r.artifact is not None and r.artifact.extension == "tflite"
    assert r.power is not None and r.power.source == "battery" and r.power.mean_w == pytest.approx(0.412 * 3.912)
    assert r.power.energy_mj_per_inference == pytest.approx(r.power.mean_w * lat.mean, rel=1e-6)
    assert r.null_reasons.power is None and "phones" in (r.null_reasons.fidelity or "")
    ph = r.phone
    assert ph is not None and ph.init_ms == pytest.approx(21.432) and ph.first_inference_ms > lat.p50
    assert ph.delegate == "xnnpack" and ph.thermal_status_before == 0 and ph.battery == {
        "status": "Discharging", "capacity_pct": 78, "deviations": []}
    [d] = ph.delegation  # the interpreter's "Replacing N out of M node(s)": the exported graph's own M
    assert (d["delegate"], d["ops_on_cpu"], d["unit"]) == ("XNNPACK", 1, "CPU (XNNPACK)")
    assert d["ops_on_delegate"] + d["ops_on_cpu"] == d["ops_total"] > 1
    assert "--use_xnnpack=true" in ph.command and ph.binary and ph.binary.startswith("/data/local/tmp/edgeprof/bin/")
    assert r.memory_mb is not None and r.memory_mb.peak_rss == pytest.approx(9.48438)
    env = r.environment.device
    assert isinstance(env, PhoneDeviceFacts) and env.kind == "phone"
    assert env.board_model == "Google Pixel 6" and env.arch == "arm64-v8a"
    assert env.power_source == "battery" and env.battery is not None and env.battery["deviations"] == []
    assert env.rails == []
    assert r.thermal is not None and r.thermal.before is not None and r.thermal.before.max_temp_c

    assert main(["results", "show", r.run_id, "--db", str(db)]) == 0
    text = capsys.readouterr().out.replace("\n", " ")
    assert "benchmark_model's own statistics" in text and "not measured: samples, p90, p97, p99, p999" in text
    assert "not measured: throughput_ips" in text and "init 21.432 ms" in text
    assert "power · battery" in text and "power (battery, whole phone): mean 1.612 W" in text
    assert (f"delegate XNNPACK: graph partially delegated (2 delegate kernels); ops: {d['ops_on_delegate']} of "
            f"{d['ops_total']} on CPU (XNNPACK), 1 on the CPU (LiteRT's kernels), 3 partitions") in text
    assert main(["results", "show", r.run_id, "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown.pop("prediction")["found"] is False  # the read-time join (no prediction of a phone's run)
    assert shown == written
    assert main(["results", "list", "--db", str(db)]) == 0
    assert r.run_id in capsys.readouterr().out


def test_a_charging_phone_is_stored_without_power_and_says_why(adb_client, server_port, phone, tmp_path, capsys):
    tree.set_battery(phone.root, charging=True)
    inv = inventory(tmp_path, phone, adb_client, server_port, bm())
    db = tmp_path / "r.sqlite"
    assert main(deploy(inv, db)) == 0
    capsys.readouterr()
    [row] = Store(str(db)).list(limit=5)
    r = Store(str(db)).get(row.run_id)
    assert r.power is None and "charging" in (r.null_reasons.power or "")
    assert r.warnings == []  # the refusal is the power section's reason, said once
    assert main(["results", "show", r.run_id, "--db", str(db)]) == 0
    lines = [ln for ln in capsys.readouterr().out.replace("\n ", " ").splitlines() if "charging" in ln]
    assert lines == ["power: none (the phone is charging: battery power is not measured while charging (unplug it, "
                     "or use adb over Wi-Fi); latency is still measured)"]
    assert r.latency_ms is not None and r.latency_ms.n == 20


def test_the_phone_result_compares_against_a_board_result(adb_client, server_port, phone, tmp_path, capsys):
    """A board's ds_cnn run (a golden v7 result, migrated) against the phone's: the phone's absent metrics are
    shown as absent with benchmark_model's reason, never as 0; p50 compares (no significance test: one side has
    no raw samples)."""
    db = tmp_path / "r.sqlite"
    board = Result.from_dict(json.loads((GOLDEN / "v7" / "ok_local_ds_cnn.json").read_text()))
    Store(str(db)).save(board)
    inv = inventory(tmp_path, phone, adb_client, server_port, bm())
    assert main(deploy(inv, db, "--json", str(tmp_path / "p.json"))) == 0
    capsys.readouterr()
    phone_id = json.loads((tmp_path / "p.json").read_text())["run_id"]
    from edgeprof.analysis.compare import compare_results

    stored = Store(str(db)).get(phone_id)
    rows = {d.metric.name: d for d in compare_results(board, stored)}
    assert rows["p99_ms"].new is None and rows["p99_ms"].verdict == "n/a" and NOT_EMITTED in rows["p99_ms"].note
    assert rows["throughput_ips"].new is None and "window" in rows["throughput_ips"].note
    assert rows["p50_ms"].new is not None and rows["p50_ms"].p_value is None
    assert rows["p50_ms"].verdict == "unchanged" or "no significance test" in rows["p50_ms"].note
    assert main(["compare", board.run_id, phone_id, "--db", str(db)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"not compared p90_ms, p99_ms: not measured in the new result: {NOT_EMITTED}" in text


def test_a_budget_on_what_a_phone_did_not_measure_is_skipped_with_the_reason() -> None:
    """`edgeprof check`'s budgets on the golden phone result: p50 is checked, p99 is skipped with benchmark_model's
    reason (never failed as if it were 0, never passed)."""
    from edgeprof.analysis.regress import budget_findings, parse_budget

    r = Result.from_dict(json.loads((GOLDEN / "v8" / "ok_phone_ds_cnn.json").read_text()))
    p50, p99 = budget_findings(r, [parse_budget("p50_ms < 1000"), parse_budget("p99_ms < 1000")])
    assert p50.outcome == "passed"
    assert p99.outcome == "skipped" and p99.message == f"budget p99_ms < 1000: p99_ms was not measured ({NOT_EMITTED})"


def test_two_phone_results_compare_without_a_significance_test() -> None:
    """Two phone runs (the golden one and a copy 30 % slower): the latency change is judged on the minimum effect
    alone and says why there is no Mann-Whitney test; the tail stays not compared on both sides."""
    import dataclasses

    from edgeprof.analysis.compare import compare_results

    a = Result.from_dict(json.loads((GOLDEN / "v8" / "ok_phone_ds_cnn.json").read_text()))
    lat = a.latency_ms
    assert lat is not None
    b = dataclasses.replace(a, run_id="slower", latency_ms=dataclasses.replace(lat, p50=lat.p50 * 1.3))
    rows = {d.metric.name: d for d in compare_results(a, b)}
    assert rows["p50_ms"].verdict == "regressed" and rows["p50_ms"].p_value is None
    assert rows["p50_ms"].note == f"no significance test: neither result has raw samples ({NOT_EMITTED})"
    assert rows["p99_ms"].verdict == "n/a" and rows["p99_ms"].note == f"not measured in the baseline: {NOT_EMITTED}"


def test_the_golden_phone_result_keeps_its_op_counts_and_shows_them() -> None:
    """The v8 golden phone run (the stand-in, battery power): the stored delegation's op counts, the battery's
    deviations (none on the Pixel tree) and `results show`'s phone lines made from them."""
    from edgeprof.cli.ui import phone_lines

    r = Result.from_dict(json.loads((GOLDEN / "v8" / "ok_phone_ds_cnn.json").read_text()))
    assert r.phone is not None and r.power is not None and r.power.rails_energy_j is None
    [d] = r.phone.delegation
    assert (d["ops_on_delegate"], d["ops_total"], d["ops_on_cpu"], d["partitions"]) == (12, 13, 1, 3)
    assert r.phone.battery == {"status": "Discharging", "capacity_pct": 78, "deviations": []}
    assert r.environment.fact("power_source") == "battery"
    lines = phone_lines(r)
    assert ("delegate XNNPACK: graph partially delegated (2 delegate kernels); ops: 12 of 13 on CPU (XNNPACK), 1 on "
            "the CPU (LiteRT's kernels), 3 partitions") in lines
    assert "power (battery, whole phone): mean 1.612 W over 0.43 s, 5.181 mJ per inference" in lines
    assert not [ln for ln in lines if ln.startswith(("rails", "battery: deviates"))]
