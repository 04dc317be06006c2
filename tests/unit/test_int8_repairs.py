"""int8 of graphs onnxruntime.quantization 1.32 mishandles (export/onnx_repair.py), with real onnxruntime: each
graph is built here to trigger one quantizer bug found on a third-party file (basic-pitch, magika v3_3, swift-f0
twice, mk8dx-table-reader; a grouped ConvTranspose of the calibration models);
onnxruntime's quantize_static alone fails on it, deploy's int8 path quantises it, the result loads, runs close to
fp32, and its provenance says what was done."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.errors import ModelError
from edgeprof.export import quantize
from edgeprof.export.artifact_cache import sha256_file
from edgeprof.export.inputs import make_inputs
from edgeprof.export.quantize import int8_notes, quantize_onnx
from edgeprof.records import Artifact, TensorSpec

pytest.importorskip("onnxruntime.quantization")


def save(tmp_path, nodes, inputs, outputs, inits, specs, name="m"):
    graph = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    path = tmp_path / f"{name}.onnx"
    onnx.save(m, str(path))
    return Artifact(path=str(path), format="onnx", sha256=sha256_file(path), size_bytes=path.stat().st_size,
                    inputs=tuple(specs), outputs=tuple(o.name for o in outputs), model_name=name,
                    source=f"file:{path}")


def run(path, feed):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feed)


def onnxruntime_alone(src, tmp_path, specs, shapes):
    """onnxruntime's quantize_static as deploy calls it, without the repairs: (the exception, else the load error
    of its output, else None)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([make_inputs(specs, shapes, 1000 + i) for i in range(4)])

        def get_next(self):
            return next(self.it, None)

    out = tmp_path / "alone.onnx"
    try:
        quantize_static(str(src), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
        outputs = run(out, make_inputs(specs, shapes, 7))
    except Exception as e:  # noqa: BLE001 - what onnxruntime raises is what the test reads
        return str(e)
    return None if all(np.isfinite(o).all() for o in outputs) else "non-finite output"


def quantised_ops(path):
    return [n.op_type for n in onnx.load(str(path)).graph.node]


def rng_array(shape, seed, scale=0.3):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def test_a_bias_shared_by_two_convs_whose_copy_name_is_an_activation_quantises_and_loads(tmp_path, monkeypatch):
    """basic-pitch's nmp.onnx (tf2onnx): one bias `b` feeds two Convs, and the first Conv's output is called `b0`,
    the name onnxruntime gives its copy of the bias (qdq_quantizer.py _dup_initializer): the quantizer then feeds
    the Transpose the bias's DequantizeLinear and the file does not load ("Invalid attribute perm"). Deploy gives
    the second Conv its own copy first."""
    monkeypatch.chdir(tmp_path)  # the calibrator writes augmented_model.onnx into the cwd
    spec = TensorSpec("x", (1, 4, 8, 8), "float32", -1.0, 1.0)
    nodes = [helper.make_node("Conv", ["x", "w1", "b"], ["b0"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Transpose", ["b0"], ["nhwc"], perm=[0, 2, 3, 1], name="to_nhwc"),
             helper.make_node("Transpose", ["nhwc"], ["r"], perm=[0, 3, 1, 2], name="to_nchw"),
             helper.make_node("Conv", ["r", "w2", "b"], ["y"], pads=[1, 1, 1, 1], name="conv2")]
    fp32 = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                {"w1": rng_array((4, 4, 3, 3), 1), "w2": rng_array((4, 4, 3, 3), 2), "b": rng_array((4,), 3, 0.1)},
                [spec])
    shapes = {"x": (1, 4, 8, 8)}
    error = onnxruntime_alone(fp32.path, tmp_path, [spec], shapes)
    assert error is not None and "Invalid attribute perm" in error  # the Transpose reads the [4] bias copy

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    assert a.export_options.biases_unshared == ["conv2"]
    assert not a.export_options.nodes_not_quantized and int8_notes(a.export_options) == []
    assert quantised_ops(a.path).count("DequantizeLinear") >= 4  # weights and activations of both Convs
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    if _int8_dot_products_saturate():
        # an x86 CPU without VNNI: onnxruntime's int8 convolutions multiply through VPMADDUBSW, whose 16-bit sums
        # saturate (onnxruntime's quantization docs: reduce_range or VNNI avoid it) — on this file 4 of 256 outputs
        # off by up to 9 % of the largest; deploy measures and reports the fidelity as that CPU computes it
        off = np.abs(got - want) > 0.05 * float(np.abs(want).max())
        assert off.mean() <= 0.03 and np.abs(got - want).max() <= 0.15 * float(np.abs(want).max())
        return
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))


def _int8_dot_products_saturate():
    """An x86-64 host whose CPU has no VNNI (avx512_vnni, avx_vnni): its int8 dot products may saturate."""
    import platform
    from pathlib import Path

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "vnni" not in flags


def gemm_1n(tmp_path):
    """magika v3_3's shape of a dense layer: Gemm(x, W [16, 8], C [1, 8]), then Relu."""
    nodes = [helper.make_node("Gemm", ["x", "w", "c"], ["h"], name="dense"),
             helper.make_node("Relu", ["h"], ["y"], name="relu")]
    return save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
                {"w": rng_array((16, 8), 1), "c": rng_array((1, 8), 2, 0.1)},
                [TensorSpec("x", (2, 16), "float32", -1.0, 1.0)])


def test_a_gemm_bias_of_shape_1_n_quantises_per_channel(tmp_path, monkeypatch):
    """magika v3_3 (jax2tf): a Gemm's bias C is [1, N]; qdq_quantizer.py _adjust_weight_scale_for_int32_bias reads
    C[i] per output channel, a row here, and raises "The truth value of an array ... is ambiguous". Deploy gives
    C as [N] (the same broadcast)."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (2, 16), "float32", -1.0, 1.0)
    fp32 = gemm_1n(tmp_path)
    shapes = {"x": (2, 16)}
    error = onnxruntime_alone(fp32.path, tmp_path, [spec], shapes)
    assert error is not None and "truth value of an array" in error

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    assert a.export_options.gemm_biases_flattened == ["dense"]
    m = onnx.load(a.path)
    gemm = next(n for n in m.graph.node if n.op_type == "Gemm")
    (dq,) = [n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == gemm.input[2]]
    c = next(i for i in m.graph.initializer if i.name == dq.input[0])
    assert c.data_type == TensorProto.INT32 and list(c.dims) == [8]  # the bias is int32, one per output channel
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))


def test_a_quantizer_failure_left_unrepaired_is_one_line_naming_onnxruntime_and_the_way_out(tmp_path, monkeypatch):
    """Without its repair the [1, N] Gemm bias makes onnxruntime.quantization raise: deploy's one line names the
    place in onnxruntime's code (a bug there, not the user's file) and says to run fp32 or fp16."""
    fp32 = gemm_1n(tmp_path)
    monkeypatch.setattr(quantize, "flatten_gemm_biases", lambda model: [])
    with pytest.raises(ModelError) as e:
        quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes={"x": (2, 16)})
    assert "in onnxruntime (quantization/qdq_quantizer.py _adjust_weight_scale_for_int32_bias)" in str(e.value)
    assert "truth value of an array" in str(e.value) and "\n" not in str(e.value)
    assert "--precision fp32 or fp16" in e.value.hint


def test_a_float64_softmax_is_left_in_float_and_said(tmp_path, monkeypatch):
    """swift-f0: a Softmax computes in float64; the calibrator calibrates float32/float16 tensors only
    (calibrate.py select_tensors_to_calibrate) and base_quantizer.py adjust_tensor_ranges then sets its output's
    range anyway: "Only an existing tensor can be modified". Deploy leaves the node out of quantisation and says
    so; the rest is int8."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (2, 16), "float32", -1.0, 1.0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
             helper.make_node("Cast", ["h"], ["h64"], to=TensorProto.DOUBLE, name="to64"),
             helper.make_node("Softmax", ["h64"], ["p64"], axis=-1),  # unnamed, as exporters often leave them
             helper.make_node("Cast", ["p64"], ["y"], to=TensorProto.FLOAT, name="to32")]
    fp32 = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
                {"w": rng_array((16, 8), 1)}, [spec])
    shapes = {"x": (2, 16)}
    error = onnxruntime_alone(fp32.path, tmp_path, [spec], shapes)
    assert error is not None and "Only an existing tensor can be modified" in error

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    (node,) = a.export_options.nodes_not_quantized
    assert "double" in a.export_options.nodes_not_quantized[node]
    (note,) = int8_notes(a.export_options)
    assert note.startswith("int8: 1 node(s) left in float") and node in note and "Softmax" in note
    m = onnx.load(a.path)
    assert "QuantizeLinear" in [n.op_type for n in m.graph.node]  # the MatMul is int8
    softmax = next(n for n in m.graph.node if n.op_type == "Softmax")
    assert softmax.name == node and softmax.input[0] == "h64"  # its input is the Cast's, no QDQ around it
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, atol=0.05)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-5)  # still a softmax


def test_a_minus_inf_fill_constant_is_left_in_float_and_the_output_stays_finite(tmp_path, monkeypatch):
    """swift-f0: a Pad fills with a -inf constant before a max; onnxruntime quantises the fill constant too
    (operators/pad.py QDQPad.quantize; quant_utils.py compute_scale_zp: scale inf) and the int8 model outputs NaN.
    Deploy leaves the Pad in float and says so; a node of an op onnxruntime does not quantise (the ReduceMax) is
    not named."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (2, 16), "float32", -1.0, 1.0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
             helper.make_node("Pad", ["h", "pads", "ninf"], ["padded"], mode="constant", name="fill"),
             helper.make_node("Max", ["padded", "ninf"], ["m"], name="floor"),
             helper.make_node("ReduceMax", ["m"], ["y"], axes=[-1], keepdims=1, name="top")]
    fp32 = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1])],
                {"w": rng_array((16, 8), 1), "pads": np.array([0, 2, 0, 2], np.int64),
                 "ninf": np.array(-np.inf, np.float32)}, [spec])
    shapes = {"x": (2, 16)}
    assert onnxruntime_alone(fp32.path, tmp_path, [spec], shapes) == "non-finite output"

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    assert list(a.export_options.nodes_not_quantized) == ["fill"]
    (note,) = int8_notes(a.export_options)
    assert "(fill)" in note and "-inf" in note
    assert "QuantizeLinear" in quantised_ops(a.path)  # the MatMul is int8
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))


def test_the_float16_part_of_a_mixed_precision_file_is_left_as_it_is(tmp_path, monkeypatch):
    """mk8dx-table-reader's CRNN (held-out-13) computes some layers in float16 between Casts: calibrate.py
    calibrates float16 tensors too, the QDQ quantizer puts a QuantizeLinear on them, and below opset 19 that does not
    load ("Type 'tensor(float16)' of input parameter ... of operator (QuantizeLinear)"). Deploy leaves every node
    that reads or writes a float16 tensor in float and says so; the float32 MatMul is int8."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (2, 16), "float32", -1.0, 1.0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
             helper.make_node("Cast", ["h"], ["h16"], to=TensorProto.FLOAT16, name="to16"),
             helper.make_node("Relu", ["h16"], ["r16"], name="relu16"),
             helper.make_node("Concat", ["h16", "r16"], ["c16"], axis=1),  # unnamed, as in mk8dx's LSTM pair
             helper.make_node("Cast", ["c16"], ["y"], to=TensorProto.FLOAT, name="to32")]
    fp32 = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])],
                {"w": rng_array((16, 8), 1)}, [spec])
    shapes = {"x": (2, 16)}
    error = onnxruntime_alone(fp32.path, tmp_path, [spec], shapes)
    assert error is not None and "tensor(float16)" in error and "QuantizeLinear" in error

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    # quant_pre_process's optimiser moves the Relu before the Cast (a precision-free cast): it computes in float32
    # there and is quantised; the Concat of two float16 tensors stays float16 (named: nodes_to_exclude goes by name)
    ((name, why),) = a.export_options.nodes_not_quantized.items()
    assert name.startswith("Concat") and "float16" in why
    (note,) = int8_notes(a.export_options)
    assert note.startswith("int8: 1 node(s) left in float") and name in note and "float16" in note
    assert "QuantizeLinear" in quantised_ops(a.path)
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))


def test_a_grouped_conv_transpose_with_a_bias_is_left_in_float_and_an_ungrouped_one_is_int8(tmp_path, monkeypatch):
    """A grouped up-sampling layer (8 of 13 of the misc calibration models, round 22): quantised per channel along
    its weight's axis 1, a ConvTranspose of group g has C_out / g weight scales, and base_quantizer.py
    quantize_bias_static_impl multiplies its C_out biases by them ("operands could not be broadcast together").
    Deploy leaves the grouped one in float and says so; the ungrouped one beside it is int8, and both run close to
    fp32."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (1, 8, 6, 6), "float32", -1.0, 1.0)
    nodes = [helper.make_node("ConvTranspose", ["x", "wg", "bg"], ["g"], group=2, kernel_shape=[2, 2],
                              strides=[2, 2], name="grouped"),
             helper.make_node("ConvTranspose", ["g", "w1", "b1"], ["y"], kernel_shape=[3, 3], pads=[1] * 4,
                              name="plain")]
    fp32 = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 6, 6])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 12, 12])],
                {"wg": rng_array((8, 8, 2, 2), 1), "bg": rng_array((16,), 2), "w1": rng_array((16, 4, 3, 3), 3),
                 "b1": rng_array((4,), 4)}, [spec])
    shapes = {"x": (1, 8, 6, 6)}
    error = onnxruntime_alone(fp32.path, tmp_path, [spec], shapes)
    assert error is not None and "broadcast" in error

    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    ((name, why),) = a.export_options.nodes_not_quantized.items()
    assert name == "grouped" and "group 2" in why
    (note,) = int8_notes(a.export_options)
    assert "(grouped)" in note
    model = onnx.load(a.path)
    dq_of = {n.output[0]: n.input[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    by_name = {n.name: n for n in model.graph.node if n.op_type == "ConvTranspose"}
    assert by_name["grouped"].input[1] == "wg"  # its float weight as it was
    assert dq_of.get(by_name["plain"].input[1], "").endswith("_quantized")  # the other reads an int8 weight
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))


def test_a_graph_of_ai_onnx_ml_nodes_alone_is_refused_in_one_line_before_the_quantizer(tmp_path):
    """synheart-emotion's ExtraTrees as skl2onnx writes it (round 17's held-out-16): a Scaler and a tree ensemble,
    ai.onnx.ml alone, no ai.onnx opset — onnxruntime.quantization stops on it with "Failed to find proper ai.onnx
    domain"; deploy --precision int8 says there is nothing to quantise and what to do."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    node = helper.make_node("Scaler", ["x"], ["y"], domain="ai.onnx.ml", offset=[0.5] * 4, scale=[2.0] * 4,
                            name="scaler")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)])
    m.ir_version = 8
    path = tmp_path / "forest.onnx"
    onnx.save(m, str(path))
    spec = TensorSpec("x", (1, 4), "float32", -1.0, 1.0)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([make_inputs([spec], {"x": (1, 4)}, 1)])

        def get_next(self):
            return next(self.it, None)

    with pytest.raises(ValueError, match="Failed to find proper ai.onnx domain"):
        quantize_static(str(path), str(tmp_path / "q.onnx"), Reader(), quant_format=QuantFormat.QDQ)
    a = Artifact(path=str(path), format="onnx", sha256=sha256_file(path), size_bytes=path.stat().st_size,
                 inputs=(spec,), outputs=("y",), model_name="forest", source=f"file:{path}")
    with pytest.raises(ModelError, match=r"forest has no ONNX-domain node to quantise \(its 1 node\(s\): "
                                         r"ai\.onnx\.ml\.Scaler\)") as e:
        quantize_onnx(a, "int8", cache_dir=tmp_path / "cache", shapes={"x": (1, 4)})
    assert "--precision fp32" in (e.value.hint or "")


@pytest.mark.parametrize("opset", [17, 10])
def test_an_opset_import_listed_twice_is_kept_once_and_said(tmp_path, monkeypatch, opset):
    """fastgrahsp's emulator (onnx.compose.merge_models) imports the default domain at 10 three times: onnxruntime
    loads it, but quant_utils.py get_opset_version wants one default-domain import and raises "Failed to find proper
    ai.onnx domain" (round 20's int8 run could not measure it). Deploy keeps each import once and says so, before
    an opset 10 file is upgraded to 13 too (the version converter raises the first import only)."""
    monkeypatch.chdir(tmp_path)
    spec = TensorSpec("x", (4, 8), "float32", -1.0, 1.0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"), helper.make_node("Relu", ["h"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])],
                              [numpy_helper.from_array(rng_array((8, 16), 1), "w")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx.ml", 2),
                                                helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx.ml", 2)])
    m.ir_version = 8
    path = tmp_path / "twice.onnx"
    onnx.save(m, str(path))
    fp32 = Artifact(path=str(path), format="onnx", sha256=sha256_file(path), size_bytes=path.stat().st_size,
                    inputs=(spec,), outputs=("y",), model_name="twice", source=f"file:{path}")
    shapes = {"x": (4, 8)}
    error = onnxruntime_alone(path, tmp_path, [spec], shapes)
    assert error is not None and "Failed to find proper ai.onnx domain" in error
    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes)
    assert a.export_options.opset_imports_deduplicated == [f":{opset}", "ai.onnx.ml:2"]
    assert [(o.domain, o.version) for o in onnx.load(a.path).opset_import if o.domain == ""] == [("", max(opset, 13))]
    feed = make_inputs(fp32.inputs, shapes, 7)
    (want,), (got,) = run(fp32.path, feed), run(a.path, feed)
    np.testing.assert_allclose(got, want, atol=0.05 * float(np.abs(want).max()))
