"""A per-axis DequantizeLinear over short rows (variants._dq_rows, round 22): onnxruntime's CPU kernel walks it row
by row, so a weight quantised per output channel of a MatMul ([K, N], axis 1: rows of one element) costs per row,
not per byte; it is keyed "/rows" with its rows as spans, and the misc calibration models, quantised as deploy
quantises them, hold such a DequantizeLinear at run time (projections.py) for an int8 table to measure."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.predict.cost import _features
from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import calibration_models
from edgeprof.predict.service import model_graph


def _dq(tmp_path, shape, axis, channels):
    """DequantizeLinear of an int8 graph input (onnxruntime folds one of an initializer in a float graph)."""
    x = helper.make_tensor_value_info("x", TensorProto.INT8, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))
    inits = [numpy_helper.from_array(np.full(channels, 0.02, np.float32).reshape(() if channels == 1 else -1), "s"),
             numpy_helper.from_array(np.zeros(channels, np.int8).reshape(() if channels == 1 else -1), "z")]
    node = helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=axis, name="dq")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    onnx.save(m, str(tmp_path / "dq.onnx"))
    (k,) = kernels(tmp_path / "dq.onnx", {}, "all")
    return k


def test_a_per_axis_dequantize_over_short_rows_is_keyed_and_fitted_by_its_rows(tmp_path):
    k = _dq(tmp_path, (256, 2048), 1, 2048)  # a MatMul weight per output channel: rows of one element
    # a family of its own: an older table has neither, and prices it as an op it lacks (the roofline, said so), not
    # by a family of samples without rows (their spans 0: the law grown from there priced muggle's at a second)
    assert (k.key, k.family, k.spans) == ("DequantizeLinear/rows@int8", "DequantizeLinear/rows@int8", 256 * 2048)
    assert _features(k, False)[0] == pytest.approx(np.log1p(256 * 2048))  # its rows stand where FLOPs stand
    assert _dq(tmp_path, (64, 8, 9), 1, 8).spans == 64 * 8  # rows of 9 (a depthwise weight's taps)
    assert _dq(tmp_path, (256, 2048), 0, 256).key == "DequantizeLinear@int8"  # rows of 2048: per byte
    assert _dq(tmp_path, (4, 8, 32), 1, 8).key == "DequantizeLinear@int8"  # rows of 32: vectorised
    per_tensor = _dq(tmp_path, (256, 2048), 1, 1)
    assert (per_tensor.key, per_tensor.spans) == ("DequantizeLinear@int8", 0)


def test_the_misc_models_quantised_as_deploy_does_run_a_projections_weight_dequantised_row_by_row(tmp_path,
                                                                                                  monkeypatch):
    """projections.py: a bias-free MatMul whose input a Sigmoid or Relu reads too is not fused by onnxruntime once
    quantised (its activation's QuantizeLinear feeds two DequantizeLinears): its [K, N] weight is dequantised at
    every run, per output channel. Read from onnxruntime's own optimised graph of deploy's int8 file."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    name, m = next((n, m) for n, m in calibration_models(seed=0, count=11) if n.endswith("-misc"))
    matmul = next(n for n in m.graph.node if n.op_type == "MatMul")
    weight = next(i for i in m.graph.initializer if i.name == matmul.input[1])
    readers = [n.op_type for n in m.graph.node if matmul.input[0] in n.input]
    assert len(readers) == 2 and readers[0] == "MatMul" and readers[1] in ("Sigmoid", "Relu")
    onnx.save(m, str(tmp_path / f"{name}.onnx"))
    int8 = model_graph(str(tmp_path / f"{name}.onnx"), precision="int8")
    rows = [k for k in int8.kernels if k.key == "DequantizeLinear/rows@int8"]
    assert [k.spans for k in rows if k.spans == weight.dims[0] * weight.dims[1]], [(k.name, k.spans) for k in rows]
    assert any(k.key == "MatMul/a" and k.dtype == "float32" for k in int8.kernels)  # the float MatMul it feeds
    fp32 = model_graph(str(tmp_path / f"{name}.onnx"))
    assert not any("Dequantize" in k.key for k in fp32.kernels)
    assert any(k.key == "MatMul/w" for k in fp32.kernels)
