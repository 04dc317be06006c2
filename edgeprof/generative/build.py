"""The generative models' files, built once and cached by content (export/artifact_cache.py's entries).

Owns: three cached builds, each an entry `cache_dir/<key>/` holding a whole model:
- `hf_folder(name)`: a bundled generative model (edgeprof_models.generative) as a Hugging Face folder (the entry's
  model file is model.safetensors; config.json, generation_config.json and the tokenizer files beside it);
- `gguf_file(folder, quant)`: a llama GGUF at f16 / q8_0 / q4_0 (gguf_writer.py), as model.gguf;
- `ortgenai_folder(folder, precision)`: onnxruntime-genai's model builder run on the folder (fp32 or int4, CPU),
  as its folder (model.onnx, model.onnx.data, genai_config.json, tokenizer files). The builder runs in a child
  Python (`python -m onnxruntime_genai.models.builder ... --extra_options hf_token=false`; it imports torch and
  transformers), its output kept in the entry's log.
Each key hashes what decides the files: the bundled model's definition (its module's text and the seed) or the
source folder's files (sha256 of each), the code that converts (this module, gguf_writer.py), and the versions of
the libraries that write them (numpy's generator, gguf, onnxruntime-genai, onnx-ir, transformers).
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

__all__ = ["hf_folder", "gguf_file", "ortgenai_folder", "ORTGENAI_PRECISIONS", "folder_digest"]

ORTGENAI_PRECISIONS = ("fp32", "int4")
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
