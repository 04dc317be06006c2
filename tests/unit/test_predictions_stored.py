"""Stored predictions (issue 37 item 3): the record's JSON round trip and refusal of a newer version, the store's
schema 5 (a version-4 database gains the predictions table on open), the newest prediction of a configuration,
and through the CLI: `results show`, `compare` of sweeps and the report (Markdown and HTML) put each measured run
beside its prediction with the error, and the report ranks the boards both ways with the agreement stated."""

import dataclasses
import json
import re

import pytest
import sqlalchemy as sa
from test_identity import file_result

from edgeprof.cli.main import main
from edgeprof.errors import StoreError
from edgeprof.lab import sweep_state as ledger
from edgeprof.lab.cell import Cell
from edgeprof.records import Result, SweepInfo
from edgeprof.records.prediction import PREDICTION_VERSION, StoredPrediction
from edgeprof.store import DB_SCHEMA_VERSION, Store, config_key
from edgeprof.store.predictions import latest_by_key, of_sweep, save_prediction


def prediction_of(result, p50, low, high, *, created_at="2026-12-05T01:00:00+00:00", sweep_id=None):
    """A prediction record for `result`'s configuration (the numbers are the test's; what is checked is how they
    are stored, matched and shown)."""
    ident = result.identity
    return StoredPrediction(
        config_key=ident.key(), created_at=created_at, device=result.device, model=result.model,
        source=ident.source, content=ident.content, runtime=result.runtime, runtime_version="1.32.0",
        precision=result.precision, batch=result.batch, threads=result.threads or 1, shapes=ident.shapes or (),
        table_id="0123456789abcdef", table_path="/t/x.json", p50_ms=p50, low_ms=low, high_ms=high, level=0.9,
        covered_ops=0.75, covered_flops=0.9, uncovered=({"op": "Einsum", "count": 1, "assumed_ms": 0.01},),
        warnings=("op kinds the table lacks: Einsum",), sweep_id=sweep_id)


def board_result(device, p50, **kw):
    r = file_result("/data/models/net.onnx", p50=p50, **kw)
    return dataclasses.replace(r, device=device, runtime="onnxruntime", threads=1)


def test_record_round_trips_and_a_newer_version_is_refused():
    p = prediction_of(board_result("pi5", 2.0), 2.2, 1.8, 2.6)
    back = StoredPrediction.from_dict(json.loads(json.dumps(p.to_dict())))
    assert back == p
    c = p.check_against(2.0)
    assert c.error == pytest.approx(0.1) and c.inside
    assert not p.check_against(3.0).inside
    newer = {**p.to_dict(), "version": PREDICTION_VERSION + 1}
    with pytest.raises(StoreError, match="upgrade edgeprof"):
        StoredPrediction.from_dict(newer)


def test_a_version_4_database_gains_the_predictions_table_on_open(tmp_path):
    path = tmp_path / "r.sqlite"
    r = board_result("pi5", 2.0)
    Store(str(path)).save(r)
    eng = sa.create_engine(f"sqlite:///{path}")
    with eng.begin() as c:  # as edgeprof with DB schema 4 left it: no predictions table
        c.execute(sa.text("DROP TABLE predictions"))
        c.execute(sa.text("UPDATE meta SET value='4' WHERE key='schema_version'"))
    store = Store(str(path))
    assert DB_SCHEMA_VERSION == 5
    with eng.begin() as c:
        assert c.execute(sa.text("SELECT value FROM meta WHERE key='schema_version'")).scalar() == "5"
    assert [row.run_id for row in store.list()] == [r.run_id]  # the runs are untouched
    saved = save_prediction(store, prediction_of(r, 2.2, 1.8, 2.6))
    assert saved.prediction_id is not None


def test_the_newest_prediction_of_a_configuration_is_the_one_found(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    r = board_result("pi5", 2.0)
    other = board_result("pi5", 2.0, shape=(1, 3, 64, 64))  # other shapes fed: another configuration
    save_prediction(store, prediction_of(r, 2.5, 2.0, 3.0, created_at="2026-12-05T01:00:00+00:00"))
    newer = save_prediction(store, prediction_of(r, 2.1, 1.9, 2.4, created_at="2026-12-05T02:00:00+00:00",
                                                 sweep_id="sw-1"))
    found = latest_by_key(store, [config_key(r), config_key(other)])
    assert list(found) == [config_key(r)] and found[config_key(r)] == newer
    assert of_sweep(store, "sw-1") == [newer]


def test_results_show_puts_the_prediction_beside_the_run(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    r = board_result("pi5", 2.0)
    store.save(r)
    p = save_prediction(store, prediction_of(r, 2.2, 1.8, 2.6))
    assert main(["results", "show", r.run_id, "--db", db]) == 0
    text = capsys.readouterr().out
    m = r.latency_ms.p50
    assert f"predicted p50 {p.p50_ms:.3f} ms [{p.low_ms:.3f}, {p.high_ms:.3f}] ms (90 %)" in text
    assert f"measured p50 {m:.3f} ms: prediction error {100 * (p.p50_ms / m - 1):+.1f} %" in text
    assert "measured inside the interval" in text and f"table {p.table_id}" in text
    assert "\\x0a" not in text and re.search(r"^measured p50", text, re.M)  # its own line, not an escaped newline
    assert "not in the table: Einsum ×1" in text and "prediction warning: op kinds the table lacks" in text
    # a run of another configuration (another board) shows no prediction
    q = board_result("nano", 3.0)
    store.save(q)
    assert main(["results", "show", q.run_id, "--db", db]) == 0
    assert "predicted p50" not in capsys.readouterr().out


def test_results_show_json_carries_the_prediction_beside_the_result_and_still_imports(tmp_path, capsys):
    """`results show --json`: the stored prediction under `prediction` (a read-time join: the stored result is
    unchanged, and the shown file still loads and imports), the reason when there is none."""
    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    r = board_result("pi5", 2.0)
    store.save(r)
    save_prediction(store, prediction_of(r, 2.5, 2.0, 3.0, created_at="2026-12-05T01:00:00+00:00"))
    p = save_prediction(store, prediction_of(r, 2.2, 1.8, 2.6, created_at="2026-12-05T02:00:00+00:00"))
    capsys.readouterr()
    assert main(["results", "show", r.run_id, "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    got = shown["prediction"]
    m = r.latency_ms.p50
    assert got["found"] is True and got["config_key"] == config_key(r) and "not part of the stored result" in got["note"]
    assert StoredPrediction.from_dict(got["record"]) == p  # the newest one, every field as stored
    assert got["record"]["table_id"] == p.table_id and got["record"]["runtime_version"] == "1.32.0"
    assert (got["record"]["p50_ms"], got["record"]["low_ms"], got["record"]["high_ms"], got["record"]["level"]) \
        == (p.p50_ms, p.low_ms, p.high_ms, p.level)
    assert (got["record"]["covered_ops"], got["record"]["covered_flops"]) == (p.covered_ops, p.covered_flops)
    assert got["check"] == {"measured_ms": m, "error": p.p50_ms / m - 1, "inside": p.low_ms <= m <= p.high_ms}
    # the result itself is the stored one: it loads as such, and `results import` takes the file
    assert Result.from_dict(shown) == store.get(r.run_id)
    with sa.create_engine(f"sqlite:///{db}").connect() as c:
        assert "prediction" not in json.loads(c.execute(sa.text("SELECT result_json FROM runs")).scalar())
    (tmp_path / "shown.json").write_text(json.dumps(shown))
    other = str(tmp_path / "other.sqlite")
    assert main(["results", "import", str(tmp_path / "shown.json"), "--db", other]) == 0
    assert Store(other).get(r.run_id) == store.get(r.run_id)
    # none: another configuration, and a failed run, each with its reason
    q = board_result("nano", 3.0)
    failed = dataclasses.replace(board_result("pi5", 2.0), status="failed", reason="connection refused")
    store.save(q)
    store.save(failed)
    capsys.readouterr()
    assert main(["results", "show", q.run_id, "--db", db, "--json"]) == 0
    none = json.loads(capsys.readouterr().out)["prediction"]
    assert none["found"] is False and "record" not in none
    assert none["reason"].startswith("no prediction of this configuration")
    assert main(["results", "show", failed.run_id, "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["prediction"]["reason"] == (
        "the run is failed: only an ok run is matched to a prediction")


def _sweep_of(store, sweep_id, results):
    cells = [Cell(model="/data/models/net.onnx", model_label="net.onnx", device=r.device, runtime="onnxruntime",
                  precision="fp32", batch=1, threads=1) for r in results]
    ledger.create_sweep(store, sweep_id, "s", None, {"name": "s", "text": ""}, cells)
    out = []
    for r, c in zip(results, cells, strict=True):
        r = dataclasses.replace(r, sweep=SweepInfo(sweep_id=sweep_id, cell_id=c.cell_id, attempts=1,
                                                   model_label="net.onnx"))
        ledger.commit_cell(store, sweep_id, c, r, 1)
        out.append(r)
    return out


def test_report_and_compare_show_predicted_vs_measured_and_rank_the_boards_both_ways(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    # measured: pi5 fastest, then orin, then nano; predicted: pi5, nano, orin (one pair swapped)
    measured = {"pi5": 2.0, "orin": 3.0, "nano": 4.0}
    predicted = {"pi5": (1.9, 1.5, 2.5), "orin": (5.0, 4.0, 6.0), "nano": (4.4, 3.9, 5.0)}
    _sweep_of(store, "sw-a", [board_result(d, m * 1.1, created_at="2026-12-04T00:00:00Z")
                                     for d, m in measured.items()])
    new = _sweep_of(store, "sw-b", [board_result(d, m, created_at="2026-12-05T00:00:00Z")
                                    for d, m in measured.items()])
    preds = {r.device: save_prediction(store, prediction_of(r, *predicted[r.device], sweep_id="sw-b")) for r in new}
    real = {r.device: r.latency_ms.p50 for r in new}

    assert main(["report", "--sweep", "sw-b", "--format", "md", "--out", str(tmp_path / "r.md"), "--db", db]) == 0
    md = (tmp_path / "r.md").read_text()
    assert "## Predicted vs measured" in md
    for d, p in preds.items():
        err = 100 * (p.p50_ms / real[d] - 1)
        inside = "yes" if p.low_ms <= real[d] <= p.high_ms else "no"
        assert (f"| {d} | onnxruntime | fp32 | 1 | 1 | {real[d]:.3f} | {p.p50_ms:.3f} | "
                f"[{p.low_ms:.3f}, {p.high_ms:.3f}] (90 %) | {err:+.1f} % | {inside} | 75 % |") in md
    assert "| 1 | pi5 | 1.900 | pi5 |" in md and "| 2 | nano | 4.400 | orin |" in md and "| 3 | orin | 5.000 | nano |" in md
    assert "The orderings agree on 2 of 3 board pairs (Kendall τ = +0.33); the same board first" in md

    assert main(["report", "--sweep", "sw-b", "--out", str(tmp_path / "r.html"), "--db", db]) == 0
    page = (tmp_path / "r.html").read_text()
    assert 'id="predicted"' in page and "Kendall τ = +0.33" in page
    assert f"{preds['orin'].p50_ms:.3f}" in page and f"{100 * (preds['orin'].p50_ms / real['orin'] - 1):+.1f} %" in page

    capsys.readouterr()
    assert main(["compare", "sw-a", "sw-b", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "predicted" in text and "measured" in text
    for d, p in preds.items():
        assert f"{p.p50_ms:.3f}" in text and f"{100 * (p.p50_ms / real[d] - 1):+.1f} %" in text
    assert main(["compare", new[0].run_id, new[1].run_id, "--db", db]) == 0  # two runs of two boards
    text = capsys.readouterr().out
    assert "predicted vs measured p50" in text
    assert f"{preds['pi5'].p50_ms:.3f}" in text and f"{preds['orin'].p50_ms:.3f}" in text


def test_the_csv_report_carries_each_runs_stored_prediction_and_empty_cells_without_one(tmp_path):
    import csv

    from edgeprof.report.predicted import CSV_COLUMNS as PRED_COLUMNS
    from edgeprof.report.tabular import CSV_COLUMNS

    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    # pi5 predicted (measured inside the interval), orin predicted (outside), nano never predicted, and a failed row
    runs = _sweep_of(store, "sw-c", [board_result("pi5", 2.0), board_result("orin", 3.0), board_result("nano", 4.0),
                                     dataclasses.replace(board_result("jetson", 1.0), status="failed",
                                                         reason="connection refused")])
    preds = {r.device: save_prediction(store, prediction_of(r, *lh, sweep_id="sw-c"))
             for r, lh in zip(runs, [(2.1, 1.0, 9.0), (1.5, 1.2, 1.8)], strict=False)}
    assert main(["report", "--sweep", "sw-c", "--format", "csv", "--out", str(tmp_path / "r.csv"), "--db", db]) == 0
    rows = {r["device"]: r for r in csv.DictReader((tmp_path / "r.csv").open())}
    assert list(next(iter(rows.values()))) == list(CSV_COLUMNS) and set(PRED_COLUMNS) <= set(CSV_COLUMNS)
    for d, p in preds.items():
        got, m = rows[d], next(r for r in runs if r.device == d).latency_ms.p50
        assert got["run_id"] and float(got["p50_ms"]) == m
        assert (float(got["predicted_p50_ms"]), float(got["predicted_low_ms"]), float(got["predicted_high_ms"]),
                float(got["predicted_level"])) == (p.p50_ms, p.low_ms, p.high_ms, p.level)
        assert float(got["prediction_error"]) == p.p50_ms / m - 1
        assert got["prediction_inside"] == ("1" if p.low_ms <= m <= p.high_ms else "0")
        assert float(got["prediction_covered_ops"]) == p.covered_ops and got["prediction_table_id"] == p.table_id
        assert int(got["prediction_id"]) == p.prediction_id
    assert rows["pi5"]["prediction_inside"] == "1" and rows["orin"]["prediction_inside"] == "0"
    for d in ("nano", "jetson"):
        assert all(rows[d][c] == "" for c in PRED_COLUMNS), rows[d]
    assert rows["jetson"]["status"] == "failed"


def test_predictions_are_stored_and_found_on_postgresql_too(pg_url, capsys):
    store = Store(pg_url)
    r = board_result("pi5", 2.0)
    store.save(r)
    first = save_prediction(store, prediction_of(r, 2.5, 2.0, 3.0, created_at="2026-12-05T01:00:00+00:00"))
    second = save_prediction(store, prediction_of(r, 2.2, 1.8, 2.6, created_at="2026-12-05T02:00:00+00:00"))
    assert second.prediction_id != first.prediction_id
    assert latest_by_key(store, [config_key(r)])[config_key(r)] == second
    assert main(["results", "show", r.run_id, "--db", pg_url]) == 0
    assert f"predicted p50 {second.p50_ms:.3f} ms" in capsys.readouterr().out


def test_predict_first_names_each_missing_table_once_and_refuses_cells_the_table_does_not_describe(
        tmp_path, monkeypatch):
    from test_predict_cli import _model, _table

    from edgeprof.lab.predict_first import predict_cells
    from edgeprof.predict.table import default_table_path, save_table

    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    save_table(_table(threads=2), default_table_path("vendor-board", "onnxruntime", "fp32", 2))
    model = str(_model(tmp_path))

    def cell(device, threads, **kw):
        return Cell(model=model, model_label="m.onnx", device=device, runtime="onnxruntime", precision="fp32",
                    batch=1, threads=threads, **kw)

    cells = [cell("vendor-board", 2), cell("pi5", 4), cell("pi5", 4), cell("pi5", None),
             cell("vendor-board", 2, settings={"runtime_options": {"graph_optimization_level": "basic"}}),
             cell("vendor-board", 2, skip="tensorrt needs an NVIDIA GPU")]
    said = []
    store = Store(str(tmp_path / "r.sqlite"))
    done = predict_cells(store, "sw-x", cells, said.append)
    assert [c.device for c, _ in done.predicted] == ["vendor-board"]
    assert done.predicted[0][1].sweep_id == "sw-x" and of_sweep(store, "sw-x") == [done.predicted[0][1]]
    assert said[0] == ("no calibration table for pi5 (runtime onnxruntime, fp32, threads 4): edgeprof calibrate "
                       "--device pi5 --threads 4; measuring it anyway")  # once for the two pi5 t4 cells
    assert said[1].startswith("no calibration table for pi5 (runtime onnxruntime, fp32, threads auto)")
    assert "graph level basic" in said[2] and said[2].startswith("could not predict vendor-board/m.onnx/")
    assert len(said) == 3 and done.not_predicted == 1
    assert done.ranking_lines()[0] == "predicted ranking · m.onnx · onnxruntime fp32 · b1:"


def test_predict_first_feeds_the_host_run_each_cells_inputs(tmp_path, monkeypatch):
    """A sweep cell's input_ranges (and values, data) reach predict's host run as they reach the deploy: a Slice
    ended by input k costs 64 rows when the cell ranges k to 64, none when k is left at its default 0."""
    from test_predict_cli import _sliced, _table

    from edgeprof.lab.predict_first import predict_cells
    from edgeprof.predict.table import default_table_path, save_table

    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    save_table(_table(threads=2), default_table_path("vendor-board", "onnxruntime", "fp32", 2))
    model = str(_sliced(tmp_path))
    cells = [Cell(model=model, model_label="sliced.onnx", device="vendor-board", runtime="onnxruntime",
                  precision="fp32", batch=1, threads=2, settings=s)
             for s in ({}, {"input_ranges": {"k": [64, 65]}})]
    done = predict_cells(Store(str(tmp_path / "r.sqlite")), "sw-r", cells, lambda line: None)
    unranged, ranged = (p.p50_ms for _, p in done.predicted)
    assert ranged > unranged
