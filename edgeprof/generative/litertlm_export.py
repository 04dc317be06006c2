"""A Hugging Face folder to a .litertlm, run as a child Python by build.py (`python -m
edgeprof.generative.litertlm_export FOLDER OUT_DIR --cache-length N --prefill-lengths 32,128,512 --recipe R`).

Owns: calling litert-torch's Hugging Face exporter (litert_torch.generative.export_hf.export: the model traced into
TFLite prefill and decode signatures with a KV cache of `cache_length`, quantised by `recipe`, its tokenizer, all
packaged by litert-lm-builder into OUT_DIR/model.litertlm, with the folder's own tokenizer.json: the exporter would
otherwise package the tokenizer transformers rebuilds for the model type, and for a qwen2 folder transformers 5
rebuilds a byte-level BPE from the vocabulary that does not round-trip the folder's WordLevel ids: "w41w42" for ids
300 and 301, tokenized back to no ids at all), and the two import-time workarounds it needs with the
libraries edgeprof's gen extra installs (litert-torch 0.10.0, transformers 5.x, kernels 0.19):
- transformers' gemma3 module (imported by litert-torch's model extensions whatever the model) applies
  `@use_kernelized_func` to a function kernels 0.19 does not accept, and raises at import; with `kernels` hidden
  (sys.modules entry None, so importlib.util.find_spec says it is absent) transformers uses its no-op decorators,
  and USE_HUB_KERNELS=NO keeps from_pretrained from asking for kernels;
- litert-torch's model extensions import `tensorflow.lite.python.schema_py_generated` (TFLite's flatbuffer schema)
  at import, and tensorflow is not installed: the same generated schema ships in ai_edge_litert, which stands in
  for it (the rest of tensorflow is never imported on this path).
Does not own: caching, keys and the artifact (build.py). Runs in its own process: it imports torch and
transformers, and the shims above must not touch the host's process.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import os
import sys
import types

RECIPES = {"wi8_afp32": "dynamic_wi8_afp32", "fp32": "none"}


def _shims() -> None:
    os.environ["USE_HUB_KERNELS"] = "NO"
    sys.modules["kernels"] = None  # type: ignore[assignment]
    import ai_edge_litert.schema_py_generated as schema
    import litert_torch  # noqa: F401  (torch._dynamo probes find_spec("tensorflow") while it imports)

    if "tensorflow" not in sys.modules:
        for name in ("tensorflow", "tensorflow.lite", "tensorflow.lite.python"):
            m = types.ModuleType(name)
            m.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
            sys.modules[name] = m
        sys.modules["tensorflow.lite.python.schema_py_generated"] = schema
        sys.modules["tensorflow.lite.python"].schema_py_generated = schema  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m edgeprof.generative.litertlm_export")
    ap.add_argument("folder")
    ap.add_argument("out_dir")
    ap.add_argument("--cache-length", type=int, required=True)
    ap.add_argument("--prefill-lengths", required=True)
    ap.add_argument("--recipe", choices=sorted(RECIPES), required=True)
    a = ap.parse_args(argv)
    _shims()
    from litert_torch.generative.export_hf import export as lib

    own = os.path.join(a.folder, "tokenizer.json")
    lib.export(model=a.folder, output_dir=a.out_dir, prefill_lengths=[int(x) for x in a.prefill_lengths.split(",")],
               cache_length=a.cache_length, quantization_recipe=RECIPES[a.recipe], bundle_litert_lm=True,
               **({"tokenizer_path_override": own} if os.path.isfile(own) else {}))
    return 0 if os.path.isfile(os.path.join(a.out_dir, "model.litertlm")) else 1


if __name__ == "__main__":
    sys.exit(main())
