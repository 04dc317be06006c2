"""`edgeprof compare A B`: two runs or two sweeps side by side, metric by metric; predicted vs measured p50 where
predictions are stored (cli/predicted.py)."""

from __future__ import annotations

import argparse

from rich.table import Table

from ..analysis.compare import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    METRICS,
    absent_notes,
    cell_label,
    check_alpha,
    compare_results,
    environment_changes,
    fmt_p,
    identity_differences,
    parse_min_effect,
)
from ..errors import ConfigError
from ..lab import sweep_state as ledger
from ..lab.history import match_by_config, previous_result, results_for
from ..records import Result
from ..records.prediction import StoredPrediction
from ..store import MAX_ID_CHARS, config_key
from .common import add_db_args, open_store
from .predicted import cell_columns, pair_table, predictions_for
from .ui import err, out, shown, visible

_COLOR = {"regressed": "red", "improved": "green", "unchanged": "white", "n/a": "dim"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="compare two runs or two sweeps (ratio, Mann-Whitney U, minimum effect)",
        description="Compare B against A metric by metric: ratio B/A, a two-sided Mann-Whitney U test on the raw "
                    "latency samples, and a verdict (a change counts when it exceeds the minimum effect and, "
                    "where raw samples exist, p < alpha). Sweeps are matched cell by cell (same device, model, "
                    "runtime, precision, batch and threads).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof compare 20261130-0512 20261201-0512       two runs (id prefixes)\n"
               "  edgeprof compare sw-20261130 sw-20261201           two sweeps, cell by cell\n"
               "  edgeprof compare 20261201-0512 --baseline last     a run vs the previous run of its cell\n"
               "  edgeprof compare last --baseline last              the newest sweep vs the one before it\n",
    )
    p.add_argument("refs", nargs="+", metavar="A [B]", help="run or sweep ids (prefixes work; `last` = newest sweep)")
    p.add_argument("--baseline", choices=["last"], help="compare the one ref given with its previous result / sweep")
    p.add_argument("--min-effect", default=str(DEFAULT_MIN_EFFECT), metavar="F",
                   help=f"smallest relative change that counts: a fraction or a percentage such as 5%% "
                        f"(default {DEFAULT_MIN_EFFECT:g})")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"p-value threshold (default {DEFAULT_ALPHA})")
    add_db_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    metric, args.min_effect = parse_min_effect(args.min_effect)  # the bounds check uses (compare.py)
    if metric is not None:
        raise ConfigError(f"--min-effect {metric}=...: compare takes one minimum effect for every metric",
                          hint="give a fraction such as 0.05 (per-metric effects are for `edgeprof check`)")
    check_alpha(args.alpha)
    for ref in args.refs:
        if not ref or len(ref) > MAX_ID_CHARS:
            raise ConfigError(f"compare: a ref of {len(ref)} characters ({visible(ref[:20])!r}…); run and sweep ids "
                              f"have 1 to {MAX_ID_CHARS}", hint="edgeprof results list and edgeprof sweep --list show them")
    store = open_store(args.db)
    if len(args.refs) > 2:
        raise ConfigError("compare takes two refs (A B), or one with --baseline last")
    if len(args.refs) == 1:
        new_kind, new = results_for(store, args.refs[0])
        if new_kind == "sweep":
            sweep_id = ledger.resolve_sweep_id(store, args.refs[0])
            assert sweep_id is not None
            prev = ledger.previous_sweep(store, ledger.get_sweep(store, sweep_id))
            if prev is None:
                raise ConfigError(f"sweep {sweep_id} has no earlier sweep with the same name to compare with")
            base = results_for(store, prev)[1]
            title = f"sweep {prev} → {sweep_id}"
        else:
            p = previous_result(store, new[0])
            if p is None:
                raise ConfigError(f"run {new[0].run_id} has no earlier ok result of the same configuration")
            base = [p]
            title = f"run {p.run_id} → {new[0].run_id}"
    else:
        _, base = results_for(store, args.refs[0])
        _, new = results_for(store, args.refs[1])
        title = f"{args.refs[0]} → {args.refs[1]}"
    for message in store.skipped:  # rows left out by the store (unreadable result JSON)
        err.print(f"[yellow]warning[/yellow] skipped: {shown(message)}")
    if len(base) == 1 and len(new) == 1:
        code = _pair(base[0], new[0], title, args)
        if code == 0:
            table = pair_table(store, [("A", base[0]), ("B", new[0])])
            if table is not None:
                out.print(table)
        return code
    return _sweeps(base, new, title, args, predictions_for(store, new))


def _pair(a: Result, b: Result, title: str, args: argparse.Namespace) -> int:
    if a.status != "ok" or b.status != "ok":
        bad = a if a.status != "ok" else b
        raise ConfigError(f"run {bad.run_id} is {bad.status} ({visible(str(bad.reason))}): nothing to compare")
    out.print(f"[bold]{shown(title)}[/bold]\n  A: {shown(cell_label(a))}  ({shown(a.created_at)})\n"
              f"  B: {shown(cell_label(b))}  ({shown(b.created_at)})")
    t = Table(title_justify="left")
    for col in ("metric", "A", "B", "B/A", "change", "p", "verdict"):
        t.add_column(col, justify="left" if col in ("metric", "verdict") else "right")
    deltas = compare_results(a, b, min_effect=args.min_effect, alpha=args.alpha)
    for d in deltas:
        c = _COLOR[d.verdict]
        t.add_row(d.metric.label, d.metric.fmt(d.base), d.metric.fmt(d.new),
                  f"{d.ratio:.3f}" if d.ratio is not None else "-",
                  f"{d.change * 100:+.1f} %" if d.change is not None else "-",
                  fmt_p(d.p_value), f"[{c}]{d.verdict}[/{c}]")
    out.print(t)
    for line in absent_notes(deltas):  # a metric one side lacks, with that side's reason (a phone's, ...)
        out.print(f"[dim]not compared[/dim] {shown(line)}")
    for k, x, y in environment_changes(a, b):
        out.print(f"[yellow]environment changed[/yellow] {shown(k)}: {shown(x)} → {shown(y)}")
    if config_key(a) != config_key(b):
        why = "; ".join(identity_differences(a, b))
        err.print("[yellow]note[/yellow] " + shown(f"A and B are different configurations{': ' + why if why else ''}"))
    return 0


def _sweeps(base: list[Result], new: list[Result], title: str, args: argparse.Namespace,
            preds: dict[str, StoredPrediction]) -> int:
    bmap = match_by_config(base)
    keys = ("p50_ms", "p99_ms", "throughput_ips", "peak_rss_mb", "mj_per_inference")
    metrics = [m for m in METRICS if m.name in keys]
    t = Table(title=shown(title), title_justify="left")
    t.add_column("cell")
    for m in metrics:
        t.add_column(f"{m.name}\nB/A", justify="right")
    for col in ("B p50 ms\npredicted", "B p50 ms\nmeasured", "prediction\nerror") if preds else ():
        t.add_column(col, justify="right")
    n_reg = n_imp = 0
    for r in new:
        b = bmap.get(config_key(r)) if r.status == "ok" else None
        pred = cell_columns(preds.get(config_key(r)), r) if preds else []
        if r.status != "ok" or b is None:
            t.add_row(shown(cell_label(r)),
                      *[("[dim]" + shown(r.status if r.status != "ok" else "no A") + "[/dim]")] * len(metrics), *pred)
            continue
        deltas = {d.metric.name: d for d in compare_results(b, r, metrics=keys, min_effect=args.min_effect,
                                                             alpha=args.alpha)}
        cells = []
        for m in metrics:
            d = deltas[m.name]
            if d.ratio is None:
                cells.append("[dim]-[/dim]")
                continue
            c = _COLOR[d.verdict]
            n_reg += d.verdict == "regressed"
            n_imp += d.verdict == "improved"
            cells.append(f"[{c}]{d.ratio:.2f}[/{c}]")
        t.add_row(shown(cell_label(r)), *cells, *pred)
    out.print(t)
    err.print(f"{n_reg} regressed, {n_imp} improved (min effect {args.min_effect * 100:g} %, p < {args.alpha:g}; "
              "red: worse, green: better)")
    return 0
