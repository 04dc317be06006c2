"""`edgeprof db upgrade`: bring a PostgreSQL results database up to date for the lab queue (docs/lab.md)."""

from __future__ import annotations

import argparse

from ..lab import queue
from .common import add_db_args
from .ui import err


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="the results database: upgrade a PostgreSQL database for the lab queue")
    dsub = p.add_subparsers(dest="db_command", metavar="SUBCOMMAND")
    up = dsub.add_parser(
        "upgrade", help="create or upgrade edgeprof's tables, procrastinate's queue schema and the fetch index",
        description="Apply edgeprof's schema, procrastinate's schema (or its newer migrations) and the queue's "
                    "fetch index to a PostgreSQL database. Safe to run again; run it after upgrading edgeprof.",
        epilog="example:\n  edgeprof db upgrade --db postgresql://edgeprof@db.lab.example/edgeprof\n",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_db_args(up)
    up.set_defaults(func=run_upgrade)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_upgrade(args: argparse.Namespace) -> int:
    for line in queue.upgrade(args.db):
        err.print(line)
    err.print(f"database ready for the lab queue: {queue.display(queue.postgres_url(args.db))}")
    return 0
