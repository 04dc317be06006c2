"""Conversions of a user's file work or refuse before the push (issue 11 part 5): fp16 of a YOLO-style graph
(Shape → Cast → float arithmetic, the Cast type mismatch), the host load check that blames the conversion, int8 of
opset 11 files (upgraded to 13), no temp files outside a removed temp dir, already-quantised files run as given,
TFLite int8 of a file without a signature, .tflite defaulting to the tflite runtime."""

import json
import os
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from edgeprof.errors import ModelError
from edgeprof.export import quantize
from edgeprof.export.inputs import make_inputs
from edgeprof.export.onnx_export import prepare_onnx
from edgeprof.export.quantize import as_given, onnx_given_precision, quantize_onnx
from edgeprof.export.resolve import default_runtime, resolve_model
from edgeprof.records import RunSpec
from edgeprof.run import prepare

pytest.importorskip("onnxconverter_common")


def _init(name, arr, dtype=TensorProto.FLOAT):
    return helper.make_tensor(name, dtype, arr.shape, arr.ravel().tolist())


def yolo_style(path: Path, opset: int = 13) -> Path:
    """Conv, then the grid arithmetic YOLO exports carry: Shape → Gather → Cast(to=float) → Div with the
    (now float16) feature map, then a Resize with float scales. Without a fix the converter leaves the Cast
    producing float32 while typing its output float16: onnxruntime refuses the file."""
    rs = np.random.RandomState(0)
    w = rs.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Shape", ["c"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "idx"], ["h"], axis=0, name="gather"),
             helper.make_node("Cast", ["h"], ["hf"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Div", ["c", "hf"], ["d"], name="div"),
             helper.make_node("Resize", ["d", "", "scales"], ["y"], mode="nearest", name="resize")]
    graph = helper.make_graph(
        nodes, "yolo_like", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 16, 16])],
        [_init("w", w), helper.make_tensor("idx", TensorProto.INT64, [], [2]),
         _init("scales", np.array([1, 1, 2, 2], np.float32))])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return path


def conv_net(path: Path, opset: int) -> Path:
    rs = np.random.RandomState(1)
    w = rs.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
    w2 = rs.standard_normal((8, 5)).astype(np.float32) * 0.3
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("MatMul", ["f", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])],
                              [_init("w", w), _init("w2", w2)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 6
    onnx.save(m, str(path))
    return path


def user(path: Path):
    return prepare_onnx(resolve_model(str(path)), cache_dir=path.parent / "unused")


def run(path, feed):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feed)[0]


SHAPES = {"x": (1, 3, 8, 8)}


def test_plain_converter_breaks_the_yolo_style_cast(tmp_path):
    """The reproduction: onnxconverter-common alone writes a file onnxruntime refuses (Cast type mismatch)."""
    from onnxconverter_common import float16

    src = yolo_style(tmp_path / "yolo.onnx")
    converted = float16.convert_float_to_float16(onnx.load(str(src)), keep_io_types=True)
    onnx.save(converted, str(tmp_path / "plain16.onnx"))
    with pytest.raises(Exception, match="does not match expected type"):
        ort.InferenceSession(str(tmp_path / "plain16.onnx"), providers=["CPUExecutionProvider"])


def test_fp16_of_yolo_style_file_loads_and_matches(tmp_path):
    src = yolo_style(tmp_path / "yolo.onnx")
    fp32 = user(src)
    a = quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes=SHAPES)
    assert a.precision == "fp16" and a.export_options.casts_retargeted_to_fp16 == ["cast"]
    m = onnx.load(a.path)
    assert m.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT  # IO types kept
    feed = make_inputs(fp32.inputs, SHAPES, 0)
    np.testing.assert_allclose(run(a.path, feed), run(src, feed), rtol=1e-2, atol=1e-2)


def test_fp16_refusal_blames_the_conversion_not_the_file(tmp_path, monkeypatch):
    """Without the Cast fix no block list saves this graph: the refusal is one line that names the converter,
    says the user's file is fine, suggests only precisions that apply, and leaves no half entry."""
    monkeypatch.setattr(quantize, "_retarget_float_casts", lambda model: [])
    fp32 = user(yolo_style(tmp_path / "yolo.onnx"))
    with pytest.raises(ModelError) as e:
        quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes=SHAPES)
    assert "fp16 conversion produced a file onnxruntime cannot load" in str(e.value)
    assert "\n" not in str(e.value) and "Load model from" not in str(e.value)
    assert "your file is fine" in e.value.hint and "--precision fp32 or int8" in e.value.hint
    assert not [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]  # no entry, no temp dir left


def test_fp16_of_a_file_onnx_checker_refuses_and_onnxruntime_loads_is_judged_by_onnxruntime(tmp_path):
    """Round 16: deploy runs a file that onnx.checker calls unsorted (an If branch reading a value listed after it)
    as given when onnxruntime loads it; its fp16 conversion keeps that order, so the checker refuses the converted
    file too, and it is onnxruntime that says whether it loads (it does); both int8 and fp16 then run it."""
    from test_export import _late_outer_value_model

    fp32 = user(_late_outer_value_model(tmp_path / "late.onnx"))
    assert "topologically sorted" in fp32.export_check["onnx_checker"]
    a = quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes={"x": (1, 4)})
    assert a.precision == "fp16"
    with pytest.raises(onnx.checker.ValidationError, match="topologically sorted"):
        onnx.checker.check_model(a.path)
    feed = {"x": -np.ones((1, 4), np.float32)}
    np.testing.assert_allclose(run(a.path, feed), run(tmp_path / "late.onnx", feed))


def test_int8_upgrades_opset_11_to_13(tmp_path):
    src = conv_net(tmp_path / "old.onnx", opset=11)
    fp32 = user(src)
    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=SHAPES)
    assert a.export_options.opset_upgraded == "11 → 13"
    m = onnx.load(a.path)
    assert quantize.default_opset(m) >= 13
    assert {"QuantizeLinear", "DequantizeLinear"} <= {n.op_type for n in m.graph.node}
    feed = make_inputs(fp32.inputs, SHAPES, 0)
    got, ref = run(a.path, feed), run(src, feed)
    assert float(np.dot(got.ravel(), ref.ravel()) / np.linalg.norm(got) / np.linalg.norm(ref)) > 0.98
    b = quantize_onnx(user(conv_net(tmp_path / "new.onnx", opset=13)), "int8", cache_dir=tmp_path / "cache",
                      shapes=SHAPES)
    assert b.export_options.opset_upgraded is None


def test_int8_refuses_in_one_line_when_the_opset_cannot_be_upgraded(tmp_path, monkeypatch):
    from onnx import version_converter

    def boom(model, target):
        raise RuntimeError("No Adapter For Upsample\nlong C++ trace")

    monkeypatch.setattr(version_converter, "convert_version", boom)
    fp32 = user(conv_net(tmp_path / "old.onnx", opset=11))
    with pytest.raises(ModelError) as e:
        quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=SHAPES)
    msg = str(e.value)
    assert msg.startswith("int8 needs ONNX opset 13 or newer; old.onnx is opset 11") and "\n" not in msg
    assert "No Adapter For Upsample" in msg and "opset 13+" in e.value.hint


def test_conversions_leave_cwd_and_model_dir_unchanged(tmp_path, monkeypatch):
    model_dir, cwd = tmp_path / "models", tmp_path / "cwd"
    model_dir.mkdir()
    cwd.mkdir()
    src = conv_net(model_dir / "net.onnx", opset=11)
    monkeypatch.chdir(cwd)
    before_models = sorted(os.listdir(model_dir))
    fp32 = user(src)
    for precision in ("fp16", "int8"):
        quantize_onnx(fp32, precision, cache_dir=tmp_path / "cache", shapes=SHAPES)
    assert sorted(os.listdir(model_dir)) == before_models == ["net.onnx"]
    assert os.listdir(cwd) == []
    assert not list((tmp_path / "cache").glob(".tmp-*"))


def test_already_quantised_onnx_runs_as_given(tmp_path):
    fp32 = user(conv_net(tmp_path / "net.onnx", opset=13))
    q = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=SHAPES)
    given = tmp_path / "given_int8.onnx"
    given.write_bytes(Path(q.path).read_bytes())
    assert onnx_given_precision(given)[0] == "int8"
    assert onnx_given_precision(fp32.path) is None
    p = prepare(RunSpec(device="local", model=str(given)), cache_dir=tmp_path / "cache")
    assert p.artifact.path == str(given) and p.artifact.sha256 == q.sha256  # not re-quantised
    assert as_given(p.artifact) == "int8 (as given)"
    assert prepare(RunSpec(device="local", model=str(given), precision="int8"),
                   cache_dir=tmp_path / "cache").artifact.path == str(given)
    with pytest.raises(ModelError,
                       match=r"is already int8 \(QDQ \(int8 weights and activations\): DequantizeLinear, QuantizeLinear\)"):
        prepare(RunSpec(device="local", model=str(given), precision="fp16"), cache_dir=tmp_path / "cache")
    half = quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes=SHAPES)
    assert onnx_given_precision(half.path) == ("fp16", "float16 weights (2 of 2 float initializers)")


def test_tflite_defaults_to_the_tflite_runtime():
    assert default_runtime("models/kws.tflite") == "tflite"
    assert default_runtime("a/B.TFLITE") == "tflite"
    assert default_runtime("net.onnx") == "onnxruntime"
    assert default_runtime("mobilenet_v2") == "onnxruntime"


@pytest.mark.slow
def test_tflite_int8_of_a_file_without_signature(tmp_path, monkeypatch):
    pytest.importorskip("ai_edge_quantizer")
    pytest.importorskip("litert_torch")
    from ai_edge_litert.tools import flatbuffer_utils as fu
    from tflite_fixtures import export_two_inputs

    from edgeprof.export.tflite_export import interpreter_class, prepare_tflite, read_tflite

    model = fu.read_model(str(export_two_inputs(tmp_path, dynamic=False)))
    model.signatureDefs = []
    bare = tmp_path / "bare.tflite"
    fu.write_model(model, str(bare))
    assert not interpreter_class()(model_path=str(bare)).get_signature_list()
    # a .tflite deployed without --runtime runs on the tflite runtime (it was refused by onnxruntime)
    from edgeprof.cli.main import main

    out = tmp_path / "r.json"
    assert main(["deploy", "--device", "local", "--model", str(bare), "--min-duration", "0.2", "--min-queries", "3",
                 "--warmup", "0", "--db", str(tmp_path / "r.sqlite"), "--json", str(out), "--quiet"]) == 0
    r = json.loads(out.read_text())
    assert (r["status"], r["runtime"], r["precision"]) == ("ok", "tflite", "fp32")
    src = resolve_model(str(bare))
    fp32 = prepare_tflite(src, cache_dir=tmp_path / "cache")
    assert fp32.precision == "fp32" and not as_given(fp32)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    before = sorted(os.listdir(tmp_path))
    q = prepare_tflite(src, cache_dir=tmp_path / "cache", precision="int8")
    assert os.listdir(cwd) == [] and sorted(os.listdir(tmp_path)) == before  # no temp files left beside it
    assert q.precision == "int8" and q.export_options.signature_added == "serving_default"
    assert {s.name for s in q.inputs} == {s.name for s in fp32.inputs}
    _, _, facts = read_tflite(Path(q.path))
    assert facts["quantized_tensors"] > 0
    # the int8 file given back as the user's own: labelled as given, not quantised again
    mine = tmp_path / "mine_int8.tflite"
    mine.write_bytes(Path(q.path).read_bytes())
    given = prepare_tflite(resolve_model(str(mine)), cache_dir=tmp_path / "cache", precision="int8")
    assert given.path == str(mine) and as_given(given) == "int8 (as given)"
    with pytest.raises(ModelError) as e:  # only hints that apply: a .tflite file cannot go to onnxruntime
        prepare_tflite(resolve_model(str(mine)), cache_dir=tmp_path / "cache", precision="fp16")
    assert "already int8" in str(e.value) and "onnxruntime" not in e.value.hint
