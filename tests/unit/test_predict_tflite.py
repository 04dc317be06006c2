"""LiteRT (tflite, XNNPACK, fp32) prediction (edgeprof/predict/tflite.py, fit.py's whole-model times, the CLI):
kernels read from a real .tflite by this host's LiteRT with their XNNPACK partition, a table of whole-model times
fitted back to its kernels, a table round trip, refusal of another runtime version or thread count in one line,
coverage and out-of-domain warnings for ops the table lacks, and predict with no network and no device reachable
(a devices.yaml whose host is unroutable)."""

import json
import math

import numpy as np
import pytest
from offline import no_device_or_network

pytest.importorskip("litert_torch")
pytest.importorskip("ai_edge_litert")

from edgeprof.cli.main import main  # noqa: E402
from edgeprof.predict.fit import fit  # noqa: E402
from edgeprof.predict.graph import Kernel  # noqa: E402
from edgeprof.predict.table import (  # noqa: E402
    CalibrationModel,
    CalibrationTable,
    MeasuredKernel,
    TableKey,
    load_table,
    save_table,
)
from edgeprof.predict.tflite import GRAPH_LEVEL, calibration_files, calibration_modules, tflite_kernels  # noqa: E402

OVERHEAD_US = 4.0  # the synthetic board's per-run cost
# its kernels: a conv costs 2 µs + 1 µs per 10 MFLOP; an add 0.5 µs + 1 µs per 100 kB
_COST = {"CONV_2D/kxk": (2.0, 1e-7, 0.0), "ADD": (0.5, 0.0, 1e-5)}


def _us(k):
    a, per_flop, per_byte = _COST[k.key]
    return a + per_flop * k.flops + per_byte * k.bytes


def _kernel(key, flops, nbytes, i=0):
    fam = {"CONV_2D/kxk": "conv/kxk", "ADD": "binary"}[key]
    return Kernel(name=f"{key}:{i}", op=key.split("/")[0], key=key, family=fam, dtype="float32", flops=flops,
                  bytes=nbytes, out_elems=1.0)


def _table(threads=1, version="2.3.0"):
    """One-operator models timed whole, as calibrate --runtime tflite stores them (us None: no per-op profile)."""
    rng = np.random.default_rng(0)
    models = [CalibrationModel(name="tiny0", role="kernels", p50_ms=(OVERHEAD_US + 0.05) / 1e3, profiled_run_ms=None,
                               unmatched_us=0.0, kernels=(MeasuredKernel(_kernel("ADD", 8.0, 96.0), None),))]
    for i in range(40):
        k = _kernel("CONV_2D/kxk", float(10 ** rng.uniform(5, 8.3)), float(10 ** rng.uniform(4, 6.3)), i) if i % 2 \
            else _kernel("ADD", float(10 ** rng.uniform(3, 6)), float(10 ** rng.uniform(4, 6.6)), i)
        models.append(CalibrationModel(name=f"m{i}", role="kernels", p50_ms=(OVERHEAD_US + _us(k)) / 1e3,
                                       profiled_run_ms=None, unmatched_us=0.0, kernels=(MeasuredKernel(k, None),)))
    key = TableKey(device_name="phone-board", device={"cpu": "Cortex-A76", "cores": 4}, runtime="tflite",
                   runtime_version=version, precision="fp32", threads=threads, graph_level=GRAPH_LEVEL,
                   host_litert_version="ai-edge-litert 2.3.0")
    return CalibrationTable(key=key, models=tuple(models), created_at="")


@pytest.fixture(scope="module")
def tflite_files(tmp_path_factory):
    """Real .tflite files converted by litert-torch: a conv (NHWC, one CONV_2D) and a conv followed by tanh."""
    import torch

    from edgeprof.export.capture import capture

    out = tmp_path_factory.mktemp("tfl")

    class Net(torch.nn.Module):
        def __init__(self, tanh):
            super().__init__()
            self.conv = torch.nn.Conv2d(8, 16, 3, padding=1)
            self.tanh = tanh

        def forward(self, x):
            y = self.conv(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
            return torch.tanh(y) if self.tanh else y

    paths = {}
    with capture(out / "convert.log", "test conversions"):
        import litert_torch

        for name, tanh in (("conv", False), ("conv_tanh", True)):
            torch.manual_seed(0)
            p = out / f"{name}.tflite"
            litert_torch.convert(Net(tanh).eval(), (torch.rand(1, 16, 16, 8),)).export(str(p))
            paths[name] = p
    return paths


def test_kernels_are_read_from_the_file_with_their_xnnpack_partition(tflite_files):
    (conv,) = tflite_kernels(tflite_files["conv"])
    assert conv.op == "CONV_2D" and conv.key == "CONV_2D/kxk" and conv.family == "conv/kxk"  # XNNPACK took it
    assert conv.flops == 2 * (16 * 16 * 16) * 3 * 3 * 8  # 2 · |Y| · kh · kw · Cin
    assert conv.bytes == 4 * (16 * 16 * 8 + 16 * 3 * 3 * 8 + 16 + 16 * 16 * 16)  # x, weights, bias, y
    ops = [k.op for k in tflite_kernels(tflite_files["conv_tanh"])]
    assert ops == ["CONV_2D", "TANH"]


def test_one_operator_models_timed_whole_give_their_kernels_costs():
    p = fit(_table())
    assert p.overhead_us == pytest.approx(OVERHEAD_US, abs=0.01)  # the quickest model pins the per-run cost
    ks = [_kernel("CONV_2D/kxk", 5e7, 5e5, 1), _kernel("ADD", 2e5, 1e6, 2), _kernel("CONV_2D/kxk", 1.2e8, 1e6, 3)]
    truth = (OVERHEAD_US + sum(_us(k) for k in ks)) / 1e3
    pred = p.predict(ks)
    assert pred.p50_ms == pytest.approx(truth, rel=0.15)
    assert pred.low_ms < pred.p50_ms < pred.high_ms and pred.covered_ops == 1.0


def test_a_tflite_table_round_trips_through_its_file(tmp_path):
    t = _table()
    back = load_table(save_table(t, tmp_path / "t.json"))
    assert back == t and back.key.runtime == "tflite" and back.key.graph_level == GRAPH_LEVEL
    assert back.key.host_litert_version == "ai-edge-litert 2.3.0"
    assert all(mk.us is None for m in back.models for mk in m.kernels)


def test_an_op_the_tflite_table_lacks_is_covered_in_part_and_warned(tflite_files):
    ks = tflite_kernels(tflite_files["conv_tanh"])
    pred = fit(_table()).predict(ks)
    assert [u["op"] for u in pred.uncovered] == ["TANH"] and pred.uncovered[0]["assumed_ms"] > 0
    assert pred.covered_ops == 0.5
    assert any("not seen: TANH" in w for w in pred.warnings)
    big = fit(_table()).predict([_kernel("CONV_2D/kxk", 5e10, 5e5)])
    assert any("beyond ×4" in w and "CONV_2D/kxk" in w for w in big.warnings)


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network, no device: any socket connect or deploy fails the test; devices.yaml names the board at an
    unroutable address (TEST-NET-1, RFC 5737), so that a connection attempt would also hang, not succeed."""
    no_device_or_network(monkeypatch)
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "devices.yaml").write_text("devices:\n  phone-board:\n    host: 192.0.2.1\n    user: edge\n")


def test_predict_a_tflite_model_offline_from_an_imported_table(offline, tmp_path, tflite_files, capsys):
    exported = save_table(_table(threads=2), tmp_path / "vendor.json")
    assert main(["calibrate", "--import", str(exported)]) == 0
    capsys.readouterr()
    assert main(["predict", str(tflite_files["conv"]), "--device", "phone-board", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["predictions"]
    assert row["board"] == "phone-board" and row["threads"] == 2 and row["covered_ops"] == 1.0
    (k,) = tflite_kernels(tflite_files["conv"])
    assert row["p50_ms"] == pytest.approx((OVERHEAD_US + _us(k)) / 1e3, rel=0.2)
    assert main(["predict", str(tflite_files["conv"]), "--table", str(exported)]) == 0
    assert "LiteRT's operators" in capsys.readouterr().out


@pytest.mark.parametrize(("flags", "words"), [(["--threads", "4"], "threads 2, not 4"),
                                              (["--runtime-version", "2.4.0"], "runtime version 2.3.0, not 2.4.0")])
def test_a_tflite_table_of_another_thread_count_or_version_is_refused_in_one_line(offline, tmp_path, tflite_files,
                                                                                  capsys, flags, words):
    exported = save_table(_table(threads=2), tmp_path / "vendor.json")
    assert main(["predict", str(tflite_files["conv"]), "--table", str(exported), *flags]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and words in line


def test_an_onnxruntime_table_is_refused_for_a_tflite_model_in_one_line(offline, tmp_path, tflite_files, capsys):
    t = _table()
    ort = CalibrationTable(key=TableKey(**{**t.key.__dict__, "runtime": "onnxruntime", "graph_level": "all"}),
                           models=t.models, created_at="")
    path = save_table(ort, tmp_path / "ort.json")
    assert main(["predict", str(tflite_files["conv"]), "--table", str(path)]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "runtime onnxruntime, not tflite" in line


def test_calibration_modules_are_one_operator_each_and_bounded(tmp_path):
    mods = list(calibration_modules(seed=1, count=21))
    assert mods[0][0].startswith("tiny")  # the per-run overhead first: a short budget still pins it
    names = [name.rstrip("0123456789") for name, _, _ in mods]
    assert len(set(names)) >= 12 and names.count("conv") == 3  # every kind, convolutions three times as often
    files = list(calibration_files(1, tmp_path, count=4))
    again = list(calibration_files(1, tmp_path, count=4))
    assert files == again  # cached by content: the same seed makes the same files
    for _name, path in files:
        ks = [k for k in tflite_kernels(path) if k.family != "view" and k.op != "PAD"]  # a stride-2 conv's PAD
        assert len(ks) == 1, [k.key for k in ks]  # one compute operator: its p50 less the overhead is its time
        assert ks[0].flops <= 2e8 * 1.01 and not math.isnan(ks[0].bytes)


def test_narrow_convolutions_and_audio_unary_ops_are_calibrated(tmp_path):
    """Round 7: a CONV_2D of at most 4 output channels (its filter's dim 0) is "CONV_2D/n"; the calibration makes
    such convolutions and LOG / SIN models (an audio front end's ops), and both are priced by a family."""
    mods = list(calibration_modules(seed=3, count=21 * 6))
    narrow = [(n, m, s) for n, m, s in mods if n.startswith("pointwise") and m.conv.out_channels <= 4]
    assert narrow and any(n.startswith(("log", "sin")) for n, _, _ in mods)
    name, module, shape = narrow[0]
    from edgeprof.predict.tflite import _converted

    (k,) = [k for k in tflite_kernels(_converted(name, module, shape, tmp_path)) if k.family != "view"]
    assert (k.key, k.family) == ("CONV_2D/n", "conv/n")


def test_elementwise_ops_are_calibrated_on_vectors_of_an_mlps_width_too(tmp_path):
    """Round 19: the binary and unary models are a vector of 32-2048 floats about a third of the time, not only maps
    of 392 elements and more: the gesture embedder's 59 ADD and MUL of 64-256 floats were priced 0.27 µs each
    between the 8-element ADD and maps of 10 k elements. Converted, such a model is one ADD or MUL on [1, n]."""
    mods = list(calibration_modules(seed=0, count=21 * 12))
    vectors = [(n, m, s) for n, m, s in mods if n.startswith(("add", "mul", "sigmoid", "tanh")) and len(s) == 2]
    maps = [n for n, _, s in mods if n.startswith(("add", "mul")) and len(s) == 4]
    assert len(vectors) >= 4 and maps and {s[1] for _, _, s in vectors} <= {32, 128, 512, 2048}
    from edgeprof.predict.tflite import _converted

    name, module, shape = next(v for v in vectors if v[0].startswith(("add", "mul")))
    (k,) = [k for k in tflite_kernels(_converted(name, module, shape, tmp_path)) if k.family != "view"]
    assert k.op in ("ADD", "MUL") and k.out_elems == shape[1]


def test_calibrate_local_litert_measures_one_operator_models_and_predicts_from_them(tmp_path, tflite_files):
    """A real, short calibration of this machine (LiteRT with XNNPACK through deploy): four models."""
    from importlib.metadata import version

    from edgeprof.predict.calibrate import calibrate
    from edgeprof.records.device import local_device

    seen = []
    table = calibrate(local_device(), threads=1, budget_s=300, cache_dir=tmp_path / "cal", runtime="tflite",
                      max_models=4, progress=lambda spent, total, models, samples, label: seen.append(models))
    k = table.key
    assert (k.runtime, k.precision, k.threads, k.graph_level) == ("tflite", "fp32", 1, GRAPH_LEVEL)
    assert k.runtime_version == version("ai-edge-litert") and k.host_litert_version.endswith(k.runtime_version)
    assert [m.name.rstrip("0123456789") for m in table.models] == ["tiny", "conv", "pointwise", "depthwise"]
    assert all(m.p50_ms > 0 and m.kernels and all(mk.us is None for mk in m.kernels) for m in table.models)
    assert seen and max(seen) == 4  # the progress callback saw every model
    back = load_table(save_table(table, tmp_path / "t.json"))
    assert back == table
    p = fit(back)
    # the per-run overhead is under the quickest model's p50 as the fit reads it: scaled to the speed probe's median
    # (pace.py), which a board whose speed moved during the calibration puts above or below the p50 as timed
    from edgeprof.predict.pace import paced_models

    assert 0 < p.overhead_us < min(m.p50_ms for m in paced_models(back)) * 1e3
    pred = p.predict(tflite_kernels(tflite_files["conv"]))
    # one conv sample is fewer than MIN_SAMPLES: the roofline from the table's own peaks, never 0 ms
    assert [u["op"] for u in pred.uncovered] == ["CONV_2D"] and pred.uncovered[0]["assumed_ms"] > 0
    assert pred.p50_ms * 1e3 > p.overhead_us and pred.low_ms <= pred.p50_ms <= pred.high_ms


def test_a_bundled_model_is_predicted_as_deploy_exports_it_to_tflite(offline, tmp_path, capsys):
    exported = save_table(_table(threads=1), tmp_path / "vendor.json")
    assert main(["predict", "ds_cnn", "--runtime", "tflite", "--table", str(exported), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["predictions"]
    assert row["key"].startswith("phone-board") and "tflite 2.3.0" in row["key"]
    # ds_cnn in TFLite: depthwise and 1×1 convolutions (the converter writes its Cin=1 first conv as depthwise),
    # none of which the synthetic table has: all from the roofline, listed, never 0 ms
    assert row["kernels"] > 5 and row["p50_ms"] > 0
    assert {"DEPTHWISE_CONV_2D", "CONV_2D", "FULLY_CONNECTED"} <= {u["op"] for u in row["uncovered"]}


def test_predict_first_predicts_a_tflite_cell_from_a_litert_table_and_refuses_what_it_does_not_describe(
        offline, tmp_path, tflite_files):
    """A sweep's --predict-first with a LiteRT table: the .tflite cell is predicted from LiteRT's operators (as
    predict does), a cell that changes the delegate's options is refused in one line, an int8 cell has no table."""
    from edgeprof.lab.cell import Cell
    from edgeprof.lab.predict_first import predict_cells
    from edgeprof.predict.table import default_table_path
    from edgeprof.store import Store

    save_table(_table(threads=2), default_table_path("phone-board", "tflite", "fp32", 2))
    model = str(tflite_files["conv"])

    def cell(precision="fp32", **kw):
        return Cell(model=model, model_label="conv.tflite", device="phone-board", runtime="tflite",
                    precision=precision, batch=1, threads=2, **kw)

    said: list[str] = []
    done = predict_cells(Store(str(tmp_path / "r.sqlite")), "sw-t", [
        cell(), cell(settings={"runtime_options": {"use_xnnpack": False}}), cell("int8")], said.append)
    ((c, rec),) = done.predicted
    (k,) = tflite_kernels(tflite_files["conv"], 2)
    assert rec.p50_ms == pytest.approx((OVERHEAD_US + _us(k)) / 1e3, rel=0.2) and rec.runtime == "tflite"
    assert "measured with LiteRT's XNNPACK defaults" in said[0] and said[0].startswith("could not predict")
    assert "(tables are built for onnxruntime fp32 and int8 and LiteRT fp32 only)" in said[1]


def test_a_tflite_file_with_float16_weights_is_predicted_from_the_fp32_table_saying_why(offline, tmp_path, capsys):
    """MediaPipe's files store their weights as float16 and DEQUANTIZE them: deploy runs them as "fp16 (as given)",
    but LiteRT's CPU path computes in float32 (XNNPACK folds each constant DEQUANTIZE when it is built), so the fp32
    table predicts them, with a warning that says so; before, predict refused every such file and its hint
    (--precision fp16) was refused in turn. A sweep's --predict-first does the same (it too refused the cell)."""
    from tflite_fixtures import fp16_weights_tflite

    model = fp16_weights_tflite(tmp_path / "fp16w.tflite")
    table = save_table(_table(), tmp_path / "t.json")
    assert main(["predict", str(model), "--table", str(table), "--json", "--no-store"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["predictions"]
    assert row["p50_ms"] > 0 and row["kernels"] == 1  # the ADD; the weights' DEQUANTIZE folded by XNNPACK
    assert any("weights are float16" in w and "fp32 table" in w for w in row["warnings"])

    from edgeprof.lab.cell import Cell
    from edgeprof.lab.predict_first import predict_cells
    from edgeprof.predict.table import default_table_path
    from edgeprof.store import Store

    save_table(_table(), default_table_path("phone-board", "tflite", "fp32", 1))
    said: list[str] = []
    done = predict_cells(Store(str(tmp_path / "r.sqlite")), "sw-f", [
        Cell(model=str(model), model_label="fp16w.tflite", device="phone-board", runtime="tflite", precision="fp32",
             batch=1, threads=1)], said.append)
    ((_c, rec),) = done.predicted
    assert not said and rec.p50_ms == pytest.approx(row["p50_ms"])
    assert any("weights are float16" in w for w in rec.warnings)


def test_an_int8_tflite_file_is_refused_in_one_line_as_no_litert_int8_table_exists(offline, tmp_path, capsys):
    """A .tflite file quantised to int8 runs as given (deploy); LiteRT int8 tables are not built, so predict refuses
    it in one line — and so does the accuracy benchmark now (round 5 predicted microWakeWord's int8 files from the
    fp32 table, +235 %, where predict itself refuses them: docs/predict.md)."""
    from pathlib import Path

    from test_tflite_fp16_weights import fc_tflite

    from edgeprof.errors import ConfigError
    from edgeprof.export.resolve import resolve_model
    from edgeprof.export.tflite_export import prepare_tflite
    from edgeprof.predict.service import check_given_precision

    q8 = prepare_tflite(resolve_model(str(fc_tflite(tmp_path / "fc.tflite"))), cache_dir=tmp_path / "c",
                        precision="int8")
    mine = tmp_path / "mine8.tflite"
    mine.write_bytes(Path(q8.path).read_bytes())
    table = save_table(_table(), tmp_path / "t.json")
    assert main(["predict", str(mine), "--table", str(table), "--no-store"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "mine8.tflite is already int8" in line and "built for fp32 only" in line
    assert "LiteRT int8 tables are not built yet" in line
    with pytest.raises(ConfigError, match="LiteRT tables are built for fp32 only"):
        check_given_precision("m.tflite", "int8", "fp32", "tflite")
    assert check_given_precision("m.tflite", "fp16", "fp32", "tflite")  # float16 weights: a note, not a refusal
    assert check_given_precision("m.onnx", "fp32", "fp32", "onnxruntime") is None
    with pytest.raises(ConfigError, match="predicted from int8 tables"):
        check_given_precision("m.onnx", "int8", "fp32", "onnxruntime")


def test_litert_s_own_operators_fall_back_from_the_quickest_small_kernels_not_the_median_one():
    """An operator XNNPACK does not take (a "@builtin" key: a WHILE body's adds and gates) pays no call into the
    delegate: its roofline fallback starts from the table's quickest small kernels (the 8-element ADD here, 0.05 µs
    over the per-run cost), not from their median (round 13: a GRU body's 4 200 operators of 32 floats ran 64 ns
    each, where the LiteRT table's median small kernel took 347)."""
    p = fit(_table())
    assert p.tiny_us < p.small_us
    xnn = Kernel(name="GATHER:1", op="GATHER", key="GATHER", family="copy", dtype="float32", flops=0.0,
                 bytes=256.0, out_elems=32.0)
    own = Kernel(name="GATHER:2", op="GATHER", key="GATHER@builtin", family="copy@builtin", dtype="float32",
                 flops=0.0, bytes=256.0, out_elems=32.0)
    (a, how_a), (b, how_b) = p.cost(xnn), p.cost(own)
    assert how_a == how_b == "roofline" and a - b == pytest.approx(p.small_us - p.tiny_us)


def test_a_gather_moves_the_rows_it_gathers_not_its_whole_table():
    """Round 24: PyIng's GATHER of 60 rows from a 364 810 × 50 GloVe table was counted as reading all 73 MB, and
    priced 1.3 ms by the roofline; it moves its indices and the rows it copies out, as graph.py reads an ONNX
    Gather."""
    from edgeprof.predict.tflite import _kernel

    table, ids, rows = ((364810, 50), np.float32), ((1, 60), np.int32), ((1, 60, 50), np.float32)
    k = _kernel("GATHER", "GATHER:3", [table, ids], [rows], builtin=True)
    assert k.bytes == 60 * 4 + 2 * 60 * 50 * 4
    assert _kernel("CONCATENATION", "CONCATENATION:4", [table, ids], [rows], builtin=True).bytes > 364810 * 50 * 4
