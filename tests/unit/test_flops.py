"""FLOP counting on tiny hand-built ONNX graphs (hand-computed counts) and on the bundled CNNs (known figures).
The bundled-model figures from the dynamo export are checked in test_export.py; here the TorchScript export
(fast, different graph: GlobalAveragePool, Flatten) must give the same totals."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof.export.flops import count_flops, flop_breakdown
from edgeprof.export.onnx_export import prepare_onnx
from edgeprof.export.resolve import resolve_model

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, F, None) for n in outputs],
        [helper.make_tensor(n, F, s, np.zeros(s, np.float32).ravel().tolist()) for n, s in initializers],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def test_conv_with_bias():
    m = _model([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])],
               [("x", ["N", 3, 8, 8])], ["y"], [("w", [4, 3, 3, 3]), ("b", [4])])
    y = 1 * 4 * 8 * 8
    assert count_flops(m, {"x": (1, 3, 8, 8)}) == 2 * y * 3 * 3 * 3 + y
    assert count_flops(m, {"x": (2, 3, 8, 8)}) == 2 * (2 * y * 27 + y)  # linear in the batch


def test_depthwise_strided_conv_without_bias():
    m = _model([helper.make_node("Conv", ["x", "w"], ["y"], group=8, strides=[2, 2], pads=[1, 1, 1, 1])],
               [("x", [1, 8, 10, 10])], ["y"], [("w", [8, 1, 3, 3])])
    assert count_flops(m, {"x": (1, 8, 10, 10)}) == 2 * (8 * 5 * 5) * 9


def test_grouped_conv():
    m = _model([helper.make_node("Conv", ["x", "w"], ["y"], group=2)],
               [("x", [1, 8, 6, 6])], ["y"], [("w", [4, 4, 1, 1])])
    assert count_flops(m, {"x": (1, 8, 6, 6)}) == 2 * (4 * 6 * 6) * 4


def test_conv_transpose():
    m = _model([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2])],
               [("x", [1, 3, 4, 4])], ["y"], [("w", [3, 5, 2, 2]), ("b", [5])])
    assert count_flops(m, {"x": (1, 3, 4, 4)}) == 2 * (3 * 4 * 4) * (5 * 2 * 2) + 5 * 8 * 8


def test_gemm_with_transposes_and_c():
    m = _model([helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1, transB=1)],
               [("a", [5, 2])], ["y"], [("b", [3, 5]), ("c", [3])])
    assert count_flops(m, {"a": (5, 2)}) == 2 * 2 * 3 * 5 + 2 * 3


def test_batched_matmul_broadcasts():
    m = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", ["B", 4, 6])], ["y"], [("b", [6, 5])])
    assert count_flops(m, {"a": (2, 4, 6)}) == 2 * 2 * 4 * 5 * 6
    m2 = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", [3, 1, 4, 6]), ("b", [2, 6, 5])], ["y"])
    assert count_flops(m2, {"a": (3, 1, 4, 6), "b": (2, 6, 5)}) == 2 * (3 * 2 * 4 * 5) * 6


def test_elementwise_norm_softmax_pool_conventions():
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),                                 # 1 × 2·4·6·6 = 288
        helper.make_node("Add", ["r", "x"], ["a"]),                             # 288
        helper.make_node("MaxPool", ["a"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),  # 2·4·3·3 × 4 = 288
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),                    # input 72
        helper.make_node("Flatten", ["g"], ["f"]),                              # 0
        helper.make_node("Softmax", ["f"], ["s"]),                              # 5 × 8 = 40
        helper.make_node("LayerNormalization", ["s", "gamma"], ["y"]),          # 5 × 8 = 40
    ]
    m = _model(nodes, [("x", [2, 4, 6, 6])], ["y"], [("gamma", [4])])
    counted = flop_breakdown(m, {"x": (2, 4, 6, 6)})
    assert counted.by_op == {"Relu": 288, "Add": 288, "MaxPool": 288, "GlobalAveragePool": 72, "Softmax": 40,
                             "LayerNormalization": 40}
    assert counted.total == 1016 and counted.uncounted == set()


def test_unknown_ops_are_listed_not_guessed():
    m = _model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Det", ["r"], ["y"])],
               [("x", [3, 3])], ["y"])
    counted = flop_breakdown(m, {"x": (3, 3)})
    assert counted.total == 9 and counted.uncounted == {"Det"}
    # Einsum was among them until round 11; now a multiply-add per point of its index space
    m = _model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Einsum", ["r", "r"], ["y"], equation="ij,ij->i")],
               [("x", [2, 3])], ["y"])
    counted = flop_breakdown(m, {"x": (2, 3)})
    assert counted.total == 6 + 2 * 6 and counted.uncounted == set()


def test_unresolvable_shapes_give_none():
    m = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", ["B", "S", 6])], ["y"], [("b", [6, 5])])
    assert count_flops(m, {}) is None  # dims left symbolic
    assert count_flops(m, {"a": (1, 7, 6)}) == 2 * 7 * 5 * 6


def test_accepts_a_path(tmp_path):
    m = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", [2, 3])], ["y"])
    onnx.save(m, str(tmp_path / "m.onnx"))
    assert count_flops(tmp_path / "m.onnx", {"x": (2, 3)}) == 6
    assert count_flops(str(tmp_path / "m.onnx"), {"x": (4, 3)}) == 12


def test_does_not_modify_the_callers_model():
    m = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", ["N", 3])], ["y"])
    before = m.SerializeToString()
    count_flops(m, {"x": (5, 3)})
    assert m.SerializeToString() == before


@pytest.mark.parametrize("name, macs", [("mobilenet_v2", 300.8e6), ("resnet18", 1.814e9)])
def test_classic_cnns_match_published_macs(tmp_path, name, macs):
    """torchvision's MACs; 2 FLOPs per MAC plus a few % of elementwise/bias work: within 5 %."""
    artifact = prepare_onnx(resolve_model(name), cache_dir=tmp_path, exporter="torchscript")
    counted = flop_breakdown(artifact.path, {"input": (1, 3, 224, 224)})
    assert counted.total == artifact.flops == pytest.approx(2 * macs, rel=0.05)
    assert counted.by_op["Conv"] + counted.by_op["Gemm"] == pytest.approx(2 * macs, rel=0.02)
    assert counted.uncounted == set()
