"""A user's own .litertlm on a board (issue 36): the .litertlm edgeprof builds from llama_tiny (generative/build.py
litertlm_file, cached), copied outside the cache as "a user's file", so nothing about it comes from the folder it was
built from. Its vocabulary and KV cache are read from the file on the host (generative/litertlm_read.py) and equal
what edgeprof tells the backend for the build itself (litertlm_options: the folder's config.json); deployed on
`--device local` as it is (precision as-built), read back with `results show --json`, the result saying where the
figures came from; hostile copies (cut short at several offsets, a flipped magic, the tokenizer section removed with
litert-lm-builder) each end in one line and store nothing. The build needs litert-torch (20-60 s the first time,
then cached); the run needs litert-lm-api: both the litert-lm extra, skipped, saying so, without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from edgeprof.cli.main import main

pytestmark = pytest.mark.gen

PROMPT, GEN, REPS = 64, 16, 2


@pytest.fixture(scope="module")
def built(gen_cache, tiny_hf):
    """llama_tiny as a .litertlm for runs of up to 256 tokens: the same cache entry test_generate_litertlm.py uses."""
    pytest.importorskip("litert_torch", reason="litert-torch is not installed (pip install 'edgeprof[litert-lm]')")
    pytest.importorskip("litert_lm_builder", reason="litert-lm-builder is not installed")
    pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed")
    from edgeprof.generative.build import litertlm_file

    return litertlm_file(tiny_hf, "wi8_afp32", PROMPT + GEN, cache_dir=gen_cache, name="llama_tiny")


@pytest.fixture
def user_file(built, tmp_path) -> Path:
    """The build copied outside the cache, under a name of the user's."""
    f = tmp_path / "users" / "my-model.litertlm"
    f.parent.mkdir()
    shutil.copyfile(built.path, f)
    return f


def test_the_dims_read_from_the_file_equal_those_edgeprof_tells_the_backend_for_its_build(built, user_file):
    from edgeprof.generative.litertlm_read import read_litertlm
    from edgeprof.records import RunSpec
    from edgeprof.session.genartifact import litertlm_options

    spec = RunSpec(model="llama_tiny", device="local", runtime="litert-lm", precision="wi8_afp32")
    told = litertlm_options(spec, built)  # from llama_tiny's config.json
    d = read_litertlm(user_file)
    mine = d.options()
    assert mine["vocab_size"] == told["vocab_size"] == 2048
    assert mine["kv_cache"] == told["kv_cache"]  # layers 4, KV heads 4, head dim 32, cache 256, float32
    assert (d.logits, d.tokenizer, d.tokenizer_size) == (2048, "HF tokenizer.json", 2048)
    assert (d.cache_length, d.max_num_tokens, list(d.prefill_lengths)) == (
        built.export_options.cache_length, 256, built.export_options.prefill_lengths)
    assert d.axis_from == "ExecutorMetadata" and d.k_shape == (1, 4, 256, 32)


def test_deploy_local_runs_the_users_file_as_it_is_and_says_where_its_dims_came_from(user_file, tmp_path, capsys,
                                                                                    monkeypatch):
    pytest.importorskip("litert_lm", reason="litert-lm-api is not installed (pip install 'edgeprof[litert-lm]')")
    from edgeprof.agentlink.push import sha256_file

    monkeypatch.setenv("HOME", str(tmp_path))
    db = str(tmp_path / "r.sqlite")
    code = main(["deploy", "--device", "local", "--model", str(user_file), "--runtime", "litert-lm",
                 "--prompt-tokens", str(PROMPT), "--gen-tokens", str(GEN), "--repetitions", str(REPS),
                 "--threads", "1", "--db", db, "--json", "-", "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    r = json.loads(cap.out)
    assert (r["runtime"], r["precision"], r["model"]) == ("litert-lm", "as-built", str(user_file))
    art = r["artifact"]
    assert (art["format"], art["path"], art["sha256"]) == ("litertlm", str(user_file), sha256_file(user_file))
    assert art["export_options"] == {"kind": "litertlm", "weights": "LiteRT-LM 1.7.0", "cache_length": 256,
                                     "prefill_lengths": [32, 128]}
    g = r["generation"]
    assert (g["prompt_tokens"], g["tokens"], g["repetitions"]) == (PROMPT, GEN, REPS)
    assert all(len(t) == GEN for t in g["token_ns"]) and g["decode_tps"]["mean"] > 0
    kv = g["kv_cache"]
    assert (kv["layers"], kv["kv_heads"], kv["head_dim"], kv["n_ctx"], kv["bytes"]) == (4, 4, 32, 256,
                                                                                       2 * 4 * 4 * 32 * 256 * 4)
    opts = r["environment"]["runtime"]["options"]["passthrough"]
    assert opts["dims_from"].startswith("read from the .litertlm's TFLite signatures: decode's logits (2048) and 4 "
                                        "KV cache layers [1, 4, 256, 32] float32")
    assert opts["vocab_size"] == 2048 and opts["dims_from"] in kv["how"]
    info = json.loads(opts["benchmark_info"])  # LiteRT-LM's own counts agree with the ids fed and tokens read
    assert [(b["prefill_tokens"], b["decode_tokens"]) for b in info] == [(PROMPT, GEN)] * REPS
    assert main(["results", "show", r["run_id"], "--db", db, "--json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["generation"] == g and back["artifact"] == art
    assert back["environment"]["runtime"]["options"]["passthrough"]["dims_from"] == opts["dims_from"]


def _without_tokenizer(src: Path, work: Path) -> Path:
    """`src` repackaged by litert-lm-builder from its own sections (litertlm_peek's dump), the tokenizer left out."""
    import io

    from litert_lm_builder import litertlm_builder as lb
    from litert_lm_builder import litertlm_peek

    dump = work / "dump"
    litertlm_peek.peek_litertlm_file(str(src), str(dump), io.StringIO())
    b = lb.LitertLmFileBuilder()
    b.add_llm_metadata(str(dump / "LlmMetadataProto.pbtext"))
    b.add_executor_metadata(str(dump / "ExecutorMetadataProto.pbtext"))
    (tflite,) = dump.glob("Section*_TFLiteModel_*.tflite")
    b.add_tflite_model(str(tflite), lb.TfLiteModelType.PREFILL_DECODE)
    out = work / "no-tokenizer.litertlm"
    with out.open("wb") as f:
        b.build(f)
    return out


def test_hostile_copies_each_end_in_one_line_and_store_nothing(user_file, tmp_path, capsys, monkeypatch):
    """Cut short inside the fixed header, the header flatbuffer, the TFLite section and one byte before the end;
    the magic flipped; the tokenizer section removed. No device runtime is needed: each is refused before the
    agent starts."""
    from edgeprof.store import Store

    monkeypatch.setenv("HOME", str(tmp_path))
    data = user_file.read_bytes()
    cases: list[tuple[Path, str]] = []
    for cut in (20, 200, len(data) // 2, len(data) - 1):
        f = tmp_path / f"cut-{cut}.litertlm"
        f.write_bytes(data[:cut])
        cases.append((f, "too short for a LiteRT-LM file" if cut < 32 else "truncated"))
    flipped = tmp_path / "flipped.litertlm"
    flipped.write_bytes(b"LITERTLN" + data[8:])
    cases.append((flipped, "is not a LiteRT-LM file (it starts with b'LITERTLN', not b'LITERTLM')"))
    (tmp_path / "rebuild").mkdir()
    cases.append((_without_tokenizer(user_file, tmp_path / "rebuild"),
                  "has no tokenizer section (HF_Tokenizer_Zlib or SP_Tokenizer)"))
    db = str(tmp_path / "r.sqlite")
    for f, says in cases:
        code = main(["deploy", "--device", "local", "--model", str(f), "--runtime", "litert-lm", "--prompt-tokens",
                     "16", "--gen-tokens", "8", "--db", db, "--quiet"])
        cap = capsys.readouterr()
        err = cap.err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and says in err, (f.name, err)
        assert str(f) in err and "Traceback" not in cap.err
    assert Store(db).list(limit=None) == []


def test_a_sweep_runs_the_users_file_and_skips_a_cell_past_its_cache(user_file, tmp_path, capsys, monkeypatch):
    """Two cells of the user's file on local: pp16 tg8 fits its 256-token cache and is stored ok (as-built, the
    dims read from the file); pp250 tg8 is a skip row with the one line, decided before connecting."""
    pytest.importorskip("litert_lm", reason="litert-lm-api is not installed (pip install 'edgeprof[litert-lm]')")
    from edgeprof.store import Store

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "s.yaml").write_text(
        f"name: users-file\nmodels: ['{user_file}']\ndevices: [local]\nruntimes: [litert-lm]\nthreads: [1]\n"
        "prompt_tokens: [16, 250]\ngen_tokens: [8]\n"
        "settings: {repetitions: 2, idle_s: 0, timeout_s: 300, retries: 0}\n")
    db = str(tmp_path / "r.sqlite")
    code = main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    store = Store(db)
    rows = {r.sweep.cell_id.rsplit("/", 3)[1]: r for r in (store.get(x.run_id) for x in store.list(
        sweep_id=(tmp_path / "id").read_text().strip(), limit=None)) if r.sweep is not None}
    assert set(rows) == {"pp16", "pp250"}
    ok, skipped = rows["pp16"], rows["pp250"]
    assert ok.status == "ok" and ok.precision == "as-built" and ok.generation is not None
    assert ok.generation.tokens == 8 and ok.artifact is not None and ok.artifact.path == str(user_file)
    assert skipped.status == "skipped" and skipped.reason is not None
    assert skipped.reason.startswith("--depth 0 + 250 prompt + 8 generated = 258 tokens do not fit the KV cache of "
                                     f"{user_file} (256 tokens")
