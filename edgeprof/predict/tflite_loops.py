"""A .tflite file's WHILE loops: each one's body operators and how many times it runs (round 13, after held-out-12's
run).

LiteRT's Python interpreter lists the main subgraph's operators only, so a Keras GRU or LSTM that TFLite's converter
wrote as a WHILE loop was read as one operator and its body not counted at all: Mycroft Precise's VAD was predicted
at 5 % of its time (round 10), ao-compensation-model's Conv + GRU corrector at 4 % (round 13). This reads the file's
flatbuffer itself (LiteRT's own reader, ai_edge_litert.tools.flatbuffer_utils, as export/tflite_fp16.py does): the WHILE's body subgraph (its
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


class _Reader:
    """One file's subgraphs as LiteRT's object API reads them, with its operator names and tensor types."""

    def __init__(self, path: str | Path) -> None:
        from ai_edge_litert import schema_py_generated as schema
        from ai_edge_litert.tools import flatbuffer_utils as fu

        self.schema = schema
        self.model = fu.read_model(str(path))
        names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
        self.ops = [names.get(max(c.builtinCode, c.deprecatedBuiltinCode), "CUSTOM") for c in self.model.operatorCodes]
        self.types = {v: k.lower() for k, v in vars(schema.TensorType).items() if not k.startswith("_")}

    def name(self, op: Any) -> str:
        return self.ops[op.opcodeIndex]

    def tensor(self, sg: Any, i: int) -> tuple[tuple[int, ...], Any, np.ndarray | None]:
        """(shape, numpy dtype, its constant's values or None) of tensor i of subgraph sg."""
        t = sg.tensors[i]
        try:
            dtype = np.dtype(self.types.get(t.type, "float32"))
        except TypeError:  # a type numpy has no name for (a resource, a variant, a string)
            dtype = np.dtype(np.float32)
        buf = self.model.buffers[t.buffer] if 0 < t.buffer < len(self.model.buffers) else None
        data = buf.data if buf is not None and buf.data is not None and len(buf.data) else None
        const = np.frombuffer(bytes(data), dtype=dtype) if data is not None else None
        shape = tuple(int(d) for d in t.shape) if t.shape is not None else ()
        return shape, dtype, const


def _trips(r: _Reader, cond: Any) -> tuple[int | None, str]:
    """The loop's count from its condition: the smallest int32 constant a LESS compares a variable against."""
    bounds = []
    for op in cond.operators or []:
        ins = [int(i) for i in (op.inputs if op.inputs is not None else [])]
        if r.name(op) != "LESS" or len(ins) != 2 or min(ins) < 0:
            continue
        (_, _, ca), (_, _, cb) = r.tensor(cond, ins[0]), r.tensor(cond, ins[1])
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
    try:
        r = _Reader(path)
        main = r.model.subgraphs[0]
        out = []
        for index, op in enumerate(main.operators or []):
            if r.name(op) != "WHILE" or op.builtinOptionsType != r.schema.BuiltinOptions.WhileOptions:
                continue
            body_sg = r.model.subgraphs[op.builtinOptions.bodySubgraphIndex]
            trips, how = _trips(r, r.model.subgraphs[op.builtinOptions.condSubgraphIndex])

            def tensors(ids: Any, sg: Any = body_sg) -> list[tuple[tuple[int, ...], Any]]:
                return [r.tensor(sg, int(i))[:2] for i in (ids if ids is not None else []) if int(i) >= 0]

            body = [BodyOp(r.name(b), tensors(b.inputs), tensors(b.outputs)) for b in body_sg.operators or []]
            out.append(WhileLoop(index, body, trips, how))
        return out
    except (ValueError, IndexError, AttributeError, TypeError, RuntimeError, struct.error):  # not this schema's
        return []
