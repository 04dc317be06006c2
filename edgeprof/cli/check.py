"""`edgeprof check`: regressions and budget violations of a sweep → exit status and JUnit XML."""

from __future__ import annotations

import argparse

from rich.table import Table

from ..analysis.compare import (
    CHECKED_METRICS,
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    HISTORY_RANGE,
    METRIC_BY_NAME,
    PERSIST_RANGE,
    check_alpha,
    check_count,
    parse_min_effect,
)
from ..analysis.regress import parse_budget, summarize
from ..errors import ConfigError
from ..files.output import brief, write_output
from ..lab.history import run_check
from ..report.junit import junit_xml
from ..vocab import CHECKED_GENERATION, CHECKED_SUSTAINED
from .common import add_db_args, check_writable, open_store
from .ui import err, out, shown


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="regressions and budget violations of a sweep (exit 1 on any; JUnit XML)",
        description="Check every cell of a sweep: budgets from the sweep file, regressions against a baseline "
                    "(Mann-Whitney U on raw samples plus a minimum effect) or, with --history, step detection "
                    "over each cell's last N results, so one noisy night is only a warning. Failed cells are "
                    "errors. Exit status 1 when anything failed, 0 otherwise.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof check                                   newest sweep vs each cell's previous result\n"
               "  edgeprof check --sweep sw-2026... --junit check.xml\n"
               "  edgeprof check --history 10 --min-effect 10%     nightly: steps that persist over 2+ nights\n"
               "  edgeprof check --baseline previous               vs the previous sweep with the same name\n"
               "  edgeprof check --baseline sw-20260101-020000-ab12 --min-effect p99_ms=0.2\n",
    )
    p.add_argument("--sweep", default="last", metavar="ID", help="sweep to check (default: the newest)")
    p.add_argument("--baseline", default="last", metavar="last|previous|ID",
                   help="last: each cell's previous result (default); previous: the previous sweep with the same "
                        "name; or a sweep or run id")
    p.add_argument("--history", type=int, metavar="N", default=None,
                   help="step detection over each cell's last N results instead of one baseline (N >= 3)")
    p.add_argument("--persist", type=int, default=2, metavar="K",
                   help="with --history: a step must hold for K results to fail (default 2)")
    p.add_argument("--metric", action="append", metavar="NAME",
                   help=f"metrics to check (repeatable; default {', '.join(CHECKED_METRICS)}; on a sustained "
                        f"cell also {', '.join(CHECKED_SUSTAINED)}; on a generative model's cell also "
                        f"{', '.join(CHECKED_GENERATION)})")
    p.add_argument("--min-effect", action="append", default=[], metavar="F|METRIC=F",
                   help=f"smallest change that counts (default {DEFAULT_MIN_EFFECT:g}, i.e. 5 %%; tails and power "
                        "get a multiple: p90 2x, p99 4x, memory and energy 2x); per metric with p99_ms=0.2")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"Mann-Whitney p threshold ({DEFAULT_ALPHA})")
    p.add_argument("--budget", action="append", default=[], metavar="EXPR",
                   help="an extra budget for every cell, e.g. 'p99_ms < 50' (sweep-file budgets always apply)")
    p.add_argument("--allow-failed", action="store_true", help="failed cells are warnings, not errors")
    p.add_argument("--junit", metavar="PATH", help="write JUnit XML to PATH")
    p.add_argument("--all", action="store_true", help="list passing checks too")
    p.add_argument("--allow-empty", action="store_true",
                   help="exit 0 when there is nothing to check (default: exit 1, a check of nothing is no pass)")
    add_db_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.junit:
        check_writable(args.junit, "--junit", args.db)  # found now, not after reading every result
    metrics = args.metric  # None: CHECKED_METRICS, and a sustained cell's curve figures (lab/history.py)
    for m in metrics or ():
        if m not in METRIC_BY_NAME:
            raise ConfigError(f"--metric {brief(m)}: unknown", hint="metrics: " + ", ".join(sorted(METRIC_BY_NAME)))
    if args.history is not None and args.history < HISTORY_RANGE[0]:
        raise ConfigError(f"--history {args.history}: step detection needs at least {HISTORY_RANGE[0]} results")
    if args.history is not None:
        check_count(args.history, "--history", HISTORY_RANGE)
    check_count(args.persist, "--persist", PERSIST_RANGE)
    check_alpha(args.alpha)
    default_effect = DEFAULT_MIN_EFFECT
    per_metric: dict[str, float] = {}
    for text in args.min_effect:
        name, value = parse_min_effect(text)
        if name is None:
            default_effect = value
        else:
            per_metric[name] = value
    for b in args.budget:
        try:
            parse_budget(b)
        except ValueError as e:
            raise ConfigError(f"--budget: {e}") from None
    store = open_store(args.db)
    report = run_check(store, sweep=args.sweep, baseline=args.baseline, history=args.history, metrics=metrics,
                       min_effect=default_effect, min_effects=per_metric, alpha=args.alpha, persist=args.persist,
                       extra_budgets=args.budget, failed_cells_fail=not args.allow_failed)
    findings = report.findings
    for message in store.skipped:  # rows left out by the store (unreadable result JSON)
        err.print(f"[yellow]warning[/yellow] skipped: {shown(message)}")
    s = summarize(findings)
    err.print(f"checked {shown(report.scope)} against: {shown(report.baseline)}")
    for note in report.notes:
        err.print(f"[yellow]note[/yellow] {shown(note)}")
    listed = [f for f in findings if args.all or f.bad or f.warning]
    if listed:
        t = Table(title_justify="left", show_lines=False)
        for col in ("", "check", "result"):
            t.add_column(col, overflow="fold")
        style = {"failed": "[red]FAIL[/red]", "error": "[red]ERROR[/red]", "skipped": "[yellow]skip[/yellow]",
                 "passed": "[green]ok[/green]"}
        for f in listed:
            mark = "[yellow]warn[/yellow]" if f.outcome == "passed" and f.warning else style[f.outcome]
            t.add_row(mark, shown(f.name), shown(f.message))
        out.print(t)
    if not s["tests"]:
        err.print(f"[red]nothing to check[/red]: {shown(report.scope)} has no results, budgets or baseline to check"
                  + ("" if args.allow_empty else " (exit 1; --allow-empty accepts it)"))
    bad = s["failed"] + s["error"] + (0 if s["tests"] or args.allow_empty else 1)
    verdict = "[red]FAILED[/red]" if bad else "[green]passed[/green]"
    err.print(f"{verdict}: {s['tests']} checks, {s['failed']} failed, {s['error']} errors, {s['skipped']} skipped, "
              f"{s['warnings']} warnings")
    if args.junit:
        write_output(args.junit, junit_xml(findings, properties={"scope": report.scope, "baseline": report.baseline}),
                     "--junit")
        err.print(f"JUnit XML written to {shown(args.junit)}")
    return 1 if bad else 0
