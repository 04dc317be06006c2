"""Re-reading a calibration table (edgeprof/predict/reread.py, `edgeprof calibrate --reread`): the board's measured
times kept, each kernel read again by this edgeprof from the generated model it was measured on (found in the cache,
or generated again from its name), a model generated otherwise left out, and the one-line refusals."""

import dataclasses
import hashlib

import onnx
import pytest

from edgeprof.cli.main import main
from edgeprof.errors import ConfigError, UserError
from edgeprof.predict.graph import host_ort_version, kernels
from edgeprof.predict.kernels import calibration_models
from edgeprof.predict.reread import reread
from edgeprof.predict.table import (
    CalibrationModel,
    CalibrationTable,
    MeasuredKernel,
    TableKey,
    load_table,
    save_table,
)


def _key(precision="fp32", host=None):
    return TableKey(device_name="boardA", device={"cpu": "Cortex-A76", "cores": 4}, runtime="onnxruntime",
                    runtime_version="1.32.0", precision=precision, threads=1,
                    host_ort_version=host_ort_version() if host is None else host)


def _measured(cache, count=4):
    """A table of the first `count` generated models as calibrate.py leaves them: each file under `cache` named by
    its content, its kernels as this edgeprof reads them, each kernel given a distinct time (what a board's profile
    would have said; here made up, since only its keeping is under test)."""
    cache.mkdir(parents=True, exist_ok=True)
    models = []
    for i, (name, proto) in enumerate(calibration_models(0, count)):
        data = proto.SerializeToString()
        path = cache / f"{name}-{hashlib.sha256(data).hexdigest()[:12]}.onnx"
        onnx.save(proto, str(path))
        ks = kernels(path, {})
        mks = tuple(MeasuredKernel(k, None if j == 1 else 10.0 * i + j + 0.5) for j, k in enumerate(ks))
        models.append(CalibrationModel(name=name, role="kernels", p50_ms=1.0 + i, profiled_run_ms=1.2 + i,
                                       unmatched_us=2.0, kernels=mks, run_id=f"r{i}", at_s=3.0 * i))
    return CalibrationTable(key=_key(), models=tuple(models), created_at="2026-12-05T00:00:00+00:00",
                            budget_s=60.0, spent_s=50.0, edgeprof_version="0.0.9", notes=("a note",))


def _as_an_older_edgeprof_read_it(table):
    """The same measurements, each kernel read otherwise (another key, twice the bytes, no FLOPs)."""
    def old(k):
        return dataclasses.replace(k, key=f"Old/{k.key}", bytes=2 * k.bytes, flops=0.0)
    return dataclasses.replace(table, models=tuple(
        dataclasses.replace(m, kernels=tuple(MeasuredKernel(old(mk.kernel), mk.us) for mk in m.kernels))
        for m in table.models))


def test_a_table_read_otherwise_is_read_again_as_this_edgeprof_reads_it_its_times_kept(tmp_path):
    cache = tmp_path / "cal"
    fresh = _measured(cache)
    stale = _as_an_older_edgeprof_read_it(fresh)
    assert stale.models[0].kernels[0].kernel != fresh.models[0].kernels[0].kernel
    got = reread(stale, cache)
    assert got.reread == 4 and got.left_out == ()
    assert got.table.models == fresh.models  # kernels, times, p50s, profile totals, run ids, times of measurement
    assert got.table.key == fresh.key and got.table.created_at == fresh.created_at
    assert got.table.notes[:-1] == ("a note",) and "4 of 4 models' kernels read again" in got.table.notes[-1]


def test_a_model_not_in_the_cache_is_generated_again_from_its_name(tmp_path):
    cache = tmp_path / "cal"
    fresh = _measured(cache)
    for f in cache.iterdir():
        f.unlink()
    got = reread(_as_an_older_edgeprof_read_it(fresh), cache)
    assert got.table.models == fresh.models
    assert sorted(f.name.rsplit("-", 1)[0] for f in cache.iterdir()) == sorted(m.name for m in fresh.models)


def test_a_model_generated_otherwise_since_is_left_out_and_said(tmp_path):
    """A stored kernel whose output size no file of that name has (kernels.py drew the model otherwise since) marks
    the model as not the one measured: its samples are left out, not mixed with another model's kernels."""
    cache = tmp_path / "cal"
    fresh = _measured(cache)
    m = fresh.models[2]
    first = m.kernels[0]
    moved = dataclasses.replace(m, kernels=(MeasuredKernel(dataclasses.replace(first.kernel, out_elems=first.kernel
                                                                               .out_elems + 8), first.us),
                                            *m.kernels[1:]))
    table = dataclasses.replace(fresh, models=(*fresh.models[:2], moved, *fresh.models[3:]))
    got = reread(table, cache)
    assert got.reread == 3 and got.left_out == (m.name,)
    assert [x.name for x in got.table.models] == [x.name for i, x in enumerate(fresh.models) if i != 2]
    assert f"1 not found as measured, left out: {m.name}" in got.table.notes[-1]


def test_refusals_in_one_line(tmp_path):
    cache = tmp_path / "cal"
    fresh = _measured(cache, 2)
    with pytest.raises(ConfigError, match="re-reading a int8 table is not supported yet"):
        reread(dataclasses.replace(fresh, key=_key("int8")), cache)
    with pytest.raises(ConfigError, match=r"fused graphs were read by onnxruntime 1\.9\.9; this host has"):
        reread(dataclasses.replace(fresh, key=_key(host="1.9.9")), cache)
    gone = dataclasses.replace(fresh, models=tuple(dataclasses.replace(m, name=m.name.replace("cal-0", "cal-7"))
                                                   for m in fresh.models))
    with pytest.raises(UserError, match="none of the table's 2 generated models was found as it was measured"):
        reread(gone, cache)


def test_calibrate_reread_installs_the_table_and_leaves_the_file_given(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    fresh = _measured(tmp_path / "cache" / "calibration", 3)
    given = save_table(_as_an_older_edgeprof_read_it(fresh), tmp_path / "old.json")
    before = given.read_bytes()
    assert main(["calibrate", "--reread", str(given), "--out", str(tmp_path / "new.json")]) == 0
    err = " ".join(capsys.readouterr().err.split())  # the console folds long lines
    assert "3 of 3 models' kernels read again by this edgeprof, their measured times kept; installed as" in err
    assert given.read_bytes() == before
    assert load_table(tmp_path / "new.json").models == fresh.models
    assert load_table(tmp_path / "tables" / "boardA-onnxruntime-fp32-t1.json").models == fresh.models
    assert main(["calibrate", "--reread", str(given), "--device", "local"]) != 0
    assert "calibrate --reread FILE measures nothing" in " ".join(capsys.readouterr().err.split())


def test_a_reference_model_is_read_again_as_deploy_exports_it(tmp_path):
    """A bundled reference model (timed whole in the calibration; its kernels inform the interval) is exported as
    deploy exports it and read again, its profiled times kept by name."""
    from edgeprof.predict.service import model_graph

    cache = tmp_path / "cal"
    fresh = _measured(cache, 1)
    ks = model_graph("ds_cnn").kernels
    ref = CalibrationModel(name="ds_cnn", role="reference", p50_ms=0.4, profiled_run_ms=0.5, unmatched_us=1.0,
                           kernels=tuple(MeasuredKernel(k, 1.0 + j) for j, k in enumerate(ks)))
    fresh = dataclasses.replace(fresh, models=(ref, *fresh.models))
    got = reread(_as_an_older_edgeprof_read_it(fresh), cache)
    assert got.reread == 2 and got.table.models == fresh.models


def test_a_litert_table_is_read_again_from_its_one_operator_files(tmp_path):
    """A LiteRT table's models are one-operator .tflite files timed whole (no per-op profiler): re-read, each
    file's kernels are read again by this host's LiteRT (generated again from the name when not cached)."""
    from edgeprof.predict.tflite import GRAPH_LEVEL, calibration_files, host_litert_version, tflite_kernels

    models = tuple(CalibrationModel(name=name, role="kernels", p50_ms=0.1 + i, profiled_run_ms=None, unmatched_us=0.0,
                                    kernels=tuple(MeasuredKernel(k, None) for k in tflite_kernels(path, 1)))
                   for i, (name, path) in enumerate(calibration_files(0, tmp_path / "first" / "tflite", 2)))
    key = TableKey(device_name="pi5", device={}, runtime="tflite", runtime_version="2.18.0", precision="fp32",
                   threads=1, graph_level=GRAPH_LEVEL, host_litert_version=host_litert_version())
    table = CalibrationTable(key=key, models=models, created_at="2026-12-05T00:00:00+00:00")
    got = reread(_as_an_older_edgeprof_read_it(table), tmp_path / "elsewhere")
    assert got.reread == 2 and got.table.models == table.models
    with pytest.raises(ConfigError, match=r"files were read by LiteRT 0\.0\.1; this host has"):
        reread(dataclasses.replace(table, key=dataclasses.replace(key, host_litert_version="0.0.1")), tmp_path)


def test_a_prediction_from_a_table_of_another_reading_says_so_and_how_to_read_it_again(tmp_path):
    from edgeprof.predict.service import predict
    from edgeprof.predict.table import READING

    table = _measured(tmp_path / "cal", 2)
    ks = [mk.kernel for mk in table.models[0].kernels]
    assert table.reading == READING
    assert not any("reading" in w for w in predict(ks, table, where="table t.json").warnings)
    old = dataclasses.replace(table, reading=0)
    (w,) = [w for w in predict(ks, old, where="table t.json").warnings if "reading" in w]
    assert "from before the readings were numbered" in w and "edgeprof calibrate --reread t.json" in w
    # a file written before round 17 has no reading: it loads as 0; the re-read table is this edgeprof's reading
    d = table.to_dict()
    del d["reading"]
    assert CalibrationTable.from_dict(d).reading == 0
    assert reread(CalibrationTable.from_dict(d), tmp_path / "cal").table.reading == READING
    newer = dataclasses.replace(table, reading=READING + 1)
    assert any("a newer edgeprof's" in w and "upgrade this one" in w for w in predict(ks, newer).warnings)


# how the generated models read: a digest of each kernel's key and features over the first 22 generated models (the
# kinds' order twice), by this onnxruntime. Only the calibration kernels' reading makes a table stale (a change to how
# a user's model alone is read, a Loop body's, leaves every stored sample as it was). A change to the reading changes
# this digest: then raise table.READING (tables read before say so, and calibrate --reread reads them again) and write
# the new digest here. A change to the models drawn changes it too, the reading as it was: then only the digest is
# written anew.
# round 19: the misc models draw Softmaxes over narrow rows, the CNNs PRelus (models drawn, reading as it was)
# round 20: reading 2 (int8 shapes past contrib ops; these fp32 models read as in 1), and the CNNs draw ELUs;
# reading 3: Gather/inner and Pow/general keys, and each misc model ends with one of them
# round 22: reading 4 (DequantizeLinear/rows in int8 graphs; these fp32 models have none), and each misc model ends
# with a projection whose input another node reads too (projections.py)
# reading 5 (round 22, after its run): MaxPool/nhwc in int8 graphs (these fp32 models read as in 4)
# reading 6 (round 26, after its run): a Conv MLAS runs image by image carries its calls (images.py); a kernel with
# calls adds them to its row
# reading 7 (round 27): a reduction's axes of size 1 not counted in its variant (variants.py), ReduceSumSquare and
# the other reductions of the reduce family (graph.py); the misc models end with two reductions (reductions.py)
FINGERPRINT = {1: "b6745399c89795de", 2: "5a0b4b72ce0574cf", 3: "8de08d7dcf79c72a", 4: "f1d12a2a0a522e3f",
               5: "f1d12a2a0a522e3f", 6: "15953a51475882c7", 7: "68a72f68173939e2"}


def test_the_reading_has_its_number():
    import json
    import tempfile

    import onnxruntime

    from edgeprof.predict.table import READING

    if onnxruntime.__version__ != "1.32.0":
        pytest.skip(f"the fingerprint is of onnxruntime 1.32.0's fused graphs; this is {onnxruntime.__version__}")
    rows = []
    for name, proto in calibration_models(0, 22):  # the kinds' order twice (kernels.calibration_models)
        with tempfile.TemporaryDirectory() as d:
            path = f"{d}/{name}.onnx"
            onnx.save(proto, path)
            rows += [[name, k.name, k.key, k.family, k.dtype, round(k.flops), round(k.bytes), round(k.out_elems),
                      k.layout, round(k.reorder_bytes), round(k.spans, 3)]
                     + ([k.images, round(k.image_bytes)] if k.images else []) for k in kernels(path, {})]
    digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
    assert FINGERPRINT.get(READING) == digest, (
        f"the generated models read otherwise (digest {digest}): if the reading changed, raise READING in "
        f"edgeprof/predict/table.py and set FINGERPRINT[{READING + 1}] here to it; if only the models drawn changed, "
        f"set FINGERPRINT[{READING}]")


def test_round_4s_table_is_not_re_read_its_models_were_drawn_otherwise(tmp_path):
    """tests/data/golden/tables/v1, a table edgeprof wrote in round 4: the generated models of those names are drawn
    otherwise now (the kinds and their order have changed since), so not one is taken for the model measured, and
    the re-read is refused in one line; predictions from it say it is of an earlier reading."""
    from pathlib import Path

    from edgeprof.predict.service import predict

    old = load_table(Path(__file__).parents[1] / "data" / "golden" / "tables" / "v1" / "local-onnxruntime-fp32-t1.json")
    assert old.reading == 0
    with pytest.raises(UserError, match="none of the table's 12 generated models was found as it was measured"):
        reread(old, tmp_path)
    ks = [mk.kernel for mk in old.models[0].kernels]
    assert any("from before the readings were numbered" in w for w in predict(ks, old).warnings)
