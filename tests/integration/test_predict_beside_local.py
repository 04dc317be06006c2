"""Predictions beside measurements on this machine, as a user runs them (issue 37 item 3): a table made by a short
`edgeprof calibrate --device local`, then `predict` stores its prediction under the very key a measured run of the
same configuration gets, `results show` shows the two with the error, and a sweep with --predict-first predicts
the cells that have a table before it measures, names the one that has none once, and the report puts the stored
prediction beside the measurement — run here, and through the lab queue (a real PostgreSQL, tests/pg.py, and a
real `edgeprof worker`): predicted on the controller before the cells are queued."""

import csv
import json
import os
import re
import signal
import time

import pytest
from test_calibrate_local import _model
from test_queue_local import HANGING_BUILDER, edgeprof, jobs, wait_for

from edgeprof.cli.main import main
from edgeprof.lab import queue
from edgeprof.store import Store
from edgeprof.store.predictions import latest_by_key, of_sweep

pytestmark = pytest.mark.slow

RUN = ["--min-duration", "0.3", "--warmup", "0", "--idle", "0", "--quiet"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """A 1-thread onnxruntime table of this machine, measured by `edgeprof calibrate` with a short budget."""
    d = tmp_path_factory.mktemp("tables")
    saved = os.environ.get("EDGEPROF_TABLES")
    os.environ["EDGEPROF_TABLES"] = str(d)
    try:
        assert main(["calibrate", "--device", "local", "--budget", "20s", "--threads", "1"]) == 0
        assert list(d.glob("local-onnxruntime-fp32-t1.json"))
        yield d
    finally:
        if saved is None:
            os.environ.pop("EDGEPROF_TABLES", None)
        else:
            os.environ["EDGEPROF_TABLES"] = saved


@pytest.mark.timeout(300)
def test_a_stored_prediction_has_the_key_of_the_measured_run_and_results_show_puts_them_together(
        tables, tmp_path, capsys):
    model = _model(tmp_path / "m.onnx")
    db = str(tmp_path / "r.sqlite")
    assert main(["predict", str(model), "--device", "local", "--db", db, "--json"]) == 0
    import json

    p = json.loads(capsys.readouterr().out)["predictions"][0]
    assert p["prediction_id"] is not None
    assert main(["deploy", "--device", "local", "--model", str(model), "--threads", "1", "--db", db, *RUN]) == 0
    capsys.readouterr()
    store = Store(db)
    run = store.list()[0]
    assert run.config_key == p["config_key"]  # the key Result.identity gives the run
    stored = latest_by_key(store, [run.config_key])[run.config_key]
    assert stored.p50_ms == p["p50_ms"] and (stored.low_ms, stored.high_ms) == (p["low_ms"], p["high_ms"])
    assert main(["results", "show", run.run_id, "--db", db]) == 0
    text = capsys.readouterr().out
    assert f"predicted p50 {stored.p50_ms:.3f} ms [{stored.low_ms:.3f}, {stored.high_ms:.3f}] ms (90 %)" in text
    m = run.p50_ms
    inside = "inside" if stored.low_ms <= m <= stored.high_ms else "OUTSIDE"
    assert (f"measured p50 {m:.3f} ms: prediction error {100 * (stored.p50_ms / m - 1):+.1f} % "
            f"(predicted / measured − 1), measured {inside} the interval") in text
    # --no-store leaves the database as it was
    assert main(["predict", str(model), "--device", "local", "--db", db, "--no-store", "--json"]) == 0
    capsys.readouterr()
    assert latest_by_key(store, [run.config_key])[run.config_key].prediction_id == stored.prediction_id


@pytest.mark.timeout(420)
def test_a_sweep_predicts_first_then_measures_and_the_report_shows_both(tables, tmp_path, capsys):
    _model(tmp_path / "m.onnx")
    spec = tmp_path / "s.yaml"
    spec.write_text("version: 1\nname: predict-first\nmodels:\n  - model: m.onnx\ndevices: [local]\n"
                    "runtimes: [onnxruntime]\nthreads: [1, 2]\n"
                    "settings: {min_duration_s: 0.3, warmup_s: 0, idle_s: 0, timeout_s: 120}\n")
    db = str(tmp_path / "r.sqlite")
    ids = tmp_path / "id"
    code = main(["sweep", str(spec), "--predict-first", "--db", db, "--quiet", "--id-file", str(ids)])
    err = capsys.readouterr().err
    assert code == 0, err
    sweep_id = ids.read_text().strip()
    line = ("no calibration table for local (runtime onnxruntime, fp32, threads 2): edgeprof calibrate --device "
            "local --threads 2; measuring it anyway")
    assert err.count(line) == 1
    assert "predicted ranking · m.onnx · onnxruntime fp32 · b1:" in err
    assert "predicted 1 of 2 cells before measuring" in err
    store = Store(db)
    preds = of_sweep(store, sweep_id)
    assert len(preds) == 1 and preds[0].threads == 1
    p = preds[0]
    assert re.search(rf"1\. local \(threads 1\): {p.p50_ms:.3f} ms", err)
    runs = store.list(sweep_id=sweep_id)
    assert sorted(r.threads for r in runs) == [1, 2] and all(r.status == "ok" for r in runs)
    t1 = next(r for r in runs if r.threads == 1)
    assert t1.config_key == p.config_key
    assert p.created_at <= min(r.created_at for r in runs)  # predicted before anything was measured
    assert main(["report", "--sweep", sweep_id, "--format", "md", "--out", str(tmp_path / "r.md"), "--db", db]) == 0
    md = (tmp_path / "r.md").read_text()
    inside = "yes" if p.low_ms <= t1.p50_ms <= p.high_ms else "no"
    assert (f"| local | onnxruntime | fp32 | 1 | 1 | {t1.p50_ms:.3f} | {p.p50_ms:.3f} | [{p.low_ms:.3f}, "
            f"{p.high_ms:.3f}] (90 %) | {100 * (p.p50_ms / t1.p50_ms - 1):+.1f} % | {inside} |") in md
    assert "One board: nothing to rank" in md


@pytest.mark.timeout(420)
def test_a_queued_sweep_predicts_on_the_controller_before_it_queues_and_the_report_shows_both(
        tables, pg_url, tmp_path, capsys):
    queue.upgrade(pg_url)
    _model(tmp_path / "m.onnx")
    spec = tmp_path / "s.yaml"
    spec.write_text("version: 1\nname: predict-first-queued\nmodels:\n  - model: m.onnx\ndevices: [local]\n"
                    "runtimes: [onnxruntime]\nthreads: [1, 2]\n"
                    "settings: {min_duration_s: 0.3, warmup_s: 0, idle_s: 0, timeout_s: 120, lease_wait_s: 120}\n")
    code = main(["sweep", str(spec), "--queue", "--predict-first", "--db", pg_url])
    cap = capsys.readouterr()
    err = cap.err
    assert code == 0, err
    sweep_id = cap.out.strip()
    line = ("no calibration table for local (runtime onnxruntime, fp32, threads 2): edgeprof calibrate --device "
            "local --threads 2; measuring it anyway")
    assert err.count(line) == 1
    assert "predicted ranking · m.onnx · onnxruntime fp32 · b1:" in err
    assert err.index(f"predicted 1 of 2 cells before measuring (stored with sweep {sweep_id};") \
        < err.index(f"sweep {sweep_id}: 2 cells queued")
    store = Store(pg_url)
    preds = of_sweep(store, sweep_id)
    assert len(preds) == 1 and preds[0].threads == 1 and preds[0].sweep_id == sweep_id
    p = preds[0]
    assert re.search(rf"1\. local \(threads 1\): {p.p50_ms:.3f} ms \[{p.low_ms:.3f}, {p.high_ms:.3f}\]", err)
    # stored before anything ran: both cells wait in the queue, no row yet
    assert [j["status"] for j in jobs(pg_url, sweep_id)] == ["todo", "todo"]
    assert store.list(sweep_id=sweep_id, limit=None) == []
    w = edgeprof("worker", "--queue", "lab.default", "--db", pg_url, "--poll", "0.2", "--until-idle",
                 "--cache-dir", str(tmp_path / "worker-cache"))
    _, werr = w.communicate(timeout=300)
    assert w.returncode == 0, werr
    runs = store.list(sweep_id=sweep_id, limit=None)
    assert sorted(r.threads for r in runs) == [1, 2] and all(r.status == "ok" for r in runs), werr
    t1 = next(r for r in runs if r.threads == 1)
    assert t1.config_key == p.config_key  # the worker's run has the key of the controller's prediction
    assert p.created_at <= min(r.created_at for r in runs)
    inside = "yes" if p.low_ms <= t1.p50_ms <= p.high_ms else "no"
    err_pct = 100 * (p.p50_ms / t1.p50_ms - 1)
    assert main(["report", "--sweep", sweep_id, "--format", "md", "--out", str(tmp_path / "r.md"),
                 "--db", pg_url]) == 0
    md = (tmp_path / "r.md").read_text()
    assert (f"| local | onnxruntime | fp32 | 1 | 1 | {t1.p50_ms:.3f} | {p.p50_ms:.3f} | [{p.low_ms:.3f}, "
            f"{p.high_ms:.3f}] (90 %) | {err_pct:+.1f} % | {inside} |") in md
    assert main(["report", "--sweep", sweep_id, "--format", "csv", "--out", str(tmp_path / "r.csv"),
                 "--db", pg_url]) == 0
    rows = {int(r["threads"]): r for r in csv.DictReader((tmp_path / "r.csv").open())}
    assert float(rows[1]["predicted_p50_ms"]) == p.p50_ms and int(rows[1]["prediction_id"]) == p.prediction_id
    assert float(rows[1]["prediction_error"]) == p.p50_ms / store.get(t1.run_id).latency_ms.p50 - 1
    assert rows[2]["predicted_p50_ms"] == "" and rows[2]["prediction_error"] == ""
    capsys.readouterr()
    assert main(["results", "show", t1.run_id, "--db", pg_url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["prediction"]
    assert shown["found"] is True and shown["record"]["prediction_id"] == p.prediction_id
    assert shown["record"]["sweep_id"] == sweep_id and shown["check"]["inside"] == (inside == "yes")
    assert main(["sweep", "--cancel", sweep_id, "--predict-first", "--db", pg_url]) == 2  # nothing to predict


@pytest.mark.timeout(300)
def test_ctrl_c_while_a_queued_sweep_predicts_says_nothing_is_queued(tables, pg_url, tmp_path):
    """The prediction loads the model (here a builder whose first load hangs) before anything is queued: a Ctrl-C
    then queues nothing and says so in one line, as one while exporting does."""
    queue.upgrade(pg_url)
    (tmp_path / "hang.py").write_text(HANGING_BUILDER)
    (tmp_path / "s.yaml").write_text("name: hang\nmodels: [hang.py:build]\ndevices: [local]\n"
                                     "runtimes: [onnxruntime]\nthreads: [1]\n")
    mark = tmp_path / "mark"
    env = dict(os.environ, HANG_MARK=str(mark), EDGEPROF_CACHE=str(tmp_path / "cache"))  # EDGEPROF_TABLES: `tables`
    p = edgeprof("sweep", str(tmp_path / "s.yaml"), "--queue", "--predict-first", "--db", pg_url, cwd=tmp_path,
                 env=env)
    wait_for(lambda: mark.exists() or p.poll() is not None, 120, "the prediction to load the builder")
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err, err
    line = next(ln for ln in err.splitlines() if ln.startswith("edgeprof:"))
    sweep_id = line.split(" of sweep ")[1].split(":")[0]
    assert line == (f"edgeprof: interrupted while predicting the cells of sweep {sweep_id}: none of its cells is "
                    f"queued (queue them: edgeprof sweep --resume {sweep_id} --queue)"), err
    assert jobs(pg_url, sweep_id) == [] and of_sweep(Store(pg_url), sweep_id) == []
