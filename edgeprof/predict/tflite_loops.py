"""A .tflite file's WHILE loops: each one's body operators and how many times it runs (round 13, after held-out-12's
run).

LiteRT's Python interpreter lists the main subgraph's operators only, so a Keras GRU or LSTM that TFLite's converter
wrote as a WHILE loop was read as one operator and its body not counted at all: Mycroft Precise's VAD was predicted
at 5 % of its time (round 10), ao-compensation-model's Conv + GRU corrector at 4 % (round 13). This reads the file's
flatbuffer itself (LiteRT's own schema module, ai_edge_litert.schema_py_generated): the WHILE's body subgraph (its
operators with their tensors' shapes and types) and its trip count where the condition says it — Keras writes
`i < T` as a LESS of a loop variable against an int32 constant (two of them, ANDed: the loop counter and the time
step, both against the sequence length); the smallest such constant is the count. A condition of another form
leaves the count unknown: the body is then counted once, and the note says it is a lower bound.

Owns: while_loops. Does not own: the kernels (tflite.py builds them), their costs (fit.py).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

_MAX_TRIPS = 1 << 16  # a larger bound is read as a guard: the body is counted once (65 536 steps: 4 s of 16 kHz audio)
_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_, 7: np.int16,
          9: np.int8, 10: np.float64}


@dataclass
class BodyOp:
    """One operator of a loop body: its name, its inputs' and outputs' shapes and numpy dtypes."""

    op: str
    ins: list[tuple[tuple[int, ...], Any]] = field(default_factory=list)
    outs: list[tuple[tuple[int, ...], Any]] = field(default_factory=list)


@dataclass
class WhileLoop:
    """A WHILE of the main subgraph: its operator index there, its body's operators, its trip count (None: not read
    from its condition) and the condition's words for the note."""

    index: int
    body: list[BodyOp]
    trips: int | None
    how: str


def _schema() -> Any:
    from ai_edge_litert import schema_py_generated as schema  # LiteRT's own flatbuffer schema

    return schema


def _tensor(model: Any, sg: Any, i: int) -> tuple[tuple[int, ...], Any, np.ndarray | None]:
    t = sg.Tensors(i)
    shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
    dtype = _TYPES.get(t.Type(), np.float32)
    buf = model.Buffers(t.Buffer()) if t.Buffer() < model.BuffersLength() else None
    data = buf.DataAsNumpy() if buf is not None and buf.DataLength() else None
    const: np.ndarray | None = np.frombuffer(data.tobytes(), dtype=dtype) if data is not None else None
    return shape, dtype, const


def _ops(model: Any, sg: Any, names: dict[int, str], codes: list[int]) -> list[tuple[str, Any]]:
    return [(names.get(codes[sg.Operators(i).OpcodeIndex()], "CUSTOM"), sg.Operators(i))
            for i in range(sg.OperatorsLength())]


def _trips(model: Any, cond: Any, names: dict[int, str], codes: list[int]) -> tuple[int | None, str]:
    """The loop's count from its condition: the smallest int32 constant a LESS compares a variable against."""
    bounds = []
    for name, op in _ops(model, cond, names, codes):
        if name != "LESS" or op.InputsLength() != 2:
            continue
        a, b = (int(x) for x in op.InputsAsNumpy())
        if a < 0 or b < 0:
            continue
        (_, _, ca), (_, _, cb) = _tensor(model, cond, a), _tensor(model, cond, b)
        if ca is None and cb is not None and cb.size == 1 and np.issubdtype(cb.dtype, np.integer):
            bounds.append(int(cb[0]))
    if not bounds:
        return None, "its condition compares no loop variable against a constant"
    if min(bounds) > _MAX_TRIPS:  # tf.while_loop's default maximum_iterations (2^31 - 1) is a guard, not a count
        return None, f"its condition's bound, {min(bounds)}, is a guard rather than a count"
    return max(min(bounds), 0), f"its condition: LESS against {min(bounds)}"


def while_loops(path: str | Path) -> list[WhileLoop]:
    """Every WHILE of the main subgraph of the .tflite file at `path`, with its body and trip count; [] for a file
    without one, or one whose flatbuffer this schema cannot read."""
    schema = _schema()
    try:
        model = schema.Model.GetRootAs(Path(path).read_bytes(), 0)
        names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
        codes = [max(model.OperatorCodes(i).BuiltinCode(), model.OperatorCodes(i).DeprecatedBuiltinCode())
                 for i in range(model.OperatorCodesLength())]
        main = model.Subgraphs(0)
        out = []
        for index, (name, op) in enumerate(_ops(model, main, names, codes)):
            if name != "WHILE" or op.BuiltinOptionsType() != schema.BuiltinOptions.WhileOptions:
                continue
            opts = schema.WhileOptions()
            table = op.BuiltinOptions()
            opts.Init(table.Bytes, table.Pos)
            body_sg = model.Subgraphs(opts.BodySubgraphIndex())
            trips, how = _trips(model, model.Subgraphs(opts.CondSubgraphIndex()), names, codes)
            body = []
            for bname, bop in _ops(model, body_sg, names, codes):
                ins = [_tensor(model, body_sg, int(i))[:2] for i in (bop.InputsAsNumpy() if bop.InputsLength() else [])
                       if int(i) >= 0]
                outs = [_tensor(model, body_sg, int(i))[:2] for i in (bop.OutputsAsNumpy() if bop.OutputsLength()
                                                                       else []) if int(i) >= 0]
                body.append(BodyOp(bname, ins, outs))
            out.append(WhileLoop(index, body, trips, how))
        return out
    except (ValueError, IndexError, AttributeError, TypeError, struct.error):  # not a flatbuffer of this schema
        return []
