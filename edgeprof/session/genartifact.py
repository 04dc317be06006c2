"""A generation's artifact: the model as its runtime loads it, and its push to a device.

Owns: whether a name is a bundled generative model (`bundled`), the artifact of a generation spec (`artifact_of`:
a GGUF file, an onnxruntime-genai folder or a .litertlm, built by generative/build.py and cached, or a user's file
or folder as it is), the names a model folder's files may have to be pushed, the push by content (`push`), and
what the agent's LiteRT-LM backend is told about a .litertlm (`litertlm_options`: from the config.json of the folder
edgeprof built it from, or read from a user's file itself). Does not own: building (generative/build.py), reading a
.litertlm's figures (generative/litertlm_read.py), the kind and its request (session/generation.py), the upload
itself (agentlink/push.py).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeprof_agent.vocab import LITERT_LM

from ..errors import ConfigError
from ..generative.settings import settings_of

if TYPE_CHECKING:
    from ..records import Artifact, RunSpec


def bundled(name: str) -> bool:
    import edgeprof_models.generative as gen

    return name in gen.GENERATIVE


def artifact_of(spec: RunSpec, cache_dir: Path | None) -> Artifact:
    """The model as the runtime loads it (cached builds): a GGUF file, an onnxruntime-genai folder (its
    model.onnx: the Artifact's path), or a .litertlm (built; or a user's as it is, the cache and prefill lengths
    its graphs were built with read from it)."""
    import dataclasses

    from ..agentlink.push import sha256_file
    from ..generative.build import gguf_file, hf_folder, litertlm_file, ortgenai_folder
    from ..generative.detect import detect

    if bundled(spec.model):
        folder, name, kind = Path(hf_folder(spec.model, cache_dir=cache_dir).path).parent, spec.model, "hf"
        weights = None
    else:
        info = detect(spec.model)
        folder, name, kind, weights = Path(info.path), Path(info.path).stem, info.kind, info.weights
    if kind == "hf" and spec.runtime == LITERT_LM:
        s = settings_of(spec)
        art = litertlm_file(folder, spec.precision, s["depth"] + s["prompt_tokens"] + s["gen_tokens"],
                            cache_dir=cache_dir, name=name)
    elif kind == "hf":
        art = (gguf_file(folder, spec.precision, cache_dir=cache_dir, name=name) if spec.runtime == "llama.cpp"
               else ortgenai_folder(folder, spec.precision, cache_dir=cache_dir, name=name))
    elif kind == "gguf":
        from ..records import Artifact, GenerativeBuild

        art = Artifact(path=str(folder), format="gguf", sha256="", size_bytes=0, inputs=(), outputs=(),
                       model_name=name, source=f"file:{folder}", precision=spec.precision,
                       export_options=GenerativeBuild(kind="gguf"))
    elif kind == "litertlm":  # a user's .litertlm as it is: what its graphs were built with, read from the file
        from ..generative.litertlm_read import read_litertlm
        from ..records import Artifact, GenerativeBuild

        dims = read_litertlm(folder)
        art = Artifact(path=str(folder), format="litertlm", sha256="", size_bytes=0, inputs=(), outputs=(),
                       model_name=name, source=f"file:{folder}", precision=spec.precision,
                       export_options=GenerativeBuild(kind="litertlm", weights=weights,
                                                      cache_length=dims.cache_length,
                                                      prefill_lengths=list(dims.prefill_lengths) or None))
    else:  # an onnxruntime-genai folder as it is
        from ..records import Artifact, GenerativeBuild

        art = Artifact(path=str(folder / "model.onnx"), format="ortgenai", sha256="", size_bytes=0, inputs=(),
                       outputs=(), model_name=name, source=f"file:{folder}", precision=spec.precision,
                       export_options=GenerativeBuild(kind="ortgenai"))
    if art.format in ("gguf", "litertlm"):
        p = Path(art.path)
        return dataclasses.replace(art, sha256=art.sha256 or sha256_file(p), size_bytes=p.stat().st_size)
    files = _folder_files(Path(art.path).parent)
    import hashlib

    digest = hashlib.sha256("".join(f"{n}:{h}\n" for n, h, _s in files).encode()).hexdigest()
    return dataclasses.replace(art, sha256=digest, size_bytes=sum(s for _n, _h, s in files))


# the names a model folder's files may have to be pushed (each becomes a path on the device, passed as one quoted
# argument; sha256sum escapes a name with a backslash or newline in its output, which would break the by-content
# check): what onnxruntime-genai's model builder writes (model.onnx, model.onnx.data, genai_config.json,
# tokenizer.json, ...) fits
_PUSHED_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._+-]{0,199}$")


def _folder_files(folder: Path) -> list[tuple[str, str, int]]:
    """(name, sha256, size) of each file of a model folder (a cache entry's meta.json left out); a name that
    cannot be pushed as it is ends in one line."""
    from ..agentlink.push import sha256_file

    files = [p for p in sorted(folder.iterdir()) if p.is_file() and p.name != "meta.json"]
    for p in files:
        if not _PUSHED_NAME.match(p.name):
            raise ConfigError(f"{folder}: file {p.name!r} cannot be pushed to a device: a model folder's file "
                              "names must be letters, digits and . _ + - (not starting with . or -)",
                              hint="rename the file (and its mention in genai_config.json), or leave it out of "
                                   "the folder")
    return [(p.name, sha256_file(p), p.stat().st_size) for p in files]


def push(link: Any, art: Artifact) -> tuple[str, int]:
    """The artifact on the device (by content: a file the device has with this sha256 is not sent again): a GGUF
    as one file, an onnxruntime-genai folder file by file into a folder named by its digest. (remote path, bytes
    moved)."""
    from ..agentlink.push import push_file

    if art.format in ("gguf", "litertlm"):
        remote, moved = link.push_artifact(art.path, art.sha256, art.format)
        return str(remote), int(moved)
    folder = posixpath.join(link.workdir, "artifacts", f"{art.sha256}.ortgenai")
    r = link.transport.run(["mkdir", "-p", "--", folder], timeout=60)
    if r.returncode != 0:
        raise ConfigError(f"cannot make {folder} on device {link.transport.device_name}: {r.stderr.strip()}",
                          hint="check permissions and free space in the device workdir")
    moved = 0
    for name, sha, _size in _folder_files(Path(art.path).parent):
        moved += push_file(link.transport, Path(art.path).parent / name, posixpath.join(folder, name), sha)
    link.bytes_moved += moved
    return folder, moved


def litertlm_options(spec: RunSpec, art: Artifact) -> dict[str, Any]:
    """What the agent's LiteRT-LM backend is told about a .litertlm (its API reports neither): the vocabulary the
    random ids are drawn from, the KV cache's dimensions, and where both came from (`dims_from`). A user's file:
    read from the file itself (generative/litertlm_read.py: its decode signature, KV cache inputs and tokenizer).
    One edgeprof built: the config.json of the folder it was built from, the cache length and its dtype as exported
    (fp32 with either recipe, activations being fp32). {} for another runtime."""
    if spec.runtime != LITERT_LM:
        return {}
    if not bundled(spec.model) and Path(spec.model).suffix.lower() == ".litertlm":
        from ..generative.litertlm_read import read_litertlm

        return read_litertlm(spec.model).options()
    cfg = _source_config(spec)
    heads = int(cfg["num_attention_heads"])
    head_dim = int(cfg.get("head_dim") or int(cfg["hidden_size"]) // heads)
    cache_length = getattr(art.export_options, "cache_length", None)
    return {"vocab_size": int(cfg["vocab_size"]),
            "kv_cache": {"layers": int(cfg["num_hidden_layers"]),
                         "kv_heads": int(cfg.get("num_key_value_heads") or heads), "head_dim": head_dim,
                         "cache_length": cache_length, "dtype": "float32", "bytes_per_element": 4},
            "dims_from": "the config.json of the Hugging Face folder edgeprof built the .litertlm from"}


def _source_config(spec: RunSpec) -> dict[str, Any]:
    """The config.json of the Hugging Face folder a .litertlm was built from (a bundled model's, or the user's)."""
    import json

    if bundled(spec.model):
        import edgeprof_models.generative as gen

        return dict(gen.get_generative(spec.model).config())
    return dict(json.loads((Path(spec.model).expanduser() / "config.json").read_text()))
