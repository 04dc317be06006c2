"""`edgeprof models`: the bundled models with inputs, parameters and FLOPs."""

from __future__ import annotations

import argparse
import sys

from rich.table import Table

from ..records import dumps_json
from .ui import DeployProgress, out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models", help="list bundled models with parameters and FLOPs",
        description="Bundled models (PyTorch, seeded random weights, nothing downloaded). Parameters and FLOPs "
                    "come from the exported ONNX graph; the first call exports every model once (cached).",
        epilog="Any of these names works with `edgeprof deploy --model NAME`; gemm and conv take shapes, "
               "e.g. gemm:1760x16x1760 or conv:56x56x64x64x3.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-export", action="store_true",
                   help="do not export: show parameters/FLOPs only for models already in the cache")
    p.set_defaults(func=run)


def _shape(spec: dict) -> str:
    return "x".join("N" if not isinstance(d, int) else str(d) for d in spec["shape"])


def _si(v: int | None) -> str:
    if v is None:
        return "-"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= div:
            return f"{v / div:.2f} {unit}"
    return str(v)


def run(args: argparse.Namespace) -> int:
    from ..export.catalog import list_models_info
    from ..export.onnx_export import default_cache_dir

    with DeployProgress(enabled=not args.json and not args.no_export) as progress:
        rows = list_models_info(default_cache_dir(), progress=progress.stage, export=not args.no_export)
    if args.json:
        sys.stdout.write(dumps_json(rows, indent=2) + "\n")
        return 0
    t = Table(title="bundled models (FLOPs per inference at batch 1)", title_justify="left")
    for c in ("name", "task", "inputs", "params", "FLOPs", "description"):
        t.add_column(c, justify="right" if c in ("params", "FLOPs") else "left",
                     no_wrap=c in ("name", "params", "FLOPs"))
    for r in rows:
        inputs = ", ".join(f"{i['name']} {i['dtype']} {_shape(i)}" for i in r["inputs"])
        t.add_row(r["name"], r["task"], inputs, _si(r["params"]), _si(r["flops"]), r["description"])
    out.print(t)
    return 0
