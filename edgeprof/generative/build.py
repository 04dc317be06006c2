"""The generative models' files, built once and cached by content (export/artifact_cache.py's entries).

Owns: three cached builds, each an entry `cache_dir/<key>/` holding a whole model:
- `hf_folder(name)`: a bundled generative model (edgeprof_models.generative) as a Hugging Face folder (the entry's
  model file is model.safetensors; config.json, generation_config.json and the tokenizer files beside it);
- `gguf_file(folder, quant)`: a llama GGUF at f16 / q8_0 / q4_0 (gguf_writer.py), as model.gguf;
- `ortgenai_folder(folder, precision)`: onnxruntime-genai's model builder run on the folder (fp32 or int4, CPU),
  as its folder (model.onnx, model.onnx.data, genai_config.json, tokenizer files). The builder runs in a child
  Python (`python -m onnxruntime_genai.models.builder ... --extra_options hf_token=false`; it imports torch and
  transformers), its output kept in the entry's log;
- `litertlm_file(folder, precision)`: litert-torch's Hugging Face exporter run on the folder in a child Python
  (litertlm_export.py: TFLite prefill/decode graphs with a KV cache, the tokenizer, packaged by litert-lm-builder),
  as model.litertlm; its KV cache is as long as the run needs, rounded up to a power of two (litertlm_cache_length):
  the graphs' shapes are static, so every decode step works over the whole cache whatever the sequence holds.
Each key hashes what decides the files: the bundled model's definition (its module's text and the seed) or the
source folder's files (sha256 of each), the code that converts (this module, gguf_writer.py), and the versions of
the libraries that write them (numpy's generator, gguf, onnxruntime-genai, onnx-ir, transformers, litert-torch,
litert-lm-builder, ai-edge-quantizer, torch).
Does not own: the entry layout, atomic writes and validation (artifact_cache.py), the conversions themselves.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..export.artifact_cache import (
    build_cached,
    default_cache_dir,
    dist_version,
    key_of,
    sha256_file,
    text_hash,
)
from ..export.capture import library_failure
from ..records import Artifact, GenerativeBuild

__all__ = ["hf_folder", "gguf_file", "ortgenai_folder", "litertlm_file", "ORTGENAI_PRECISIONS", "LITERTLM_PRECISIONS",
           "LITERTLM_PREFILL_LENGTHS", "litertlm_cache_length"]

ORTGENAI_PRECISIONS = ("fp32", "int4")
# a .litertlm edgeprof builds: litert-torch's quantisation recipes (litertlm_export.RECIPES): int8 weights with
# fp32 activations (the exporter's default, dynamic_wi8_afp32), or none (fp32)
LITERTLM_PRECISIONS = ("wi8_afp32", "fp32")
# the prefill signatures exported (LiteRT-LM runs a longer prompt in pieces of these), and the shortest KV cache
LITERTLM_PREFILL_LENGTHS = (32, 128, 512)
LITERTLM_MIN_CACHE = 256
_HERE = Path(__file__).resolve().parent


def _artifact(path: Path, fmt: str, name: str, source: str, precision: str, options: dict[str, Any],
              params: int | None = None) -> Artifact:
    return Artifact(path=str(path), format=fmt, sha256="", size_bytes=0, inputs=(), outputs=(), model_name=name,
                    source=source, precision=precision, export_options=GenerativeBuild(kind=fmt, **options),
                    params=params)


def folder_digest(folder: Path) -> dict[str, str]:
    """sha256 of every file directly in `folder` (a model folder), by name; a cache entry's own meta.json left out
    (it describes the entry, not the model)."""
    return {p.name: sha256_file(p) for p in sorted(Path(folder).iterdir()) if p.is_file() and p.name != "meta.json"}


def hf_folder(name: str, seed: int = 0, cache_dir: Path | None = None) -> Artifact:
    """The bundled generative model `name` as a cached Hugging Face folder (Artifact.path: its model.safetensors)."""
    import edgeprof_models.generative as gen

    model = gen.get_generative(name)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = key_of({"generative_hf": name, "seed": seed, "models": text_hash(Path(gen.__file__)),
                  "numpy": dist_version("numpy")})

    def build(target: Path) -> Artifact:
        gen.write_hf_folder(model, target.parent, seed)
        return _artifact(target, "hf", name, f"bundled:{name}", model.dtype,
                         {"seed": seed, "shape_of": model.shape_of}, params=model.parameter_count())

    return build_cached(cache, key, "safetensors", build, what=f"writing the Hugging Face folder of {name}")


def _require_hf(folder: Path) -> None:
    """The source of a conversion is a valid Hugging Face folder (detect.py's one-line errors), checked before
    a converter runs and fails on it with a library's traceback."""
    from .detect import detect

    info = detect(folder)
    if info.kind != "hf":
        raise ModelError(f"{folder} is a {info.kind} model, not a Hugging Face folder to convert",
                         hint="give the Hugging Face folder it was made from, or measure it as it is")


def _source_key(folder: Path) -> dict[str, object]:
    return {"files": folder_digest(folder)}


def gguf_file(folder: Path, quant: str, cache_dir: Path | None = None, name: str | None = None) -> Artifact:
    """The Llama Hugging Face folder `folder` as a cached GGUF at `quant` (f16, q8_0, q4_0)."""
    from .gguf_writer import QUANTS, write_gguf

    if quant not in QUANTS:
        raise ModelError(f"unknown GGUF precision {quant!r}", hint="choose one of: " + ", ".join(QUANTS))
    folder = Path(folder)
    _require_hf(folder)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = key_of({"gguf_of": _source_key(folder), "quant": quant, "code": text_hash(_HERE / "gguf_writer.py"),
                  "gguf": dist_version("gguf")})
    label = name or folder.name

    def build(target: Path) -> Artifact:
        s = write_gguf(folder, target, quant, name=label)
        return _artifact(target, "gguf", label, f"file:{folder}", quant,
                         {"file_type": s.file_type, "tensor_types": s.tensor_types, "fallbacks": list(s.fallbacks),
                          "pure": quant == "q4_0"}, params=s.parameters)

    return build_cached(cache, key, "gguf", build, what=f"writing {label} as GGUF {quant}")


def ortgenai_folder(folder: Path, precision: str, cache_dir: Path | None = None, name: str | None = None,
                    python: str | None = None) -> Artifact:
    """The Hugging Face folder `folder` through onnxruntime-genai's model builder (CPU, `precision` fp32 or
    int4), cached (Artifact.path: the entry's model.onnx; the folder around it is what og.Model loads)."""
    if precision not in ORTGENAI_PRECISIONS:
        raise ModelError(f"unknown onnxruntime-genai precision {precision!r}",
                         hint="choose one of: " + ", ".join(ORTGENAI_PRECISIONS))
    folder = Path(folder)
    _require_hf(folder)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = key_of({"ortgenai_of": _source_key(folder), "precision": precision, "code": text_hash(_HERE / "build.py"),
                  "onnxruntime-genai": dist_version("onnxruntime-genai"), "onnx-ir": dist_version("onnx-ir"),
                  "transformers": dist_version("transformers"), "onnx": dist_version("onnx")})
    label = name or folder.name

    def build(target: Path) -> Artifact:
        with tempfile.TemporaryDirectory(prefix="edgeprof-ortgenai-") as scratch:
            cmd = [python or sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(folder),
                   "-o", str(target.parent), "-p", precision, "-e", "cpu", "-c", scratch,
                   "--extra_options", "hf_token=false"]
            print("$ " + " ".join(cmd), flush=True)
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, cwd=scratch)
        if rc != 0:
            raise library_failure(ModelError(
                f"onnxruntime-genai's model builder failed on {folder} ({precision}, exit status {rc})",
                hint="its output (in the log) says why; onnxruntime-genai, onnx-ir and transformers come with "
                     "pip install 'edgeprof[gen]'"))
        if not (target.parent / "genai_config.json").is_file():
            raise library_failure(ModelError(f"onnxruntime-genai's model builder wrote no genai_config.json for "
                                             f"{folder}", hint="this is a bug in edgeprof: please report it"))
        return _artifact(target, "ortgenai", label, f"file:{folder}", precision,
                         {"builder": "onnxruntime_genai.models.builder", "execution_provider": "cpu"})

    return build_cached(cache, key, "onnx", build, what=f"building {label} for onnxruntime-genai ({precision})")


def litertlm_cache_length(context: int, need: int) -> int:
    """The KV cache length a .litertlm is exported with for a run of `need` tokens (depth + prompt + generated) on
    a model of `context` tokens: `need` rounded up to a power of two, at least LITERTLM_MIN_CACHE, at most the
    context. The graphs' shapes are static: each decode step reads and updates the whole cache (measured on
    llama_tiny, wi8_afp32, 1 thread: 0.44 ms a token at 512, 16 ms at 4096 on the loaded 2-core host), so a cache
    far longer than the run would time the cache, not the run."""
    n = LITERTLM_MIN_CACHE
    while n < need:
        n *= 2
    return min(n, int(context))


def litertlm_file(folder: Path, precision: str, need: int, cache_dir: Path | None = None, name: str | None = None,
                  python: str | None = None) -> Artifact:
    """The Hugging Face folder `folder` as a cached .litertlm (`precision` wi8_afp32 or fp32: litert-torch's
    quantisation recipe) for runs of `need` tokens: its KV cache litertlm_cache_length(context, need) long."""
    import json

    if precision not in LITERTLM_PRECISIONS:
        raise ModelError(f"unknown LiteRT-LM build precision {precision!r}",
                         hint="choose one of: " + ", ".join(LITERTLM_PRECISIONS))
    folder = Path(folder)
    _require_hf(folder)
    config = json.loads((folder / "config.json").read_text())
    cache_length = litertlm_cache_length(config.get("max_position_embeddings") or need, need)
    prefill = [n for n in LITERTLM_PREFILL_LENGTHS if n <= cache_length]
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = key_of({"litertlm_of": _source_key(folder), "precision": precision, "cache_length": cache_length,
                  "prefill": prefill, "code": text_hash(_HERE / "build.py"),
                  "export": text_hash(_HERE / "litertlm_export.py"),
                  **{d: dist_version(d) for d in ("litert-torch", "litert-lm-builder", "ai-edge-quantizer", "torch",
                                                  "transformers", "ai-edge-litert")}})
    label = name or folder.name

    def build(target: Path) -> Artifact:
        with tempfile.TemporaryDirectory(prefix="edgeprof-litertlm-") as scratch:
            cmd = [python or sys.executable, "-m", "edgeprof.generative.litertlm_export", str(folder), scratch,
                   "--cache-length", str(cache_length), "--prefill-lengths", ",".join(map(str, prefill)),
                   "--recipe", precision]
            print("$ " + " ".join(cmd), flush=True)
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, cwd=scratch)
            out = Path(scratch) / "model.litertlm"
            if rc != 0 or not out.is_file():
                raise library_failure(ModelError(
                    f"litert-torch's exporter failed on {folder} ({precision}, exit status {rc})",
                    hint="its output (in the log) says why; litert-torch and litert-lm-builder come with "
                         "pip install 'edgeprof[litert-lm]'"))
            out.replace(target)
        return _artifact(target, "litertlm", label, f"file:{folder}", precision,
                         {"builder": "litert_torch.generative.export_hf (litert-lm-builder)", "exporter":
                          f"litert-torch {dist_version('litert-torch')}", "quantizer": _RECIPE_NAMES[precision],
                          "cache_length": cache_length, "prefill_lengths": prefill})

    return build_cached(cache, key, "litertlm", build, what=f"building {label} for LiteRT-LM ({precision})")


_RECIPE_NAMES = {"wi8_afp32": "dynamic_wi8_afp32", "fp32": "none"}
