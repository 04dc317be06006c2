"""A .tflite WHILE loop's body is counted as many times as its condition says (tflite_loops.py, round 13): a Keras GRU
that TFLite's converter writes as a WHILE had been read as one operator, its body not counted (Precise's VAD at 5 %
of its time, ao-compensation-model's corrector at 4 %). The file here is built with LiteRT's own flatbuffer schema
the way the converter lays a Keras loop out (a counter and a state as loop variables, the condition a LESS against
an int32 constant), and the real LiteRT interpreter runs it before it is read."""

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")

from ai_edge_litert import schema_py_generated as S  # noqa: E402
from ai_edge_litert.interpreter import Interpreter  # noqa: E402

from edgeprof.predict.tflite import tflite_kernels  # noqa: E402
from edgeprof.predict.tflite_loops import while_loops  # noqa: E402


def _tensor(shape, ttype, buffer, name):
    t = S.TensorT()
    t.shape, t.type, t.buffer, t.name = list(shape), ttype, buffer, name
    return t


def _op(code, ins, outs, options_type=0, options=None):
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = code, list(ins), list(outs)
    if options is not None:
        o.builtinOptionsType, o.builtinOptions = options_type, options
    return o


def _loop_file(path, trips=None, steps=7):
    """main: (counter, x) → WHILE(counter < `trips`) { counter + 1, x + x } → x. `trips` None: the condition
    compares the counter with the state's first element instead (no constant)."""
    codes = []
    for b in (S.BuiltinOperator.WHILE, S.BuiltinOperator.LESS, S.BuiltinOperator.ADD):
        c = S.OperatorCodeT()
        c.builtinCode, c.deprecatedBuiltinCode, c.version = b, min(b, 127), 1
        codes.append(c)
    buffers = [S.BufferT(), S.BufferT()]  # 0: the empty buffer, 1: the bound, 2: the step
    buffers[1].data = list(np.array([trips or 0], np.int32).tobytes())
    step = S.BufferT()
    step.data = list(np.array([1], np.int32).tobytes())
    buffers.append(step)
    f32, i32, boolean = S.TensorType.FLOAT32, S.TensorType.INT32, S.TensorType.BOOL

    main = S.SubGraphT()
    main.name = "main"
    main.tensors = [_tensor([], i32, 0, "i"), _tensor([1, 32], f32, 0, "x"), _tensor([], i32, 0, "i_out"),
                    _tensor([1, 32], f32, 0, "y")]
    main.inputs, main.outputs = [0, 1], [3]
    w = S.WhileOptionsT()
    w.condSubgraphIndex, w.bodySubgraphIndex = 1, 2
    main.operators = [_op(0, [0, 1], [2, 3], S.BuiltinOptions.WhileOptions, w)]

    cond = S.SubGraphT()
    cond.name = "while_cond"
    cond.tensors = [_tensor([], i32, 0, "i"), _tensor([1, 32], f32, 0, "x"), _tensor([], boolean, 0, "go")]
    if trips is not None:
        cond.tensors.append(_tensor([], i32, 1, "bound"))
        cond.operators = [_op(1, [0, 3], [2])]
    else:  # a bound that is a loop variable, not a constant: the count is not read
        cond.tensors.append(_tensor([], i32, 0, "bound"))
        cond.operators = [_op(1, [0, 0], [2])]
    cond.inputs, cond.outputs = [0, 1], [2]

    body = S.SubGraphT()
    body.name = "while_body"
    body.tensors = [_tensor([], i32, 0, "i"), _tensor([1, 32], f32, 0, "x"), _tensor([], i32, 2, "one"),
                    _tensor([], i32, 0, "i1"), _tensor([1, 32], f32, 0, "x1")]
    body.operators = [_op(2, [0, 2], [3]), _op(2, [1, 1], [4])]
    body.inputs, body.outputs = [0, 1], [3, 4]

    m = S.ModelT()
    m.version, m.description = 3, "a WHILE loop as TFLite's converter writes a Keras RNN's"
    m.operatorCodes, m.subgraphs, m.buffers = codes, [main, cond, body], buffers
    import flatbuffers

    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    path.write_bytes(bytes(b.Output()))
    return path


def test_a_while_loops_body_is_counted_as_many_times_as_its_condition_runs_it(tmp_path):
    path = _loop_file(tmp_path / "loop.tflite", trips=5)
    it = Interpreter(model_path=str(path))  # the real interpreter runs the file: x doubles five times
    it.allocate_tensors()
    ins = {d["name"]: d["index"] for d in it.get_input_details()}
    it.set_tensor(ins["i"], np.array(0, np.int32))
    it.set_tensor(ins["x"], np.ones((1, 32), np.float32))
    it.invoke()
    assert np.allclose(it.get_tensor(it.get_output_details()[0]["index"]), 2.0 ** 5)
    (loop,) = while_loops(path)
    assert loop.index == 0 and loop.trips == 5 and [b.op for b in loop.body] == ["ADD", "ADD"]
    assert [sh for sh, _ in loop.body[1].ins] == [(1, 32), (1, 32)]
    ks = tflite_kernels(path)
    assert [k.op for k in ks] == ["WHILE"] + ["ADD"] * 10
    assert "counted 5 times" in ks[0].note and "LESS against 5" in ks[0].note
    assert all(k.key == "ADD@builtin" for k in ks[1:])
    assert {k.flops for k in ks[1:]} == {1.0, 32.0}  # the counter's add and the state's


def test_a_loop_whose_count_is_not_a_constant_is_counted_once_and_said_to_be_a_lower_bound(tmp_path):
    path = _loop_file(tmp_path / "open.tflite", trips=None)
    (loop,) = while_loops(path)
    assert loop.trips is None and "no loop variable against a constant" in loop.how
    ks = tflite_kernels(path)
    assert [k.op for k in ks] == ["WHILE", "ADD", "ADD"] and "a lower bound" in ks[0].note


def test_a_file_without_a_loop_has_none_and_a_damaged_one_reads_as_none(tmp_path):
    assert while_loops(_loop_file(tmp_path / "l.tflite", trips=3)) != []
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"TFL3" + bytes(64))
    assert while_loops(bad) == []


def test_a_bound_too_large_to_be_a_count_is_read_as_a_guard(tmp_path):
    """tf.while_loop's default maximum_iterations is 2^31 - 1: counted as a trip count it would repeat the body two
    billion times in the kernel list."""
    (loop,) = while_loops(_loop_file(tmp_path / "guard.tflite", trips=2**31 - 1))
    assert loop.trips is None and "a guard rather than a count" in loop.how
    assert [k.op for k in tflite_kernels(tmp_path / "guard.tflite")] == ["WHILE", "ADD", "ADD"]
