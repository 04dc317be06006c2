"""edgeprof/generative/gguf_writer.py and build.py: the GGUF a llama Hugging Face folder becomes, read back with the
gguf package's own GGUFReader (keys, tensor names, tensor types, values), and the cached builds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from edgeprof.errors import ModelError  # noqa: E402
from edgeprof.generative import build  # noqa: E402
from edgeprof.generative.detect import load_tensor, read_safetensors_header  # noqa: E402
from edgeprof.generative.gguf_writer import write_gguf  # noqa: E402
from edgeprof_models.generative import get_generative, write_hf_folder  # noqa: E402

T = gguf.GGMLQuantizationType
QUANT_TYPE = {"f16": T.F16, "q8_0": T.Q8_0, "q4_0": T.Q4_0}
FILE_TYPE = {"f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
             "q4_0": gguf.LlamaFileType.MOSTLY_Q4_0}
PER_BLOCK = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return write_hf_folder(get_generative("llama_tiny"), tmp_path_factory.mktemp("gen") / "hf", seed=0)


def _kv(reader, key):
    f = reader.fields[key]
    return f.contents()


@pytest.mark.parametrize("quant", ["f16", "q8_0", "q4_0"])
def test_keys_names_and_types_read_back(tiny, tmp_path, quant):
    out = tmp_path / f"tiny-{quant}.gguf"
    summary = write_gguf(tiny, out, quant, name="llama_tiny")
    r = gguf.GGUFReader(out)
    assert _kv(r, "general.architecture") == "llama" and _kv(r, "general.name") == "llama_tiny"
    assert _kv(r, "general.file_type") == FILE_TYPE[quant] and summary.file_type == FILE_TYPE[quant].name
    for key, want in (("llama.block_count", 4), ("llama.context_length", 4096), ("llama.embedding_length", 256),
                      ("llama.feed_forward_length", 704), ("llama.attention.head_count", 8),
                      ("llama.attention.head_count_kv", 4), ("llama.rope.dimension_count", 32),
                      ("llama.vocab_size", 2048), ("tokenizer.ggml.bos_token_id", 1),
                      ("tokenizer.ggml.eos_token_id", 2), ("tokenizer.ggml.unknown_token_id", 0)):
        assert _kv(r, key) == want, key
    assert _kv(r, "tokenizer.ggml.model") == "llama"
    tokens = _kv(r, "tokenizer.ggml.tokens")
    assert len(tokens) == 2048 and tokens[:3] == ["<unk>", "<s>", "</s>"] and tokens[3 + 10] == "<0x0A>"
    types = _kv(r, "tokenizer.ggml.token_type")
    assert types[1] == gguf.TokenType.CONTROL and types[13] == gguf.TokenType.BYTE and types[300] == gguf.TokenType.NORMAL

    tensors = {t.name: t for t in r.tensors}
    want = {"token_embd.weight", "output_norm.weight", "output.weight"} | {
        f"blk.{i}.{n}.weight" for i in range(4) for n in PER_BLOCK}
    assert set(tensors) == want
    for name, t in tensors.items():
        is_norm = name.endswith("norm.weight")
        assert t.tensor_type == (T.F32 if is_norm else QUANT_TYPE[quant]), name  # the label is what was written
    assert summary.tensor_types == {QUANT_TYPE[quant].name: 30, "F32": 9} and summary.fallbacks == ()
    assert [int(x) for x in tensors["blk.0.ffn_down.weight"].shape] == [704, 256]  # ne0 = the row length


def _hf(tiny, name):
    header, start = read_safetensors_header(tiny / "model.safetensors")
    return load_tensor(tiny / "model.safetensors", header, start, name)


def test_values_are_the_folders_with_q_and_k_permuted_for_ggml(tiny, tmp_path):
    out = tmp_path / "tiny-q8_0.gguf"
    write_gguf(tiny, out, "q8_0")
    r = gguf.GGUFReader(out)
    tensors = {t.name: t for t in r.tensors}

    def deq(name):
        t = tensors[name]
        return gguf.quants.dequantize(t.data, t.tensor_type).reshape([int(x) for x in reversed(t.shape)])

    emb = _hf(tiny, "model.embed_tokens.weight")
    assert np.abs(deq("token_embd.weight") - emb).max() < 0.02 * 4 / 127  # Q8_0: within one step of its scale
    q = _hf(tiny, "model.layers.0.self_attn.q_proj.weight")
    k = _hf(tiny, "model.layers.0.self_attn.k_proj.weight")

    def permute(w, n_head):  # convert_hf_to_gguf.py LlamaModel.permute
        return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    assert np.abs(deq("blk.0.attn_q.weight") - permute(q, 8)).max() < 0.001
    assert np.abs(deq("blk.0.attn_k.weight") - permute(k, 4)).max() < 0.001
    assert np.abs(deq("blk.0.attn_q.weight") - q).max() > 0.01  # really permuted
    v = _hf(tiny, "model.layers.0.self_attn.v_proj.weight")
    assert np.abs(deq("blk.0.attn_v.weight") - v).max() < 0.001  # V is not permuted
    assert np.array_equal(tensors["blk.0.attn_norm.weight"].data, np.ones(256, np.float32))


def test_tied_embeddings_and_llama3_rope_factors(tmp_path):
    shape = dataclasses.replace(get_generative("llama_tiny"), name="tied", tie_word_embeddings=True,
                                rope_llama3=(32.0, 1.0, 4.0, 64), rope_theta=500000.0)
    folder = write_hf_folder(shape, tmp_path / "hf")
    out = tmp_path / "tied.gguf"
    write_gguf(folder, out, "f16")
    r = gguf.GGUFReader(out)
    tensors = {t.name: t for t in r.tensors}
    assert "output.weight" not in tensors  # llama.cpp reuses token_embd
    rope = tensors["rope_freqs.weight"]
    assert rope.tensor_type == T.F32 and rope.data.shape == (16,)
    # head dim 32, theta 5e5: the fastest frequencies keep factor 1, the slowest get the full factor 32
    assert rope.data[0] == 1.0 and rope.data[-1] == 32.0
    assert all(1.0 <= x <= 32.0 for x in rope.data)


def test_rows_off_the_block_size_stay_f16_and_are_listed(tmp_path):
    shape = dataclasses.replace(get_generative("llama_tiny"), name="odd", intermediate_size=688)
    folder = write_hf_folder(shape, tmp_path / "hf")
    s = write_gguf(folder, tmp_path / "odd.gguf", "q4_0")
    assert s.file_type == "MOSTLY_Q4_0"
    assert s.fallbacks == tuple(f"blk.{i}.ffn_down.weight" for i in range(4))
    r = gguf.GGUFReader(tmp_path / "odd.gguf")
    types = {t.name: t.tensor_type for t in r.tensors}
    assert types["blk.0.ffn_down.weight"] == T.F16 and types["blk.0.ffn_up.weight"] == T.Q4_0


def test_refuses_another_architecture_and_precision(tiny, tmp_path):
    with pytest.raises(ModelError, match="unknown GGUF precision 'q5_k'"):
        write_gguf(tiny, tmp_path / "x.gguf", "q5_k")
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text('{"model_type": "gpt2"}')
    with pytest.raises(ModelError, match="edgeprof writes GGUF for llama and qwen2 only"):
        write_gguf(other, tmp_path / "x.gguf", "f16")


def test_cached_builds_are_keyed_by_content(tmp_path):
    cache = tmp_path / "cache"
    a = build.hf_folder("llama_tiny", cache_dir=cache)
    assert not a.cache_hit and a.format == "hf" and a.params == 4_000_000 and a.source == "bundled:llama_tiny"
    folder = Path(a.path).parent
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "generation_config.json", "meta.json",
                                                        "model.safetensors", "tokenizer.json", "tokenizer_config.json"]
    assert build.hf_folder("llama_tiny", cache_dir=cache).cache_hit
    assert build.hf_folder("llama_tiny", seed=1, cache_dir=cache).sha256 != a.sha256
    g = build.gguf_file(folder, "q4_0", cache_dir=cache, name="llama_tiny")
    assert g.format == "gguf" and g.precision == "q4_0" and g.export_options.file_type == "MOSTLY_Q4_0"
    assert build.gguf_file(folder, "q4_0", cache_dir=cache).cache_hit
    assert build.gguf_file(folder, "q8_0", cache_dir=cache).path != g.path
    with pytest.raises(ModelError, match="unknown onnxruntime-genai precision 'int8'"):
        build.ortgenai_folder(folder, "int8", cache_dir=cache)


def test_a_conversion_checks_its_source_folder_first(tiny, tmp_path):
    import shutil

    bad = tmp_path / "notok"
    shutil.copytree(tiny, bad)
    (bad / "tokenizer.json").unlink()
    for convert in (lambda: build.ortgenai_folder(bad, "fp32", cache_dir=tmp_path / "c"),
                    lambda: build.gguf_file(bad, "f16", cache_dir=tmp_path / "c")):
        with pytest.raises(ModelError, match="has no tokenizer") as e:
            convert()
        assert "\n" not in str(e.value)
    assert not (tmp_path / "c").exists()  # nothing built, no log
