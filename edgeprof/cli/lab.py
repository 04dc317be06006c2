"""`edgeprof lab status`: who runs what in the lab queue — busy boards, queued cells, workers (docs/lab.md)."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from ..lab import queue
from .common import add_db_args
from .ui import err, out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lab", help="the lab queue: status of boards, queued cells and workers")
    lsub = p.add_subparsers(dest="lab_command", metavar="SUBCOMMAND")
    st = lsub.add_parser("status", help="boards busy and with what, queued cells per board and queue, workers",
                         description="What the lab queue is doing now: the boards running a cell (which sweep, "
                                     "which cell, since when), the cells waiting per queue and board, and the "
                                     "workers with the age of their last heartbeat.")
    st.add_argument("--json", action="store_true", help="print the status as JSON")
    add_db_args(st)
    st.set_defaults(func=run_status)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_status(args: argparse.Namespace) -> int:
    store, _url = queue.open_store(args.db)
    s = queue.lab_status(store)
    if args.json:
        print(json.dumps({"busy": s.busy, "queued": s.queued, "workers": s.workers}, indent=2))
        return 0
    t = Table(title=f"boards busy ({len(s.busy)})", title_justify="left")
    for col in ("board", "queue", "sweep", "cell", "since"):
        t.add_column(col, overflow="fold")
    for b in s.busy:
        t.add_row(b["board"], b["queue"], b["sweep_id"], b["cell"], b["since"] or "?")
    out.print(t)
    t = Table(title=f"queued cells ({sum(q['cells'] for q in s.queued)})", title_justify="left")
    for col in ("queue", "board", "cells", "top priority"):
        t.add_column(col, justify="right" if col in ("cells", "top priority") else "left")
    for q in s.queued:
        t.add_row(q["queue"], q["board"], str(q["cells"]), str(q["top_priority"]))
    out.print(t)
    t = Table(title=f"workers ({len(s.workers)})", title_justify="left")
    for col in ("worker", "queues", "last heartbeat", "doing"):
        t.add_column(col, overflow="fold")
    for w in s.workers:
        age = f"{w['heartbeat_age_s']:.0f} s ago" + ("" if w["alive"] else " [red](silent: dead?)[/red]")
        t.add_row(w["name"], w["queues"], age, w["state"])
    out.print(t)
    if not s.workers:
        err.print("no worker is running: start one per controller host with edgeprof worker --queue lab.HOST")
    return 0
