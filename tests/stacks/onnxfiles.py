"""Small ONNX files written with onnx.helper at a chosen IR version and opset: what an older onnxruntime loads.

Owns: one tiny CNN (Conv → Relu → GlobalAveragePool → Flatten → Gemm, ops unchanged from opset 13 to 21) with
seeded weights, so a stack whose onnxruntime refuses the bundled models' IR 10 / opset 18 export can still be
measured end to end with a user file.
Does not own: exporting for a board (edgeprof/export/).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT_SHAPE = (1, 3, 32, 32)
CLASSES = 10


def tiny_cnn(path: Path, *, ir_version: int, opset: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    fw = numpy_helper.from_array(rng.standard_normal((8, CLASSES)).astype(np.float32), "fw")
    fb = numpy_helper.from_array(rng.standard_normal(CLASSES).astype(np.float32), "fb")
    nodes = [
        helper.make_node("Conv", ["input", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(INPUT_SHAPE))],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [INPUT_SHAPE[0], CLASSES])],
        initializer=[w, b, fw, fb])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="edgeprof-tests")
    model.ir_version = ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
