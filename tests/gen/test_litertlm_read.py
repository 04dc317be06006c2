"""Reading a user's .litertlm's vocabulary and KV cache on the host (edgeprof/generative/litertlm_read.py), on files
written here by the real libraries (tests/litertlm_fixtures.py: the TFLite flatbuffer by ai_edge_litert's own
schema, tensors and signatures with no ops, packaged by litert-lm-builder with a tokenizer and metadata protos, as
litert-torch's export lays them out; a real build is read in tests/gen/test_user_litertlm.py). Each file
the reader cannot size gives one line, and so does a run past the cache; deploy refuses it before connecting and
stores nothing. Needs litert-lm-builder and ai-edge-litert (the litert-lm extra, which the generative lane installs:
scripts/gen-deps.sh); skipped without them, so it lives in that lane."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gen

pytest.importorskip("litert_lm_builder", reason="litert-lm-builder is not installed (pip install 'edgeprof[litert-lm]')")
pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed (pip install 'edgeprof[litert-lm]')")

from litertlm_fixtures import CTX, DIM, F16, F32, HEADS, LAYERS, VOCAB  # noqa: E402
from litertlm_fixtures import litertlm as _litertlm  # noqa: E402
from litertlm_fixtures import sig as _sig  # noqa: E402

from edgeprof.errors import ConfigError, ModelError  # noqa: E402
from edgeprof.generative import litertlm_read  # noqa: E402
from edgeprof.generative.litertlm_read import read_litertlm  # noqa: E402


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


def test_a_sentencepiece_tokenizer_is_counted_and_without_sentencepiece_the_logits_alone_are_used(
        tmp_path, monkeypatch):
    import sys

    pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (litert-torch brings it)")
    f = _litertlm(tmp_path, sp_tokenizer=30)
    d = read_litertlm(f)
    assert (d.tokenizer, d.tokenizer_size, d.vocab_size, d.logits) == ("SentencePiece", 30, 30, VOCAB)
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # as if not installed
    litertlm_read._CACHE.clear()
    d = read_litertlm(f)
    assert (d.tokenizer_size, d.vocab_size) == (None, VOCAB)
    assert d.source.endswith("its SentencePiece tokenizer section (size not read: sentencepiece is not installed)")
    litertlm_read._CACHE.clear()


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
    litertlm_read._CACHE.clear()


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
