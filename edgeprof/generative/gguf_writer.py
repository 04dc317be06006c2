"""A llama- or qwen2-architecture GGUF from a Hugging Face folder, at f16, Q8_0 or Q4_0, for llama.cpp.

Owns: the llama architecture's GGUF keys and tensor names (as llama.cpp's convert_hf_to_gguf.py LlamaModel writes
them: `llama.*` hyperparameters, `token_embd`, `blk.N.attn_q/k/v/output`, `blk.N.ffn_gate/up/down`, the norms,
`output` unless the embeddings are tied, `rope_freqs` for Llama 3's rope scaling; the Q and K rows permuted from
Hugging Face's rotary layout to GGML's); for qwen2 (convert_hf_to_gguf.py Qwen2Model) the same names under
`qwen2.*` keys, plus `blk.N.attn_q/k/v.bias`, and no permutation (llama.cpp runs qwen2 with NEOX rope, Hugging
Face's half-split layout), the tokenizer keys llama.cpp needs to load the file (an SPM-style `llama`
vocabulary from the folder's tokenizer.json: the token strings, zero scores, their types, the bos / eos / unk ids),
quantisation with gguf.quants, and streaming the tensors one at a time (GGUFWriter's header, key/values and tensor
infos first, then each tensor's data), so a 1-billion-parameter folder is never all in memory.

The precision written is exactly what `general.file_type` says: f16 → MOSTLY_F16, q8_0 → MOSTLY_Q8_0, q4_0 →
MOSTLY_Q4_0, each "except 1-d tensors" (norms and rope_freqs stay F32, as llama.cpp writes them). Q4_0 is written
"pure" (every 2-d weight Q4_0, token_embd and output included: llama-quantize --pure), because gguf.quants cannot
write the Q6_K that llama-quantize puts on `output` by default. A 2-d weight whose rows are not a multiple of the
type's block (32) stays F16, as convert_hf_to_gguf.py falls back; the returned GgufSummary counts each type.
The vocabulary carries the tokens so llama.cpp loads the model; it does not make llama.cpp tokenise text as the
original tokenizer would (edgeprof feeds random token ids, never text).
Does not own: the Hugging Face folder (edgeprof_models.generative, or the user's), caching (build.py).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from .detect import hf_weight_files, load_tensor, read_safetensors_header

__all__ = ["QUANTS", "ARCHITECTURES", "GgufSummary", "write_gguf", "gguf_tensor_name"]

QUANTS = ("f16", "q8_0", "q4_0")
ARCHITECTURES = ("llama", "qwen2")  # Hugging Face model_type = the GGUF general.architecture written


@dataclass(frozen=True)
class GgufSummary:
    quant: str
    file_type: str  # gguf.LlamaFileType name written to general.file_type
    tensor_types: dict[str, int] = field(default_factory=dict)  # ggml type name → number of tensors
    fallbacks: tuple[str, ...] = ()  # tensors left F16 because their rows do not fit the quant's blocks
    n_tensors: int = 0
    parameters: int = 0


def gguf_tensor_name(hf_name: str) -> str | None:
    """The GGUF name of a Hugging Face Llama / Qwen2 tensor (llama.cpp gguf-py tensor_mapping), None if not
    written."""
    fixed = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
             "lm_head.weight": "output.weight"}
    if hf_name in fixed:
        return fixed[hf_name]
    parts = hf_name.split(".")
    if len(parts) == 6 and parts[:2] == ["model", "layers"] and parts[2].isdigit() and parts[5] == "weight":
        block = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
                 "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
                 "mlp.down_proj": "ffn_down"}.get(f"{parts[3]}.{parts[4]}")
        if block:
            return f"blk.{parts[2]}.{block}.weight"
    if len(parts) == 6 and parts[:2] == ["model", "layers"] and parts[2].isdigit() and parts[5] == "bias":
        block = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
                 "self_attn.v_proj": "attn_v"}.get(f"{parts[3]}.{parts[4]}")
        if block:  # Qwen2's q/k/v bias
            return f"blk.{parts[2]}.{block}.bias"
    if len(parts) == 5 and parts[:2] == ["model", "layers"] and parts[2].isdigit() and parts[4] == "weight":
        norm = {"input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}.get(parts[3])
        if norm:
            return f"blk.{parts[2]}.{norm}.weight"
    if hf_name.endswith("rotary_emb.inv_freq"):
        return None  # recomputed by llama.cpp
    return None


def _permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """Hugging Face's rotary half-split rows → GGML's interleaved pairs (convert_hf_to_gguf.py LlamaModel.permute)."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape))


def _llama3_rope_factors(cfg: dict[str, Any], head_dim: int) -> np.ndarray | None:
    """Llama 3's rope frequency factors (convert_hf_to_gguf.py LlamaModel.generate_extra_tensors)."""
    rs = cfg.get("rope_scaling")
    if not isinstance(rs, dict) or str(rs.get("rope_type", rs.get("type", ""))).lower() != "llama3":
        return None
    base = float(cfg.get("rope_theta", 10000.0))
    freqs = 1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    factor = float(rs.get("factor", 8.0))
    low, high = float(rs.get("low_freq_factor", 1.0)), float(rs.get("high_freq_factor", 4.0))
    old = float(rs.get("original_max_position_embeddings", 8192))
    low_wavelen, high_wavelen = old / low, old / high
    out = []
    for freq in freqs:
        wavelen = 2 * math.pi / float(freq)
        if wavelen < high_wavelen:
            out.append(1.0)
        elif wavelen > low_wavelen:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.asarray(out, dtype=np.float32)


def _vocab(folder: Path, vocab_size: int) -> tuple[list[str], list[int]]:
    """Token strings and GGUF token types by id from tokenizer.json's vocabulary and added tokens, padded to
    vocab_size with [PAD<i>] (convert_hf_to_gguf.py pads the same way)."""
    import gguf

    path = folder / "tokenizer.json"
    if not path.is_file():
        raise ModelError(f"{folder}: no tokenizer.json to take the GGUF vocabulary from",
                         hint="write a tokenizer.json (Hugging Face tokenizers) beside config.json")
    tok = json.loads(path.read_text())
    vocab = (tok.get("model") or {}).get("vocab")
    if isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        vocab = {str(p[0]): i for i, p in enumerate(vocab)}
    if not isinstance(vocab, dict):
        raise ModelError(f"{path}: no vocabulary in model.vocab", hint="write the tokenizer again")
    by_id: dict[int, str] = {int(i): str(t) for t, i in vocab.items()}
    special = {int(a["id"]): str(a["content"]) for a in tok.get("added_tokens") or [] if a.get("special")}
    by_id.update(special)
    unk = (tok.get("model") or {}).get("unk_token")
    tokens, types = [], []
    T = gguf.TokenType
    for i in range(vocab_size):
        text = by_id.get(i)
        if text is None:
            tokens.append(f"[PAD{i}]")
            types.append(int(T.UNUSED))
        elif text == unk:
            tokens.append(text)
            types.append(int(T.UNKNOWN))
        elif i in special:
            tokens.append(text)
            types.append(int(T.CONTROL))
        elif len(text) == 6 and text.startswith("<0x") and text.endswith(">"):
            tokens.append(text)
            types.append(int(T.BYTE))
        else:
            tokens.append(text)
            types.append(int(T.NORMAL))
    return tokens, types


def _special_ids(folder: Path, cfg: dict[str, Any], tokens: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for key in ("bos_token_id", "eos_token_id"):
        v = cfg.get(key)
        if isinstance(v, list):
            v = v[0] if v else None
        if isinstance(v, int):
            out[key] = v
    if "<unk>" in tokens:
        out["unk_token_id"] = tokens.index("<unk>")
    return out


def _add_keys(w: Any, folder: Path, cfg: dict[str, Any], name: str, ftype: int, head_dim: int) -> None:
    """The architecture's keys (under the writer's architecture: llama.* or qwen2.*) and the tokenizer's
    (convert_hf_to_gguf.py LlamaModel / Qwen2Model / TextModel)."""
    import gguf

    hidden, n_head = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    n_kv = int(cfg.get("num_key_value_heads") or n_head)
    vocab_size = int(cfg["vocab_size"])
    w.add_name(name)
    w.add_context_length(int(cfg["max_position_embeddings"]))
    w.add_embedding_length(hidden)
    w.add_block_count(int(cfg["num_hidden_layers"]))
    w.add_feed_forward_length(int(cfg["intermediate_size"]))
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(float(cfg.get("rope_theta", 10000.0)))
    w.add_layer_norm_rms_eps(float(cfg.get("rms_norm_eps", 1e-5)))
    w.add_vocab_size(vocab_size)
    w.add_file_type(ftype)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    tokens, types = _vocab(folder, vocab_size)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * len(tokens))
    w.add_token_types(types)
    ids = _special_ids(folder, cfg, tokens)
    if "bos_token_id" in ids:
        w.add_bos_token_id(ids["bos_token_id"])
    if "eos_token_id" in ids:
        w.add_eos_token_id(ids["eos_token_id"])
    if "unk_token_id" in ids:
        w.add_unk_token_id(ids["unk_token_id"])
    w.add_add_bos_token(False)


def write_gguf(folder: Path, out: Path, quant: str, name: str | None = None) -> GgufSummary:
    """Write the Llama- or Qwen2-architecture Hugging Face folder `folder` as a GGUF at `out` with `quant` (f16,
    q8_0, q4_0). ModelError (one line) for another architecture or precision."""
    import gguf
    from gguf.quants import quant_shape_to_byte_shape, quantize

    if quant not in QUANTS:
        raise ModelError(f"unknown GGUF precision {quant!r}", hint="choose one of: " + ", ".join(QUANTS))
    folder = Path(folder)
    cfg = json.loads((folder / "config.json").read_text())
    arch = cfg.get("model_type")
    if arch not in ARCHITECTURES:
        raise ModelError(f"{folder}: model_type {arch!r}; edgeprof writes GGUF for {' and '.join(ARCHITECTURES)} "
                         "only", hint="convert it with llama.cpp's convert_hf_to_gguf.py and give the .gguf instead")
    permute = arch == "llama"  # qwen2 runs with NEOX rope in llama.cpp: Hugging Face's layout as it is
    qtype = {"f16": gguf.GGMLQuantizationType.F16, "q8_0": gguf.GGMLQuantizationType.Q8_0,
             "q4_0": gguf.GGMLQuantizationType.Q4_0}[quant]
    ftype = {"f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
             "q4_0": gguf.LlamaFileType.MOSTLY_Q4_0}[quant]
    n_head, hidden = int(cfg["num_attention_heads"]), int(cfg["hidden_size"])
    n_kv = int(cfg.get("num_key_value_heads") or n_head)
    head_dim = int(cfg.get("head_dim") or hidden // n_head)

    # every tensor to write: (gguf name, loader of its float32 array, shape)
    shards = [(p, *read_safetensors_header(p)) for p in hf_weight_files(folder)]
    plan: list[tuple[str, Any, tuple[int, ...]]] = []
    for path, header, start in shards:
        for hf_name, t in header.items():
            g = gguf_tensor_name(hf_name)
            if g is None:
                continue
            if g == "output.weight" and cfg.get("tie_word_embeddings"):
                continue  # tied: llama.cpp uses token_embd

            def load(path: Path = path, header: dict[str, Any] = header, start: int = start,
                     hf_name: str = hf_name, g: str = g) -> np.ndarray:
                w = load_tensor(path, header, start, hf_name)
                if permute and g.endswith("attn_q.weight"):
                    w = _permute(w, n_head)
                elif permute and g.endswith("attn_k.weight"):
                    w = _permute(w, n_kv)
                return w

            plan.append((g, load, tuple(int(x) for x in t["shape"])))
    factors = _llama3_rope_factors(cfg, head_dim)
    if factors is not None:
        plan.append(("rope_freqs.weight", lambda: factors, tuple(factors.shape)))
    names = [p[0] for p in plan]
    if "token_embd.weight" not in names:
        raise ModelError(f"{folder}: no model.embed_tokens.weight in its safetensors",
                         hint="is it a LlamaForCausalLM or Qwen2ForCausalLM folder?")

    block = gguf.GGML_QUANT_SIZES[qtype][0]

    def type_of(shape: tuple[int, ...]) -> gguf.GGMLQuantizationType:
        if len(shape) < 2:
            return gguf.GGMLQuantizationType.F32
        if shape[-1] % block:
            return gguf.GGMLQuantizationType.F16
        return qtype

    w = gguf.GGUFWriter(str(out), arch)
    _add_keys(w, folder, cfg, name or folder.name, int(ftype), head_dim)

    counts: Counter[str] = Counter()
    fallbacks = []
    for g, _load, shape in plan:
        t = type_of(shape)
        counts[t.name] += 1
        if t == gguf.GGMLQuantizationType.F16 and qtype != gguf.GGMLQuantizationType.F16:
            fallbacks.append(g)
        if t in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            nbytes = math.prod(shape) * (4 if t == gguf.GGMLQuantizationType.F32 else 2)
            w.add_tensor_info(g, shape, np.dtype(np.float32 if t == gguf.GGMLQuantizationType.F32 else np.float16),
                              nbytes)
        else:
            byte_shape = quant_shape_to_byte_shape(shape, t)
            w.add_tensor_info(g, byte_shape, np.dtype(np.uint8), math.prod(byte_shape), raw_dtype=t)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for _g, load, shape in plan:  # write_tensor_data takes them in the order their infos were added
        t = type_of(shape)
        data = load()
        if t == gguf.GGMLQuantizationType.F32:
            w.write_tensor_data(np.ascontiguousarray(data, dtype=np.float32))
        elif t == gguf.GGMLQuantizationType.F16:
            w.write_tensor_data(np.ascontiguousarray(data, dtype=np.float16))
        else:
            w.write_tensor_data(quantize(np.ascontiguousarray(data, dtype=np.float32), t))
    w.close()
    return GgufSummary(quant=quant, file_type=ftype.name, tensor_types=dict(counts), fallbacks=tuple(fallbacks),
                       n_tensors=len(plan), parameters=sum(math.prod(s) for _g, _l, s in plan))
