"""What the agent's LiteRT-LM backend must be told about a user's .litertlm, read from the file itself on the host.

Owns: reading, before anything is pushed, the vocabulary size and the KV cache's layout of a .litertlm that
edgeprof did not build (LiteRT-LM's Python API reports neither: agents/.../generation/litertlm.py needs them for its
random token ids and its KV cache figures), the one-line refusal of each file it cannot read, and the check that a
run's depth + prompt + generated tokens fit the cache the graphs were built with (`LitertlmDims.check_fits`).

Where each figure comes from (google-ai-edge/LiteRT-LM's own sources, as read through the installed packages):
- the container: magic, version, the header flatbuffer and its sections (schema/core/litertlm_header_schema.fbs,
  the generated litert_lm_builder/litertlm_header_schema_py_generated.py; the layout in litertlm_core.py and
  litertlm_peek.py); detect() has checked the magic, the version and that every section lies inside the file;
- the TFLite section whose model_type is "tf_lite_prefill_decode" (litertlm_builder.py TfLiteModelType), read with
  TFLite's flatbuffer schema (ai_edge_litert/schema_py_generated.py) through a memory map, weights untouched;
- its "decode" signature (runtime/executor/llm_litert_compiled_model_executor.cc kDecodeSignatureRunner) and the
  "prefill*" ones (litert_compiled_model_executor_utils.cc GetPrefillRunnerSetFromModel: the length is the
  positions input's last dimension);
- the vocabulary: the decode signature's "logits" output's last dimension (kOutputLogitsNames), and the tokenizer
  section's own size (HF_Tokenizer_Zlib: 8 bytes of length then zlib, litertlm_builder.py; SP_Tokenizer: a
  SentencePiece model, read with sentencepiece when installed) — the smaller of the two is what ids are drawn below;
- the KV cache: the decode signature's inputs named kv_cache_k_N / kv_cache_v_N or k_cache_N / v_cache_N
  (litert_compiled_model_executor_utils.cc GetKVCacheRootNames): N + 1 layers, their shape and dtype; the sequence
  axis from the ExecutorMetadata section's state buffers when the file has one (runtime/proto/
  executor_metadata.proto: sequence_axis), otherwise the one axis whose length equals the decode mask's last
  dimension (FillAttentionMask reads the context length there); the two other axes after the batch are KV heads
  and head dim, in that order (litert-torch writes K as [1, heads, length, dim], V as [1, heads, dim, length]);
- LlmMetadata's max_num_tokens (runtime/proto/llm_metadata.proto), recorded: the agent sets max_num_tokens itself,
  and the graphs' cache length is what bounds a run.
What is refused, one line each: no tokenizer section, no prefill/decode TFLite section, no decode signature, no
logits, no KV cache inputs, layers whose caches differ (sliding-window layers), a dynamic cache length, a dtype
edgeprof does not size, and a host without litert-lm-builder or ai-edge-litert (then nothing is guessed).
Does not own: the container's own validation (detect.py), the agent's use of the figures, building a .litertlm.
"""

from __future__ import annotations

import json
import math
import mmap
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ModelError
from .detect import LitertlmSection, litertlm_sections

__all__ = ["LitertlmDims", "read_litertlm", "is_litertlm_file"]

_FETCH = "the file was cut short or damaged: fetch it again"
# (K root, V root) of the KV cache's inputs, in LiteRT-LM's order of preference (GetKVCacheRootNames)
_KV_ROOTS = (("kv_cache_k_", "kv_cache_v_"), ("k_cache_", "v_cache_"))
_MASK_NAMES = ("attn_mask", "mask")  # kInputAttnMaskNames
_POSITION_NAMES = ("positions", "input_pos")  # kInputPositionsNames
_DTYPES = {"FLOAT32": ("float32", 4), "FLOAT16": ("float16", 2), "BFLOAT16": ("bfloat16", 2),
           "INT8": ("int8", 1), "UINT8": ("uint8", 1), "INT16": ("int16", 2)}


def is_litertlm_file(model: str) -> bool:
    return Path(model).suffix.lower() == ".litertlm"


@dataclass(frozen=True)
class LitertlmDims:
    """A .litertlm's figures the agent's LiteRT-LM backend is told, and where each was read."""

    path: str
    vocab_size: int  # the ids the agent draws from lie below it
    logits: int  # the decode signature's logits' last dimension
    tokenizer: str  # "HF tokenizer.json" or "SentencePiece"
    tokenizer_size: int | None  # its own count of ids, None where it was not read
    layers: int
    kv_heads: int
    head_dim: int
    cache_length: int  # the KV cache's length the graphs were built with: the most tokens a sequence holds
    dtype: str
    bytes_per_element: int
    sequence_axis: int
    axis_from: str  # "ExecutorMetadata" or "the decode mask"
    max_num_tokens: int | None  # LlmMetadata's, when the file has one
    prefill_lengths: tuple[int, ...]
    k_shape: tuple[int, ...]

    @property
    def source(self) -> str:
        """Where the figures came from, as the result records it."""
        tok = (f"its {self.tokenizer} tokenizer section ({self.tokenizer_size} ids)" if self.tokenizer_size
               else f"its {self.tokenizer} tokenizer section (size not read: sentencepiece is not installed)")
        return (f"read from the .litertlm's TFLite signatures: decode's logits ({self.logits}) and "
                f"{self.layers} KV cache layers {list(self.k_shape)} {self.dtype} (sequence axis "
                f"{self.sequence_axis}, from {self.axis_from}), and {tok}")

    def check_fits(self, depth: int, prompt_tokens: int, gen_tokens: int) -> None:
        """depth + prompt + generated tokens within the graphs' KV cache, or one line."""
        need = depth + prompt_tokens + gen_tokens
        if need > self.cache_length:
            raise ConfigError(
                f"--depth {depth} + {prompt_tokens} prompt + {gen_tokens} generated = {need} tokens do not fit the "
                f"KV cache of {self.path} ({self.cache_length} tokens, the length its graphs were built with)",
                hint=f"at most {self.cache_length} tokens: lower --depth, --prompt-tokens or --gen-tokens, or "
                     "give the Hugging Face folder (edgeprof builds a cache as long as the run needs)")

    def options(self) -> dict[str, Any]:
        """The agent backend's options (agents/.../generation/litertlm.py OPTIONS): vocab_size, kv_cache,
        dims_from."""
        return {"vocab_size": self.vocab_size,
                "kv_cache": {"layers": self.layers, "kv_heads": self.kv_heads, "head_dim": self.head_dim,
                             "cache_length": self.cache_length, "dtype": self.dtype,
                             "bytes_per_element": self.bytes_per_element},
                "dims_from": self.source}


def _bad(path: Path, what: str, hint: str = _FETCH) -> ModelError:
    return ModelError(f"{path}: {what}", hint=hint)


_CACHE: dict[tuple[str, int, int], LitertlmDims] = {}


def read_litertlm(path: str | Path) -> LitertlmDims:
    """The figures of the .litertlm at `path` (see the module's docstring), or ModelError in one line. Read once
    per file state (path, size, mtime): refusal() and the request read the same."""
    from .detect import detect

    p = Path(path).expanduser()
    info = detect(p)  # magic, version, header, sections inside the file: one line each
    if info.kind != "litertlm":
        raise _bad(p, f"is a {info.kind} model, not a .litertlm", "give a .litertlm file")
    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _read(p)
    return _CACHE[key]


def _modules(p: Path) -> tuple[Any, Any, Any]:
    try:
        from ai_edge_litert import schema_py_generated as tfl
        from litert_lm_builder.runtime.proto import executor_metadata_pb2, llm_metadata_pb2
    except ImportError as e:
        raise ModelError(f"{p}: reading a .litertlm's vocabulary and KV cache needs litert-lm-builder and "
                         f"ai-edge-litert on this host ({e.name or e} is not installed)",
                         hint="pip install 'edgeprof[litert-lm]', or measure the .litertlm on a phone "
                              "(litert_lm_main)") from e
    return tfl, executor_metadata_pb2, llm_metadata_pb2


def _read(p: Path) -> LitertlmDims:
    tfl, exec_pb2, llm_pb2 = _modules(p)
    sections = litertlm_sections(p) or []
    with p.open("rb") as f:
        # not closed here: the flatbuffer readers (and a traceback's frames) hold slices of it; freed with them
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    return _parse(p, memoryview(mm), sections, tfl, exec_pb2, llm_pb2)


def _parse(p: Path, buf: memoryview, sections: list[LitertlmSection], tfl: Any, exec_pb2: Any,
           llm_pb2: Any) -> LitertlmDims:
    tokenizer = next((s for s in sections if s.kind in ("HF_Tokenizer_Zlib", "SP_Tokenizer")), None)
    if tokenizer is None:
        raise _bad(p, "has no tokenizer section (HF_Tokenizer_Zlib or SP_Tokenizer): the agent's token ids are fed "
                   "to LiteRT-LM as text", "package the model's tokenizer into it (litert-lm-builder)")
    model = next((s for s in sections if s.kind == "TFLiteModel" and s.model_type == "tf_lite_prefill_decode"),
                 None)
    if model is None:
        found = sorted({s.model_type or "none" for s in sections if s.kind == "TFLiteModel"})
        raise _bad(p, "has no TFLite prefill/decode model section (model_type tf_lite_prefill_decode; TFLite "
                   f"sections found: {', '.join(found) or 'none'})", "give a .litertlm of a text generation model")
    executor = _proto(p, buf, sections, "ExecutorMetadataProto", exec_pb2.ExecutorMetadata, "ExecutorMetadata")
    llm = _proto(p, buf, sections, "LlmMetadataProto", llm_pb2.LlmMetadata, "LlmMetadata")
    sigs = _signatures(p, buf[model.begin:model.end], tfl)
    decode = sigs.get("decode")
    if decode is None:
        raise _bad(p, f"its TFLite model has no 'decode' signature (signatures: {', '.join(sorted(sigs)) or 'none'})",
                   "give a .litertlm exported with prefill and decode signatures (litert-torch's generative export)")
    inputs, outputs = decode
    logits = outputs.get("logits")
    if logits is None or not logits[0] or logits[0][-1] <= 0:
        raise _bad(p, "its decode signature has no 'logits' output with a vocabulary dimension (outputs: "
                   f"{', '.join(sorted(outputs)) or 'none'})", "give a .litertlm whose decode signature ends in logits")
    n_logits = logits[0][-1]
    kv = _kv_layout(p, inputs, executor)
    tok_kind, tok_size = _tokenizer_size(p, buf, tokenizer)
    vocab = min(n_logits, tok_size) if tok_size else n_logits
    prefill = sorted({_positions_length(ins) for name, (ins, _o) in sigs.items() if name.startswith("prefill")}
                     - {0})
    max_tokens = int(llm.max_num_tokens) if llm is not None and llm.max_num_tokens > 0 else None
    return LitertlmDims(path=str(p), vocab_size=vocab, logits=n_logits, tokenizer=tok_kind, tokenizer_size=tok_size,
                        max_num_tokens=max_tokens, prefill_lengths=tuple(prefill), **kv)


def _proto(p: Path, buf: memoryview, sections: list[LitertlmSection], kind: str, cls: Any, what: str) -> Any:
    where = next((s for s in sections if s.kind == kind), None)
    if where is None:
        return None
    msg = cls()
    try:
        msg.ParseFromString(bytes(buf[where.begin:where.end]))
    except Exception as e:  # google.protobuf.message.DecodeError
        raise _bad(p, f"has an unreadable {what} section ({type(e).__name__}: {e})") from e
    return msg


Tensor = tuple[tuple[int, ...], str, bool]  # (shape, TFLite type name, a dimension is dynamic)


def _signatures(p: Path, data: memoryview, tfl: Any) -> dict[str, tuple[dict[str, Tensor], dict[str, Tensor]]]:
    """Each signature's inputs and outputs: name → (shape, type, dynamic)."""
    type_names = {v: k for k, v in vars(tfl.TensorType).items() if not k.startswith("_")}
    try:
        m = tfl.Model.GetRootAs(data, 0)
        out = {}
        for i in range(m.SignatureDefsLength()):
            s = m.SignatureDefs(i)
            sg = m.Subgraphs(s.SubgraphIndex())

            def tensor(t: Any, sg: Any = sg) -> Tensor:
                ten = sg.Tensors(t.TensorIndex())
                shape = tuple(int(ten.Shape(j)) for j in range(ten.ShapeLength()))
                sig = [int(ten.ShapeSignature(j)) for j in range(ten.ShapeSignatureLength())]
                return shape, type_names.get(ten.Type(), str(ten.Type())), any(d < 0 for d in (*shape, *sig))

            key = (s.SignatureKey() or b"").decode("utf-8", "replace")
            out[key] = ({(s.Inputs(j).Name() or b"").decode(): tensor(s.Inputs(j)) for j in range(s.InputsLength())},
                        {(s.Outputs(j).Name() or b"").decode(): tensor(s.Outputs(j))
                         for j in range(s.OutputsLength())})
    except Exception as e:  # flatbuffers raises struct.error / IndexError / ... on a damaged model
        raise _bad(p, f"has an unreadable TFLite prefill/decode model ({type(e).__name__}: {e})") from e
    return out


def _positions_length(inputs: dict[str, Tensor]) -> int:
    for name in _POSITION_NAMES:
        if name in inputs and inputs[name][0]:
            shape = inputs[name][0]
            return shape[1] if len(shape) == 2 else shape[0]
    return 0


def _kv_layout(p: Path, inputs: dict[str, Tensor], executor: Any) -> dict[str, Any]:
    for k_root, v_root in _KV_ROOTS:
        ks = _numbered(inputs, k_root)
        if ks:
            vs = _numbered(inputs, v_root)
            break
    else:
        raise _bad(p, "its decode signature has no KV cache inputs (kv_cache_k_N / k_cache_N)",
                   "give a .litertlm exported with a KV cache (litert-torch's generative export)")
    layers = len(ks)
    if sorted(ks) != list(range(layers)) or sorted(vs) != list(range(layers)):
        raise _bad(p, f"its decode signature's KV cache inputs are not layers 0..{layers - 1} of keys and values "
                   f"({k_root}: {sorted(ks)}, {v_root}: {sorted(vs)})", "edgeprof cannot size this cache: "
                   "measure it on a phone (litert_lm_main)")
    k_shape, k_type, k_dynamic = ks[0]
    if any(ks[i][:2] != (k_shape, k_type) for i in ks) or any(
            math.prod(vs[i][0]) != math.prod(k_shape) or vs[i][1] != k_type for i in vs):
        raise _bad(p, "its layers' KV caches differ in shape or type (sliding-window or shared layers): sizing such "
                   "a cache is not supported yet", "measure it on a phone (litert_lm_main)")
    if k_dynamic:
        raise _bad(p, f"its KV cache has a dynamic dimension ({k_root}0 {list(k_shape)}): a cache sized at load is "
                   "not supported yet", "give a .litertlm exported with a fixed KV cache length")
    if len(k_shape) != 4 or k_shape[0] != 1:
        raise _bad(p, f"its KV cache {k_root}0 has shape {list(k_shape)}, not [1, a, b, c]: edgeprof cannot read "
                   "its dimensions", "measure it on a phone (litert_lm_main)")
    axis, axis_from = _sequence_axis(p, k_root, k_shape, inputs, executor)
    if k_type not in _DTYPES:
        raise _bad(p, f"its KV cache is {k_type}, a type edgeprof does not size", "measure it on a phone")
    dtype, size = _DTYPES[k_type]
    heads, dim = (k_shape[i] for i in (1, 2, 3) if i != axis)
    return {"layers": layers, "kv_heads": heads, "head_dim": dim, "cache_length": k_shape[axis], "dtype": dtype,
            "bytes_per_element": size, "sequence_axis": axis, "axis_from": axis_from, "k_shape": k_shape}


def _numbered(inputs: dict[str, Tensor], root: str) -> dict[int, Tensor]:
    pattern = re.compile(re.escape(root) + r"(\d+)$")
    return {int(m.group(1)): t for name, t in inputs.items() if (m := pattern.match(name))}


def _sequence_axis(p: Path, k_root: str, k_shape: tuple[int, ...], inputs: dict[str, Tensor],
                   executor: Any) -> tuple[int, str]:
    if executor is not None and executor.HasField("llm_executor_metadata"):
        for b in executor.llm_executor_metadata.state_buffers:
            if b.decode_input_name == f"{k_root}0" and b.HasField("sequence_axis"):
                if not 1 <= b.sequence_axis <= 3:
                    raise _bad(p, f"its ExecutorMetadata gives {k_root}0 the sequence axis {b.sequence_axis} of a "
                               f"{len(k_shape)}-axis cache")
                return int(b.sequence_axis), "ExecutorMetadata"
    mask = next((inputs[n][0] for n in _MASK_NAMES if n in inputs and inputs[n][0]), None)
    axes = [i for i in (1, 2, 3) if mask is not None and k_shape[i] == mask[-1]]
    if len(axes) != 1:
        why = ("has no attention mask input" if mask is None
               else f"has {len(axes)} axes of length {mask[-1]}, the decode mask's context")
        raise _bad(p, f"its KV cache {k_root}0 {list(k_shape)} {why}, and no ExecutorMetadata names its sequence "
                   "axis: its length cannot be read", "measure it on a phone (litert_lm_main)")
    return axes[0], "the decode mask"


def _tokenizer_size(p: Path, buf: memoryview, sec: LitertlmSection) -> tuple[str, int | None]:
    begin, end = sec.begin, sec.end
    if sec.kind == "HF_Tokenizer_Zlib":
        raw = bytes(buf[begin:end])
        try:
            data = json.loads(zlib.decompress(raw[8:]))
            model = data.get("model") or {}
            vocab = model.get("vocab")
            ids = (list(vocab.values()) if isinstance(vocab, dict)
                   else list(range(len(vocab))) if isinstance(vocab, list) else [])
            ids += [int(t["id"]) for t in data.get("added_tokens") or [] if isinstance(t, dict) and "id" in t]
        except (zlib.error, ValueError, TypeError, AttributeError, KeyError) as e:
            raise _bad(p, f"has an unreadable tokenizer section (HF tokenizer.json: {type(e).__name__}: {e})") from e
        if not ids:
            raise _bad(p, "its tokenizer section (HF tokenizer.json) lists no tokens")
        return "HF tokenizer.json", max(int(i) for i in ids) + 1
    try:
        import sentencepiece as spm
    except ImportError:
        return "SentencePiece", None
    try:
        sp = spm.SentencePieceProcessor(model_proto=bytes(buf[begin:end]))
        return "SentencePiece", int(sp.get_piece_size())
    except Exception as e:  # sentencepiece raises RuntimeError on a damaged model
        raise _bad(p, f"has an unreadable tokenizer section (SentencePiece: {type(e).__name__}: {e})") from e
