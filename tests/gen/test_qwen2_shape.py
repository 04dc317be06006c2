"""The Qwen2 architecture of the bundled generative models (edgeprof_models.generative, qwen2_5_0_5b_shape):
the catalogue entry has Qwen2.5-0.5B's published parameter count, and a small shape of the same architecture
(the 0.5B entry with its sizes cut down, built in a second) goes through every path the 0.5B would:
transformers' Qwen2ForCausalLM loads the folder with no missing or unexpected weight; the GGUF edgeprof writes
(gguf_writer.py: qwen2.* keys, q/k/v biases, no rotary permutation) gives llama.cpp the same next-token logits
transformers computes (f16 weights: tolerance below); onnxruntime-genai's model builder takes the folder; and both
runtimes generate through the agent's timed loop. The 0.5B itself (1 GB of bf16) is not written here.

Logits tolerance (ATOL 2e-3 absolute): the GGUF holds the weights as f16 (10-bit mantissa) and llama.cpp computes
with f16 K/V, transformers in f32; over 2 layers 128 wide they agreed to 4.5e-4 here on logits up to 0.81. A Q/K
layout mistake (the llama permutation applied to qwen2's NEOX rope) moved them by 1.4e-2 (asserted: more than 10x
the difference of the right layout); with weights of std 0.02 attention scores are small, so rope shows less than
it would in a trained model."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from edgeprof.generative.detect import detect
from edgeprof.generative.gguf_writer import write_gguf
from edgeprof_agent.generation.loop import run_generation

LLAMA = {"threads": 1, "threads_batch": 1, "extra_buffers": False}
IDS = [5, 17, 301, 42, 999, 7, 88, 512]
ATOL = 2e-3


def small_qwen2():
    from edgeprof_models import generative as gen

    big = gen.get_generative("qwen2_5_0_5b_shape")
    return dataclasses.replace(big, name="qwen2_small", vocab_size=1024, hidden_size=128, intermediate_size=256,
                               num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                               max_position_embeddings=512, dtype="float32", shape_of=None)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    from edgeprof_models import generative as gen

    out = tmp_path_factory.mktemp("qwen2") / "hf"
    gen.write_hf_folder(small_qwen2(), out, seed=4)
    # non-zero biases, so that a bias written under the wrong name or not at all shows in the logits
    import struct

    raw = bytearray((out / "model.safetensors").read_bytes())
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    rng = np.random.default_rng(9)
    for name, t in header.items():
        if name.endswith(".bias"):
            b, e = t["data_offsets"]
            raw[8 + n + b:8 + n + e] = (rng.standard_normal(t["shape"]).astype("<f4") * 0.5).tobytes()
    (out / "model.safetensors").write_bytes(bytes(raw))
    return out


def test_the_catalogue_entry_has_qwen2_5_0_5b_s_shape():
    from edgeprof_models import generative as gen

    m = gen.get_generative("qwen2_5_0_5b_shape")
    assert m.parameter_count() == 494_032_768  # Qwen/Qwen2.5-0.5B's model card: 0.49 B; its safetensors: this
    c = m.config()
    assert (c["model_type"], c["architectures"], c["tie_word_embeddings"]) == ("qwen2", ["Qwen2ForCausalLM"], True)
    assert (c["num_attention_heads"], c["num_key_value_heads"], c["hidden_size"], c["vocab_size"]) == (14, 2, 896,
                                                                                                       151936)
    assert "head_dim" not in c and "attention_bias" not in c  # Qwen2Config has neither
    names = [n for n, _s in m.tensors()]
    assert names.count("model.layers.0.self_attn.q_proj.bias") == 1 and "lm_head.weight" not in names
    transformers = pytest.importorskip("transformers")
    cfg = transformers.Qwen2Config(**{k: v for k, v in c.items() if k not in ("architectures", "model_type")})
    assert getattr(cfg, "head_dim", None) in (None, 64) and cfg.hidden_size // cfg.num_attention_heads == 64


def transformers_logits(folder: Path) -> np.ndarray:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    model, info = transformers.Qwen2ForCausalLM.from_pretrained(folder, output_loading_info=True,
                                                                torch_dtype=torch.float32)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"]
    assert model.num_parameters() == small_qwen2().parameter_count()
    with torch.no_grad():
        return model(torch.tensor([IDS])).logits[0, -1].numpy()


def llama_cpp_logits(gguf: Path) -> np.ndarray:
    from edgeprof_agent.generation.llamacpp import GenerationBackend

    be = GenerationBackend()
    be.require()
    be.load(str(gguf), 64, dict(LLAMA))
    try:
        be.start()
        be.append(IDS)
        ptr = be.lc.llama_get_logits_ith(be.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(be.vocab_size,)).copy()
    finally:
        be.close()


def test_llama_cpp_computes_what_transformers_computes_from_the_gguf(folder, tmp_path):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    import gguf

    out = tmp_path / "q.gguf"
    summary = write_gguf(folder, out, "f16", name="qwen2_small")
    r = gguf.GGUFReader(str(out))
    arch = bytes(r.fields["general.architecture"].parts[-1]).decode()
    assert arch == "qwen2" and "qwen2.attention.head_count_kv" in r.fields
    names = {t.name for t in r.tensors}
    assert {"blk.0.attn_q.bias", "blk.1.attn_k.bias", "blk.1.attn_v.bias"} <= names and "output.weight" not in names
    assert summary.parameters == small_qwen2().parameter_count()
    theirs = transformers_logits(folder)
    ours = llama_cpp_logits(out)
    err = float(np.abs(ours - theirs).max())
    assert err < ATOL, err
    assert int(ours.argmax()) == int(theirs.argmax())
    # the llama layout (q/k rows permuted) would be wrong for qwen2: it shows, far past the tolerance
    import edgeprof.generative.gguf_writer as gw

    cfg = json.loads((folder / "config.json").read_text())
    wrong_folder = tmp_path / "as-llama"
    wrong_folder.mkdir()
    for f in folder.iterdir():
        (wrong_folder / f.name).symlink_to(f)
    (wrong_folder / "config.json").unlink()
    (wrong_folder / "config.json").write_text(json.dumps({**cfg, "model_type": "llama"}))
    permuted = tmp_path / "permuted.gguf"
    gw.write_gguf(wrong_folder, permuted, "f16")
    r2 = gguf.GGUFReader(str(permuted))
    assert bytes(r2.fields["general.architecture"].parts[-1]).decode() == "llama"
    off = np.abs(llama_cpp_logits(permuted) - theirs).max()
    assert off > 10 * err, (off, err)


def test_both_runtimes_generate_the_small_qwen2_through_the_agent_loop(folder, tmp_path):
    info = detect(folder)
    assert (info.kind, info.architecture, info.kv_heads, info.head_dim) == ("hf", "qwen2", 2, 32)
    if pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed") is not None:
        gguf_path = tmp_path / "q4.gguf"
        s = write_gguf(folder, gguf_path, "q4_0", name="qwen2_small")
        assert s.file_type == "MOSTLY_Q4_0" and s.tensor_types.get("Q4_0", 0) > 0
        raw = run_generation("llama.cpp", str(gguf_path), 16, 8, repetitions=2, options=dict(LLAMA))
        assert [len(r["token_ns"]) for r in raw["repetitions"]] == [8, 8]
        assert raw["kv_cache"]["bytes"] == detect(gguf_path).kv_cache_bytes(raw["kv_cache"]["n_ctx"], 2)
    pytest.importorskip("onnxruntime_genai")
    from edgeprof.generative.build import ortgenai_folder

    art = ortgenai_folder(folder, "fp32", cache_dir=tmp_path / "cache", name="qwen2_small")
    og_folder = Path(art.path).parent
    cfg = json.loads((og_folder / "genai_config.json").read_text())
    assert cfg["model"]["type"] == "qwen2"
    raw = run_generation("onnxruntime-genai", str(og_folder), 16, 8, repetitions=2, options={"threads": 1})
    assert [len(r["token_ns"]) for r in raw["repetitions"]] == [8, 8]
