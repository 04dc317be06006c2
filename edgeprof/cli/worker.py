"""`edgeprof worker`: run queued sweep cells for the boards of one controller host (docs/lab.md)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..errors import ConfigError
from ..lab import queue
from .common import add_db_args, add_inventory_args
from .ui import err, shown


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "worker", help="run queued sweep cells (edgeprof sweep --queue) on this controller's boards",
        description="Take cells from the lab queue in PostgreSQL and run them, one at a time per board (the "
                    "database holds a `board:NAME` lock while a cell runs; the board's own lease is taken as "
                    "well). Cells of a worker that died are given back to the queue once its heartbeat is "
                    "older than --stalled-after. Stops cleanly on Ctrl-C or SIGTERM: a running cell is "
                    "stopped and goes back to the queue.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof worker --queue lab.hostA --db postgresql://edgeprof@db.lab.example/edgeprof\n"
               "  edgeprof worker --queue lab.hostA --queue lab.default\n"
               "a device's queue is lab.<controller> (controller: in devices.yaml), lab.default without one.\n")
    p.add_argument("--queue", action="append", required=True, metavar="lab.HOST",
                   help="queue to take cells from (repeatable)")
    p.add_argument("--concurrency", type=int, default=8, metavar="N",
                   help="boards driven at once by this worker (default 8; one cell per board regardless)")
    p.add_argument("--stalled-after", type=float, default=queue.STALLED_AFTER_S, metavar="S",
                   help=f"a worker silent this long is dead and its cell reruns (default {queue.STALLED_AFTER_S:g})")
    p.add_argument("--reap-every", type=float, default=queue.REAP_EVERY_S, metavar="S",
                   help=f"how often to look for dead workers' cells (default {queue.REAP_EVERY_S:g})")
    p.add_argument("--poll", type=float, default=0.5, metavar="S",
                   help="how often to look for work when no notification came (default 0.5)")
    p.add_argument("--cache-dir", metavar="DIR", help="artifact cache (default: $EDGEPROF_CACHE, else "
                   "$XDG_CACHE_HOME/edgeprof/artifacts)")
    p.add_argument("--until-idle", action="store_true", help="exit when no cell is left to run (for scripts)")
    add_inventory_args(p)
    add_db_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..inventory.devices import load_inventory

    for q in args.queue:
        if not q.startswith(queue.QUEUE_PREFIX):
            raise ConfigError(f"--queue {q!r}: edgeprof's queues are named {queue.QUEUE_PREFIX}<controller>",
                              hint=f"e.g. --queue {queue.QUEUE_PREFIX}{queue.DEFAULT_CONTROLLER}")
    if args.concurrency < 1:
        raise ConfigError("--concurrency must be >= 1")
    if args.stalled_after <= 1 or args.reap_every <= 0 or args.poll <= 0:
        raise ConfigError("--stalled-after must be > 1 s, --reap-every and --poll > 0")
    # the global -v/--verbose also logs the queue engine's messages
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    url = queue.postgres_url(args.db)
    inventory = load_inventory(args.inventory)
    queue.run_worker(url, args.queue, inventory, cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                     stalled_after_s=args.stalled_after, reap_every_s=args.reap_every, poll_s=args.poll,
                     concurrency=args.concurrency, stop_when_idle=args.until_idle,
                     on_event=lambda m: err.print(f"worker: {shown(m)}"))
    return 0
