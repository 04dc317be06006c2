"""What kind of generative model a user's path is, checked before anything is pushed to a device.

Owns: telling apart a Hugging Face folder (config.json + safetensors weights + tokenizer files), an
onnxruntime-genai folder (genai_config.json), a GGUF file (magic "GGUF") and a LiteRT-LM file (magic "LITERTLM");
validating each with ONE-line errors (ModelError: what is wrong, which file, what to do): a folder without a
tokenizer, a safetensors or GGUF file whose tensors run past its end (truncated), a wrong magic, an unreadable
header; and reading the dimensions that size the KV cache (layers, KV heads, head dim) and bound the context
(ModelInfo.check_context: a --depth + prompt + generated tokens beyond the model's context is refused as a
ConfigError). Also the small readers it needs: the safetensors header (read_safetensors_header, load_tensor) and the
GGUF header (read_gguf_header), written from the formats' specifications so that a damaged file is named precisely
(safetensors: github.com/huggingface/safetensors README "Format"; GGUF: ggml docs/gguf.md and gguf-py's reader).
Does not own: converting between formats (gguf_writer.py, build.py), running the model (the agent).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..errors import ConfigError, ModelError

__all__ = ["ModelInfo", "detect", "read_safetensors_header", "load_tensor", "read_gguf_header", "GgufHeader",
           "KINDS", "LITERTLM_MAGIC", "GGUF_MAGIC"]

KINDS = ("hf", "gguf", "ortgenai", "litertlm")
GGUF_MAGIC = b"GGUF"
LITERTLM_MAGIC = b"LITERTLM"  # litert_lm_builder/litertlm_core.py HEADER_MAGIC_BYTES
_LITERTLM_HEADER_BEGIN = 32  # litertlm_core.HEADER_BEGIN_BYTE_OFFSET
_LITERTLM_HEADER_END_AT = 24  # litertlm_core.HEADER_END_LOCATION_BYTE_OFFSET: u64 offset of the header's end
_LITERTLM_MAJOR = 1  # litertlm_core.LITERTLM_MAJOR_VERSION
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model")
_SAFETENSORS_SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
                      "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "U16": 2, "U32": 4, "U64": 8}
_MAX_HEADER = 100 * 1024 * 1024  # safetensors refuses headers over 100 MB


@dataclass(frozen=True)
class ModelInfo:
    """A validated generative model and the dimensions that size its KV cache (None where the format does not
    say them: a .litertlm's are read apart, by litertlm_read.py, where a board's backend needs them)."""

    kind: str  # one of KINDS
    path: str
    architecture: str | None
    context_length: int | None
    layers: int | None
    heads: int | None
    kv_heads: int | None
    head_dim: int | None
    hidden_size: int | None
    vocab_size: int | None
    weights: str | None = None  # hf: the safetensors dtypes; gguf: general.file_type's name
    notes: tuple[str, ...] = field(default_factory=tuple)

    def kv_cache_bytes(self, n_ctx: int, bytes_per_element: int) -> int | None:
        """Keys and values (2) × layers × KV heads × head dim × n_ctx × bytes per element; None if unknown."""
        if self.layers is None or self.kv_heads is None or self.head_dim is None:
            return None
        return 2 * self.layers * self.kv_heads * self.head_dim * n_ctx * bytes_per_element

    def check_context(self, depth: int, prompt_tokens: int, gen_tokens: int) -> int:
        """depth + prompt + generated tokens, refused (ConfigError, one line) past the model's context."""
        need = depth + prompt_tokens + gen_tokens
        if self.context_length is not None and need > self.context_length:
            raise ConfigError(
                f"--depth {depth} + {prompt_tokens} prompt + {gen_tokens} generated = {need} tokens is past the "
                f"context of {self.path} ({self.context_length} tokens)",
                hint=f"lower --depth to at most {max(0, self.context_length - prompt_tokens - gen_tokens)}, or "
                     "the prompt or generated tokens")
        return need


def _bad(path: Path | str, what: str, hint: str) -> ModelError:
    return ModelError(f"{path}: {what}", hint=hint)


def detect(path: str | Path) -> ModelInfo:
    """Validate the generative model at `path` and read its dimensions; ModelError (one line) if it is not one."""
    p = Path(path).expanduser()
    if not p.exists():
        raise _bad(p, "no such file or folder", "give the path of a Hugging Face folder, an onnxruntime-genai "
                   "folder, a .gguf or a .litertlm file")
    if p.is_dir():
        if (p / "genai_config.json").is_file():
            return _ortgenai(p)
        if (p / "config.json").is_file():
            return _hf(p)
        raise _bad(p, "is neither a Hugging Face model folder (no config.json) nor an onnxruntime-genai folder (no "
                   "genai_config.json)", "point at the folder that holds config.json or genai_config.json")
    try:
        with p.open("rb") as f:
            head = f.read(8)
    except OSError as e:
        raise _bad(p, f"cannot be read ({e.strerror})", "check the path and its permissions") from e
    if head[:4] == GGUF_MAGIC:
        return _gguf(p)
    if head == LITERTLM_MAGIC:
        return _litertlm(p)
    suffix = p.suffix.lower()
    if suffix == ".gguf":
        raise _bad(p, f"is not a GGUF file (it starts with {head[:4]!r}, not {GGUF_MAGIC!r})",
                   "the download may be damaged or an HTML page: fetch it again")
    if suffix == ".litertlm":
        raise _bad(p, f"is not a LiteRT-LM file (it starts with {head!r}, not {LITERTLM_MAGIC!r})",
                   "the download may be damaged: fetch it again")
    raise _bad(p, "is not a generative model edgeprof knows", "give a Hugging Face folder, an onnxruntime-genai "
               "folder, a .gguf or a .litertlm file")


# ------------------------------------------------------------------------------------------ Hugging Face
def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise _bad(path, f"cannot be read ({e.strerror})", "check its permissions") from e
    except (ValueError, UnicodeDecodeError) as e:
        raise _bad(path, f"is not valid JSON ({e})", f"the {what} is damaged: write it again") from e
    if not isinstance(data, dict):
        raise _bad(path, f"is not a JSON object (a {type(data).__name__})", f"the {what} is damaged")
    return data


def _int(d: Mapping[str, Any], key: str, path: Path, required: bool = True) -> int | None:
    v = d.get(key)
    if v is None and not required:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise _bad(path, f"has no positive integer {key!r} (found {v!r})",
                   "the config is incomplete: write it from the model's own config")
    return v


def read_safetensors_header(path: Path) -> tuple[dict[str, Any], int]:
    """(tensors {name: {dtype, shape, data_offsets}}, the byte where the data starts); ModelError (one line) for
    a header that cannot be read or a tensor that runs past the file's end (truncated)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        raw = f.read(8)
        if len(raw) < 8:
            raise _bad(path, f"is {size} bytes: too short for a safetensors file", "write or download it again")
        (n,) = struct.unpack("<Q", raw)
        if n > _MAX_HEADER or 8 + n > size:
            raise _bad(path, f"has a header of {n} bytes in a file of {size}: not a safetensors file, or truncated",
                       "write or download it again")
        try:
            header = json.loads(f.read(n))
        except (ValueError, UnicodeDecodeError) as e:
            raise _bad(path, f"has an unreadable safetensors header ({e})", "write or download it again") from e
    if not isinstance(header, dict):
        raise _bad(path, "has a safetensors header that is not a JSON object", "write or download it again")
    header.pop("__metadata__", None)
    start, data_len = 8 + n, size - 8 - n
    for name, t in header.items():
        try:
            begin, end = (int(x) for x in t["data_offsets"])
            dtype, shape = t["dtype"], [int(x) for x in t["shape"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad(path, f"has a malformed entry for tensor {name!r} in its header",
                       "write or download it again") from exc
        if dtype not in _SAFETENSORS_SIZES:
            raise _bad(path, f"tensor {name!r} has dtype {dtype!r}, which edgeprof does not read",
                       "store the weights as F32, F16 or BF16")
        if end > data_len:
            raise _bad(path, f"tensor {name!r} ends at data byte {end} but the file holds {data_len} bytes of data: "
                       "truncated", "the file was cut short (an interrupted copy or download): write it again")
        if end - begin != math.prod(shape) * _SAFETENSORS_SIZES[dtype]:
            raise _bad(path, f"tensor {name!r} spans {end - begin} bytes, not the {math.prod(shape)} × "
                       f"{_SAFETENSORS_SIZES[dtype]} its shape and dtype need", "write the file again")
    return header, start


def load_tensor(path: Path, header: Mapping[str, Any], start: int, name: str) -> np.ndarray:
    """One tensor of a safetensors file as float32 (F32, F16 and BF16), read through a memory map."""
    t = header[name]
    b, e = t["data_offsets"]
    shape = tuple(int(x) for x in t["shape"])
    dtype = t["dtype"]
    if dtype == "BF16":
        bits = np.memmap(path, dtype="<u2", mode="r", offset=start + b, shape=(max(1, (e - b) // 2),))
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(shape)
    np_dtype = {"F32": "<f4", "F16": "<f2"}.get(dtype)
    if np_dtype is None:
        raise ModelError(f"{path}: tensor {name!r} is {dtype}, not a float type edgeprof converts",
                         hint="store the weights as F32, F16 or BF16")
    arr = np.memmap(path, dtype=np_dtype, mode="r", offset=start + b, shape=(math.prod(shape),))
    return np.asarray(arr, dtype=np.float32).reshape(shape)


def hf_weight_files(folder: Path) -> list[Path]:
    """The folder's safetensors files: model.safetensors, or the shards its index names (one line if none)."""
    single = folder / "model.safetensors"
    if single.is_file():
        return [single]
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        weight_map = _read_json(index, "safetensors index").get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise _bad(index, "has no weight_map", "write the index again")
        shards = sorted({str(v) for v in weight_map.values()})
        missing = [s for s in shards if "/" in s or s.startswith(".") or not (folder / s).is_file()]
        if missing:
            raise _bad(folder, f"lacks the weight shard {missing[0]} its index names",
                       "copy every model-*.safetensors shard into the folder")
        return [folder / s for s in shards]
    if any(folder.glob("pytorch_model*.bin")):
        raise _bad(folder, "has only pytorch_model*.bin weights, no safetensors",
                   "save the model again with save_pretrained(..., safe_serialization=True)")
    raise _bad(folder, "has a config.json but no weights (model.safetensors)",
               "copy the model's *.safetensors files into the folder")


def _hf(folder: Path) -> ModelInfo:
    cfg_path = folder / "config.json"
    cfg = _read_json(cfg_path, "config.json")
    text = cfg.get("text_config")
    if isinstance(text, dict):  # multimodal configs keep the decoder's dimensions there
        cfg = {**cfg, **text}
    layers = _int(cfg, "num_hidden_layers", cfg_path)
    heads = _int(cfg, "num_attention_heads", cfg_path)
    hidden = _int(cfg, "hidden_size", cfg_path)
    vocab = _int(cfg, "vocab_size", cfg_path)
    context = _int(cfg, "max_position_embeddings", cfg_path)
    kv_heads = _int(cfg, "num_key_value_heads", cfg_path, required=False) or heads
    head_dim = _int(cfg, "head_dim", cfg_path, required=False)
    if head_dim is None:
        assert hidden is not None and heads is not None
        head_dim = hidden // heads
    if not any((folder / t).is_file() for t in _TOKENIZER_FILES):
        raise _bad(folder, "has no tokenizer (tokenizer.json or tokenizer.model)",
                   "copy the model's tokenizer files beside config.json (the converters load it from there)")
    dtypes: set[str] = set()
    for shard in hf_weight_files(folder):
        header, _start = read_safetensors_header(shard)
        dtypes.update(str(t["dtype"]) for t in header.values())
    archs = cfg.get("architectures")
    return ModelInfo(kind="hf", path=str(folder), architecture=str(cfg.get("model_type") or
                     (archs[0] if isinstance(archs, list) and archs else "")) or None,
                     context_length=context, layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
                     hidden_size=hidden, vocab_size=vocab, weights="+".join(sorted(dtypes)) or None)


# ------------------------------------------------------------------------------------- onnxruntime-genai
def _ortgenai(folder: Path) -> ModelInfo:
    cfg_path = folder / "genai_config.json"
    cfg = _read_json(cfg_path, "genai_config.json")
    model = cfg.get("model")
    decoder = model.get("decoder") if isinstance(model, dict) else None
    if not isinstance(model, dict) or not isinstance(decoder, dict):
        raise _bad(cfg_path, "has no model.decoder section", "write it again with the onnxruntime-genai model builder")
    filename = decoder.get("filename")
    if not isinstance(filename, str) or not filename or "/" in filename or filename.startswith("."):
        raise _bad(cfg_path, f"names no usable decoder file (model.decoder.filename = {filename!r})",
                   "write it again with the onnxruntime-genai model builder")
    if not (folder / filename).is_file():
        raise _bad(folder, f"lacks {filename}, the decoder its genai_config.json names",
                   "copy the whole folder the model builder wrote")
    where = Path(f"{cfg_path} model.decoder")
    return ModelInfo(kind="ortgenai", path=str(folder), architecture=str(model.get("type") or "") or None,
                     context_length=_int(model, "context_length", cfg_path),
                     layers=_int(decoder, "num_hidden_layers", where),
                     heads=_int(decoder, "num_attention_heads", where),
                     kv_heads=_int(decoder, "num_key_value_heads", where),
                     head_dim=_int(decoder, "head_size", where), hidden_size=_int(decoder, "hidden_size", where),
                     vocab_size=_int(model, "vocab_size", cfg_path, required=False))


# ------------------------------------------------------------------------------------------------- GGUF
@dataclass(frozen=True)
class GgufHeader:
    version: int
    kv: dict[str, Any]
    tensors: list[tuple[str, tuple[int, ...], int, int]]  # (name, dims as stored (ne0 first), ggml type, offset)
    data_start: int
    size: int


_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
                 12: "<d"}


class _Cursor:
    def __init__(self, f: BinaryIO, path: Path, size: int) -> None:
        self.f, self.path, self.size = f, path, size

    def take(self, n: int) -> bytes:
        b = self.f.read(n)
        if len(b) < n:
            raise _bad(self.path, f"ends inside its GGUF header (at byte {self.size}): truncated",
                       "the file was cut short (an interrupted copy or download): fetch it again")
        return b

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        n = self.unpack("<Q")
        if n > self.size:
            raise _bad(self.path, f"has a string of {n} bytes in its GGUF header: damaged", "fetch it again")
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, vtype: int, depth: int = 0) -> Any:
        if vtype in _GGUF_SCALARS:
            return self.unpack(_GGUF_SCALARS[vtype])
        if vtype == 8:
            return self.string()
        if vtype == 9 and depth == 0:
            sub, n = self.unpack("<I"), self.unpack("<Q")
            if n > self.size:
                raise _bad(self.path, f"has an array of {n} items in its GGUF header: damaged", "fetch it again")
            if sub in _GGUF_SCALARS:
                fmt = _GGUF_SCALARS[sub]
                return list(struct.unpack("<" + fmt[1] * n, self.take(struct.calcsize(fmt) * n))) if n else []
            return [self.value(sub, depth + 1) for _ in range(n)]
        raise _bad(self.path, f"has a GGUF value of unknown type {vtype}: damaged or from a newer GGUF",
                   "fetch it again, or convert it with a current llama.cpp")


def read_gguf_header(path: Path) -> GgufHeader:
    """The GGUF header (version 2 or 3): key/values, tensor infos, where the data starts; ModelError (one line)
    for a wrong magic, an unknown version or a header cut short."""
    size = path.stat().st_size
    with path.open("rb") as f:
        c = _Cursor(f, path, size)
        magic = c.take(4)
        if magic != GGUF_MAGIC:
            raise _bad(path, f"is not a GGUF file (it starts with {magic!r})", "fetch it again")
        version = c.unpack("<I")
        if version not in (2, 3):
            raise _bad(path, f"is GGUF version {version}; edgeprof reads versions 2 and 3",
                       "convert it again with a current llama.cpp (convert_hf_to_gguf.py)")
        n_tensors, n_kv = c.unpack("<Q"), c.unpack("<Q")
        if n_tensors > size or n_kv > size:
            raise _bad(path, f"claims {n_tensors} tensors and {n_kv} keys: damaged", "fetch it again")
        kv: dict[str, Any] = {}
        for _ in range(n_kv):
            key = c.string()
            kv[key] = c.value(c.unpack("<I"))
        tensors = []
        for _ in range(n_tensors):
            name = c.string()
            n_dims = c.unpack("<I")
            if n_dims > 8:
                raise _bad(path, f"tensor {name!r} has {n_dims} dimensions: damaged", "fetch it again")
            dims = tuple(c.unpack("<Q") for _ in range(n_dims))
            tensors.append((name, dims, c.unpack("<I"), c.unpack("<Q")))
        align = int(kv.get("general.alignment", 32))
        data_start = -(-f.tell() // align) * align
    return GgufHeader(version=version, kv=kv, tensors=tensors, data_start=data_start, size=size)


def _gguf_sizes() -> Mapping[int, tuple[int, int]]:
    try:
        from gguf.constants import GGML_QUANT_SIZES
    except ImportError as e:  # pragma: no cover - the gen extra installs gguf
        raise ModelError("reading a GGUF file needs the gguf package", hint="pip install 'edgeprof[gen]'") from e
    return {int(k): v for k, v in GGML_QUANT_SIZES.items()}


def gguf_tensor_nbytes(dims: tuple[int, ...], ggml_type: int, path: Path, name: str) -> int:
    sizes = _gguf_sizes()
    if ggml_type not in sizes:
        raise _bad(path, f"tensor {name!r} has ggml type {ggml_type}, which this gguf package does not know",
                   "upgrade gguf (pip install -U gguf), or convert the model with a current llama.cpp")
    block, type_size = sizes[ggml_type]
    n = math.prod(dims)
    if dims and dims[0] % block:
        raise _bad(path, f"tensor {name!r} has rows of {dims[0]} values, not a multiple of its type's block of "
                   f"{block}: damaged", "fetch it again")
    return n // block * type_size


def _gguf(path: Path) -> ModelInfo:
    h = read_gguf_header(path)
    for name, dims, ggml_type, offset in h.tensors:
        end = h.data_start + offset + gguf_tensor_nbytes(dims, ggml_type, path, name)
        if end > h.size:
            raise _bad(path, f"tensor {name!r} ends at byte {end} but the file has {h.size} bytes: truncated",
                       "the file was cut short (an interrupted copy or download): fetch it again")
    arch = h.kv.get("general.architecture")
    if not isinstance(arch, str):
        raise _bad(path, "has no general.architecture key", "convert it again with a current llama.cpp")

    def num(key: str) -> int | None:
        v = h.kv.get(f"{arch}.{key}")
        if isinstance(v, list):  # per-layer values (some architectures): the largest sizes the cache
            v = max(v) if v else None
        return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    heads, hidden = num("attention.head_count"), num("embedding_length")
    head_dim = num("attention.key_length") or (hidden // heads if hidden and heads else None)
    tokens = h.kv.get("tokenizer.ggml.tokens")
    vocab = num("vocab_size") or (len(tokens) if isinstance(tokens, list) else None)
    file_type = h.kv.get("general.file_type")
    weights = None
    if isinstance(file_type, int):
        try:
            from gguf.constants import LlamaFileType

            weights = LlamaFileType(file_type).name
        except (ImportError, ValueError):
            weights = f"file_type {file_type}"
    return ModelInfo(kind="gguf", path=str(path), architecture=arch, context_length=num("context_length"),
                     layers=num("block_count"), heads=heads, kv_heads=num("attention.head_count_kv") or heads,
                     head_dim=head_dim, hidden_size=hidden, vocab_size=vocab, weights=weights)


# -------------------------------------------------------------------------------------------- LiteRT-LM
def _litertlm(path: Path) -> ModelInfo:
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(_LITERTLM_HEADER_BEGIN)
    if len(head) < _LITERTLM_HEADER_BEGIN:
        raise _bad(path, f"is {size} bytes: too short for a LiteRT-LM file", "fetch it again")
    major, minor, patch = struct.unpack("<III", head[8:20])
    (header_end,) = struct.unpack("<Q", head[_LITERTLM_HEADER_END_AT:_LITERTLM_HEADER_END_AT + 8])
    if major != _LITERTLM_MAJOR:
        raise _bad(path, f"is LiteRT-LM format {major}.{minor}.{patch}; edgeprof reads major version "
                   f"{_LITERTLM_MAJOR}", "convert it again with a current litert-lm-builder")
    if not _LITERTLM_HEADER_BEGIN <= header_end <= size:
        raise _bad(path, f"says its header ends at byte {header_end} but the file has {size} bytes: truncated",
                   "the file was cut short (an interrupted copy or download): fetch it again")
    # its vocabulary and KV cache are read where the agent's backend needs them (litertlm_read.py: on a board)
    notes = ["the .litertlm's model dimensions are not read here (litertlm_read.py reads them for a board)"]
    sections = litertlm_sections(path, header_end)
    if sections is None:
        notes.append("its sections were not checked (litert-lm-builder is not installed)")
    else:
        for i, sec in enumerate(sections):
            if not sec.begin <= sec.end <= size:
                raise _bad(path, f"section {i} ({sec.kind}) ends at byte {sec.end} but the file has {size} bytes: "
                           "truncated", "the file was cut short (an interrupted copy or download): fetch it again")
    return ModelInfo(kind="litertlm", path=str(path), architecture=None, context_length=None, layers=None,
                     heads=None, kv_heads=None, head_dim=None, hidden_size=None, vocab_size=None,
                     weights=f"LiteRT-LM {major}.{minor}.{patch}", notes=tuple(notes))


@dataclass(frozen=True)
class LitertlmSection:
    """One section of a .litertlm's header: its data type's name (AnySectionDataType: "TFLiteModel",
    "HF_Tokenizer_Zlib", "LlmMetadataProto", ...), its `model_type` item when it has one (a TFLite section's
    "tf_lite_prefill_decode", "tf_lite_embedder", ...), and its byte span."""

    kind: str
    model_type: str | None
    begin: int
    end: int


def litertlm_sections(path: Path, header_end: int | None = None) -> list[LitertlmSection] | None:
    """Each section of the .litertlm at `path`, read with litert-lm-builder's flatbuffer schema (the one reader of
    the header: detect() checks the spans, litertlm_read.py finds its sections by them); None when the package is
    not installed. `header_end`: the header's end as the file states it (read here when not given)."""
    try:
        from litert_lm_builder import litertlm_header_schema_py_generated as schema
    except ImportError:
        return None
    with path.open("rb") as f:
        if header_end is None:
            f.seek(_LITERTLM_HEADER_END_AT)
            (header_end,) = struct.unpack("<Q", f.read(8))
        f.seek(_LITERTLM_HEADER_BEGIN)
        data = f.read(max(header_end - _LITERTLM_HEADER_BEGIN, 0))
    try:
        meta = schema.LiteRTLMMetaData.GetRootAs(data, 0)
        objects = meta.SectionMetadata()
        names = {v: k for k, v in vars(schema.AnySectionDataType).items() if not k.startswith("_")}
        out = []
        for i in range(objects.ObjectsLength() if objects is not None else 0):
            o = objects.Objects(i)
            model_type = None
            for j in range(o.ItemsLength()):
                item = o.Items(j)
                if item.Key() == b"model_type" and item.ValueType() == schema.VData.StringValue:
                    sv, table = schema.StringValue(), item.Value()
                    sv.Init(table.Bytes, table.Pos)
                    model_type = (sv.Value() or b"").decode("utf-8", "replace")
            out.append(LitertlmSection(names.get(o.DataType(), str(o.DataType())), model_type,
                                       int(o.BeginOffset()), int(o.EndOffset())))
    except Exception as e:  # flatbuffers raises struct.error / IndexError / ... on a damaged header
        raise _bad(path, f"has an unreadable LiteRT-LM header ({type(e).__name__}: {e})", "fetch it again") from e
    return out
