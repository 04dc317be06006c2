"""Small ONNX models built in code for the tests that need a model with a known behaviour
(tests/ is on sys.path through its conftest)."""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper


def sample_rate_model(path: Path | str, x_dim0: int | str = "batch") -> str:
    """y = Reshape(x, [sr // 4000, -1]) (allowzero): runs only when the scalar int64 input sr is 16000 (x has 4
    values per row) — a voice model whose sample rate is an input, as silero-vad's is."""
    nodes = [
        helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.INT64, [], [4000])),
        helper.make_node("Div", ["sr", "k"], ["q"]),
        helper.make_node("Unsqueeze", ["q", "ax"], ["q1"]),
        helper.make_node("Concat", ["q1", "m1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"], allowzero=1),
    ]
    graph = helper.make_graph(
        nodes, "sr",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [x_dim0, 4]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "n"])],
        [helper.make_tensor("ax", TensorProto.INT64, [1], [0]), helper.make_tensor("m1", TensorProto.INT64, [1], [-1])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return str(path)


def changing_length_model(path: Path | str, random: bool = True) -> str:
    """y = NonZero(u > 0.5) over x[1, 256]: its length changes from one run to the next — u drawn at random
    (RandomUniformLike: a TTS model's stochastic durations) or u = x (read from the inputs' values: a detector's
    box count). Declared [2, "k"]."""
    nodes = [helper.make_node("Constant", [], ["half"], value=helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])),
             helper.make_node("Greater", ["u", "half"], ["m"]), helper.make_node("NonZero", ["m"], ["y"])]
    nodes.insert(0, helper.make_node("RandomUniformLike", ["x"], ["u"], dtype=TensorProto.FLOAT) if random
                 else helper.make_node("Identity", ["x"], ["u"]))
    graph = helper.make_graph(nodes, "changing", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2, "k"])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return str(path)
