"""fp16 TFLite with the real ai-edge-quantizer and LiteRT on small files written with LiteRT's flatbuffer schema
(no torch export): the weights come out float16 bit for bit, biases and I/O stay float32, the census counts what
was cast, outputs stay close to the float32 file's, the cache, "as given", and the one-line refusals."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_quantizer")
pytest.importorskip("ai_edge_litert")

from edgeprof.errors import ModelError  # noqa: E402
from edgeprof.export.quantize import as_given  # noqa: E402
from edgeprof.export.resolve import resolve_model  # noqa: E402
from edgeprof.export.tflite_export import prepare_tflite, read_tflite  # noqa: E402
from edgeprof.export.tflite_fp16 import weight_census  # noqa: E402

RNG = np.random.RandomState(3)
W = (RNG.standard_normal((6, 5)) * 0.7).astype(np.float32)  # FULLY_CONNECTED weights: [out, in]
B = RNG.standard_normal(6).astype(np.float32)
C = RNG.standard_normal(6).astype(np.float32)  # an ADD constant: ADD is not an op float casting handles


def fc_tflite(path: Path) -> Path:
    """y = FULLY_CONNECTED(x, W, b) + c on float32 x[1, 5], with a serving_default signature."""
    from ai_edge_litert import schema_py_generated as s
    from ai_edge_litert.tools import flatbuffer_utils as fu
    from tflite_fixtures import op_codes

    model = s.ModelT()
    model.version = 3
    model.operatorCodes = op_codes(s.BuiltinOperator.FULLY_CONNECTED, s.BuiltinOperator.ADD)
    model.buffers = [s.BufferT()]
    tensors = []
    for name, shape, data in (("x", [1, 5], None), ("w", [6, 5], W), ("b", [6], B), ("h", [1, 6], None),
                              ("c", [6], C), ("y", [1, 6], None)):
        buf = s.BufferT()
        if data is not None:
            buf.data = np.frombuffer(data.tobytes(), dtype=np.uint8)
        model.buffers.append(buf)
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer = name, np.array(shape, dtype=np.int32), s.TensorType.FLOAT32, \
            len(model.buffers) - 1
        tensors.append(t)
    fc, add = s.OperatorT(), s.OperatorT()
    fc.opcodeIndex, fc.inputs, fc.outputs = 0, [0, 1, 2], [3]
    fc.builtinOptionsType, fc.builtinOptions = s.BuiltinOptions.FullyConnectedOptions, s.FullyConnectedOptionsT()
    add.opcodeIndex, add.inputs, add.outputs = 1, [3, 4], [5]
    add.builtinOptionsType, add.builtinOptions = s.BuiltinOptions.AddOptions, s.AddOptionsT()
    sg = s.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs, sg.operators = tensors, [0], [5], [fc, add]
    model.subgraphs = [sg]
    sig = s.SignatureDefT()
    sig.signatureKey, sig.subgraphIndex = "serving_default", 0
    sig.inputs, sig.outputs = [s.TensorMapT(), ], [s.TensorMapT()]
    sig.inputs[0].name, sig.inputs[0].tensorIndex = "x", 0
    sig.outputs[0].name, sig.outputs[0].tensorIndex = "y", 5
    model.signatureDefs = [sig]
    fu.write_model(model, str(path))
    return path


def run(path: str, x: np.ndarray) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter

    interp = Interpreter(model_path=path)
    interp.allocate_tensors()
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    return interp.get_tensor(interp.get_output_details()[0]["index"]).copy()


def constants(path: str) -> dict[str, tuple[int, np.ndarray]]:
    """name → (TensorType, raw buffer bytes as uint8) of each buffer-backed tensor."""
    from ai_edge_litert.tools import flatbuffer_utils as fu

    model = fu.read_model(path)
    sg = model.subgraphs[0]
    out = {}
    for t in sg.tensors:
        data = model.buffers[t.buffer].data if t.buffer else None
        if data is not None and len(data):
            out[t.name.decode() if isinstance(t.name, bytes) else t.name] = (t.type, np.asarray(data, np.uint8))
    return out


def test_a_float_file_gets_float16_weights_dequantized_and_float32_elsewhere(tmp_path: Path) -> None:
    from ai_edge_litert import schema_py_generated as s

    src = fc_tflite(tmp_path / "fc.tflite")
    cache = tmp_path / "cache"
    q = prepare_tflite(resolve_model(str(src)), cache_dir=cache, precision="fp16")
    assert q.precision == "fp16" and q.path != str(src) and not as_given(q)
    assert q.export_options.fp32_sha256 and q.export_options.precision == "fp16"
    assert q.export_options.weights.startswith("float16 (1 weight tensors, DEQUANTIZE to float32")
    assert "ops not cast: ADD 1" in q.export_options.weights
    census = weight_census(Path(q.path))
    assert (census.fp16_tensors, census.fp32_tensors) == (1, 2)  # W cast; the bias and the ADD constant kept
    assert census.ops_cast == {"FULLY_CONNECTED": 1} and census.ops_left == {"ADD": 1}
    assert census.fp16_bytes == W.size * 2 and census.fp32_bytes == (B.size + C.size) * 4
    consts = constants(q.path)
    (w16,) = [v for v in consts.values() if v[0] == s.TensorType.FLOAT16]
    assert np.array_equal(w16[1].view(np.float16).reshape(W.shape), W.astype(np.float16))  # round to nearest
    f32 = {k: v[1].view(np.float32) for k, v in consts.items() if v[0] == s.TensorType.FLOAT32}
    assert sorted(map(tuple, f32.values())) == sorted([tuple(B), tuple(C)])
    specs, outputs, facts = read_tflite(Path(q.path))
    assert [(x.name, x.dtype) for x in specs] == [("x", "float32")] and outputs == ("y",)
    assert facts["op_counts"]["DEQUANTIZE"] == 1 and facts["float16_weights"] == 1
    x = RNG.standard_normal((1, 5)).astype(np.float32)
    want, got = run(str(src), x), run(q.path, x)
    exact = x.astype(np.float64) @ W.astype(np.float16).astype(np.float64).T + B + C  # what fp16 weights compute
    assert got.dtype == np.float32 and not np.array_equal(got, want)  # the weights really changed
    assert np.allclose(got, exact, atol=1e-5)
    # float16's 11-bit significand: each weight within 2^-11 relative, so the output within |x|·|W|·2^-11
    assert np.max(np.abs(got - want)) <= float(np.max(np.abs(x) @ np.abs(W).T)) * 2.0 ** -11 + 1e-6
    again = prepare_tflite(resolve_model(str(src)), cache_dir=cache, precision="fp16")
    assert again.cache_hit and again.sha256 == q.sha256


def test_the_fp16_file_given_back_runs_as_given_and_is_not_quantised_again(tmp_path: Path) -> None:
    q = prepare_tflite(resolve_model(str(fc_tflite(tmp_path / "fc.tflite"))), cache_dir=tmp_path / "c",
                       precision="fp16")
    mine = tmp_path / "mine16.tflite"
    mine.write_bytes(Path(q.path).read_bytes())
    for precision in ("fp16", "fp32"):
        given = prepare_tflite(resolve_model(str(mine)), cache_dir=tmp_path / "c", precision=precision)
        assert given.path == str(mine) and given.precision == "fp16" and as_given(given) == "fp16 (as given)"
    with pytest.raises(ModelError, match="mine16 is already fp16 .float16 .1 tensors.*runs it as given"):
        prepare_tflite(resolve_model(str(mine)), cache_dir=tmp_path / "c", precision="int8")


def test_nothing_to_cast_and_int8_files_are_one_line_refusals(tmp_path: Path) -> None:
    from tflite_fixtures import one_op_tflite

    add = one_op_tflite(tmp_path / "add.tflite")
    with pytest.raises(ModelError) as e:
        prepare_tflite(resolve_model(str(add)), cache_dir=tmp_path / "c", precision="fp16")
    assert "has no weights the fp16 conversion can cast" in str(e.value) and "--precision fp32" in e.value.hint
    assert "\n" not in str(e.value)
    assert not [p for p in (tmp_path / "c").rglob("*.tflite")]  # no half-made entry left in the cache
    q8 = prepare_tflite(resolve_model(str(fc_tflite(tmp_path / "fc.tflite"))), cache_dir=tmp_path / "c",
                        precision="int8")
    mine = tmp_path / "mine8.tflite"
    mine.write_bytes(Path(q8.path).read_bytes())
    with pytest.raises(ModelError, match="mine8 is already int8; edgeprof runs it as given"):
        prepare_tflite(resolve_model(str(mine)), cache_dir=tmp_path / "c", precision="fp16")
