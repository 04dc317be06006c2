"""edgeprof_models.generative: the bundled generative shapes, their seeded weights and the Hugging Face folder they
are written as — a folder transformers itself loads with no missing or unexpected weight, and whose tokenizer it
reads."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from edgeprof.errors import ModelError
from edgeprof_models import generative as gen


def test_catalogue():
    assert gen.generative_names() == ["llama3_2_1b_shape", "llama_tiny", "qwen2_5_0_5b_shape"]
    with pytest.raises(ModelError, match="unknown generative model 'llama_huge'"):
        gen.get_generative("llama_huge")


def test_parameter_counts_by_hand():
    tiny = gen.get_generative("llama_tiny")
    per_layer = 256 * 256 * 2 + 128 * 256 * 2 + 3 * 704 * 256 + 2 * 256  # q, o; k, v; gate, up, down; 2 norms
    assert tiny.parameter_count() == 2048 * 256 * 2 + 4 * per_layer + 256 == 4_000_000
    big = gen.get_generative("llama3_2_1b_shape")
    assert big.parameter_count() == 1_235_814_400  # Llama-3.2-1B's published count (tied embeddings)
    names = [n for n, _ in big.tensors()]
    assert len(names) == 1 + 16 * 9 + 1 and "lm_head.weight" not in names
    cfg = big.config()
    assert (cfg["num_key_value_heads"], cfg["head_dim"], cfg["rope_theta"], cfg["tie_word_embeddings"]) == \
        (8, 64, 500000.0, True)
    assert cfg["rope_scaling"]["rope_type"] == "llama3" and cfg["torch_dtype"] == "bfloat16"


def test_folder_layout_and_weights_are_a_function_of_the_seed(tmp_path):
    tiny = gen.get_generative("llama_tiny")
    a = gen.write_hf_folder(tiny, tmp_path / "a", seed=0)
    b = gen.write_hf_folder(tiny, tmp_path / "b", seed=0)
    c = gen.write_hf_folder(tiny, tmp_path / "c", seed=1)
    assert sorted(p.name for p in a.iterdir()) == ["config.json", "generation_config.json", "model.safetensors",
                                                   "tokenizer.json", "tokenizer_config.json"]
    assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()
    assert (a / "model.safetensors").read_bytes() != (c / "model.safetensors").read_bytes()
    raw = (a / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert n % 8 == 0 and header["__metadata__"]["format"] == "pt"
    assert len(raw) == 8 + n + 4 * tiny.parameter_count()
    q = header["model.layers.0.self_attn.q_proj.weight"]
    start = 8 + n + q["data_offsets"][0]
    w = np.frombuffer(raw[start:start + 4 * 256 * 256], dtype="<f4")
    assert abs(float(w.std()) - 0.02) < 0.001 and abs(float(w.mean())) < 0.001
    tok = json.loads((a / "tokenizer.json").read_text())
    assert tok["model"]["type"] == "WordLevel" and len(tok["model"]["vocab"]) == 2048
    assert tok["model"]["vocab"]["<0x0A>"] == 13 and tok["model"]["vocab"]["w0"] == 259


def test_bf16_rounds_to_nearest_even():
    x = np.array([1.0, -2.5, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 1.0 + 2 ** -8 + 2 ** -20], dtype=np.float32)
    bits = gen.to_bf16_bits(x)
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0); 1 + 3·2^-8 goes up to 1 + 2^-6
    assert [hex(int(b)) for b in bits] == ["0x3f80", "0xc020", "0x3f80", "0x3f82", "0x3f81"]
