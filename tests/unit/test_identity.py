"""Model identity (issue 11 part 6): the content hash plus the shapes fed. One file by relative and absolute path
is one configuration; different input shapes are two (compare, check, report); older rows are re-keyed;
`results list --model` matches a base name or a substring; report labels tell two same-named files apart."""

import dataclasses

import sqlalchemy as sa
from test_store import make_result

from edgeprof.lab.history import previous_result
from edgeprof.records import Artifact, OnnxExportOptions, Settings, TensorSpec
from edgeprof.report.data import ReportData, model_label, model_labels
from edgeprof.store import DB_SCHEMA_VERSION, Store
from edgeprof.vocab import ConfigIdentity

SHA = "ab" * 32


def file_result(model, path="/data/models/net.onnx", shape=(1, 3, 8, 8), sha=SHA, p50=1.0, **kw):
    r = make_result(model=model, p50=p50, **kw)
    return dataclasses.replace(
        r, artifact=Artifact(path=path, format="onnx", sha256=sha, size_bytes=10,
                             inputs=(TensorSpec("x", ("batch", 3, None, None), "float32"),), outputs=("y",),
                             model_name="net", source=f"file:{path}"),
        settings=Settings(inputs=[{"name": "x", "shape": list(shape), "dtype": "float32"}]))


def test_same_file_by_relative_and_absolute_path_is_one_configuration():
    rel = file_result("models/net.onnx")
    absolute = file_result("/data/models/net.onnx")
    assert rel.identity.key() == absolute.identity.key()
    assert rel.identity.content == f"sha256:{SHA}" and not rel.identity.by_path
    # a converted artifact keeps the user's file as its content: fp16 of the same file, same content
    half = file_result("net.onnx", sha="cd" * 32)
    half = dataclasses.replace(half, artifact=dataclasses.replace(half.artifact, export_options=OnnxExportOptions(fp32_sha256=SHA)))
    assert half.identity.content == rel.identity.content
    # another file at the same path (edited) is another configuration
    assert file_result("models/net.onnx", sha="ef" * 32).identity.key() != rel.identity.key()


def test_different_shapes_are_different_configurations(tmp_path):
    """The '+636 %' case: a run at 1x3x8x8 and one at 1x3x64x64 of one file are never baseline and new."""
    store = Store(str(tmp_path / "r.sqlite"))
    small = file_result("net.onnx", shape=(1, 3, 8, 8), p50=1.0, created_at="2026-01-01T00:00:00Z")
    big = file_result("net.onnx", shape=(1, 3, 64, 64), p50=7.36, created_at="2026-01-02T00:00:00Z")
    store.save(small)
    store.save(big)
    assert small.identity.key() != big.identity.key()
    assert previous_result(store, big) is None  # check has no baseline for it: not "regressed +636 %"
    again = file_result("./net.onnx", shape=(1, 3, 8, 8), p50=1.1, created_at="2026-01-03T00:00:00Z")
    assert previous_result(store, again).run_id == small.run_id  # same file, same shapes: the baseline
    assert big.identity.shapes_label() == "x=1x3x64x64"


def test_results_without_content_fall_back_to_the_model_string():
    r = make_result(model="models/net.onnx")  # no artifact: a failed row, or an old result
    ident = r.identity
    assert ident.by_path and ident.content is None
    old = ConfigIdentity(r.device, r.model, r.runtime, r.precision, r.batch, r.threads, None)
    assert ident.key() == old.key()  # the key such rows had before: their history continues


def test_older_database_rows_are_rekeyed_on_open(tmp_path):
    path = tmp_path / "r.sqlite"
    store = Store(str(path))
    r = file_result("models/net.onnx")
    store.save(r)
    eng = sa.create_engine(f"sqlite:///{path}")
    with eng.begin() as c:
        c.execute(sa.text("UPDATE runs SET config_key='old-key'"))
        c.execute(sa.text("UPDATE meta SET value='2' WHERE key='schema_version'"))
    store = Store(str(path))
    assert [row.config_key for row in store.list()] == [r.identity.key()]
    with eng.begin() as c:
        assert c.execute(sa.text("SELECT value FROM meta WHERE key='schema_version'")).scalar() == str(
            DB_SCHEMA_VERSION)


def test_results_list_model_matches_base_name_or_substring(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    for m in ("kws/alexa.tflite", "/home/u/wake/alexa.tflite", "mobilenet_v2", "net_1.onnx"):
        store.save(make_result(model=m))
    assert {row.model for row in store.list(model="alexa.tflite")} == {"kws/alexa.tflite",
                                                                          "/home/u/wake/alexa.tflite"}
    assert {row.model for row in store.list(model="wake")} == {"/home/u/wake/alexa.tflite"}
    assert [row.model for row in store.list(model="mobilenet_v2")] == ["mobilenet_v2"]
    assert store.list(model="net%") == []  # LIKE wildcards are literal
    assert [row.model for row in store.list(model="net_1")] == ["net_1.onnx"]


def test_report_labels_tell_same_named_files_apart():
    a = file_result("kws/alexa.tflite", path="/proj/kws/alexa.tflite", sha="01" * 32)
    b = file_result("alexa.tflite", path="/home/u/wake/alexa.tflite", sha="02" * 32)
    c = file_result("other.onnx", path="/proj/other.onnx", sha="03" * 32)
    assert model_labels([a, b, c]) == ["kws/alexa.tflite", "wake/alexa.tflite", "other.onnx"]
    # one file fed two shapes: the shapes join the label
    s1 = file_result("net.onnx", shape=(1, 3, 8, 8))
    s2 = file_result("/data/models/net.onnx", shape=(1, 3, 64, 64))
    assert model_labels([s1, s2]) == ["net.onnx [x=1x3x8x8]", "net.onnx [x=1x3x64x64]"]
    data = ReportData(title="t", scope="s", generated_at="now", db="db", results=[a, b, c])
    assert [model_label(r) for r in data.results] == ["kws/alexa.tflite", "wake/alexa.tflite", "other.onnx"]
    assert data.models() == ["kws/alexa.tflite", "wake/alexa.tflite", "other.onnx"]
    assert model_label(file_result("x/alexa.tflite")) == "alexa.tflite"  # not in a report: the base name


def test_compare_says_why_two_runs_are_different_configurations(tmp_path, capsys):
    from edgeprof.analysis.compare import identity_differences
    from edgeprof.cli.main import main

    db = tmp_path / "r.sqlite"
    store = Store(str(db))
    small = file_result("net.onnx", shape=(1, 3, 8, 8), p50=1.0)
    big = file_result("/data/models/net.onnx", shape=(1, 3, 64, 64), p50=7.36)
    store.save(small)
    store.save(big)
    assert identity_differences(small, big) == ["input shapes x=1x3x8x8 vs x=1x3x64x64"]
    assert main(["compare", small.run_id, big.run_id, "--db", str(db)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "A and B are different configurations: input shapes x=1x3x8x8 vs x=1x3x64x64" in err
    old = make_result(model="models/net.onnx")
    assert identity_differences(small, old)[-1] == ("B stores no model content hash: identified by its path as "
                                                    "typed (models/net.onnx)")


def test_an_accelerator_is_part_of_the_configuration_and_a_cpu_run_keeps_its_key():
    """A CUDA run and a CPU run of one model are two configurations (compare, check, report); the key of a CPU run
    is the one it had before the accelerator was part of the identity."""
    from edgeprof.analysis.compare import identity_differences
    from edgeprof.records import Environment
    from edgeprof.records.options import RuntimeFacts, RuntimeOptions

    def on(runtime, facts):
        r = file_result("net.onnx")
        return dataclasses.replace(r, runtime=runtime, environment=dataclasses.replace(r.environment, runtime=facts))

    cpu = on("onnxruntime", RuntimeFacts(runtime="onnxruntime", providers=["CPUExecutionProvider"]))
    bare = file_result("net.onnx")
    assert cpu.identity.accelerator is None and cpu.identity.key() == dataclasses.replace(
        cpu.identity, accelerator=None).key()
    before = ConfigIdentity(cpu.device, cpu.model, "onnxruntime", cpu.precision, cpu.batch, cpu.threads,
                            cpu.artifact.source, cpu.identity.content, cpu.identity.shapes)
    assert cpu.identity.key() == before.key()  # unchanged for CPU runs
    cuda = on("onnxruntime", RuntimeFacts(runtime="onnxruntime", providers=["CUDAExecutionProvider",
                                                                            "CPUExecutionProvider"],
                                          options=RuntimeOptions(providers_requested=["CUDAExecutionProvider",
                                                                                      "CPUExecutionProvider"])))
    assert cuda.identity.accelerator == "CUDAExecutionProvider" and cuda.identity.key() != cpu.identity.key()
    assert "on CUDAExecutionProvider" in cuda.identity.label()
    assert "accelerator CPU vs CUDAExecutionProvider" in identity_differences(cpu, cuda)
    gen_cpu = on("onnxruntime-genai", RuntimeFacts(runtime="onnxruntime-genai", options=RuntimeOptions(provider="cpu")))
    gen_cuda = on("onnxruntime-genai", RuntimeFacts(runtime="onnxruntime-genai",
                                                    options=RuntimeOptions(provider="cuda")))
    assert gen_cpu.identity.accelerator is None and gen_cuda.identity.accelerator == "cuda"
    assert gen_cpu.identity.key() != gen_cuda.identity.key()
    assert isinstance(bare.environment, Environment) and bare.identity.accelerator is None  # no runtime facts


def test_a_phones_gpu_delegate_is_another_configuration_than_its_cpu():
    from edgeprof.records.phone import PhoneBenchmark

    base = file_result("net.onnx")
    runs = {d: dataclasses.replace(base, runtime="tflite", phone=PhoneBenchmark(delegate=d))
            for d in ("cpu", "xnnpack", "gpu", "nnapi")}
    assert runs["cpu"].identity.accelerator is None and runs["xnnpack"].identity.accelerator is None
    assert runs["xnnpack"].identity.key() == dataclasses.replace(base, runtime="tflite").identity.key()
    assert runs["gpu"].identity.accelerator == "gpu" and runs["nnapi"].identity.accelerator == "nnapi"
    assert len({r.identity.key() for r in runs.values()}) == 3  # cpu and xnnpack one key; gpu, nnapi their own
    assert "on gpu" in runs["gpu"].identity.label()
