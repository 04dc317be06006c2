"""`edgeprof sweep`: run a sweep file over the lab (or resume one), with live progress per device."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from rich.live import Live
from rich.markup import escape
from rich.table import Table

from .. import interrupts
from ..analysis.compare import cell_label, fmt_value
from ..errors import ConfigError
from ..generative.table import SUMMARY_COLUMNS, summary_cells
from ..lab import sweep_state as ledger
from ..lab.cell import Cell
from ..lab.scheduler import DeviceStatus, SweepOutcome, SweepScheduler, run_sweep
from ..lab.spec import SweepSpec, expand, load_sweep, resolve_devices
from ..records import Device, Result
from .common import add_db_args, add_inventory_args, check_writable, open_store
from .ui import err, out, shown


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep", help="run a sweep: models × devices × runtimes × precisions × batch × threads",
        description="Expand a sweep file through the capability matrix and run every cell: devices in parallel, "
                    "one cell at a time per device, each board leased so no other controller measures on it "
                    "meanwhile. Every cell ends as a stored row: ok, skipped (reason) or failed (reason, stderr).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof sweep sweeps/example.yaml                run it on this machine\n"
               "  edgeprof sweep sweeps/nightly.yaml --dry-run      list the cells (and skip rows), run nothing\n"
               "  edgeprof sweep --resume sw-20260101-020000-ab12    rerun the cells that failed or never ran\n"
               "  edgeprof sweep --list                             stored sweeps, newest first\n"
               "afterwards: edgeprof report --sweep ID --out report.html; edgeprof check --sweep ID --junit x.xml\n"
               "exit status: 0 every cell ok or skipped, 1 some cell failed or never ran, 130 interrupted (Ctrl-C).\n",
    )
    p.add_argument("spec", nargs="?", metavar="SWEEP.yaml", help="the sweep file (see sweeps/example.yaml)")
    p.add_argument("--resume", metavar="SWEEP_ID",
                   help="rerun the cells of a stored sweep that failed or never ran (Ctrl-C, unreachable board)")
    p.add_argument("--retry-skipped", action="store_true",
                   help="with --resume: also rerun skipped cells (e.g. after installing a missing runtime)")
    p.add_argument("--dry-run", action="store_true", help="print the expanded cells and exit")
    p.add_argument("--list", action="store_true", help="list stored sweeps and exit")
    p.add_argument("--id-file", metavar="PATH", help="write the sweep id to PATH (for a CI job's next step)")
    p.add_argument("--quiet", action="store_true", help="no live progress; one line per finished cell")
    p.add_argument("--predict-first", action="store_true",
                   help="before measuring, predict every cell whose board has a calibration table of the cell's "
                        "configuration (edgeprof calibrate; no device is touched), store the predictions and print "
                        "the predicted ranking; cells without a table are named once and measured anyway. With "
                        "--queue: predicted here, from this host's tables, before the cells are queued")
    q = p.add_argument_group("lab queue (PostgreSQL --db; see docs/lab.md)")
    q.add_argument("--queue", action="store_true",
                   help="submit the cells to the lab queue instead of running them here; prints the sweep id")
    q.add_argument("--wait", action="store_true",
                   help="with --queue: follow the cells until every one has its row (exit 0 / 1 / 130)")
    q.add_argument("--priority", metavar="nightly|interactive|N", default=None,
                   help="with --queue: higher runs first; nightly 0, interactive 10 (default)")
    q.add_argument("--cancel", metavar="SWEEP_ID",
                   help="cancel a queued sweep: waiting cells never start, running ones are stopped")
    add_inventory_args(p)
    add_db_args(p)
    p.set_defaults(func=run)


def _inventory(path: str | None) -> Any:
    from ..inventory.devices import load_inventory

    return load_inventory(path)


def _file_plan(args: argparse.Namespace) -> tuple[SweepSpec, list[Device], list[Cell]]:
    """What `edgeprof sweep FILE` runs: the sweep file, its devices from the inventory, the expanded cells."""
    if not args.spec:
        raise ConfigError("give a sweep file, or --resume SWEEP_ID", hint="edgeprof sweep --help")
    spec = load_sweep(args.spec)
    devices = resolve_devices(spec, _inventory(args.inventory or spec.inventory))
    cells = expand(spec, devices)
    if not cells:  # a nightly job that measures nothing must not be green
        raise ConfigError(f"{args.spec}: the sweep has 0 cells (every cell is excluded); it would measure nothing",
                          hint="loosen `exclude:`, or add models, devices or runtimes")
    return spec, devices, cells


def _resume_plan(store: Any, args: argparse.Namespace) -> tuple[Any, tuple[str, ...], list[Cell], list[Device]]:
    """What `--resume ID` reruns: the sweep's record, the statuses rerun, those cells and their devices."""
    record = ledger.get_sweep(store, args.resume)
    inv = _inventory(args.inventory or record.inventory)
    rerun = ("failed", *ledger.UNFINISHED) + (("skipped",) if args.retry_skipped else ())
    todo = [s.cell for s in record.cells if s.status in rerun]
    return record, rerun, todo, _devices_by_name(inv, {c.device for c in todo})


def run(args: argparse.Namespace) -> int:
    if args.id_file:
        check_writable(args.id_file, "--id-file", args.db)  # found before any cell runs, not after the sweep
    if args.queue or args.cancel or args.wait or args.priority is not None:
        return _run_queued(args)
    store = open_store(args.db)
    if args.list:
        return _list(store)
    if args.resume:
        record, rerun, todo, devices = _resume_plan(store, args)
        sweep_id = record.sweep_id
        total = len(record.cells)
        err.print(f"resuming sweep {sweep_id} ({escape(record.name)}): rerunning {len(todo)} of {total} cells "
                  f"({escape(', '.join(rerun))})")
        if not todo:
            err.print("nothing to do")
            return 0
        ledger.reopen_cells(store, sweep_id, [c.cell_id for c in todo])
    else:
        spec, devices, todo = _file_plan(args)
        if args.dry_run:
            _print_cells(todo)
            return 0
        sweep_id = ledger.new_sweep_id()
        ledger.create_sweep(store, sweep_id, spec.name, args.spec,
                            {"name": spec.name, "path": args.spec, "inventory": args.inventory or spec.inventory,
                             "text": spec.text}, todo)
        skips = sum(1 for c in todo if c.skip)
        err.print(f"sweep {sweep_id} ({escape(spec.name)}): {len(todo)} cells on {len(devices)} devices"
                  + (f", {skips} statically skipped" if skips else ""))
    if args.id_file:
        with open(args.id_file, "w") as f:
            f.write(sweep_id + "\n")
    if args.predict_first:
        _predict_first(store, sweep_id, todo)
    return _execute(store, sweep_id, todo, devices, quiet=args.quiet)


def _predict_first(store: Any, sweep_id: str, cells: list[Cell]) -> None:
    from ..lab.predict_first import predict_cells

    done = predict_cells(store, sweep_id, cells, lambda line: err.print(shown(line)))
    for line in done.ranking_lines():
        err.print(shown(line))
    err.print(f"predicted {len(done.predicted)} of {len(cells)} cells before measuring (stored with sweep "
              f"{sweep_id}; edgeprof report --sweep {sweep_id} puts them beside the measurements)")


def _devices_by_name(inv: Any, names: set[str]) -> list[Device]:
    return [inv.get(n) for n in sorted(names)]


def _execute(store: Any, sweep_id: str, cells: list[Cell], devices: list[Device], *, quiet: bool) -> int:
    live_mode = not quiet and err.is_terminal
    lines: list[str] = []
    lock = threading.Lock()
    done_seen: set[str] = set()
    live: list[Any] = []

    def log(msg: str) -> None:
        lines.append(msg)

    def print_finished(scheduler: SweepScheduler) -> None:
        with lock:
            for r in list(scheduler.results):
                if r.run_id in done_seen:
                    continue
                done_seen.add(r.run_id)
                err.print(_result_line(r, len(done_seen), len(cells)))

    def wire(scheduler: SweepScheduler) -> None:
        if live_mode:
            display = Live(console=err, refresh_per_second=4, transient=True,
                           get_renderable=lambda: _status_table(scheduler))
            display.start()
            live.append(display)
        else:
            scheduler.on_change = lambda: print_finished(scheduler)
        holder.append(scheduler)

    holder: list[SweepScheduler] = []
    try:
        outcome = _with_sigterm(lambda: run_sweep(store, sweep_id, cells, devices, log=log, on_start=wire))
    finally:
        for display in live:
            display.refresh()
            display.stop()
    if holder:
        print_finished(holder[0])
    for line in lines:
        err.print(f"[dim]{escape(line)}[/dim]")  # tracebacks and reasons are text, not markup
    _summary(outcome.results)
    from ..report.phases import text_table

    for line in text_table(outcome.breakdown()):  # where the sweep's wall time went
        err.print(escape(line))
    exported = [a for a in outcome.ahead if a.exported]
    if exported:
        err.print(f"exports prepared ahead while another cell measured: {len(exported)} "
                  f"({sum(a.seconds for a in exported):.1f} s, overlapped with measurements)")
    behind = [b.behind for b in outcome.boards if b.behind is not None and b.behind.stored]
    if behind:
        err.print(f"rows stored while the board's next cell measured: {sum(b.stored for b in behind)} "
                  f"({sum(b.seconds for b in behind):.2f} s, overlapped with measurements)")
    c = Counter(outcome.counts)  # a status no cell ended with counts 0
    mins, secs = divmod(int(outcome.wall_s), 60)
    err.print(f"sweep {sweep_id}: {c['ok']} ok, {c['skipped']} skipped, {c['failed']} failed"
              + (f", {c['not run']} not run" if c["not run"] else "") + f" in {mins}m{secs:02d}s")
    for e in outcome.errors:
        err.print(f"[red]error[/red] {escape(e)} (a bug in edgeprof: the traceback is above)")
    if not outcome.ok:
        err.print(f"resume (reruns the failed and unfinished cells): edgeprof sweep --resume {sweep_id}")
    err.print(f"report: edgeprof report --sweep {sweep_id} --out report.html    "
              f"check: edgeprof check --sweep {sweep_id}")
    if outcome.interrupted:
        return 130
    return 0 if outcome.ok else 1


def _with_sigterm(fn: Callable[[], SweepOutcome]) -> SweepOutcome:
    """Run fn with SIGTERM (e.g. `systemctl stop` or a CI timeout) raising KeyboardInterrupt, like Ctrl-C."""

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, on_term)
    try:
        return fn()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _fmt_s(s: float | None) -> str:
    if s is None:
        return "?"
    m, sec = divmod(int(s + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{sec:02d}s" if m else f"{sec}s"


def _status_table(scheduler: SweepScheduler) -> Table:
    snaps: list[DeviceStatus] = scheduler.snapshot()
    fallback = scheduler.mean_cell_s()
    total = sum(s.total for s in snaps)
    done = sum(s.done for s in snaps)
    etas = [s.eta_s(fallback) for s in snaps]
    eta = None if any(e is None for e in etas) else max(etas or [0.0])  # type: ignore[type-var]
    t = Table(title=f"sweep {scheduler.sweep_id}: {done}/{total} cells · elapsed "
                    f"{_fmt_s(time.monotonic() - scheduler.started)} · ETA {_fmt_s(eta)}",
              title_justify="left", expand=False)
    for col in ("device", "done", "ok", "skip", "fail", "current cell", "state", "ETA"):
        t.add_column(col, justify="right" if col in ("done", "ok", "skip", "fail", "ETA") else "left",
                     overflow="ellipsis", no_wrap=True, max_width=48 if col in ("current cell", "state") else None)
    for s, e in zip(snaps, etas, strict=True):
        t.add_row(escape(s.device), f"{s.done}/{s.total}", str(s.ok), str(s.skipped),  # names and states: text
                  f"[red]{s.failed}[/red]" if s.failed else "0", escape(s.cell or "-"), escape(s.state), _fmt_s(e))
    return t


def _result_line(r: Result, i: int, total: int) -> str:
    cell = r.sweep.cell_id if r.sweep and r.sweep.cell_id else cell_label(r)
    if r.status == "ok" and r.generation is not None:  # a generation cell: its own figures
        from ..generative.table import summary_line

        return f"[{i}/{total}] [green]ok[/green] {escape(cell)}: {escape(summary_line(r.generation))}"
    if r.status == "ok":
        lat, su = r.latency_ms, r.sustained
        curve = "" if su is None else (  # a sustained cell: what its curve says
            f", sustained ratio {fmt_value(su.sustained_ratio)}, "
            + (f"onset window {su.onset_window}" if su.onset_window is not None else "no onset")
            + (f", steady p99 {fmt_value(su.steady_p99_ms, 'ms')}" if su.steady_p99_ms is not None else ", not steady")
            + (f", {r.scenario.misses} misses" if r.scenario.misses is not None else ""))  # at a rate
        return (f"[{i}/{total}] [green]ok[/green] {escape(cell)}: p50 {fmt_value(lat.p50 if lat else None, 'ms')}, "
                f"p99 {fmt_value(lat.p99 if lat else None, 'ms')}, {fmt_value(r.throughput_ips, 'inf/s')}{curve}")
    color = "yellow" if r.status == "skipped" else "red"
    return f"[{i}/{total}] [{color}]{r.status}[/{color}] {escape(cell)}: {escape(r.reason or '')}"


def _summary(results: list[Result]) -> None:
    if not results:
        return
    t = Table(title="cells", title_justify="left")
    scenarios = any(r.scenario.label for r in results)  # a load-scenario sweep: which scenario, and its verdict
    gen = any(r.generation is not None for r in results)  # generation cells: their shape, TTFT and decode t/s
    forward = any(r.generation is None and r.status == "ok" for r in results) or not gen
    numeric = ("batch", "threads", "p50 ms", "p99 ms", "inf/s", "TTFT ms", "decode t/s", "mJ/token")
    cols = ("device", "model", "runtime", "prec", "batch", "threads") + (("scenario",) if scenarios else ()) + (
        "status",) + (("p50 ms", "p99 ms", "inf/s") if forward else ()) + (
        SUMMARY_COLUMNS if gen else ()) + (("verdict",) if scenarios else ()) + (
        "reason",)
    for col in cols:
        t.add_column(col, justify="right" if col in numeric else "left",
                     overflow="fold", max_width=60 if col == "reason" else None)
    for r in sorted(results, key=lambda r: (r.device, str(r.sweep.cell_id if r.sweep else None))):
        lat = r.latency_ms
        model = (r.sweep.model_label if r.sweep else None) or r.model
        status = {"ok": "[green]ok[/green]", "skipped": "[yellow]skipped[/yellow]"}.get(r.status,
                                                                                         "[red]failed[/red]")
        sc = r.scenario
        verdict = ("" if sc.valid is None else "VALID" if sc.valid else "[red]INVALID[/red]") + (
            f" · {sc.misses} misses" if sc.misses else "")
        cells = [escape(x) for x in (r.device, model, r.runtime, r.precision)] + [str(r.batch), str(r.threads or "auto")]
        cells += [sc.label or sc.name] if scenarios else []
        cells += [status]
        if forward:
            cells += [fmt_value(lat.p50 if lat else None), fmt_value(lat.p99 if lat else None),
                      fmt_value(r.throughput_ips)]
        if gen:
            cells += summary_cells(r.generation)
        cells += [verdict] if scenarios else []
        t.add_row(*cells, escape(r.reason or ""))
    out.print(t)


def _print_cells(cells: list[Cell]) -> None:
    t = Table(title=f"{len(cells)} cells", title_justify="left")
    for col in ("cell", "min s", "timeout s", "budgets", "skip reason"):
        t.add_column(col, overflow="fold")
    for c in cells:
        t.add_row(c.cell_id, "-" if not c.forward_pass else f"{c.setting('min_duration_s'):g}",  # a generation: tokens
                  f"{c.wall_limit_s():g}",  # sustained: + duration
                  ", ".join(c.budgets), c.skip or "")
    out.print(t)


def _controller_gone(controller: str | None) -> bool:
    """A sweep marked running whose controller process on this host no longer exists (killed hard)."""
    host, _, pid = (controller or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _list(store: Any) -> int:
    rows = ledger.list_sweeps(store)
    if not rows:
        err.print(f"no sweeps in {store.display_url}")
        return 0
    t = Table(title="sweeps", title_justify="left")
    counts = [Counter(r["counts"]) for r in rows]  # a status no cell has counts 0
    cancelled = any(c[ledger.CANCELLED] for c in counts)
    for col in ("sweep id", "name", "started", "status", "ok", "skipped", "failed", "pending") \
            + (("cancelled",) if cancelled else ()):
        t.add_column(col)
    for r, c in zip(rows, counts, strict=True):
        status = r["status"]
        if status == "running" and _controller_gone(r.get("controller")):
            status = "stopped (controller gone; --resume it)"
        t.add_row(r["sweep_id"], r["name"], r["created_at"], status, str(c["ok"]), str(c["skipped"]),
                  str(c["failed"]), str(c["pending"]), *((str(c[ledger.CANCELLED]),) if cancelled else ()))
    out.print(t)
    return 0



# -- the lab queue (docs/lab.md): a separate branch of the command; the logic is in lab/queue/ -----------------


def _run_queued(args: argparse.Namespace) -> int:
    from ..lab import queue

    if args.cancel:
        if args.spec or args.resume or args.queue or args.wait or args.predict_first:
            raise ConfigError("--cancel takes only the sweep id (and --db)", hint="edgeprof sweep --cancel ID")
        store, url = queue.open_store(args.db)
        c = queue.cancel(store, url, args.cancel)
        err.print(f"sweep {c.sweep_id} cancelled: {c.waiting} waiting cells will not start, {c.running} running "
                  f"stopped; resume later with: edgeprof sweep --resume {c.sweep_id} --queue")
        return 0
    if not args.queue:
        raise ConfigError("--wait and --priority belong to --queue", hint="edgeprof sweep FILE --queue --wait")
    if args.dry_run or args.list:
        raise ConfigError("--dry-run and --list do not submit: run them without --queue")
    priority = queue.parse_priority(args.priority)
    store, url = queue.open_store(args.db)
    if args.resume:
        record, rerun, todo, devices = _resume_plan(store, args)
        sweep_id = record.sweep_id
        err.print(f"resuming sweep {sweep_id} ({escape(record.name)}) on the queue: {len(todo)} of "
                  f"{len(record.cells)} cells ({escape(', '.join(rerun))})")
    else:
        spec, devices, todo = _file_plan(args)
        sweep_id = ledger.new_sweep_id()
        ledger.create_sweep(store, sweep_id, spec.name, args.spec,
                            {"name": spec.name, "path": args.spec, "inventory": args.inventory or spec.inventory,
                             "text": spec.text, "priority": priority}, todo)
    say = lambda m: err.print(f"[dim]{escape(m)}[/dim]")  # noqa: E731
    doing = "predicting the cells"
    try:  # predicting and exporting the models take a while; a Ctrl-C then leaves nothing queued
        if args.predict_first:  # here on the controller, from its tables, before any cell can start on a board
            _predict_first(store, sweep_id, todo)
        doing = "exporting the models"
        exported = queue.export_cells(store, todo, None, say)
    except KeyboardInterrupt:
        return _interrupted_exporting(sweep_id, doing)
    # queuing is short and must not stop halfway (final rows, jobs, the sweep's status): a Ctrl-C during it takes
    # effect once the cells are queued and the sweep id printed, as one while following
    try:
        with interrupts.held():
            sub = queue.submit(store, url, sweep_id, todo, devices, priority=priority, say=say, exported=exported)
            per_queue = ", ".join(f"{n} on {q}" for q, n in sorted(sub.queues.items()) if n)
            err.print(f"sweep {sweep_id}: {sub.submitted} cells queued (priority {priority})"
                      + (f": {per_queue}" if per_queue else "")
                      + (f"; {sub.already} already waiting" if sub.already else "")
                      + (f"; {sub.final} stored at once (skipped or export failed)" if sub.final else ""))
            if args.id_file:
                with open(args.id_file, "w") as f:
                    f.write(sweep_id + "\n")
            print(sweep_id)
    except KeyboardInterrupt:
        return _stopped_following(sweep_id)
    try:  # from here the cells are queued: Ctrl-C only stops this command, never the sweep
        alive = {q for w in queue.lab_status(store).workers if w["alive"] for q in w["queues"].split(",")}
        for q in sorted(q for q, n in sub.queues.items() if n and q not in alive):
            err.print(f"[yellow]no worker is taking {q} now: start one with edgeprof worker --queue {q}[/yellow]")
        if not args.wait:
            err.print(f"status: edgeprof lab status    cancel: edgeprof sweep --cancel {sweep_id}    "
                      f"report: edgeprof report --sweep {sweep_id} --out report.html")
            return 0
        return _wait_queued(store, sweep_id)
    except KeyboardInterrupt:
        return _stopped_following(sweep_id)


def _interrupted_exporting(sweep_id: str, doing: str) -> int:
    """Ctrl-C while the sweep's cells were predicted (--predict-first) or its models exported: the sweep is in
    the ledger, none of its cells is queued, and --resume queues them."""
    interrupts.settle()
    print(f"edgeprof: interrupted while {doing} of sweep {sweep_id}: none of its cells is queued "
          f"(queue them: edgeprof sweep --resume {sweep_id} --queue)", file=sys.stderr)  # one line, as main's
    return 130


def _stopped_following(sweep_id: str) -> int:
    err.print(f"stopped following sweep {sweep_id}; its cells stay queued (cancel: edgeprof sweep --cancel "
              f"{sweep_id})")
    return 130


def _wait_queued(store: Any, sweep_id: str) -> int:
    from ..lab import queue

    started = time.monotonic()

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        followed = queue.follow(store, sweep_id, on_result=lambda r, i, n: err.print(_result_line(r, i, n)))
    except KeyboardInterrupt:
        return _stopped_following(sweep_id)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    _summary(followed.results)
    c = Counter(followed.counts)  # a status no cell ended with counts 0
    mins, secs = divmod(int(time.monotonic() - started), 60)
    err.print(f"sweep {sweep_id}: {c['ok']} ok, {c['skipped']} skipped, {c['failed']} failed"
              + (f", {followed.not_run} not run" if followed.not_run else "")
              + (f", {c[ledger.CANCELLED]} cancelled" if c[ledger.CANCELLED] else "")
              + (" (cancelled)" if followed.cancelled else "") + f" in {mins}m{secs:02d}s")
    if followed.cancelled:
        return 130
    if c["failed"] or followed.not_run:
        err.print(f"resume (requeues the failed and unfinished cells): edgeprof sweep --resume {sweep_id} --queue")
        return 1
    return 0
