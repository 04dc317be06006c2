"""`edgeprof calibrate`: measure a device once so that `edgeprof predict` can predict any model on it.

Parses, calls edgeprof.predict.calibrate (the method and its limits are there and in docs/predict.md), shows a
progress bar on stderr, writes the table to the tables directory (and --out), and imports a colleague's or a
vendor's table file (--import FILE), and re-reads a table's kernels with this edgeprof (--reread FILE:
edgeprof.predict.reread). onnxruntime fp32 and int8 and LiteRT (tflite, XNNPACK) fp32 tables are built;
other runtimes and precisions (LiteRT int8, fp16) are refused in one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ConfigError
from .ui import err, shown

DEFAULT_BUDGET = "15m"
# where stderr is not a terminal (a nightly job's log), the bar is a plain line this often (s of the budget)
PLAIN_EVERY_S = 30.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate", help="measure a board's kernels once, for edgeprof predict",
        description="Measure, on one device, generated models made of many kernels at many shapes (each node "
                    "timed by the runtime's own profiler, in the graph the runtime really runs), and optionally "
                    "whole reference models; store a calibration table keyed by the device's facts, the runtime "
                    "and its version, precision and threads. `edgeprof predict MODEL --device NAME` then "
                    "predicts without the device.",
        epilog="examples:\n  edgeprof calibrate --device local --budget 10m\n"
               "  edgeprof calibrate --device pi5 --threads 4 --out pi5.json     (a file to hand to a colleague)\n"
               "  edgeprof calibrate --import pi5.json                           (a table measured elsewhere)\n"
               "  edgeprof calibrate --device local --precision int8             (onnxruntime int8, quantised as "
               "deploy does)\n"
               "  edgeprof calibrate --reread pi5.json                           (a table calibrated by an older "
               "edgeprof,\n"
               "                                                                  read again by this one, its times kept)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", help="device name from devices.yaml, or 'local'")
    p.add_argument("--inventory", help="devices.yaml path (default: ./devices.yaml)")
    p.add_argument("--runtime", default="onnxruntime",
                   help="onnxruntime (default) or tflite (LiteRT with XNNPACK: one-operator models timed whole, "
                        "since LiteRT's Python interpreter has no per-op profiler)")
    p.add_argument("--precision", default="fp32",
                   help="fp32 (default) or int8 (onnxruntime only: each calibration model is quantised as deploy "
                        "--precision int8 quantises a user's model, and the quantised graph's kernels are measured; "
                        "LiteRT int8 and fp16 tables are not built)")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads, as deploy --threads (default 1)")
    p.add_argument("--sessions", type=int, default=None,
                   help="fresh runtime sessions to time each model in, its p50 the fastest one's (default: 2 at "
                        "--threads above 1, where a session's speed is a draw; else 1), as deploy --sessions")
    p.add_argument("--graph-opt", default="all", choices=["disable", "basic", "extended", "all"],
                   help="onnxruntime graph optimisation level, as deploy --graph-opt (default all)")
    p.add_argument("--budget", default=DEFAULT_BUDGET, help=f"time to spend, e.g. 10m (default {DEFAULT_BUDGET})")
    p.add_argument("--reference", action="append", default=[],
                   help="a whole model to measure as well (bundled name or file; repeatable)")
    p.add_argument("--probe", default="default",
                   help="the speed probe: a model timed at the start, every --probe-every and at the end, so that the "
                        "table says how the board's speed moved while it was measured and each model's times are "
                        "scaled to the board's median speed (default: a small generated network of ≈ 1 ms; a "
                        "bundled model name or a file; 'none': no probe)")
    p.add_argument("--probe-every", default="30s", help="how often the speed probe runs (default 30s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated calibration models")
    p.add_argument("--out", help="also write the table to this file (a name ending in .gz: gzip-compressed, a tenth "
                                 "of the size; --import, --table and --reread read either)")
    p.add_argument("--import", dest="import_file", metavar="FILE",
                   help="do not measure: check a table file and install it for its device name")
    p.add_argument("--reread", metavar="FILE",
                   help="do not measure: read a table's calibration kernels again with this edgeprof (its keys, FLOPs "
                        "and bytes), keeping the times the board measured, and install it (and --out); for a table "
                        "calibrated by an older edgeprof, whose board you may no longer have; onnxruntime and LiteRT "
                        "fp32 tables, on a host with the onnxruntime that read them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..predict.pace import probe_reference
    from ..predict.table import default_table_path, load_table, save_table

    if args.reread:
        return _reread(args)
    if args.import_file:
        table = load_table(args.import_file)
        k = table.key
        dest = default_table_path(k.device_name, k.runtime, k.precision, k.threads)
        save_table(table, dest)  # as checked, plain JSON under its .json name (the file given may be compressed)
        err.print(f"imported the table of {k.label()} as {shown(dest)}", markup=False)
        from ..predict.reread import reading_note

        stale = reading_note(table, str(dest))
        if stale:
            err.print(f"  note: {stale}", markup=False)
        rt = " --runtime tflite" if k.runtime == "tflite" else ""
        err.print(f"predict with: edgeprof predict MODEL --device {k.device_name} --threads {k.threads}{rt}",
                  markup=False)
        return 0
    if not args.device:
        raise ConfigError("calibrate needs --device NAME (or --import FILE)", hint="e.g. edgeprof calibrate "
                                                                                   "--device local --budget 10m")
    from ..predict.calibrate import PRECISIONS, RUNTIMES

    if args.runtime not in RUNTIMES:
        raise ConfigError(f"calibrate --runtime {args.runtime}: tables are built for {' and '.join(RUNTIMES)} only",
                          hint="calibrate with --runtime onnxruntime or --runtime tflite; TensorRT is not supported "
                               "yet")
    built = PRECISIONS[args.runtime]
    if args.precision not in built:
        raise ConfigError(f"calibrate --runtime {args.runtime} --precision {args.precision}: {args.runtime} tables are "
                          f"built for {' and '.join(built)} only",
                          hint="LiteRT int8 is not built (its Python interpreter gives no per-op times to separate "
                               "the quantise ops); fp16 tables are not built" if args.runtime == "tflite" else
                          "fp16 tables are not built; calibrate fp32 or int8")
    if args.threads < 1:
        raise ConfigError(f"--threads {args.threads}: must be at least 1")
    from ..vocab import parse_duration

    try:
        budget = parse_duration(args.budget)
    except ValueError as e:
        raise ConfigError(f"--budget {args.budget!r}: {e}", hint="e.g. --budget 15m") from None
    if budget < 10:
        raise ConfigError(f"--budget {args.budget}: at least 10 s is needed", hint="e.g. --budget 10m")
    probe, probe_every = _probe(args)
    from ..predict.calibrate import check_sessions

    check_sessions(args.sessions, args.threads)  # before the progress bar

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from ..export.artifact_cache import default_cache_dir
    from ..predict.calibrate import calibrate
    from .common import resolve_device

    device = resolve_device(args.device, args.inventory)
    with Progress(TextColumn("calibrating {task.fields[device]}"), BarColumn(), TextColumn("{task.percentage:>3.0f} %"),
                  TimeElapsedColumn(), TextColumn("{task.fields[models]} models, {task.fields[samples]} kernels "
                                                  "· {task.fields[label]}"),
                  console=err, transient=False) as bar:
        task = bar.add_task("cal", total=budget, device=device.name, models=0, samples=0, label="")

        said = [-PLAIN_EVERY_S]

        def progress(spent: float, total: float, models: int, samples: int, label: str) -> None:
            bar.update(task, completed=min(spent, total), models=models, samples=samples, label=label)
            if not err.is_terminal and spent - said[0] >= PLAIN_EVERY_S:  # a log file: a plain line now and then
                said[0] = spent
                err.print(f"calibrating {device.name}: {spent:.0f} of {total:.0f} s, {models} models, {samples} "
                          f"kernels · {label}", markup=False)

        table = calibrate(device, threads=args.threads, budget_s=budget, cache_dir=default_cache_dir() / "calibration",
                          level=args.graph_opt, precision=args.precision, references=args.reference, seed=args.seed,
                          progress=progress, runtime=args.runtime, probe=probe, probe_every_s=probe_every,
                          sessions=args.sessions)
        bar.update(task, completed=budget)
    k = table.key
    path = save_table(table, default_table_path(k.device_name, k.runtime, k.precision, k.threads))
    err.print(f"table of {k.label()}: {len(table.models)} models measured in {table.spent_s or 0:.0f} s "
              f"(budget {budget:.0f} s), written to {shown(path)}", markup=False)
    if table.probe is not None:
        ms = table.probe.p50s()
        err.print(f"speed probe {table.probe.model}: {len(ms)} probes, p50 {min(ms):.3g}–{max(ms):.3g} ms "
                  f"(×{max(ms) / min(ms):.2f}); each model's times are scaled to the median, "
                  f"{probe_reference(table) or 0:.3g} ms" + (" — the board's speed moved: calibrate it idle, with its "
                                                         "clocks fixed" if max(ms) / min(ms) > 1.10 else ""),
                  markup=False)
    for note in table.notes:
        err.print(f"  note: {note}", markup=False)
    if args.out:
        save_table(table, Path(args.out))
        err.print(f"exported to {shown(args.out)}; on another machine: edgeprof calibrate --import FILE, or "
                  f"edgeprof predict MODEL --table FILE", markup=False)
    return 0


def _reread(args: argparse.Namespace) -> int:
    """--reread FILE: the table's kernels read again (predict/reread.py), installed for its device and written to
    --out; the file given is left as it is."""
    from ..export.artifact_cache import default_cache_dir
    from ..predict.reread import reread
    from ..predict.table import default_table_path, load_table, save_table

    if args.device or args.import_file:
        raise ConfigError("calibrate --reread FILE measures nothing: give it without --device and --import",
                          hint="e.g. edgeprof calibrate --reread pi5.json --out pi5-reread.json")
    table = load_table(args.reread)
    said = [-1]

    def say(done: int, total: int, label: str) -> None:
        if done * 10 // max(total, 1) != said[0]:  # a line every tenth of the models
            said[0] = done * 10 // max(total, 1)
            err.print(f"re-reading {shown(args.reread)}: {done} of {total} models · {label}", markup=False)

    got = reread(table, default_cache_dir() / "calibration", say)
    k = got.table.key
    dest = save_table(got.table, default_table_path(k.device_name, k.runtime, k.precision, k.threads))
    err.print(f"re-read the table of {k.label()}: {got.reread} of {len(table.models)} models' kernels read again by "
              f"this edgeprof, their measured times kept; installed as {shown(dest)}", markup=False)
    if got.left_out:
        err.print(f"  {len(got.left_out)} model(s) not found as they were measured, left out of the table: "
                  f"{', '.join(got.left_out[:8])}" + (" …" if len(got.left_out) > 8 else ""), markup=False)
    if args.out:
        save_table(got.table, Path(args.out))
        err.print(f"exported to {shown(args.out)}", markup=False)
    return 0


def _probe(args: argparse.Namespace) -> tuple[str | None, float]:
    """--probe and --probe-every checked: (the probe, None for none; seconds between probes), one line if bad."""
    from ..vocab import parse_duration

    try:
        probe_every = parse_duration(args.probe_every)
    except ValueError as e:
        raise ConfigError(f"--probe-every {args.probe_every!r}: {e}", hint="e.g. --probe-every 30s") from None
    if probe_every < 5:
        raise ConfigError(f"--probe-every {args.probe_every}: at least 5 s (each probe takes a few seconds)",
                          hint="e.g. --probe-every 30s, or --probe none")
    from ..predict.calibrate import PROBE

    probe = None if args.probe.lower() == "none" else PROBE if args.probe == "default" else args.probe
    if probe is not None and probe != PROBE and not Path(probe).is_file():
        import edgeprof_models

        from ..errors import ModelError

        try:
            edgeprof_models.get(probe)  # neither a file nor a bundled name: one line now, not after the first model
        except ModelError as e:
            raise ConfigError(f"--probe {probe}: no such file, and {e.message}",
                              hint=e.hint or "edgeprof models lists them; or leave --probe out for the default") from None
    return probe, probe_every
