"""Bundled generative (decoder-only) models: Llama- and Qwen2-architecture shapes with seeded random weights,
nothing downloaded, written as a local Hugging Face folder.

Owns: the catalogue of bundled generative models (`GENERATIVE`, `generative_names()`, `get_generative()`), each
one's Hugging Face `config.json`, its tensor names and shapes (Hugging Face's LlamaForCausalLM layout; Qwen2's is
the same with a bias on the q, k and v projections), its
seeded random weights and the hand-written tokenizer files (`tokenizer.json` WordLevel + `tokenizer_config.json`:
the onnxruntime-genai model builder loads a tokenizer from the folder, llama.cpp wants a vocabulary), and
`write_hf_folder(model, out, seed)` which writes them.
Does not own: caching the folder (edgeprof.generative.build), GGUF (edgeprof.generative.gguf_writer), the
onnxruntime-genai conversion, or reading a user's folder (edgeprof.generative.detect).

The weights are written directly in the safetensors format (8-byte little-endian header length, a JSON header,
the raw tensors), streamed tensor by tensor, so neither torch nor transformers is needed to write them and a
1.2-billion-parameter shape does not sit in memory at once. Each tensor is drawn from its own numpy generator
seeded with (seed, tensor index): the same seed always gives the same bytes. Linear and embedding weights are
N(0, 0.02²) (transformers' `initializer_range` default), RMSNorm weights ones and biases zeros, as a freshly
initialised LlamaForCausalLM / Qwen2ForCausalLM. The text such a model generates is nonsense; its cost per token is the real architecture's.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgeprof.errors import ModelError

__all__ = ["GenerativeModel", "GENERATIVE", "generative_names", "get_generative", "write_hf_folder",
           "tokenizer_vocab", "HF_FILES", "SAFETENSORS_DTYPES", "to_bf16_bits"]

INIT_STD = 0.02
SPECIAL_TOKENS = ("<unk>", "<s>", "</s>")  # ids 0, 1, 2
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
N_BYTE_TOKENS = 256  # <0x00>..<0xFF> (llama.cpp's SPM vocabulary looks up "<0x0A>" for its newline token)
# the files write_hf_folder writes besides model.safetensors
HF_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")
# safetensors dtype name → (numpy dtype of the stored bytes, bytes per element)
SAFETENSORS_DTYPES: dict[str, tuple[str, int]] = {"F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2)}


@dataclass(frozen=True)
class GenerativeModel:
    """One bundled generative model: a Llama- or Qwen2-architecture shape (the fields of transformers'
    LlamaConfig / Qwen2Config)."""

    name: str
    description: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    max_position_embeddings: int
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = False
    # Llama 3.x's rope scaling (rope_type llama3): (factor, low_freq_factor, high_freq_factor, original_max)
    rope_llama3: tuple[float, float, float, int] | None = None
    dtype: str = "float32"  # the stored weights: "float32" (F32) or "bfloat16" (BF16)
    shape_of: str | None = None  # the real model whose dimensions these are (weights random)
    # "llama" (LlamaForCausalLM) or "qwen2" (Qwen2ForCausalLM: q/k/v projections with a bias)
    architecture: str = "llama"

    @property
    def qkv_bias(self) -> bool:
        return self.architecture == "qwen2"

    @property
    def safetensors_dtype(self) -> str:
        return {"float32": "F32", "bfloat16": "BF16"}[self.dtype]

    def tensors(self) -> list[tuple[str, tuple[int, ...]]]:
        """(name, shape) of every weight in LlamaForCausalLM's (Qwen2ForCausalLM's) state_dict order (tied
        lm_head left out)."""
        h, i, v = self.hidden_size, self.intermediate_size, self.vocab_size
        q, kv = self.num_attention_heads * self.head_dim, self.num_key_value_heads * self.head_dim
        out: list[tuple[str, tuple[int, ...]]] = [("model.embed_tokens.weight", (v, h))]
        for n in range(self.num_hidden_layers):
            p = f"model.layers.{n}."
            out += [(p + "self_attn.q_proj.weight", (q, h))]
            out += [(p + "self_attn.q_proj.bias", (q,))] if self.qkv_bias else []
            out += [(p + "self_attn.k_proj.weight", (kv, h))]
            out += [(p + "self_attn.k_proj.bias", (kv,))] if self.qkv_bias else []
            out += [(p + "self_attn.v_proj.weight", (kv, h))]
            out += [(p + "self_attn.v_proj.bias", (kv,))] if self.qkv_bias else []
            out += [
                (p + "self_attn.o_proj.weight", (h, q)),
                (p + "mlp.gate_proj.weight", (i, h)), (p + "mlp.up_proj.weight", (i, h)),
                (p + "mlp.down_proj.weight", (h, i)),
                (p + "input_layernorm.weight", (h,)), (p + "post_attention_layernorm.weight", (h,)),
            ]
        out.append(("model.norm.weight", (h,)))
        if not self.tie_word_embeddings:
            out.append(("lm_head.weight", (v, h)))
        return out

    def parameter_count(self) -> int:
        return sum(math.prod(shape) for _, shape in self.tensors())

    def config(self) -> dict[str, Any]:
        """Hugging Face config.json of this shape (transformers' LlamaConfig fields)."""
        c: dict[str, Any] = {
            "architectures": ["LlamaForCausalLM"], "model_type": "llama",
            "vocab_size": self.vocab_size, "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size, "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads, "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim, "max_position_embeddings": self.max_position_embeddings,
            "hidden_act": "silu", "rms_norm_eps": self.rms_norm_eps, "rope_theta": self.rope_theta,
            "attention_bias": False, "mlp_bias": False, "attention_dropout": 0.0,
            "initializer_range": INIT_STD, "tie_word_embeddings": self.tie_word_embeddings,
            "bos_token_id": BOS_ID, "eos_token_id": EOS_ID, "pad_token_id": None,
            "torch_dtype": self.dtype, "use_cache": True,
            "rope_scaling": None,
        }
        if self.rope_llama3 is not None:
            factor, low, high, original = self.rope_llama3
            c["rope_scaling"] = {"rope_type": "llama3", "factor": factor, "low_freq_factor": low,
                                 "high_freq_factor": high, "original_max_position_embeddings": original}
        if self.architecture == "qwen2":  # transformers' Qwen2Config: q/k/v bias always on, no sliding window used
            for key in ("attention_bias", "mlp_bias", "head_dim"):
                del c[key]  # Qwen2Config has no such field (head_dim = hidden / heads)
            c.update({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "use_sliding_window": False,
                      "sliding_window": self.max_position_embeddings, "max_window_layers": self.num_hidden_layers})
        return c


GENERATIVE: dict[str, GenerativeModel] = {
    m.name: m
    for m in (
        GenerativeModel(
            name="llama_tiny",
            description="tiny Llama for tests: 4 layers, hidden 256, 8 heads (4 KV heads, GQA), FFN 704, "
                        "vocab 2048, context 4096, float32 (4.0 M parameters)",
            vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=4,
            num_attention_heads=8, num_key_value_heads=4, head_dim=32, max_position_embeddings=4096,
        ),
        GenerativeModel(
            name="llama3_2_1b_shape",
            description="Llama-3.2-1B's dimensions (16 layers, hidden 2048, 32 heads / 8 KV heads, head dim 64, "
                        "FFN 8192, vocab 128256, tied embeddings, llama3 rope scaling, context 131072), random "
                        "bfloat16 weights (1.24 B parameters, 2.5 GB)",
            vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
            num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
            rope_theta=500000.0, tie_word_embeddings=True, rope_llama3=(32.0, 1.0, 4.0, 8192),
            dtype="bfloat16", shape_of="meta-llama/Llama-3.2-1B",
        ),
        GenerativeModel(
            name="qwen2_5_0_5b_shape",
            description="Qwen2.5-0.5B's dimensions (Qwen2 architecture: 24 layers, hidden 896, 14 heads / 2 KV "
                        "heads, head dim 64, FFN 4864, q/k/v bias, vocab 151936, tied embeddings, rope theta 1e6, "
                        "context 32768), random bfloat16 weights (494 M parameters, 0.99 GB)",
            vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
            num_attention_heads=14, num_key_value_heads=2, head_dim=64, max_position_embeddings=32768,
            rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, dtype="bfloat16",
            shape_of="Qwen/Qwen2.5-0.5B", architecture="qwen2",
        ),
    )
}


def generative_names() -> list[str]:
    return sorted(GENERATIVE)


def get_generative(name: str) -> GenerativeModel:
    if name in GENERATIVE:
        return GENERATIVE[name]
    raise ModelError(f"unknown generative model {name!r}",
                     hint="bundled generative models: " + ", ".join(generative_names()))


# --------------------------------------------------------------------------------------------- weights
def to_bf16_bits(a: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bit patterns (uint16), rounded to nearest even (as torch's .to(torch.bfloat16))."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def _weights(model: GenerativeModel, seed: int) -> Iterator[tuple[str, np.ndarray]]:
    """Each (name, float32 array), drawn from its own generator seeded with (seed, index)."""
    for index, (name, shape) in enumerate(model.tensors()):
        if name.endswith(".bias"):  # zeros, as transformers initialises a Linear's bias
            yield name, np.zeros(shape, dtype=np.float32)
            continue
        if len(shape) == 1:  # RMSNorm weights: ones, as LlamaRMSNorm initialises them
            yield name, np.ones(shape, dtype=np.float32)
            continue
        rng = np.random.default_rng([seed, index])
        yield name, rng.standard_normal(shape, dtype=np.float32) * np.float32(INIT_STD)


def _write_safetensors(path: Path, model: GenerativeModel, seed: int) -> None:
    """Stream the weights into `path` in the safetensors format (header first, then each tensor in order)."""
    dtype = model.safetensors_dtype
    _np, size = SAFETENSORS_DTYPES[dtype]
    header: dict[str, Any] = {"__metadata__": {"format": "pt", "generator": "edgeprof_models.generative",
                                               "seed": str(seed)}}
    offset = 0
    for name, shape in model.tensors():
        n = math.prod(shape) * size
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-aligned (as safetensors writes it)
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _name, w in _weights(model, seed):
            f.write((to_bf16_bits(w) if dtype == "BF16" else w.astype("<f4")).tobytes())


# ------------------------------------------------------------------------------------------- tokenizer
def tokenizer_vocab(vocab_size: int) -> list[str]:
    """The token strings by id: <unk> <s> </s>, the 256 byte tokens <0x00>..<0xFF>, then w0, w1, ..."""
    fixed = [*SPECIAL_TOKENS, *(f"<0x{b:02X}>" for b in range(N_BYTE_TOKENS))]
    if vocab_size < len(fixed) + 1:
        raise ValueError(f"vocab_size {vocab_size} is below {len(fixed) + 1}")
    return fixed + [f"w{i}" for i in range(vocab_size - len(fixed))]


def _tokenizer_json(vocab: list[str]) -> dict[str, Any]:
    """A Hugging Face `tokenizers` WordLevel tokenizer over `vocab` (whitespace split, unknown → <unk>)."""
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(SPECIAL_TOKENS)]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": {t: i for i, t in enumerate(vocab)}, "unk_token": "<unk>"}}


def write_hf_folder(model: GenerativeModel, out: Path, seed: int = 0) -> Path:
    """Write `model` as a Hugging Face folder in `out` (created): config.json, generation_config.json,
    model.safetensors, tokenizer.json, tokenizer_config.json. Returns `out`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(model.config(), indent=2) + "\n")
    (out / "generation_config.json").write_text(json.dumps(
        {"bos_token_id": BOS_ID, "eos_token_id": EOS_ID, "do_sample": False}, indent=2) + "\n")
    (out / "tokenizer.json").write_text(json.dumps(_tokenizer_json(tokenizer_vocab(model.vocab_size))))
    (out / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
        "unk_token": "<unk>", "model_max_length": model.max_position_embeddings, "clean_up_tokenization_spaces": False,
    }, indent=2) + "\n")
    _write_safetensors(out / "model.safetensors", model, seed)
    return out
