"""`edgeprof results list|show`: stored runs (show: with the run's stored prediction, cli/predicted.py; a generation
run listed with its own figures: shape, TTFT, decode tokens/s, mJ/token, read from its stored section)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.table import Table

from edgeprof_agent.vocab import GEN_RUNTIMES

from ..generative.table import SUMMARY_COLUMNS, summary_cells
from ..records import Generation, dumps_json
from ..store.schema import RunRow
from ..vocab import fmt_value
from .common import add_db_args, open_store
from .ui import out, render_result, shown


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="list and show stored runs",
                       description="Runs stored in the results database.")
    rsub = p.add_subparsers(dest="results_cmd", metavar="SUBCOMMAND", required=True)
    ls = rsub.add_parser("list", help="stored runs, newest first")
    ls.add_argument("--device")
    ls.add_argument("--model")
    ls.add_argument("--status", choices=["ok", "failed", "skipped"])
    ls.add_argument("--limit", type=int, default=30, help="how many (default 30; 0 for all)")
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_db_args(ls)
    ls.set_defaults(func=run_list)
    sh = rsub.add_parser("show", help="one run in full")
    sh.add_argument("run_id", metavar="RUN_ID", help="a run id or an unambiguous prefix of one")
    sh.add_argument("--json", action="store_true",
                    help="print the full result JSON (raw samples included), with the newest stored prediction of "
                         "the run's configuration beside it under `prediction` (joined when shown, not stored; "
                         "found: false with the reason when there is none)")
    add_db_args(sh)
    sh.set_defaults(func=run_show)
    op = rsub.add_parser("ops", help="per-op profiles of runs side by side (deploy --profile-ops)",
                         description="The same model across runtimes, op type by op type: ms per run and share.")
    op.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="run ids (or unambiguous prefixes)")
    add_db_args(op)
    op.set_defaults(func=run_ops)
    im = rsub.add_parser("import", help="store result JSON files (recovered runs, --json outputs)",
                         description="Store runs saved as JSON: the recovery files edgeprof writes when the "
                                     "results database could not be written "
                                     "($XDG_DATA_HOME/edgeprof/recovered/<run_id>.json), or a deploy's --json file.")
    im.add_argument("files", nargs="+", metavar="FILE", help="result JSON files")
    add_db_args(im)
    im.set_defaults(func=run_import)


def run_list(args: argparse.Namespace) -> int:
    store = open_store(args.db)
    rows = store.list(device=args.device, model=args.model, status=args.status, limit=args.limit or None)
    if args.json:  # a generation run: its summary figures too (the section in full: results show --json)
        gens = generations(store, rows)
        sys.stdout.write(dumps_json([{**r.to_dict(), **({"generation": _gen_json(gens[r.run_id])}
                                                         if r.run_id in gens else {})} for r in rows], indent=2)
                         + "\n")
        return 0
    if not rows:
        out.print(f"no runs in {store.display_url} — try: edgeprof deploy --device local --model mobilenet_v2")
        return 0
    t = Table(title=f"runs in {store.display_url}", title_justify="left")
    top1 = any(r.top1 is not None for r in rows)  # accuracy mode: a column only when a row has it
    gens = generations(store, rows)
    # the forward pass's columns when a row is one (or none is a generation), the generation's when a row is one
    forward = any(r.runtime not in GEN_RUNTIMES for r in rows)
    numeric = ("batch", "thr", "p50 ms", "p99 ms", "inf/s", "W", "top-1", *SUMMARY_COLUMNS[1:])
    for c in ("run id", "created", "status", "device", "model", "runtime", "prec", "batch", "thr") + (
            ("p50 ms", "p99 ms", "inf/s") if forward else ()) + (SUMMARY_COLUMNS if gens else ()) + (
            "W",) + (("top-1",) if top1 else ()):
        t.add_column(c, justify="right" if c in numeric else "left",
                     no_wrap=c in ("run id", "created"), overflow="fold")
    for r in rows:
        t.add_row(shown(r.run_id), shown(str(r.created_at).replace("T", " ")[:19]), shown(r.status),
                  shown(r.device), shown(r.model), shown(r.runtime), shown(r.precision), str(r.batch),
                  str(r.threads or "-"),
                  *((fmt_value(r.p50_ms), fmt_value(r.p99_ms), fmt_value(r.throughput_ips)) if forward else ()),
                  *(summary_cells(gens.get(r.run_id)) if gens else ()),
                  fmt_value(r.mean_w), *((fmt_value(r.top1, "%"),) if top1 else ()))
    out.print(t)
    return 0


def generations(store: Any, rows: list[RunRow]) -> dict[str, Generation]:
    """The generation section of each listed run that has one (a generation runtime's ok run), read from its
    stored Result: the runs table's summary columns hold a forward pass's figures only."""
    out: dict[str, Generation] = {}
    for r in rows:
        if r.runtime in GEN_RUNTIMES and r.status == "ok":
            g = store.get(r.run_id).generation
            if g is not None:
                out[r.run_id] = g
    return out


def _gen_json(g: Generation) -> dict[str, Any]:
    e = g.energy
    return {"prompt_tokens": g.prompt_tokens, "tokens": g.tokens, "depth": g.depth, "ttft_ms": g.ttft_ms.mean,
            "prefill_tps": g.prefill_tps.mean, "decode_tps": g.decode_tps.mean if g.decode_tps else None,
            "j_per_token": e.j_per_token if e is not None else None}


def run_show(args: argparse.Namespace) -> int:
    from .predicted import show_for_result, shown_json

    store = open_store(args.db)
    result = store.get(args.run_id)
    if args.json:
        sys.stdout.write(result.to_json(indent=2, shown={"prediction": shown_json(store, result)}) + "\n")
    else:
        render_result(result)
        show_for_result(store, result)
    return 0


def run_ops(args: argparse.Namespace) -> int:
    from ..evaluation.opprofile import side_by_side
    from .ui import render_ops_side_by_side

    store = open_store(args.db)
    runs = []
    for rid in args.run_ids:
        r = store.get(rid)
        runs.append((f"{r.run_id[-6:]} {r.runtime} {r.precision}", r.ops))
    render_ops_side_by_side(side_by_side(runs))
    return 0


def run_import(args: argparse.Namespace) -> int:
    store = open_store(args.db)
    for path in args.files:
        result = store.import_file(path)
        out.print(shown(f"stored run {result.run_id} ({result.identity.label()}) from {path} in "
                        f"{store.display_url}"))
    return 0

