"""The models users bring, round 3 (issue 20), through the CLI on `--device local`: a library crash in the host's
load check of a conversion is a one-line refusal, never a dead CLI, and --graph-opt reaches that check."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.cli.main import main
from edgeprof.hostrun import loadcheck
from edgeprof.store import Store

FAST = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0.1", "--quiet"]


def run(args, capsys):
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def save(graph, path, opset=17, **kw):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path), **kw)
    return str(path)


def matmul_model(path, dims=("batch", 8), **kw):
    w = numpy_helper.from_array(np.random.RandomState(0).rand(8, 8).astype("float32"), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))], initializer=[w])
    return save(g, path, **kw)


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "r.sqlite")


@pytest.fixture
def crashing(tmp_path, monkeypatch):
    """A module `crashing_checks` whose null_read(arg, level) is a real SIGSEGV (a NULL read in native code)."""
    (tmp_path / "crashing_checks.py").write_text(textwrap.dedent("""
        import ctypes
        def null_read(arg, level):
            ctypes.string_at(0)
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "crashing_checks:null_read"


def test_a_segfault_in_the_fp16_load_check_is_one_line_and_the_cli_lives(tmp_path, db, capsys, monkeypatch,
                                                                         crashing):
    monkeypatch.setitem(loadcheck.CHECKS, "onnxruntime", ("onnxruntime", crashing))
    model = matmul_model(tmp_path / "mm.onnx")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "fp16", "--graph-opt",
                        "extended", "--db", db, *FAST], capsys)
    assert code == 2
    first = err.strip().splitlines()[0]
    assert first.startswith("edgeprof: error: the fp16 conversion of mm: onnxruntime ")
    assert "crashed with SIGSEGV" in first and "graph optimisation level extended" in first
    assert "--graph-opt basic" in first and Store(db).count() == 0


def test_a_segfault_reading_the_users_tflite_is_one_line_and_the_cli_lives(tmp_path, db, capsys, monkeypatch,
                                                                           crashing):
    pytest.importorskip("ai_edge_litert")
    from tflite_fixtures import one_op_tflite

    model = one_op_tflite(tmp_path / "plain.tflite")
    monkeypatch.setitem(loadcheck.CALLS, "tflite_facts", crashing)
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, *FAST], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"edgeprof: error: reading {model}: LiteRT ") and "crashed with SIGSEGV" in lines[0]
    assert "graph optimisation level all" in lines[0] and "Traceback" not in err and Store(db).count() == 0
    monkeypatch.setitem(loadcheck.CALLS, "tflite_facts", "edgeprof.hostrun.reference:tflite_facts")
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, *FAST], capsys)
    assert code == 0, err  # the same file, read for real in the child, runs


def test_a_segfault_in_the_host_reference_is_one_line_naming_it(tmp_path, db, capsys, monkeypatch, crashing):
    model = matmul_model(tmp_path / "mm.onnx")
    monkeypatch.setitem(loadcheck.CALLS, "outputs", crashing)
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "fp16", "--db", db, *FAST],
                       capsys)
    assert code == 2
    first = err.strip().splitlines()[0]
    assert first.startswith("edgeprof: error: the fidelity reference (fp32 onnx file mm.onnx on the host (CPU)): "
                            "onnxruntime ") and "crashed with SIGSEGV" in first, first
    assert "--precision fp32 needs no reference" in first and "Traceback" not in err
    monkeypatch.setitem(loadcheck.CALLS, "outputs", "edgeprof.hostrun.reference:outputs_here")
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "fp16", "--db", db,
                        "--json", str(out), *FAST], capsys)
    assert code == 0, err
    fid = json.loads(out.read_text())["fidelity"]
    assert fid["reference"].startswith("fp32 onnx file mm.onnx") and fid["cosine_similarity"] > 0.99


def test_fp16_runs_with_its_check_at_the_graph_opt_asked(tmp_path, db, capsys):
    model = matmul_model(tmp_path / "mm.onnx")
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "fp16", "--graph-opt",
                        "basic", "--db", db, "--json", str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["artifact"]["precision"] == "fp16"


# ----------------------------------------------------------------------------- ops the runtime lacks (item 6)


@pytest.mark.parametrize(("custom", "names"), [
    ("FlexAddV2", ["Select TensorFlow (Flex) op(s) FlexAddV2 (TensorFlow op AddV2)", "Flex delegate"]),
    ("MyCustomOp", ["custom op MyCustomOp", "--delegate"]),
])
def test_a_tflite_op_the_interpreter_lacks_is_named_not_blamed_on_the_inputs(tmp_path, db, capsys, custom, names):
    pytest.importorskip("ai_edge_litert")
    from tflite_fixtures import one_op_tflite

    plain = one_op_tflite(tmp_path / "plain.tflite")
    code, _, err = run(["deploy", "--device", "local", "--model", str(plain), "--db", db, *FAST], capsys)
    assert code == 0, err  # the same graph with the builtin ADD runs: the refusal below is the op's
    model = one_op_tflite(tmp_path / f"{custom}.tflite", custom=custom)
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, *FAST], capsys)
    assert code != 0
    first = err.strip().splitlines()[0]
    assert "this LiteRT interpreter (ai_edge_litert " in first
    for name in names:
        assert name in first
    assert "rejected these inputs" not in err and "--input-value" not in err and "input shapes" not in first
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--precision", "int8", "--db", db,
                        *FAST], capsys)  # the quantiser runs the graph to calibrate: the same op is named
    first = err.strip().splitlines()[0]
    assert code != 0 and "int8 quantisation of " in first and names[0] in first and "(ai-edge-litert " in first
    assert "your file is fine" not in first and Store(db).count() == 1


def onnx_one_op(path, op, dtype, domain=""):
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"], domain=domain, name="the_node")], "g",
                          [helper.make_tensor_value_info("x", dtype, ["batch", 4])],
                          [helper.make_tensor_value_info("y", dtype, ["batch", 4])])
    imports = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    m = helper.make_model(g, opset_imports=imports)
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def test_an_onnx_op_without_a_kernel_and_a_custom_domain_op_are_named(tmp_path, db, capsys):
    import onnxruntime

    ver = onnxruntime.__version__
    model = onnx_one_op(tmp_path / "tan64.onnx", "Tan", TensorProto.DOUBLE)  # Tan has no double kernel on CPU
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code != 0 and f"onnxruntime {ver} has no kernel for op Tan (opset 7) (node 'the_node')" in first
    assert "NOT_IMPLEMENTED" in first and "rejected these inputs" not in err
    model = onnx_one_op(tmp_path / "custom.onnx", "MyOp", TensorProto.FLOAT, domain="com.example")
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code != 0 and f"op MyOp of domain com.example, which onnxruntime {ver} does not know" in first
    assert "register_custom_ops_library" in first and Store(db).count() == 0


# ------------------------------------------------------------------------------- static batch (item 4)


def static_batch_model(path, batch=10):
    """conv-free detector stand-in: x[10, 3, 8, 8] → ReduceMean over C,H,W → y[10, 1, 1, 1]."""
    g = helper.make_graph([helper.make_node("ReduceMean", ["x"], ["y"], axes=[1, 2, 3], keepdims=1)], "static10",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 1, 1, 1])])
    return save(g, path)


def test_a_static_batch_of_10_is_the_batch_labelled_and_counted(tmp_path, db, capsys):
    model = static_batch_model(tmp_path / "faces10.onnx")
    out = tmp_path / "r.json"
    code, text, err = run(["deploy", "--device", "local", "--model", model, "--db", db, "--json", str(out),
                           *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["batch"] == 10 and r["io"]["batch"] == 10 and r["io"]["batched"] == ["x"]
    # 10 inferences per query: inferences/s is 10 x the queries timed over the window
    queries, window = r["latency_ms"]["n"], r["settings"]["window_s"]
    assert r["throughput_ips"] == pytest.approx(10 * queries / window, rel=0.02)
    assert r["compute"]["flops_per_inference"] == 3 * 8 * 8  # the graph's FLOPs / 10 (one ReduceMean add each)
    assert "inputs and outputs (batch 10: dim 0 of x)" in text and "batch 10" in text.splitlines()[1]
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "4", "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code != 0 and "--batch 4: the model is static (input 'x' [10, 3, 8, 8] has dimension 0 fixed at 10)" \
        in first and "leave out --batch (the run feeds and counts its static batch 10)" in first
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "10", "--db", db, *FAST], capsys)
    assert code == 0, err
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "1", "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]  # given explicitly, 1 is a batch like any other: refused, nothing stored
    assert code == 2 and "--batch 1: the model is static (input 'x' [10, 3, 8, 8] has dimension 0 fixed at 10)" \
        in first and "leave out --batch" in first and Store(db).count() == 2


# --------------------------------------------------------------- the exporters' dim-0 names (item 5)


def named_dim0_model(path, dim0, dims=(3, 8, 8)):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "named",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dim0, *dims])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [dim0, *dims])])
    return save(g, path)


@pytest.mark.parametrize("dim0", ["DynamicDimension.0", "unk__123", "s6", "batch_size", "N", "None"])
def test_exporters_dim0_names_follow_batch_without_input_flags(tmp_path, db, capsys, dim0):
    model = named_dim0_model(tmp_path / "m.onnx", dim0)
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "3", "--db", db, "--json",
                        str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["batch"] == 3 and r["io"]["inputs"][0]["shape"] == [3, 3, 8, 8] and r["io"]["batched"] == ["x"]


def test_the_input_hint_is_a_shape_to_paste_with_the_batch_filled_in(tmp_path, db, capsys):
    """Paddle2ONNX: every dynamic dim is DynamicDimension.k; dim 0 follows --batch, H and W must be given: the
    hint shows numbers (batch 2, example 224s), and pasting it runs."""
    model = named_dim0_model(tmp_path / "paddle.onnx", "DynamicDimension.0",
                             dims=(3, "DynamicDimension.1", "DynamicDimension.2"))
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "2", "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code == 2 and "x[DynamicDimension.0, 3, DynamicDimension.1, DynamicDimension.2] dim 2" in first
    assert "--input x=2x3x224x224" in first and "DynamicDimension.0x" not in first
    flag = first[first.index("--input x="):].split()[1]
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--batch", "2", "--input", flag,
                        "--db", db, *FAST], capsys)
    assert code == 0, err


# ---------------------------------------------------------------- a wrong declared output shape (item 3)


def wrong_output_rank_model(path):
    """x[batch, 4] → y = Reshape(x, shape of data-dependent length) = [batch, 4, 1], declared [batch, 4]: no shape
    inference reaches the output, so the session keeps the wrong rank-2 declaration (an OCR model declares
    rank 2 and returns rank 3). Plain onnxruntime runs it; a pre-allocated rank-3 buffer it refuses."""
    consts = [numpy_helper.from_array(np.array(v, np.int64), n)
              for n, v in (("zero", 0), ("three", 3), ("one", [1]), ("ax", [0]))]
    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
             helper.make_node("Cast", ["m"], ["mi"], to=TensorProto.INT64),
             helper.make_node("Mul", ["mi", "zero"], ["z"]), helper.make_node("Add", ["s", "z"], ["s1"]),
             helper.make_node("Concat", ["s1", "one"], ["s3"], axis=0), helper.make_node("Add", ["z", "three"], ["e"]),
             helper.make_node("Unsqueeze", ["e", "ax"], ["e1"]), helper.make_node("Slice", ["s3", "ax", "e1"], ["sh"]),
             helper.make_node("Reshape", ["x", "sh"], ["y"])]
    g = helper.make_graph(nodes, "wrong_rank", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], initializer=consts)
    return save(g, path)


def test_a_wrong_declared_output_rank_runs_as_plain_onnxruntime_runs_it(tmp_path, db, capsys):
    import onnxruntime as ort

    model = wrong_output_rank_model(tmp_path / "ocr.onnx")
    x = np.random.RandomState(0).rand(2, 4).astype("float32")
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    assert sess.run(None, {"x": x})[0].shape == (2, 4, 1)  # what plain onnxruntime returns
    out = tmp_path / "r.json"
    code, text, err = run(["deploy", "--device", "local", "--model", model, "--batch", "2", "--db", db, "--json",
                           str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["io"]["outputs"][0]["shape"] == [2, 4, 1] and r["latency_ms"]["n"] >= 10
    codes = {w["code"]: w["message"] for w in r["warnings"]}
    assert "y (declared ['batch', 4], returns [2, 4, 1])" in codes["output_shape_declared_wrong"]
    assert "rejected these inputs" not in err


def test_an_output_whose_length_is_drawn_at_random_is_measured_with_a_warning(tmp_path, db, capsys):
    """A VITS voice's stochastic durations change its output's length at every inference (piper voices): the
    deploy measures it, onnxruntime allocating that output, and the result's warning says so."""
    from onnx_fixtures import changing_length_model

    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", changing_length_model(tmp_path / "vits_like.onnx"),
                        "--db", db, "--json", str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["status"] == "ok" and r["latency_ms"]["n"] >= 10
    assert "output(s) y changed shape from one inference to the next" in {
        w["code"]: w["message"] for w in r["warnings"]}["output_shape_changes"]
    # in more sessions each backend moves it again: the result says so once
    out2 = tmp_path / "r2.json"
    code, _, err = run(["deploy", "--device", "local", "--model", str(tmp_path / "vits_like.onnx"), "--sessions", "2",
                        "--db", db, "--json", str(out2), *FAST], capsys)
    assert code == 0, err
    r2 = json.loads(out2.read_text())
    assert [w["code"] for w in r2["warnings"]].count("output_shape_changes") == 1 and r2["sessions"]["n"] == 2


# ------------------------------------------------------------------------------- external data (item 1)


def external_data_model(folder):
    """model.onnx + model.onnx.data, as onnx.save_model(save_as_external_data=True) writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    w = numpy_helper.from_array(np.random.RandomState(0).rand(64, 64).astype("float32"), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "ext",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 64])], initializer=[w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save_model(m, str(folder / "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    assert (folder / "model.onnx.data").stat().st_size == 64 * 64 * 4
    return folder / "model.onnx"


def test_external_data_is_one_artifact_runs_and_a_missing_data_file_is_named(tmp_path, db, capsys):
    model = external_data_model(tmp_path / "user")
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, "--json", str(out),
                        *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    ext = r["artifact"]["export_options"]["external_data"]
    assert list(ext["files"]) == ["model.onnx", "model.onnx.data"] and r["artifact"]["size_bytes"] > 64 * 64 * 4
    assert sorted(p.name for p in (tmp_path / "user").iterdir()) == ["model.onnx", "model.onnx.data"]  # untouched
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--precision", "int8", "--db", db,
                        *FAST], capsys)
    assert code == 0, err  # conversions read the self-contained file
    # other weights in the data file: another artifact (content-addressed over both files)
    data = (tmp_path / "user" / "model.onnx.data")
    data.write_bytes(np.ones(64 * 64, "float32").tobytes())
    out2 = tmp_path / "r2.json"
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, "--json", str(out2),
                        *FAST], capsys)
    assert code == 0, err
    r2 = json.loads(out2.read_text())
    assert r2["artifact"]["sha256"] != r["artifact"]["sha256"]
    assert r2["artifact"]["export_options"]["external_data"]["files"]["model.onnx"] == ext["files"]["model.onnx"]
    data.unlink()
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code == 2 and "external data file model.onnx.data is missing" in first and "'w'" in first
    assert "copy model.onnx.data next to model.onnx" in first


# ------------------------------------------------------------------ precision labels from the weights (item 7)


def test_a_tflite_with_fp16_weights_is_fp16_as_given(tmp_path, db, capsys):
    pytest.importorskip("ai_edge_litert")
    from tflite_fixtures import fp16_weights_tflite

    model = fp16_weights_tflite(tmp_path / "fp16w.tflite")
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--db", db, "--json", str(out),
                        *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["precision"] == "fp16 (as given)"
    assert r["artifact"]["export_options"]["weights"].startswith("float16 (1 tensors, DEQUANTIZE to float32")
    code, _, err = run(["deploy", "--device", "local", "--model", str(model), "--precision", "int8", "--db", db,
                        *FAST], capsys)
    first = err.strip().splitlines()[0]
    assert code == 2 and "fp16w is already fp16 (float16 (1 tensors" in first and "runs it as given" in first


def weight_only_int8(path):
    """int8 weights DequantizeLinear'd to float, float activations (no QuantizeLinear)."""
    w = numpy_helper.from_array(np.arange(64, dtype=np.int8).reshape(8, 8), "wq")
    scale = numpy_helper.from_array(np.array(0.1, np.float32), "scale")
    g = helper.make_graph([helper.make_node("DequantizeLinear", ["wq", "scale"], ["w"]),
                           helper.make_node("MatMul", ["x", "w"], ["y"])], "wo",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
                          initializer=[w, scale])
    return save(g, path)


def test_onnx_quantisation_kinds_are_read_from_the_graph(tmp_path, db, capsys):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = matmul_model(tmp_path / "mm.onnx")
    dynamic = tmp_path / "mm_dynamic.onnx"
    quantize_dynamic(fp32, str(dynamic), weight_type=QuantType.QInt8)
    for model, kind in ((str(dynamic), "dynamic (int8 weights, activations quantised at run time)"),
                        (weight_only_int8(tmp_path / "wo.onnx"), "weight-only (int8 weights, float activations)")):
        out = tmp_path / "r.json"
        code, _, err = run(["deploy", "--device", "local", "--model", model, "--db", db, "--json", str(out),
                            *FAST], capsys)
        assert code == 0, err
        r = json.loads(out.read_text())
        assert r["precision"] == "int8 (as given)" and r["artifact"]["export_options"]["quantized_by"].startswith(kind)
        code, _, err = run(["deploy", "--device", "local", "--model", model, "--precision", "fp16", "--db", db,
                            *FAST], capsys)
        assert code == 2 and f"is already int8 ({kind}: " in err.strip().splitlines()[0]


def gru_model(path, hidden=16, features=8, steps=5):
    """A sequence-first GRU (x[5, batch, 8]): dim 0 is time, not a static batch of 5."""
    rs = np.random.RandomState(0)
    inits = [numpy_helper.from_array(rs.rand(*shape).astype("float32"), name)
             for name, shape in (("W", (1, 3 * hidden, features)), ("R", (1, 3 * hidden, hidden)),
                                 ("B", (1, 6 * hidden)))]
    g = helper.make_graph([helper.make_node("GRU", ["x", "W", "R", "B"], ["y", "yh"], hidden_size=hidden)], "gru",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, "batch", features])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [steps, 1, "batch", hidden])],
                          initializer=inits)
    return save(g, path, opset=14)


def test_a_sequence_first_gru_is_no_static_batch_and_its_hint_fills_the_batch(tmp_path, db, capsys):
    model = gru_model(tmp_path / "gru.onnx")  # --batch fills its dim-1 batch: test_models_round3b.py
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", model, "--input", "x=5x3x8", "--precision", "fp16",
                        "--db", db, "--json", str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())  # not a static batch of 5: the batch is dim 1, fed 3
    assert r["batch"] == 3 and r["io"]["batched"] == ["x"] and r["precision"] == "fp16"


def test_fp16_of_an_old_ir_file_listing_initializers_as_inputs_runs(tmp_path, db, capsys):
    """IR 3 lists every initializer among the graph inputs; the converter then leaves a float32 input in front of
    a float16 initializer, which onnxruntime refuses. The entries are dropped first (IR raised to 4), as users do."""
    w = numpy_helper.from_array(np.random.RandomState(0).rand(8, 8).astype("float32"), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "old",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, [8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], initializer=[w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)])
    m.ir_version = 3
    onnx.checker.check_model(m)
    onnx.save(m, str(tmp_path / "old.onnx"))
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", str(tmp_path / "old.onnx"), "--precision", "fp16",
                        "--db", db, "--json", str(out), *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    assert r["precision"] == "fp16" and r["artifact"]["export_options"]["initializer_inputs_dropped"] == 1
    assert [i["name"] for i in r["io"]["inputs"]] == ["x"]


def test_a_sweeps_batch_axis_on_a_static_batch_fails_the_other_values_with_the_reason(tmp_path, db, capsys):
    from edgeprof.lab import sweep_state as ledger

    static_batch_model(tmp_path / "faces10.onnx")
    (tmp_path / "s.yaml").write_text("name: static\nmodels: [faces10.onnx]\ndevices: [local]\nruntimes: [onnxruntime]\n"
                                     "batch: [4, 10]\nsettings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0}\n")
    code = main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    err = capsys.readouterr().err
    assert code == 1, err
    rec = ledger.get_sweep(Store(db), (tmp_path / "id").read_text().strip())
    by_batch = {c.cell.batch: c for c in rec.cells}
    assert by_batch[10].status == "ok" and by_batch[4].status == "failed"
    assert "--batch 4: the model is static (input 'x' [10, 3, 8, 8] has dimension 0 fixed at 10)" \
        in by_batch[4].reason


def test_the_precision_detail_is_shown_in_results_compare_and_reports_and_keys_stay(tmp_path, db, capsys):
    import dataclasses

    from edgeprof.records import Result
    from edgeprof.store import config_key

    model = weight_only_int8(tmp_path / "wo.onnx")
    fp32 = matmul_model(tmp_path / "mm.onnx")
    ids = []
    for m, extra in ((model, []), (model, []), (fp32, ["--precision", "int8"])):
        out = tmp_path / "r.json"
        code, _, err = run(["deploy", "--device", "local", "--model", m, "--db", db, "--json", str(out), *extra,
                            *FAST], capsys)
        assert code == 0, err
        ids.append(json.loads(out.read_text())["run_id"])
    detail = "int8 (as given) [weight-only (int8 weights, float activations)]"
    code, text, err = run(["results", "show", ids[0], "--db", db], capsys)
    assert code == 0, err
    assert f"wo.onnx on local · onnxruntime {detail} · batch 1" in " ".join(text.split())
    code, text, err = run(["compare", ids[0], ids[1], "--db", db], capsys)
    assert code == 0, err
    assert " ".join(text.split()).count(detail) == 2 and "different configurations" not in err
    code, text, err = run(["results", "show", ids[2], "--db", db], capsys)
    assert "int8 [static QDQ (int8 weights per channel, int8 activations)]" in " ".join(text.split())
    for fmt in ("md", "csv", "html"):
        code, text, err = run(["report", "--model", model, "--out", "-", "--format", fmt, "--db", db], capsys)
        assert code == 0, err
        assert "weight-only (int8 weights, float activations)" in text, fmt
    # the detail is shown only: the configuration's key is the identity's, without it, as before
    store = Store(db)
    a, b = (store.get(i) for i in ids[:2])
    assert isinstance(a, Result) and config_key(a) == config_key(b)
    bare = dataclasses.replace(a, artifact=dataclasses.replace(a.artifact, export_options=None))
    assert config_key(bare) == config_key(a) and "weight-only" not in config_key(a)
    assert a.identity.precision == "int8 (as given)"


# ------------------------------------------------------------------- exports past protobuf's 2 GiB (item 1)


def test_an_export_past_the_threshold_writes_external_data_and_runs_inlined(tmp_path, db, capsys, monkeypatch):
    """The threshold lowered (the seam): the export is model.onnx + its data file (named by content) in its cache
    entry, pushed as one self-contained file; with the 2 GiB limit lowered too: test_models_round3b.py."""
    from edgeprof.export import external_data

    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(external_data, "EXTERNAL_DATA_THRESHOLD", 4096)  # gemm:64x2x64: 16 KiB of weights
    out = tmp_path / "r.json"
    code, _, err = run(["deploy", "--device", "local", "--model", "gemm:64x2x64", "--db", db, "--json", str(out),
                        *FAST], capsys)
    assert code == 0, err
    r = json.loads(out.read_text())
    opts = r["artifact"]["export_options"]
    data = opts["external_data_file"]
    assert data.endswith(".data") and opts["external_data"]["files"][data]
    written = list((tmp_path / "cache").glob(f"*/{data}"))
    assert len(written) == 1 and written[0].stat().st_size >= 64 * 64 * 4
    assert r["artifact"]["export_check"]["ok"] and r["fidelity"] is not None and r["fidelity"]["ok"]
    assert onnx.load(r["artifact"]["path"], load_external_data=False).graph.initializer[0].HasField("raw_data")
