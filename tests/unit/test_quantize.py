"""ONNX fp16 / int8 artifacts with real onnxruntime and onnxconverter-common: graph contents, caching,
calibration from seeded inputs or a directory, and outputs close to fp32."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from edgeprof.errors import ConfigError
from edgeprof.export.artifact_cache import sha256_file
from edgeprof.export.inputs import make_inputs
from edgeprof.export.quantize import calibration_samples, quantize_onnx
from edgeprof.records import Artifact, TensorSpec

pytest.importorskip("onnxconverter_common")

SPEC = TensorSpec("x", ("batch", 8, 12, 12), "float32", -1.0, 1.0)


def conv_model(path):
    rs = np.random.RandomState(0)
    w = rs.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
    b = rs.standard_normal(16).astype(np.float32) * 0.1
    w2 = rs.standard_normal((16, 10)).astype(np.float32) * 0.2
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], name="gap"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("MatMul", ["f", "w2"], ["y"], name="fc")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])],
                              [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist()),
                               helper.make_tensor("b", TensorProto.FLOAT, b.shape, b.ravel().tolist()),
                               helper.make_tensor("w2", TensorProto.FLOAT, w2.shape, w2.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return Artifact(path=str(path), format="onnx", sha256=sha256_file(path), size_bytes=path.stat().st_size,
                    inputs=(SPEC,), outputs=("y",), model_name="conv", source=f"file:{path}")


def run(path, feed):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feed)[0]


def test_fp16_keeps_io_types_and_is_close(tmp_path):
    fp32 = conv_model(tmp_path / "m.onnx")
    shapes = {"x": (2, 8, 12, 12)}
    a = quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes=shapes)
    assert a.precision == "fp16" and a.export_options.fp32_sha256 == fp32.sha256
    m = onnx.load(a.path)
    assert m.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT  # IO types kept
    assert any(i.data_type == TensorProto.FLOAT16 for i in m.graph.initializer)
    feed = make_inputs(fp32.inputs, shapes, 0)
    np.testing.assert_allclose(run(a.path, feed), run(fp32.path, feed), atol=5e-3)
    again = quantize_onnx(fp32, "fp16", cache_dir=tmp_path / "cache", shapes=shapes)
    assert again.cache_hit and again.sha256 == a.sha256


def test_int8_is_static_qdq_per_channel_and_cached(tmp_path):
    fp32 = conv_model(tmp_path / "m.onnx")
    shapes = {"x": (1, 8, 12, 12)}
    msgs = []
    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes, progress=msgs.append)
    assert a.precision == "int8" and "quantising" in msgs[0]
    m = onnx.load(a.path)
    ops = [n.op_type for n in m.graph.node]
    assert "QuantizeLinear" in ops and "DequantizeLinear" in ops and "Conv" in ops  # QDQ format
    scales = [i for i in m.graph.initializer if i.name.startswith("w") and "scale" in i.name]
    assert any(len(s.dims) == 1 and s.dims[0] == 16 for s in scales)  # per output channel
    assert a.export_options.calibration["kind"] == "seeded-random"
    feed = make_inputs(fp32.inputs, shapes, 0)
    got, ref = run(a.path, feed), run(fp32.path, feed)
    cos = float(np.dot(got.ravel(), ref.ravel()) / np.linalg.norm(got) / np.linalg.norm(ref))
    assert cos > 0.99
    assert quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes).cache_hit
    # another calibration set is another artifact
    calib = tmp_path / "calib"
    calib.mkdir()
    for i in range(3):
        np.save(calib / f"s{i}.npy", np.random.RandomState(i).uniform(-1, 1, (8, 12, 12)).astype(np.float32))
    b = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes=shapes, calibration=calib)
    assert not b.cache_hit and b.export_options.calibration["files"] == 3


def test_calibration_directory_rules(tmp_path):
    specs = (TensorSpec("a", ("batch", 3), "float32"), TensorSpec("b", ("batch", 2), "int64", 0, 5))
    shapes = {"a": (2, 3), "b": (2, 2)}
    d = tmp_path / "c"
    d.mkdir()
    np.savez(d / "one.npz", a=np.ones((3,), np.float32), b=np.array([[1, 2], [3, 4]]))
    got = calibration_samples(specs, shapes, 0, d)
    assert got[0]["a"].shape == (2, 3) and got[0]["b"].dtype == np.int64
    np.save(d / "bad.npy", np.ones(3))
    with pytest.raises(ConfigError, match="a .npy file holds one array but the model has 2 inputs"):
        calibration_samples(specs, shapes, 0, d)
    with pytest.raises(ConfigError, match="not a directory"):
        calibration_samples(specs, shapes, 0, tmp_path / "nope")
    seeded = calibration_samples(specs, shapes, 7, None, count=2)
    assert len(seeded) == 2 and not np.array_equal(seeded[0]["a"], make_inputs(specs, shapes, 7)["a"])


def test_calibration_feeds_the_plans_constants_data_and_ranges(tmp_path):
    """Constants and data arrays of the input plan are fed as they are, ranged inputs drawn from their range; a
    --calibration directory wins for the inputs it holds and may leave out the ones the plan fixes."""
    from edgeprof.export.inputs import plan_inputs
    from edgeprof.export.quantize import calibration_fingerprint

    specs = (TensorSpec("x", ("batch", 4), "float32"), TensorSpec("sr", (), "int64", 0, 1),
             TensorSpec("ids", ("batch", 3), "int64", 0, 1))
    plan = plan_inputs(specs, batch=2, seed=0, values={"sr": 16000}, ranges={"ids": (100.0, 200.0)})
    got = calibration_samples(plan.specs, plan.shapes, 0, None, count=3, fixed=plan.fixed())
    assert all(s["sr"].shape == () and int(s["sr"]) == 16000 and s["sr"].dtype == np.int64 for s in got)
    assert all(100 <= s["ids"].min() and s["ids"].max() < 200 for s in got)
    assert calibration_fingerprint(None, plan=plan)["inputs"] == {
        "x": {"feed": "generated", "low": 0.0, "high": 1.0}, "sr": {"feed": "value", "value": 16000},
        "ids": {"feed": "generated", "low": 100.0, "high": 200.0}}
    d = tmp_path / "c"
    d.mkdir()
    np.savez(d / "s.npz", x=np.full((4,), 7, np.float32), ids=np.full((2, 3), 5, np.int64), sr=np.array(8000))
    (one,) = calibration_samples(plan.specs, plan.shapes, 0, d, fixed=plan.fixed())
    assert int(one["sr"]) == 8000 and one["x"].shape == (2, 4) and one["ids"][0, 0] == 5  # the files win
    np.savez(d / "s.npz", x=np.ones((2, 4), np.float32), ids=np.ones((2, 3), np.int64))
    (one,) = calibration_samples(plan.specs, plan.shapes, 0, d, fixed=plan.fixed())
    assert int(one["sr"]) == 16000  # left out: the plan's constant
    with pytest.raises(ConfigError, match="no array for input"):
        calibration_samples(specs, plan.shapes, 0, d)  # without the plan, sr must be in the files


def test_a_calibration_file_may_stack_several_batches_on_dim_0(tmp_path):
    """A file of 32 samples for a batch-1 run is 32 calibration batches (it was refused: shape [32, 4] vs
    [1, 4]); inputs of one file must hold the same number; a count that is no multiple of the batch is refused."""
    specs = (TensorSpec("x", ("batch", 4), "float32"), TensorSpec("m", ("batch", 2), "int64", 0, 5))
    d = tmp_path / "c"
    d.mkdir()
    x = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    np.savez(d / "s.npz", x=x, m=np.ones((1, 2), np.int64))
    got = calibration_samples(specs, {"x": (1, 4), "m": (1, 2)}, 0, d)
    assert len(got) == 32 and [float(g["x"][0, 0]) for g in got[:3]] == [0.0, 4.0, 8.0]
    assert all(g["m"].shape == (1, 2) for g in got)  # one batch: the same for every run
    np.savez(d / "s.npz", x=x, m=np.ones((16, 2), np.int64))
    with pytest.raises(ConfigError, match="different numbers of samples"):
        calibration_samples(specs, {"x": (1, 4), "m": (1, 2)}, 0, d)
    np.savez(d / "s.npz", x=x[:6], m=np.ones((3, 2), np.int64))
    with pytest.raises(ConfigError, match=r"has shape \[6, 4\], the run uses \[4, 4\]"):
        calibration_samples(specs, {"x": (4, 4), "m": (4, 2)}, 0, d)


def test_int8_imports_only_the_domains_its_nodes_use(tmp_path):
    """quant_pre_process stamps an import of every domain onnxruntime knows (ai.onnx.ml 5, com.microsoft 1, ...):
    onnxruntime 1.10 and 1.16 refuse such a file ("Opset 5 is under development", found by the aarch64 lane on
    their real wheels). The int8 file keeps only the imports its nodes need."""
    fp32 = conv_model(tmp_path / "m.onnx")
    a = quantize_onnx(fp32, "int8", cache_dir=tmp_path / "cache", shapes={"x": (1, 8, 12, 12)})
    m = onnx.load(a.path)
    used = {n.domain for n in m.graph.node}
    assert [(o.domain, o.version) for o in m.opset_import] == [("", 17)] and used == {""}
    assert "ai.onnx.ml:5" in a.export_options.dropped_opset_imports


def test_dropping_opset_imports_keeps_those_used_in_subgraphs_and_the_default_domain(tmp_path):
    from edgeprof.export.quantize import _drop_unused_opset_imports

    inner = helper.make_graph([helper.make_node("Foo", ["a"], ["b"], domain="com.example")], "inner",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=inner, else_branch=inner)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1),
                                                helper.make_opsetid("ai.onnx.ml", 5)])
    path = tmp_path / "sub.onnx"
    onnx.save(m, str(path))
    assert _drop_unused_opset_imports(path) == ["ai.onnx.ml:5"]
    assert [(o.domain, o.version) for o in onnx.load(str(path)).opset_import] == [("", 17), ("com.example", 1)]
    assert _drop_unused_opset_imports(path) == []  # nothing left to drop: the file is not rewritten
