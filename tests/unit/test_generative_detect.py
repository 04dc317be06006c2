"""edgeprof/generative/detect.py: each kind of generative model is recognised and its dimensions read; each bad
input ends in ONE line (ModelError / ConfigError) that says what is wrong with which file."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from edgeprof.errors import ConfigError, ModelError, UserError
from edgeprof.generative.detect import detect, read_gguf_header
from edgeprof.generative.gguf_writer import write_gguf
from edgeprof_models.generative import get_generative, write_hf_folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return write_hf_folder(get_generative("llama_tiny"), tmp_path_factory.mktemp("gen") / "hf", seed=0)


@pytest.fixture(scope="module")
def tiny_gguf(tiny, tmp_path_factory) -> Path:
    pytest.importorskip("gguf")
    out = tmp_path_factory.mktemp("gguf") / "tiny-q8_0.gguf"
    write_gguf(tiny, out, "q8_0")
    return out


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy(src, dst)
    return dst


def _one_line(excinfo, *parts: str) -> str:
    text = str(excinfo.value)
    assert isinstance(excinfo.value, UserError) and "\n" not in text, text
    for p in parts:
        assert p in text, (p, text)
    return text


def test_hf_folder_dimensions(tiny):
    info = detect(tiny)
    assert (info.kind, info.architecture, info.weights) == ("hf", "llama", "F32")
    assert (info.context_length, info.layers, info.heads, info.kv_heads, info.head_dim, info.hidden_size,
            info.vocab_size) == (4096, 4, 8, 4, 32, 256, 2048)
    # 2 (K, V) × 4 layers × 4 KV heads × 32 × 100 tokens × 4 bytes
    assert info.kv_cache_bytes(100, 4) == 2 * 4 * 4 * 32 * 100 * 4


def test_gguf_dimensions_and_precision_label(tiny_gguf):
    info = detect(tiny_gguf)
    assert (info.kind, info.architecture, info.weights) == ("gguf", "llama", "MOSTLY_Q8_0")
    assert (info.context_length, info.layers, info.heads, info.kv_heads, info.head_dim, info.vocab_size) == \
        (4096, 4, 8, 4, 32, 2048)


def test_depth_past_the_context_is_refused_in_one_line(tiny):
    info = detect(tiny)
    assert info.check_context(3072, 512, 512) == 4096  # exactly the context: allowed
    with pytest.raises(ConfigError) as e:
        info.check_context(3500, 512, 128)
    _one_line(e, "--depth 3500", "4140 tokens", "context", "4096", "lower --depth to at most 3456")


def test_folder_without_tokenizer(tiny, tmp_path):
    d = _copy(tiny, tmp_path)
    (d / "tokenizer.json").unlink()
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, str(d), "no tokenizer (tokenizer.json or tokenizer.model)")


def test_folder_without_weights_and_with_only_bin_weights(tiny, tmp_path):
    d = _copy(tiny, tmp_path)
    (d / "model.safetensors").unlink()
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "no weights (model.safetensors)")
    (d / "pytorch_model.bin").write_bytes(b"x")
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "only pytorch_model*.bin", "safe_serialization=True")


def test_truncated_safetensors(tiny, tmp_path):
    d = _copy(tiny, tmp_path)
    w = d / "model.safetensors"
    with w.open("r+b") as f:
        f.truncate(w.stat().st_size - 1000)
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, str(w), "truncated", "lm_head.weight")  # the last tensor written is the one cut


def test_config_that_is_not_json_or_lacks_a_dimension(tiny, tmp_path):
    d = _copy(tiny, tmp_path)
    (d / "config.json").write_text("{not json")
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "config.json", "is not valid JSON")
    cfg = get_generative("llama_tiny").config()
    del cfg["num_hidden_layers"]
    (d / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "'num_hidden_layers'")


def test_sharded_folder_missing_a_shard(tiny, tmp_path):
    d = _copy(tiny, tmp_path)
    (d / "model.safetensors").rename(d / "model-00001-of-00002.safetensors")
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors", "lm_head.weight": "model-00002-of-00002.safetensors"}}))
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "lacks the weight shard model-00002-of-00002.safetensors")


def test_gguf_with_a_wrong_magic(tiny_gguf, tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"<!DOCTYPE html>" + tiny_gguf.read_bytes()[15:200])
    with pytest.raises(ModelError) as e:
        detect(bad)
    _one_line(e, "is not a GGUF file", "b'<!DO'")


def test_gguf_with_its_tensor_data_cut_short(tiny_gguf, tmp_path):
    bad = _copy(tiny_gguf, tmp_path)
    size = bad.stat().st_size
    with bad.open("r+b") as f:
        f.truncate(size - 4096)
    with pytest.raises(ModelError) as e:
        detect(bad)
    _one_line(e, "truncated", f"the file has {size - 4096} bytes", "tensor 'output.weight'")


def test_gguf_cut_inside_its_header(tiny_gguf, tmp_path):
    bad = _copy(tiny_gguf, tmp_path)
    header_end = read_gguf_header(tiny_gguf).data_start
    with bad.open("r+b") as f:
        f.truncate(header_end // 2)
    with pytest.raises(ModelError) as e:
        detect(bad)
    _one_line(e, "ends inside its GGUF header", "truncated")


def test_gguf_of_an_unknown_version(tiny_gguf, tmp_path):
    bad = _copy(tiny_gguf, tmp_path)
    with bad.open("r+b") as f:
        f.seek(4)
        f.write(struct.pack("<I", 1))
    with pytest.raises(ModelError) as e:
        detect(bad)
    _one_line(e, "GGUF version 1")


def test_ortgenai_folder(tmp_path):
    d = tmp_path / "og"
    d.mkdir()
    cfg = {"model": {"type": "llama", "context_length": 4096, "vocab_size": 32000, "decoder": {
        "filename": "model.onnx", "head_size": 64, "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 16, "num_key_value_heads": 8}}}
    (d / "genai_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "lacks model.onnx, the decoder its genai_config.json names")
    (d / "model.onnx").write_bytes(b"\x08\x07")
    info = detect(d)
    assert (info.kind, info.context_length, info.layers, info.kv_heads, info.head_dim) == ("ortgenai", 4096, 16, 8, 64)
    assert info.kv_cache_bytes(4096, 2) == 2 * 16 * 8 * 64 * 4096 * 2
    cfg["model"]["decoder"]["filename"] = "../elsewhere.onnx"
    (d / "genai_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError) as e:
        detect(d)
    _one_line(e, "names no usable decoder file")


def _litertlm(tiny: Path, out: Path) -> Path:
    from litert_lm_builder import litertlm_builder as lb

    blob = out.with_suffix(".bin")
    blob.write_bytes(bytes(range(256)) * 200)
    b = lb.LitertLmFileBuilder()
    b.add_hf_tokenizer(str(tiny / "tokenizer.json"))
    b.add_generic_binary_data(str(blob))
    with out.open("wb") as f:
        b.build(f)
    return out


def test_litertlm_file_written_by_litert_lm_builder(tiny, tmp_path):
    pytest.importorskip("litert_lm_builder")
    f = _litertlm(tiny, tmp_path / "m.litertlm")
    info = detect(f)
    assert info.kind == "litertlm" and info.weights is not None and info.weights.startswith("LiteRT-LM 1.")
    assert info.kv_cache_bytes(100, 2) is None and any("not read" in n for n in info.notes)


def test_truncated_litertlm(tiny, tmp_path):
    pytest.importorskip("litert_lm_builder")
    f = _litertlm(tiny, tmp_path / "m.litertlm")
    size = f.stat().st_size
    with f.open("r+b") as fh:
        fh.truncate(size - 100)
    with pytest.raises(ModelError) as e:
        detect(f)
    _one_line(e, "section 1", f"ends at byte {size}", "truncated")


def test_litertlm_with_a_wrong_magic_and_unknown_files(tmp_path):
    f = tmp_path / "m.litertlm"
    f.write_bytes(b"PK\x03\x04" + bytes(60))
    with pytest.raises(ModelError) as e:
        detect(f)
    _one_line(e, "is not a LiteRT-LM file")
    other = tmp_path / "m.bin"
    other.write_bytes(b"\0" * 64)
    with pytest.raises(ModelError) as e:
        detect(other)
    _one_line(e, "is not a generative model edgeprof knows")
    with pytest.raises(ModelError) as e:
        detect(tmp_path / "absent")
    _one_line(e, "no such file or folder")
    with pytest.raises(ModelError) as e:
        detect(tmp_path)
    _one_line(e, "neither a Hugging Face model folder")
