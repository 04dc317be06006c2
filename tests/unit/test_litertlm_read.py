"""Reading a user's .litertlm's vocabulary and KV cache on the host (edgeprof/generative/litertlm_read.py), on files
written here by the real libraries: the TFLite flatbuffer by ai_edge_litert's own schema (object API: tensors and
signatures, no ops: the reader never runs a graph), packaged by litert-lm-builder with a tokenizer and metadata
protos, as litert-torch's export lays them out (K [1, heads, length, dim], V [1, heads, dim, length], ExecutorMetadata
naming each cache's sequence axis; seen in a real llama_tiny build, tests/gen/test_user_litertlm.py). Each file
the reader cannot size gives one line, and so does a run past the cache; deploy refuses it before connecting and
stores nothing. Needs litert-lm-builder and ai-edge-litert (the litert-lm extra); skipped without them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("litert_lm_builder", reason="litert-lm-builder is not installed (pip install 'edgeprof[litert-lm]')")
pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed (pip install 'edgeprof[litert-lm]')")

from edgeprof.errors import ConfigError, ModelError  # noqa: E402
from edgeprof.generative import litertlm_read  # noqa: E402
from edgeprof.generative.litertlm_read import read_litertlm  # noqa: E402

F32, F16 = "FLOAT32", "FLOAT16"
LAYERS, HEADS, DIM, CTX, VOCAB = 3, 2, 16, 64, 300


def _sig(n, k=(1, HEADS, CTX, DIM), v=(1, HEADS, DIM, CTX), dtype=F32, mask=True, logits=True, layers=LAYERS,
         k_sig=None):
    """One signature's inputs and outputs: name → (shape, TFLite type, shape signature or None)."""
    ins = {"tokens": ((1, n), "INT32", None), "input_pos": ((n,), "INT32", None)}
    if mask:
        ins["mask"] = ((1, 1, n, CTX), F32, None)
    for i in range(layers):
        ins[f"kv_cache_k_{i}"] = (tuple(k), dtype, k_sig)
        ins[f"kv_cache_v_{i}"] = (tuple(v), dtype, None)
    outs = {name: t for name, t in ins.items() if name.startswith("kv_cache")}
    if logits and n == 1:
        outs["logits"] = ((1, 1, VOCAB), F32, None)
    return ins, outs


def _tflite(path: Path, sigs: dict) -> Path:
    """A TFLite flatbuffer with one subgraph per signature, written through ai_edge_litert's schema."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as s

    m = s.ModelT()
    m.version, m.buffers, m.subgraphs, m.signatureDefs = 3, [s.BufferT()], [], []
    for key, (ins, outs) in sigs.items():
        g = s.SubGraphT()
        g.tensors, g.inputs, g.outputs, g.operators = [], [], [], []
        sd = s.SignatureDefT()
        sd.signatureKey, sd.subgraphIndex, sd.inputs, sd.outputs = key, len(m.subgraphs), [], []
        for names, where in ((ins, sd.inputs), (outs, sd.outputs)):
            for name, (shape, dtype, shape_sig) in names.items():
                t = s.TensorT()
                t.name, t.shape, t.type, t.buffer = name, list(shape), getattr(s.TensorType, dtype), 0
                if shape_sig is not None:
                    t.shapeSignature = list(shape_sig)
                tm = s.TensorMapT()
                tm.name, tm.tensorIndex = name, len(g.tensors)
                g.tensors.append(t)
                where.append(tm)
        m.subgraphs.append(g)
        m.signatureDefs.append(sd)
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    path.write_bytes(bytes(b.Output()))
    return path


def _tokenizer(path: Path, n: int) -> Path:
    vocab = {f"w{i}": i for i in range(3, n)}
    path.write_text(json.dumps({"model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"},
                                "added_tokens": [{"id": i, "content": c} for i, c in
                                                 enumerate(("<unk>", "<s>", "</s>"))]}))
    return path


def _litertlm(tmp: Path, sigs: dict | None = None, tokenizer: int | None = VOCAB, executor: str | None = "axis",
              llm: bool = True, model_type=None, name="user.litertlm") -> Path:
    from litert_lm_builder import litertlm_builder as lb

    b = lb.LitertLmFileBuilder()
    if llm:
        (tmp / "llm.pbtxt").write_text("max_num_tokens: 48\nstop_tokens { token_ids { ids: 2 } }\n")
        b.add_llm_metadata(str(tmp / "llm.pbtxt"))
    if executor == "axis":  # as litert-torch's export writes it: K's sequence axis 2, V's 3
        text = f"llm_executor_metadata {{\n  max_history_size: {CTX}\n"
        for i in range(LAYERS):
            for kv, axis in (("k", 2), ("v", 3)):
                t = f"kv_cache_{kv}_{i}"
                text += (f"  state_buffers {{ prefill_input_name: '{t}' prefill_output_name: '{t}' "
                         f"decode_input_name: '{t}' decode_output_name: '{t}' sequence_axis: {axis} "
                         f"maximum_sequence_length: {CTX} }}\n")
        (tmp / "exec.pbtxt").write_text(text + "}\n")
        b.add_executor_metadata(str(tmp / "exec.pbtxt"))
    if tokenizer is not None:
        b.add_hf_tokenizer(str(_tokenizer(tmp / "tokenizer.json", tokenizer)))
    if sigs is None:
        sigs = {"prefill_8": _sig(8), "prefill_32": _sig(32), "decode": _sig(1)}
    b.add_tflite_model(str(_tflite(tmp / "model.tflite", sigs)), model_type or lb.TfLiteModelType.PREFILL_DECODE)
    out = tmp / name
    with out.open("wb") as f:
        b.build(f)
    return out


def _one_line(exc: pytest.ExceptionInfo) -> str:
    line = exc.value.one_line()
    assert "\n" not in line
    return line


def test_the_figures_are_read_from_the_signatures_tokenizer_and_metadata(tmp_path):
    d = read_litertlm(_litertlm(tmp_path))
    assert (d.vocab_size, d.logits, d.tokenizer_size) == (VOCAB, VOCAB, VOCAB)
    assert (d.layers, d.kv_heads, d.head_dim, d.cache_length) == (LAYERS, HEADS, DIM, CTX)
    assert (d.dtype, d.bytes_per_element, d.sequence_axis, d.axis_from) == ("float32", 4, 2, "ExecutorMetadata")
    assert d.max_num_tokens == 48 and d.prefill_lengths == (8, 32)
    assert d.options() == {"vocab_size": VOCAB, "kv_cache": {"layers": LAYERS, "kv_heads": HEADS, "head_dim": DIM,
                                                             "cache_length": CTX, "dtype": "float32",
                                                             "bytes_per_element": 4},
                           "dims_from": d.source}
    assert d.source.startswith(f"read from the .litertlm's TFLite signatures: decode's logits ({VOCAB}) and "
                               f"{LAYERS} KV cache layers [1, {HEADS}, {CTX}, {DIM}] float32 (sequence axis 2, from "
                               "ExecutorMetadata)")


def test_without_executor_metadata_the_decode_mask_finds_the_sequence_axis(tmp_path):
    """[1, length, heads, dim] (another exporter's layout): the axis whose length is the mask's context."""
    k = (1, CTX, HEADS, DIM)
    d = read_litertlm(_litertlm(tmp_path, {"decode": _sig(1, k=k, v=k)}, executor=None, llm=False))
    assert (d.sequence_axis, d.axis_from, d.kv_heads, d.head_dim, d.cache_length) == (1, "the decode mask", HEADS,
                                                                                      DIM, CTX)
    assert d.max_num_tokens is None and d.prefill_lengths == ()


def test_the_vocabulary_is_the_smaller_of_the_logits_and_the_tokenizer(tmp_path):
    """Ids are drawn below it: a tokenizer with fewer ids than the (padded) logits bounds them; one with more is
    bounded by the logits."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert read_litertlm(_litertlm(tmp_path / "a", tokenizer=VOCAB - 44)).vocab_size == VOCAB - 44
    d = read_litertlm(_litertlm(tmp_path / "b", tokenizer=VOCAB + 1))
    assert (d.vocab_size, d.tokenizer_size) == (VOCAB, VOCAB + 1)


def test_a_float16_cache_is_two_bytes_an_element(tmp_path):
    d = read_litertlm(_litertlm(tmp_path, {"decode": _sig(1, dtype=F16)}))
    assert (d.dtype, d.bytes_per_element) == ("float16", 2)


BAD = [  # (id, the file's parts, what the one line says)
    ("no-tokenizer", {"tokenizer": None}, "has no tokenizer section (HF_Tokenizer_Zlib or SP_Tokenizer)"),
    ("no-decode", {"sigs": {"prefill_8": _sig(8)}}, "its TFLite model has no 'decode' signature (signatures: "
                                                     "prefill_8)"),
    ("no-logits", {"sigs": {"decode": _sig(1, logits=False)}}, "its decode signature has no 'logits' output"),
    ("no-kv", {"sigs": {"decode": _sig(1, layers=0)}}, "its decode signature has no KV cache inputs"),
    ("dynamic", {"sigs": {"decode": _sig(1, k_sig=(1, HEADS, -1, DIM))}}, "its KV cache has a dynamic dimension"),
    ("rank", {"sigs": {"decode": _sig(1, k=(HEADS, CTX, DIM), v=(HEADS, DIM, CTX))}},
     f"its KV cache kv_cache_k_0 has shape [{HEADS}, {CTX}, {DIM}], not [1, a, b, c]"),
    ("ambiguous", {"sigs": {"decode": _sig(1, k=(1, HEADS, CTX, CTX), v=(1, HEADS, CTX, CTX))}, "executor": None},
     f"has 2 axes of length {CTX}, the decode mask's context, and no ExecutorMetadata names its sequence axis"),
    ("no-mask", {"sigs": {"decode": _sig(1, mask=False)}, "executor": None}, "has no attention mask input"),
    ("int32-cache", {"sigs": {"decode": _sig(1, dtype="INT32")}}, "its KV cache is INT32, a type edgeprof does "
                                                                   "not size"),
]


@pytest.mark.parametrize("parts,says", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_what_cannot_be_sized_is_one_line(tmp_path, parts, says):
    f = _litertlm(tmp_path, **parts)
    with pytest.raises(ModelError) as e:
        read_litertlm(f)
    line = _one_line(e)
    assert line.startswith(f"{f}: ") and says in line, line


def test_layers_of_different_caches_and_a_missing_graph_are_refused(tmp_path):
    from litert_lm_builder import litertlm_builder as lb

    ins, outs = _sig(1)
    ins["kv_cache_k_2"] = ((1, HEADS, CTX // 2, DIM), F32, None)  # a sliding-window layer's shorter cache
    f = _litertlm(tmp_path, {"decode": (ins, outs)})
    with pytest.raises(ModelError) as e:
        read_litertlm(f)
    assert "its layers' KV caches differ in shape or type (sliding-window or shared layers)" in _one_line(e)
    f = _litertlm(tmp_path, model_type=lb.TfLiteModelType.EMBEDDER, name="embedder.litertlm")
    with pytest.raises(ModelError) as e:
        read_litertlm(f)
    assert "has no TFLite prefill/decode model section (model_type tf_lite_prefill_decode; TFLite sections found: " \
           "tf_lite_embedder)" in _one_line(e)


def test_a_run_past_the_cache_is_one_line(tmp_path):
    d = read_litertlm(_litertlm(tmp_path))
    d.check_fits(16, 32, 16)  # exactly the 64 tokens of the cache
    with pytest.raises(ConfigError) as e:
        d.check_fits(16, 32, 17)
    assert _one_line(e).startswith(f"--depth 16 + 32 prompt + 17 generated = 65 tokens do not fit the KV cache of "
                                   f"{d.path} ({CTX} tokens, the length its graphs were built with)")


def test_a_host_without_the_readers_says_so_rather_than_guessing(tmp_path, monkeypatch):
    import sys

    f = _litertlm(tmp_path)
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # import fails as if not installed
    litertlm_read._CACHE.clear()
    with pytest.raises(ModelError) as e:
        read_litertlm(f)
    assert "reading a .litertlm's vocabulary and KV cache needs litert-lm-builder and ai-edge-litert on this host " \
           "(ai_edge_litert is not installed)" in _one_line(e)


def test_deploy_on_a_board_refuses_a_file_it_cannot_size_before_connecting(tmp_path, capsys, monkeypatch):
    """The agent's device: refused before anything connects or is pushed (AgentGeneration.refusal), one line,
    nothing stored; the same for a run longer than the file's cache. litert_lm is not needed: nothing runs."""
    from edgeprof.cli.main import main
    from edgeprof.store import Store

    monkeypatch.setenv("HOME", str(tmp_path))
    db = str(tmp_path / "r.sqlite")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    no_decode = _litertlm(tmp_path / "a", {"prefill_8": _sig(8)})
    short = _litertlm(tmp_path / "b")
    for f, extra, says in ((no_decode, [], "its TFLite model has no 'decode' signature"),
                           (short, ["--prompt-tokens", "60", "--gen-tokens", "8"],
                            "--depth 0 + 60 prompt + 8 generated = 68 tokens do not fit the KV cache of")):
        code = main(["deploy", "--device", "local", "--model", str(f), "--runtime", "litert-lm", "--db", db,
                     "--quiet", *extra])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1, err
        assert err.startswith(f"edgeprof: error: device local: {f}: " if f == no_decode else
                              "edgeprof: error: device local: --depth 0") and says in err, err
    assert Store(db).list(limit=None) == []
