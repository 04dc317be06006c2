"""The calibration table record (edgeprof/predict/table.py): round trips, versions, refusal of a mismatch."""

import dataclasses
import json

import pytest

from edgeprof.errors import ConfigError
from edgeprof.predict.graph import Kernel
from edgeprof.predict.service import find_table
from edgeprof.predict.table import (
    SCHEMA_VERSION,
    CalibrationModel,
    CalibrationTable,
    MeasuredKernel,
    SpeedProbe,
    TableKey,
    TableMismatch,
    check_key,
    default_table_path,
    load_table,
    save_table,
)


def _table(threads=1, version="1.32.0", device="boardA"):
    k = Kernel(name="c1", op="Conv", key="Conv/kxk", family="conv/kxk", dtype="float32", flops=2e6, bytes=3e4,
               out_elems=1e3, outputs=("y",))
    m = CalibrationModel(name="cal-0", role="kernels", p50_ms=0.5, profiled_run_ms=0.7, unmatched_us=3.0,
                         kernels=(MeasuredKernel(k, 120.0), MeasuredKernel(k, None)), run_id="r1")
    key = TableKey(device_name=device, device={"cpu": "Cortex-A76", "cores": 4, "arch": "aarch64"},
                   runtime="onnxruntime", runtime_version=version, precision="fp32", threads=threads,
                   host_ort_version="1.32.0")
    return CalibrationTable(key=key, models=(m,), created_at="2026-12-05T00:00:00+00:00", budget_s=60.0,
                            spent_s=55.0, edgeprof_version="0.1.0", notes=("one note",))


def test_a_table_round_trips_through_its_file(tmp_path):
    t = _table()
    p = save_table(t, tmp_path / "t.json")
    back = load_table(p)
    assert back == t
    data = json.loads(p.read_text())
    assert data["schema_version"] == SCHEMA_VERSION and data["format"] == "edgeprof-calibration-table"
    assert data["models"][0]["kernels"][1]["us"] is None  # a kernel the profile did not show stays None, not 0


def test_the_speed_probe_and_each_models_time_round_trip_and_a_version_1_table_still_loads(tmp_path):
    t = _table()
    t = CalibrationTable(key=t.key, models=tuple(dataclasses.replace(m, at_s=12.5) for m in t.models),
                         created_at=t.created_at, probe=SpeedProbe("edgeprof-probe-1", ((0.4, 0.91), (31.0, 0.95))))
    back = load_table(save_table(t, tmp_path / "t.json"))
    assert back == t and back.probe is not None and back.probe.p50s() == [0.91, 0.95]
    assert back.models[0].at_s == 12.5
    # a version-1 file (before the probe): no probe, no times, loads as it was written
    d = _table().to_dict()
    d["schema_version"] = 1
    del d["probe"]
    for m in d["models"]:
        del m["at_s"]
    (tmp_path / "v1.json").write_text(json.dumps(d))
    old = load_table(tmp_path / "v1.json")
    assert old.probe is None and old.models[0].at_s is None and old.models == _table().models


def test_a_newer_schema_or_another_file_is_refused_in_one_line(tmp_path):
    d = _table().to_dict()
    d["schema_version"] = SCHEMA_VERSION + 1
    (tmp_path / "new.json").write_text(json.dumps(d))
    with pytest.raises(ConfigError) as e:
        load_table(tmp_path / "new.json")
    assert f"schema version {SCHEMA_VERSION + 1}" in str(e.value) and "\n" not in str(e.value)
    (tmp_path / "other.json").write_text(json.dumps({"run_id": "x"}))
    with pytest.raises(ConfigError, match="not an edgeprof calibration table"):
        load_table(tmp_path / "other.json")
    with pytest.raises(ConfigError, match="does not exist"):
        load_table(tmp_path / "missing.json")


@pytest.mark.parametrize("asked, words", [({"threads": 2}, "threads 1, not 2"),
                                          ({"runtime_version": "1.17.0"}, "runtime version 1.32.0, not 1.17.0"),
                                          ({"precision": "int8"}, "precision fp32, not int8")])
def test_a_table_of_another_configuration_is_refused_in_one_line(asked, words):
    with pytest.raises(TableMismatch) as e:
        check_key(_table(), where="table t.json", **asked)
    line = str(e.value)
    assert words in line and line.startswith("table t.json") and "\n" not in line
    check_key(_table(), threads=1, runtime_version="1.32.0", precision="fp32")  # the same: accepted


def test_find_table_by_device_name_and_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path))
    save_table(_table(threads=4), default_table_path("boardA", "onnxruntime", "fp32", 4))
    assert find_table("boardA").name == "boardA-onnxruntime-fp32-t4.json"
    assert find_table("boardA", threads=4).exists()
    with pytest.raises(ConfigError, match="measured with threads 4, not 2"):
        find_table("boardA", threads=2)
    with pytest.raises(ConfigError, match="no onnxruntime fp32 calibration table"):
        find_table("boardB")


def test_a_version_1_table_written_by_the_fourth_round_loads_and_predicts_without_a_probe():
    """tests/data/golden/tables/v1: the first 12 generated models of a table calibrated on 2026-12-05 (schema
    version 1, before the speed probe), as edgeprof wrote it."""
    from pathlib import Path

    from edgeprof.predict.fit import fit

    t = load_table(Path(__file__).parents[1] / "data" / "golden" / "tables" / "v1" / "local-onnxruntime-fp32-t1.json")
    assert t.probe is None and all(m.at_s is None for m in t.models) and len(t.models) == 12
    p = fit(t)
    assert p.pace == 0.0
    ks = [mk.kernel for mk in t.models[0].kernels]
    pred = p.predict(ks)
    assert pred.p50_ms > 0 and not any("speed" in w for w in pred.warnings)


def test_a_table_written_to_a_gz_path_is_compressed_and_loads_by_its_content(tmp_path):
    """`calibrate --out pi5.json.gz`: a table of hundreds of models is megabytes of JSON, a tenth of that compressed;
    a compressed file loads whatever its name (calibrate --import copies it under a .json name), and a truncated one
    is refused in one line."""
    import gzip

    t = _table()
    p = save_table(t, tmp_path / "t.json.gz")
    assert p.read_bytes()[:2] == b"\x1f\x8b" and json.loads(gzip.decompress(p.read_bytes()))["format"]
    assert load_table(p) == t
    renamed = tmp_path / "t.json"
    renamed.write_bytes(p.read_bytes())
    assert load_table(renamed) == t
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(p.read_bytes()[:40])
    with pytest.raises(ConfigError, match="could not be read"):
        load_table(cut)


def test_each_sessions_p50_round_trips_and_a_table_without_them_reads_as_one_session(tmp_path):
    t = _table(threads=2)
    t = dataclasses.replace(t, sessions=2, models=tuple(dataclasses.replace(m, p50_ms=0.5, session_p50s=(0.9, 0.5))
                                                        for m in t.models))
    back = load_table(save_table(t, tmp_path / "t.json"))
    assert back == t and back.sessions == 2 and back.models[0].session_p50s == (0.9, 0.5)
    d = _table().to_dict()  # a table from before sessions: no field, one session each
    del d["sessions"]
    assert "session_p50s" not in d["models"][0]
    (tmp_path / "old.json").write_text(json.dumps(d))
    old = load_table(tmp_path / "old.json")
    assert old.sessions == 1 and old.models[0].session_p50s is None


def test_a_two_thread_calibration_times_each_model_in_two_sessions_and_keeps_the_fastest(tmp_path):
    """A real, short calibration of this machine at 2 threads (onnxruntime through deploy --sessions 2)."""
    from edgeprof.predict.calibrate import calibrate, default_sessions
    from edgeprof.records.device import local_device

    assert (default_sessions(1), default_sessions(2), default_sessions(4)) == (1, 2, 2)
    table = calibrate(local_device(), threads=2, budget_s=120, cache_dir=tmp_path / "cal", max_models=3, probe=None)
    assert table.sessions == 2 and any("2 fresh runtime sessions" in n for n in table.notes)
    gen = [m for m in table.models if m.role == "kernels"]
    assert len(gen) == 3
    for m in gen:
        assert len(m.session_p50s) == 2 and m.p50_ms == min(m.session_p50s) > 0
    one = calibrate(local_device(), threads=2, budget_s=120, cache_dir=tmp_path / "cal", max_models=1, probe=None,
                    sessions=1)
    assert one.sessions == 1 and one.models[0].session_p50s is None
    with pytest.raises(ConfigError, match="--sessions 0: must be between 1 and 50"):
        calibrate(local_device(), threads=2, budget_s=120, cache_dir=tmp_path / "cal", sessions=0)


def test_calibrate_refuses_a_sessions_count_out_of_range_in_one_line(capsys):
    from edgeprof.cli.main import main

    assert main(["calibrate", "--device", "local", "--threads", "2", "--sessions", "0"]) != 0
    err = capsys.readouterr().err
    assert "--sessions 0: must be between 1 and 50" in err and "Traceback" not in err


def test_predict_says_when_its_p50_is_the_fastest_sessions(tmp_path, capsys):
    from edgeprof.cli.main import main

    path = save_table(dataclasses.replace(_table(threads=2, version=_ort_version()), sessions=2), tmp_path / "t.json")
    assert main(["predict", "ds_cnn", "--table", str(path), "--no-store"]) == 0
    assert "the p50 of the fastest of 2 runtime sessions" in capsys.readouterr().out
    one = save_table(_table(threads=2, version=_ort_version()), tmp_path / "one.json")
    assert main(["predict", "ds_cnn", "--table", str(one), "--no-store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["predictions"][0]["sessions"] == 1


def _ort_version():
    import onnxruntime

    return onnxruntime.__version__
