"""Export: resolving --model, torch → ONNX with a real dynamic batch, the torch check, the artifact cache,
user ONNX files and builder files, seeded inputs shared with the agent. Real torch and onnxruntime."""

import hashlib
import json
import os
import textwrap
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper

import edgeprof_models as em
from edgeprof.errors import ModelError
from edgeprof.export import onnx_export
from edgeprof.export.catalog import list_models_info
from edgeprof.export.inputs import make_inputs
from edgeprof.export.onnx_export import cached_artifact, default_cache_dir, prepare_onnx
from edgeprof.export.resolve import resolve_model
from edgeprof.records import OnnxExportOptions, TensorSpec

REPO = Path(__file__).resolve().parents[2]
TINY_MLP = REPO / "models" / "examples" / "tiny_mlp.py"
BIG = {"mobilenet_v2", "resnet18", "bert_tiny"}


@pytest.fixture
def cache_dir(bundled_onnx):
    """The directory the session's shared exports were freshly written to (tests/conftest.py)."""
    return bundled_onnx.dir


@pytest.fixture
def exported(bundled_onnx):
    """name → (Artifact, progress messages) of a fresh export; each bundled model is exported once per session."""
    return bundled_onnx


def _params(names):
    return [pytest.param(n, marks=pytest.mark.slow) if n in BIG else n for n in names]


def _torch_outputs(model, feed):
    with torch.no_grad():
        out = model(**{k: torch.from_numpy(v) for k, v in feed.items()})
    return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]


# ------------------------------------------------------------------------------------------- bundled


@pytest.mark.parametrize("name", _params(em.names()))
def test_bundled_export_has_a_dynamic_batch_and_matches_torch(name, exported):
    artifact, messages = exported(name)
    bundled = em.get(name)
    path = Path(artifact.path)
    assert path.name == "model.onnx" and path.exists()
    assert artifact.format == "onnx" and not artifact.cache_hit
    assert artifact.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert artifact.size_bytes == path.stat().st_size
    assert artifact.model_name == bundled.name and artifact.source == f"bundled:{bundled.name}"
    assert artifact.inputs == bundled.inputs and artifact.outputs == bundled.outputs
    assert artifact.export_options.exporter == "dynamo" and artifact.export_options.opset >= 17
    assert artifact.flops and artifact.flops > 0 and artifact.params and artifact.params > 0
    check = artifact.export_check
    assert check["reference"] == "torch" and check["batch"] == 2 and check["inputs_seed"] == 0
    assert check["ok"] and check["max_abs_error"] < 1e-4
    assert any("exporting" in m for m in messages)

    model = onnx.load(str(path))
    for inp in model.graph.input:  # the graph itself must say dim 0 is symbolic, not just our record
        dim0 = inp.type.tensor_type.shape.dim[0]
        assert dim0.dim_param == "batch" and not dim0.HasField("dim_value"), inp

    torch_model = bundled.build(0)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        feed = make_inputs(artifact.inputs, {s.name: s.concrete(batch) for s in artifact.inputs}, seed=7)
        got = session.run(None, feed)
        want = _torch_outputs(torch_model, feed)
        assert [g.shape for g in got] == [w.shape for w in want]
        assert got[0].shape[0] == batch
        assert max(float(np.abs(g - w).max()) for g, w in zip(got, want, strict=True)) < 1e-4


def test_flops_of_the_classics(exported):
    """MobileNetV2 ≈ 300 M MACs and ResNet-18 ≈ 1.82 G MACs (torchvision's figures), 2 FLOPs per MAC; our
    convention adds bias/activation/pool elementwise work (a few %), so allow 5 %."""
    assert exported("mobilenet_v2")[0].flops == pytest.approx(2 * 300.8e6, rel=0.05)
    assert exported("resnet18")[0].flops == pytest.approx(2 * 1.814e9, rel=0.05)
    assert exported("gemm")[0].flops == 2 * 1760 * 16 * 1760
    assert exported("conv")[0].flops == 2 * 56 * 56 * 64 * 64 * 9 + 56 * 56 * 64


def test_second_call_is_a_cache_hit_without_exporting(tmp_path, monkeypatch):
    first = prepare_onnx(resolve_model("ds_cnn"), cache_dir=tmp_path)

    def must_not_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_export, "_export_torch", must_not_export)
    monkeypatch.setattr(onnx_export, "torch_module", must_not_export)
    messages = []
    second = prepare_onnx(resolve_model("ds_cnn"), cache_dir=tmp_path, progress=messages.append)
    assert second.cache_hit and not first.cache_hit
    assert {**second.to_dict(), "cache_hit": False} == first.to_dict()
    assert messages == [f"ds_cnn: cached ONNX {second.path}"]
    assert cached_artifact(resolve_model("ds_cnn"), cache_dir=tmp_path) == second
    entries = [p for p in tmp_path.iterdir() if p.suffix != ".log"]  # beside it: the export's library log
    assert len(entries) == 1 and sorted(p.name for p in entries[0].iterdir()) == ["meta.json", "model.onnx"]
    assert [p.name for p in tmp_path.glob("*.log")] in ([], [f"{entries[0].name}.log"])
    meta = json.loads((entries[0] / "meta.json").read_text())
    assert meta["path"] == "model.onnx" and meta["sha256"] == first.sha256


def test_cache_key_covers_seed_opset_and_exporter(tmp_path):
    source = resolve_model("gemm:8x4x2")
    base = onnx_export._options("dynamo", 18)
    keys = {
        onnx_export.cache_key(source, 0, base), onnx_export.cache_key(source, 1, base),
        onnx_export.cache_key(source, 0, onnx_export._options("dynamo", 17)),
        onnx_export.cache_key(source, 0, onnx_export._options("torchscript", 18)),
        onnx_export.cache_key(resolve_model("gemm:8x4x3"), 0, base),
    }
    assert len(keys) == 5
    assert onnx_export.cache_key(resolve_model("gemm:8x4x2"), 0, base) in keys  # stable


def test_different_seed_gives_different_weights_and_entry(tmp_path, bundled_onnx):
    bundled_onnx.copy_into("gemm:8x4x2", tmp_path)  # seed 0's entry, as a first export leaves it
    a = prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path, seed=0)
    b = prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path, seed=1)
    assert a.path != b.path and a.sha256 != b.sha256 and not b.cache_hit
    assert b.export_check["inputs_seed"] == 1


@pytest.mark.parametrize("exc", [RuntimeError("exporter crashed"), KeyboardInterrupt()])
def test_interrupted_export_leaves_no_entry(tmp_path, monkeypatch, exc):
    def boom(module, examples, output_names, path, **kw):
        path.write_bytes(b"half a model")
        raise exc

    monkeypatch.setattr(onnx_export, "_export_torch", boom)
    with pytest.raises((ModelError, KeyboardInterrupt)):
        prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert not prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path).cache_hit


@pytest.mark.parametrize("damage", ["meta", "model", "missing"])
def test_a_broken_cache_entry_is_exported_again(tmp_path, damage, bundled_onnx):
    bundled_onnx.copy_into("gemm:8x4x2", tmp_path)  # the entry a first export leaves
    first = prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path)
    entry = Path(first.path).parent
    if damage == "meta":
        (entry / "meta.json").write_text("{not json")
    elif damage == "model":
        Path(first.path).write_bytes(Path(first.path).read_bytes()[:-1] + b"\0")
    else:
        Path(first.path).unlink()
    again = prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path)
    assert not again.cache_hit and again.sha256 == first.sha256 and again.path == first.path
    assert prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path).cache_hit
    assert [p.name for p in tmp_path.iterdir() if p.suffix != ".log"] == [entry.name]  # and its library log


def test_torchscript_exporter_also_gives_a_dynamic_batch(tmp_path):
    a = prepare_onnx(resolve_model("ds_cnn"), cache_dir=tmp_path, exporter="torchscript")
    assert a.export_options.exporter == "torchscript" and a.export_check["ok"]
    assert a.inputs[0].shape[0] == "batch"
    assert onnx.load(a.path).graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_bad_export_options(tmp_path):
    with pytest.raises(ModelError, match="opset 13"):
        prepare_onnx(resolve_model("ds_cnn"), cache_dir=tmp_path, opset=13)
    with pytest.raises(ModelError, match="unknown exporter"):
        prepare_onnx(resolve_model("ds_cnn"), cache_dir=tmp_path, exporter="tf")


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("EDGEPROF_CACHE")
    assert default_cache_dir() == tmp_path / "x" / "edgeprof" / "artifacts"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert default_cache_dir() == tmp_path / "h" / ".cache" / "edgeprof" / "artifacts"


@pytest.mark.slow
def test_catalog_reads_the_cache(cache_dir, exported):
    for n in em.names():
        exported(n)
    rows = list_models_info(cache_dir, export=False)
    assert [r["name"] for r in rows] == [em.get(n).name for n in em.names()]
    assert all(r["params"] and r["flops"] for r in rows)
    messages = []
    assert list_models_info(cache_dir, progress=messages.append) == rows
    assert all("cached" in m for m in messages)
    bert = next(r for r in rows if r["name"] == "bert_tiny")
    assert bert["task"] == "encoder" and bert["inputs"][0]["name"] == "input_ids"
    assert list_models_info(cache_dir / "empty", export=False)[0]["flops"] is None


# ---------------------------------------------------------------------------------------- resolving


def test_resolve_kinds(tmp_path):
    assert resolve_model("mobilenet_v2").kind == "bundled"
    assert resolve_model(" gemm:64x8x32 ").name == "gemm:64x8x32"
    tfl = tmp_path / "m.tflite"
    tfl.write_bytes(b"TFL3")
    src = resolve_model(str(tfl))
    assert (src.kind, src.path, src.name, src.source) == ("tflite", tfl.resolve(), "m", f"file:{tfl.resolve()}")
    with pytest.raises(ModelError, match="TFLite"):
        prepare_onnx(src, cache_dir=tmp_path)


@pytest.mark.parametrize("spec, message", [
    ("mobilnet_v2", "unknown model 'mobilnet_v2' — did you mean mobilenet_v2?"),
    ("", "no model given"),
    ("nope/model.onnx", "model file nope/model.onnx not found"),
    ("nope/model.tflite", "model file nope/model.tflite not found"),
    ("nope/model.pb", "unsupported model file nope/model.pb"),
    ("builder.py", "builder.py is a Python file but names no builder function — use builder.py:build"),
    ("nope/builder.py:build", "model file nope/builder.py not found"),
    ("x.py:", "names no builder function"),
    ("x.py:not-a-name", "is not a Python function name"),
])
def test_resolve_errors_are_one_line(spec, message):
    with pytest.raises(ModelError) as e:
        resolve_model(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_directory_named_onnx(tmp_path):
    (tmp_path / "d.onnx").mkdir()
    with pytest.raises(ModelError, match="is not a file"):
        resolve_model(str(tmp_path / "d.onnx"))


# ------------------------------------------------------------------------------------- user .onnx


def _user_model(path, dims=("batch", 4, 32), initializer_as_input=False):
    w = np.random.RandomState(0).standard_normal((32, 8)).astype(np.float32)
    out_dims = [*dims[:-1], 8]
    inputs = [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, list(dims))]
    if initializer_as_input:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [32, 8]))
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["tokens", "w"], ["mm"]), helper.make_node("Relu", ["mm"], ["logits"])],
        "user", inputs, [helper.make_tensor_value_info("logits", TensorProto.FLOAT, out_dims)],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_user_onnx_is_read_not_exported(tmp_path, monkeypatch):
    monkeypatch.setattr("edgeprof.export.resolve._torch", lambda: pytest.fail("torch needed for a user .onnx"))
    path = _user_model(tmp_path / "user model.onnx", initializer_as_input=True)
    a = prepare_onnx(resolve_model(str(path)), cache_dir=tmp_path / "cache")
    assert a.path == str(path.resolve()) and a.model_name == "user model" and a.source == f"file:{path.resolve()}"
    assert a.inputs == (TensorSpec("tokens", ("batch", 4, 32), "float32", 0.0, 1.0),)
    assert a.outputs == ("logits",)
    assert a.export_check is None and a.export_options == OnnxExportOptions() and not a.cache_hit
    assert a.flops == 2 * 4 * 8 * 32 + 4 * 8 and a.params == 32 * 8
    assert a.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert not (tmp_path / "cache").exists()


def test_user_onnx_with_a_dynamic_non_batch_dim(tmp_path):
    a = prepare_onnx(resolve_model(str(_user_model(tmp_path / "m.onnx", dims=("N", "seq", 32)))),
                     cache_dir=tmp_path)
    assert a.inputs[0].shape == ("N", "seq", 32)
    assert a.flops is None  # no batch-1 shape without the user's --input
    b = prepare_onnx(resolve_model(str(_user_model(tmp_path / "n.onnx", dims=("batch", None, 32)))),
                     cache_dir=tmp_path)
    assert b.inputs[0].shape == ("batch", None, 32)


@pytest.mark.parametrize("content", [b"\x08\x07\xff\xfe garbage bytes \x00\x01", b"", "text"])
def test_invalid_onnx_files(tmp_path, content):
    path = tmp_path / "x.onnx"
    if content == "text":
        path.write_text("name,value\nthis is a csv file renamed to .onnx\n")
    else:
        path.write_bytes(content)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(str(path)), cache_dir=tmp_path)
    assert str(e.value).startswith(f"{path} is not a valid ONNX model: ")
    assert e.value.hint == "export it again or check the path"
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------------------------------- builders


def _write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_builder_example_exports_with_dynamic_batch(tmp_path):
    src = resolve_model(f"{TINY_MLP}:build")
    assert (src.kind, src.name, src.function) == ("builder", "tiny_mlp.build", "build")
    a = prepare_onnx(src, cache_dir=tmp_path)
    assert a.source == f"builder:{TINY_MLP}:build" and a.model_name == "tiny_mlp.build"
    assert a.inputs[0].name == "features" and a.inputs[0].shape == ("batch", 16)
    assert 0.0 <= a.inputs[0].low < a.inputs[0].high <= 1.0
    assert a.export_check["ok"] and a.params == 16 * 32 + 32 + 32 * 4 + 4
    assert a.flops == 2 * (16 * 32 + 32 * 4) + 32 + 4 + 32  # two Gemms with bias + Relu
    session = ort.InferenceSession(a.path, providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        assert session.run(None, {"features": np.zeros((batch, 16), np.float32)})[0].shape == (batch, 4)
    assert prepare_onnx(resolve_model(f"{TINY_MLP}:build"), cache_dir=tmp_path).cache_hit


BUILDER = """
import torch
from torch import nn

class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)

    def forward(self, ids, keep):
        return self.emb(ids) * keep.unsqueeze(-1).to(torch.float32)

def build(seed):
    torch.manual_seed(seed)
    m = Embed()
    m.edgeprof_inputs = {"ids": torch.tensor([[0, 99, 5]]), "keep": torch.tensor([[True, False, True]])}
    return m

def helper():
    pass
"""


def test_builder_with_edgeprof_inputs_attribute_and_cache_follows_the_text(tmp_path):
    path = _write(tmp_path, "emb.py", BUILDER)
    a = prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert [(t.name, t.shape, t.dtype, t.low, t.high) for t in a.inputs] == [
        ("ids", ("batch", 3), "int64", 0, 100), ("keep", ("batch", 3), "bool", 0, 2)]
    assert a.export_check["ok"]
    assert prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c").cache_hit
    path.write_text(path.read_text() + "\n# edited\n")
    again = prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert not again.cache_hit and again.path != a.path


@pytest.mark.parametrize("body, spec_fn, message", [
    (BUILDER, "buidl", "has no function 'buidl' — functions defined there: Embed, build, helper"),
    ("X = 1\n", "X", "has a non-callable 'X'"),
    ("import torch\nraise ValueError('no GPU\\nhere')\n", "build",
     "raised on import: ValueError: no GPU here"),
    ("import not_a_module_xyz\n", "build", "raised on import: ModuleNotFoundError: No module named 'not_a_module_xyz'"),
    ("def build(:\n", "build", "raised on import: SyntaxError"),
    ("import sys\nsys.exit(3)\n", "build", "raised on import: SystemExit: 3"),
])
def test_builder_file_errors(tmp_path, body, spec_fn, message):
    path = _write(tmp_path, "b.py", body)
    with pytest.raises(ModelError) as e:
        resolve_model(f"{path}:{spec_fn}")
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("body, message", [
    ("def build(seed):\n    return 42\n", "returned int, not a torch.nn.Module"),
    ("import torch\ndef build(seed):\n    return torch.nn.Linear(2, 2)\n", "gave no example inputs"),
    ("import torch\ndef build(seed):\n    return torch.nn.Linear(2, 2), [torch.zeros(1, 2)]\n", "gave no example inputs"),
    ("def build(seed):\n    raise RuntimeError('bad seed')\n", "raised RuntimeError: bad seed"),
    ("import torch\ndef build(seed):\n    return torch.nn.Identity(), {'input': torch.tensor(1.0)}\n", "is a scalar"),
    ("import torch\ndef build(seed):\n    return torch.nn.Identity(), {'input': torch.zeros(1, 2, dtype=torch.float64)}\n",
     "has dtype float64"),
])
def test_builder_call_errors(tmp_path, body, message):
    path = _write(tmp_path, "b.py", body)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert message in str(e.value)
    assert not (tmp_path / "c").exists() or not [p for p in (tmp_path / "c").iterdir() if not p.name.startswith(".")]


def test_builder_with_a_hard_coded_batch_is_refused(tmp_path):
    path = _write(tmp_path, "fixed.py", """
        import torch
        class Fixed(torch.nn.Module):
            def forward(self, x):
                return x.reshape(2, 8).sum(dim=1)
        def build(seed):
            return Fixed(), {"x": torch.zeros(1, 8)}
    """)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert "fixed.build" in str(e.value)


def test_builder_with_wrong_input_names_says_so(tmp_path):
    path = _write(tmp_path, "names.py", """
        import torch
        def build(seed):
            return torch.nn.Linear(4, 2), {"features": torch.zeros(1, 4)}
    """)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert "builder names.py:build: forward(input) cannot take inputs named features" in str(e.value)
    assert e.value.hint == "name the example inputs after forward()'s parameters"


def test_builder_the_exporter_rejects_gives_one_quiet_line(tmp_path, capfd):
    path = _write(tmp_path, "branchy.py", """
        import torch
        class Branchy(torch.nn.Module):
            def forward(self, x):
                return x * 2 if x.sum() > 0 else x
        def build(seed):
            return Branchy(), {"x": torch.zeros(1, 8)}
    """)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert str(e.value).startswith("exporting branchy.build to ONNX failed: TorchExportError: ")
    assert "data-dependent" in str(e.value) and "\n" not in str(e.value) and e.value.detail
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_builder_can_import_its_neighbours(tmp_path):
    _write(tmp_path, "layers.py", "import torch\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    path = _write(tmp_path, "net.py", """
        import torch
        import layers
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = layers.make()
            def forward(self, x):
                return self.fc(x)
        def build(seed):
            torch.manual_seed(seed)
            return Net(), {"x": torch.rand(1, 4)}
    """)
    a = prepare_onnx(resolve_model(f"{path}:build"), cache_dir=tmp_path / "c")
    assert a.export_check["ok"] and a.params == 10
    assert str(tmp_path) not in os.sys.path


# ------------------------------------------------------------------------------------------- inputs


SPECS = (TensorSpec("x", ("batch", 2, 3), "float32", -1.0, 1.0), TensorSpec("ids", ("batch", 5), "int64", 0, 30522),
         TensorSpec("m", ("batch", 5), "bool"), TensorSpec("h", ("batch", 4), "float16", 0.0, 2.0),
         TensorSpec("u", ("batch", 4), "uint8", 0, 256))


def _shapes(batch):
    return {s.name: s.concrete(batch) for s in SPECS}


def test_make_inputs_is_the_documented_recipe():
    got = make_inputs(SPECS, _shapes(2), seed=5)
    rs = np.random.RandomState(5)
    want = {
        "x": rs.uniform(-1.0, 1.0, (2, 2, 3)).astype("float32"),
        "ids": rs.randint(0, 30522, size=(2, 5)).astype("int64"),
        "m": rs.randint(0, 2, size=(2, 5)).astype(bool),
        "h": rs.uniform(0.0, 2.0, (2, 4)).astype("float16"),
        "u": rs.randint(0, 256, size=(2, 4)).astype("uint8"),
    }
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k])
    assert not np.array_equal(make_inputs(SPECS, _shapes(2), seed=6)["x"], got["x"])


def test_make_inputs_matches_the_agent():
    from edgeprof_agent.inputs import make_inputs as agent_make_inputs
    from edgeprof_agent.messages import InputSpec

    host = make_inputs(SPECS, _shapes(3), seed=11)
    device = agent_make_inputs([InputSpec.from_dict({**s.to_dict(), "shape": list(s.concrete(3))}) for s in SPECS], 11)
    assert [n for n, _ in device] == list(host)
    for name, arr in device:
        assert arr.dtype == host[name].dtype and np.array_equal(arr, host[name])


def test_make_inputs_errors():
    with pytest.raises(ModelError, match="no concrete shape for input 'x'"):
        make_inputs(SPECS, {}, 0)
    with pytest.raises(ModelError, match="empty integer range"):
        make_inputs([TensorSpec("i", (1,), "int32", 3, 3)], {"i": (1,)}, 0)


def _late_outer_value_model(path, defined=True):
    """An If whose branch reads an outer value the main graph lists after the If (as an optimum export of DeBERTa
    does): onnx.checker refuses it ("must be topologically sorted"), onnxruntime sorts and loads it. With
    defined=False the value is made nowhere, which both refuse."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, [1, 4])
    then = helper.make_graph([helper.make_node("Identity", ["late"], ["o"])], "then", [], [out])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["o"])], "else", [], [out])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    if defined:
        nodes.append(helper.make_node("Relu", ["x"], ["late"]))
    graph = helper.make_graph(nodes, "late", [x], [y], [helper.make_tensor("c", TensorProto.BOOL, [], [True])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_a_file_onnxruntime_loads_is_run_as_given_though_onnx_checker_refuses_it(tmp_path):
    path = _late_outer_value_model(tmp_path / "late.onnx")
    with pytest.raises(onnx.checker.ValidationError, match="topologically sorted"):
        onnx.checker.check_model(str(path))
    said = []
    a = prepare_onnx(resolve_model(str(path)), cache_dir=tmp_path, progress=said.append)
    assert a.path == str(path) and a.inputs[0].name == "x"
    assert "topologically sorted" in a.export_check["onnx_checker"]
    assert a.export_check["loaded_by"] == f"onnxruntime {ort.__version__}"
    assert any("onnx.checker refuses it" in s and "run as given" in s for s in said)
    (y,) = ort.InferenceSession(a.path).run(None, {"x": -np.ones((1, 4), np.float32)})
    assert (y == 0).all()  # the branch read Relu(x), made after the If


def test_a_file_both_onnx_checker_and_onnxruntime_refuse_is_refused_in_one_line(tmp_path):
    path = _late_outer_value_model(tmp_path / "nowhere.onnx", defined=False)
    with pytest.raises(ModelError) as e:
        prepare_onnx(resolve_model(str(path)), cache_dir=tmp_path)
    assert str(e.value).startswith(f"{path} is not a valid ONNX model: ") and "\n" not in str(e.value)
