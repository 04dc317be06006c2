"""Builds .tflite test files: a two-input one with dynamic dims (litert-torch, then shape_signature set to -1), and
minimal one-op files written with the flatbuffer schema (a builtin ADD, a Flex op, a custom op)."""

from pathlib import Path

import numpy as np

BUILDER = '''
import torch


class Two(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)

    def forward(self, a, b):
        return self.fc(a) + b.float()


def build(seed):
    torch.manual_seed(seed)
    return Two().eval(), {"a": torch.rand(1, 5, 3), "b": torch.ones(1, 5, 4, dtype=torch.int32)}
'''


def export_two_inputs(tmp: Path, dynamic: bool = True) -> Path:
    """A two-input .tflite from litert-torch; with `dynamic`, dim 1 of both inputs marked -1 in the file."""
    from ai_edge_litert.tools import flatbuffer_utils as fu

    from edgeprof.export.resolve import resolve_model
    from edgeprof.export.tflite_export import prepare_tflite

    (tmp / "two.py").write_text(BUILDER)
    art = prepare_tflite(resolve_model(f"{tmp / 'two.py'}:build"), cache_dir=tmp / "cache", batch=1)
    model = fu.read_model(art.path)
    if dynamic:
        sg = model.subgraphs[0]
        for i in sg.inputs:
            sig = list(sg.tensors[i].shape)
            sig[1] = -1
            sg.tensors[i].shapeSignature = np.array(sig, dtype=np.int32)
    out = tmp / "two_dyn.tflite"
    fu.write_model(model, str(out))
    return out


def one_op_tflite(path: Path, custom: str | None = None) -> Path:
    """A minimal .tflite written with LiteRT's flatbuffer schema: y = x + x on float32[1, 4], the op either the
    builtin ADD or a CUSTOM operator code named `custom` ("FlexAddV2": a Select TF op, as the TensorFlow converter
    writes it under SELECT_TF_OPS; any other name: a custom op)."""
    from ai_edge_litert import schema_py_generated as s
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = s.ModelT()
    model.version = 3
    code = s.OperatorCodeT()
    kind = s.BuiltinOperator.CUSTOM if custom else s.BuiltinOperator.ADD
    code.builtinCode, code.deprecatedBuiltinCode, code.version = kind, kind, 1
    if custom:
        code.customCode = custom
    model.operatorCodes = [code]
    model.buffers = [s.BufferT(), s.BufferT(), s.BufferT()]
    tensors = []
    for i, name in enumerate(("x", "y")):
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer = name, np.array([1, 4], dtype=np.int32), s.TensorType.FLOAT32, i + 1
        tensors.append(t)
    op = s.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0, 0], [1]
    if not custom:
        op.builtinOptionsType, op.builtinOptions = s.BuiltinOptions.AddOptions, s.AddOptionsT()
    sg = s.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs, sg.operators = tensors, [0], [1], [op]
    model.subgraphs = [sg]
    fu.write_model(model, str(path))
    return path


def op_codes(*kinds: int) -> list:
    """One OperatorCodeT per builtin operator in `kinds` (LiteRT's flatbuffer schema), version 1."""
    from ai_edge_litert import schema_py_generated as s

    codes = []
    for kind in kinds:
        c = s.OperatorCodeT()
        c.builtinCode, c.deprecatedBuiltinCode, c.version = kind, kind, 1
        codes.append(c)
    return codes


def fp16_weights_tflite(path: Path) -> Path:
    """y = x + DEQUANTIZE(w16): a float16 constant dequantised to float32, as the TFLite converter writes fp16
    weight quantisation (MediaPipe's models)."""
    from ai_edge_litert import schema_py_generated as s
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = s.ModelT()
    model.version = 3
    model.operatorCodes = op_codes(s.BuiltinOperator.DEQUANTIZE, s.BuiltinOperator.ADD)
    weights = s.BufferT()
    weights.data = np.frombuffer(np.arange(4, dtype=np.float16).tobytes(), dtype=np.uint8)
    model.buffers = [s.BufferT(), s.BufferT(), weights, s.BufferT(), s.BufferT()]
    tensors = []
    for i, (name, kind) in enumerate((("x", s.TensorType.FLOAT32), ("w16", s.TensorType.FLOAT16),
                                      ("w", s.TensorType.FLOAT32), ("y", s.TensorType.FLOAT32))):
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer = name, np.array([1, 4], dtype=np.int32), kind, i + 1
        tensors.append(t)
    deq, add = s.OperatorT(), s.OperatorT()
    deq.opcodeIndex, deq.inputs, deq.outputs = 0, [1], [2]
    add.opcodeIndex, add.inputs, add.outputs = 1, [0, 2], [3]
    add.builtinOptionsType, add.builtinOptions = s.BuiltinOptions.AddOptions, s.AddOptionsT()
    sg = s.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs, sg.operators = tensors, [0], [3], [deq, add]
    model.subgraphs = [sg]
    fu.write_model(model, str(path))
    return path
