"""Round 23: onnxruntime's int8 rewrites (QDQ to QLinear ops, int8 activations to uint8) keep a node's name and give
its outputs new names, which the host run of the quantised file never saw. A Reshape whose target shape the graph
computes (Shape, Gather, Concat, as every exported attention layer has) then had no shape and took its input's, and
the activation-times-activation matmul after it was read at the wrong size (RETSim's attention-times-values product
at twice its FLOPs). Its shapes are now read from the node of its name in the file as given (shapes.renamed_shapes);
a real onnxruntime quantises and optimises the model here, as deploy --precision int8 does."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from edgeprof.predict.service import model_graph
from edgeprof.predict.shapes import named_outputs, renamed_shapes

T, D, H = 64, 32, 2  # tokens, width, heads


def _attention(path):
    """Two-head self-attention as exporters write it: x ["batch", T, D] → q, k, v projections, each split into heads
    by a Reshape to a shape the graph computes from the input's (Shape, Gather, Abs, Concat: [1, T, H, D/H]; the
    batch dim symbolic, so onnxruntime folds none of it) and a Transpose; scores q·kᵀ [1, H, T, T], Softmax, times
    v."""
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", T, D])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array((rng.standard_normal((D, D)) * 0.2).astype(np.float32), f"w{n}") for n in "qkv"]
    inits += [numpy_helper.from_array(np.array([1], np.int64), "idx1"),
              numpy_helper.from_array(np.array([1], np.int64), "one"),
              numpy_helper.from_array(np.array([H, D // H], np.int64), "heads")]
    nodes = [helper.make_node("Shape", ["x"], ["xs"], name="shape_x"),
             helper.make_node("Gather", ["xs", "idx1"], ["t0"], axis=0, name="gather_t"),
             helper.make_node("Abs", ["t0"], ["t"], name="abs_t"),  # onnx's data propagation stops here
             helper.make_node("Concat", ["one", "t", "heads"], ["split_to"], axis=0, name="concat_split")]
    for n, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("MatMul", ["x", f"w{n}"], [f"{n}0"], name=f"{n}_proj"),
                  helper.make_node("Reshape", [f"{n}0", "split_to"], [f"{n}1"], name=f"{n}_split"),
                  helper.make_node("Transpose", [f"{n}1"], [f"{n}h"], perm=perm, name=f"{n}_heads")]
    nodes += [helper.make_node("MatMul", ["qh", "kh"], ["s"], name="scores"),
              helper.make_node("Softmax", ["s"], ["p"], axis=-1, name="softmax"),
              helper.make_node("MatMul", ["p", "vh"], ["y"], name="values")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_an_int8_matmul_after_a_computed_reshape_has_its_true_size(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    path = _attention(tmp_path / "attention.onnx")
    fp32 = {k.name: k for k in model_graph(str(path)).kernels}
    want = {"scores": 2 * T * T * D, "values": 2 * T * T * D}  # each head: 2·T·T·(D/H), H of them
    assert {n: fp32[n].flops for n in want} == want
    int8 = {k.name: k for k in model_graph(str(path), precision="int8").kernels}
    for n in want:
        assert int8[n].op == "QLinearMatMul" and int8[n].key.startswith("QLinearMatMul/a@"), int8[n].key
    assert {n: int8[n].flops for n in want} == want  # the scores had been read as [1, T, D] x [1, T, D]: half
    assert not [k.name for k in int8.values() if k.shapes_guessed]


def test_a_renamed_nodes_shapes_come_from_its_names_node_only_when_it_is_the_same_op():
    given = onnx.helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm"),
                                    helper.make_node("Relu", ["y"], ["z"], name="act")], "g", [], [])
    named = named_outputs(helper.make_model(given), {"y": (1, 4, 8), "z": (1, 4, 8)})
    q = helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["token_9"], name="mm")
    assert renamed_shapes(q, "MatMul", named, {}) == {"token_9": (1, 4, 8)}
    assert renamed_shapes(q, "MatMul", named, {"token_9": (2, 2)}) == {}  # a shape already known stays
    other = helper.make_node("Sigmoid", ["y"], ["token_10"], name="act")  # the name, another op: not read
    assert renamed_shapes(other, "Sigmoid", named, {}) == {}
    assert renamed_shapes(helper.make_node("Relu", ["y"], ["w"], name="new"), "Relu", named, {}) == {}
