"""Small .litertlm files written by the real libraries, for tests of what edgeprof reads from a user's file
(edgeprof/generative/litertlm_read.py): a TFLite flatbuffer written through ai_edge_litert's own schema (object API:
tensors and signatures, no ops: nothing runs it), packaged by litert-lm-builder with an HF tokenizer, LlmMetadata
and ExecutorMetadata, laid out as litert-torch's generative export lays out a real one (K [1, heads, length, dim],
V [1, heads, dim, length], each cache's sequence axis in ExecutorMetadata; seen in a real llama_tiny build,
tests/gen/test_user_litertlm.py). Needs litert-lm-builder and ai-edge-litert (importorskip them first)."""

from __future__ import annotations

import json
from pathlib import Path

F32, F16 = "FLOAT32", "FLOAT16"
LAYERS, HEADS, DIM, CTX, VOCAB = 3, 2, 16, 64, 300


def sig(n, k=(1, HEADS, CTX, DIM), v=(1, HEADS, DIM, CTX), dtype=F32, mask=True, logits=True, layers=LAYERS,
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


def tflite(path: Path, sigs: dict) -> Path:
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


def tokenizer_json(path: Path, n: int) -> Path:
    vocab = {f"w{i}": i for i in range(3, n)}
    path.write_text(json.dumps({"model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"},
                                "added_tokens": [{"id": i, "content": c} for i, c in
                                                 enumerate(("<unk>", "<s>", "</s>"))]}))
    return path


def sentencepiece_model(path: Path, n: int) -> Path:
    """A SentencePiece model of `n` pieces, trained by sentencepiece itself on a few generated lines (0.02 s)."""
    import io

    import sentencepiece as spm

    out = io.BytesIO()
    lines = [f"w{i} x{i % 7} y{i % 13} z{i % 5}" for i in range(400)]
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out, vocab_size=n,
                                   model_type="unigram", minloglevel=2)
    path.write_bytes(out.getvalue())
    return path


def litertlm(tmp: Path, sigs: dict | None = None, tokenizer: int | None = VOCAB, executor: str | None = "axis",
             llm: bool = True, model_type=None, name="user.litertlm", sp_tokenizer: int | None = None) -> Path:
    """A .litertlm in `tmp`: an HF tokenizer of `tokenizer` ids (or a SentencePiece one of `sp_tokenizer` pieces,
    or none), LlmMetadata, ExecutorMetadata, and a TFLite graph of `sigs` (default: prefill 8 and 32, decode)."""
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
    if sp_tokenizer is not None:
        b.add_sentencepiece_tokenizer(str(sentencepiece_model(tmp / "tokenizer.spm", sp_tokenizer)))
    elif tokenizer is not None:
        b.add_hf_tokenizer(str(tokenizer_json(tmp / "tokenizer.json", tokenizer)))
    if sigs is None:
        sigs = {"prefill_8": sig(8), "prefill_32": sig(32), "decode": sig(1)}
    b.add_tflite_model(str(tflite(tmp / "model.tflite", sigs)), model_type or lb.TfLiteModelType.PREFILL_DECODE)
    out = tmp / name
    with out.open("wb") as f:
        b.build(f)
    return out
