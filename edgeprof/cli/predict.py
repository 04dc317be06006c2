"""`edgeprof predict`: a model's latency on boards from their calibration tables, without running it on them.

Parses, finds each board's table (edgeprof.predict.service; onnxruntime or LiteRT, by --runtime or the model's file
type), reads the model's graph on this host as that runtime runs it, prints per board the predicted p50 with its
90 % interval, throughput, coverage, the ops the table lacks and what was assumed for them, and the warnings; `--json` prints the same as JSON. Never connects to a device.
Every prediction is stored in the results database (store/predictions.py; `--no-store` does not), keyed by the
configuration as a measured run of it is keyed, so `results show`, `compare` and the report put it beside the run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigError
from .predicted import assumed
from .ui import err, out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "predict", help="predict a model's latency on boards from their calibration tables",
        description="Predict a model's p50 latency on each board from the board's calibration table (edgeprof "
                    "calibrate), from the model's graph alone: nothing runs on a device and nothing connects to "
                    "one. Prints the prediction with its 90 % interval, the share of the model's ops and FLOPs "
                    "the table covers, what was assumed for the rest, and warnings when the model lies outside "
                    "what the table measured.",
        epilog="examples:\n  edgeprof predict mobilenet_v2 --device local\n"
               "  edgeprof predict model.onnx --input x=1x3x224x224 --device pi5 --device jetson\n"
               "  edgeprof predict model.onnx --table colleague-board.json --json\n"
               "  edgeprof predict mobilenet_v2 --precision int8 --device local   (as deploy --precision int8 "
               "quantises it)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="bundled model name or ONNX file")
    p.add_argument("--device", action="append", default=[], help="a board with a table (repeatable)")
    p.add_argument("--table", action="append", default=[], help="a calibration table file (repeatable)")
    p.add_argument("--threads", type=int, help="the thread count of the tables to use (refused if they differ)")
    p.add_argument("--runtime", choices=["onnxruntime", "tflite"],
                   help="the runtime of the tables (default: tflite for a .tflite model, else onnxruntime; a --table "
                        "file says its own)")
    p.add_argument("--precision",
                   help="precision of the tables and of the model: int8 reads the model as deploy --precision int8 "
                        "quantises it (onnxruntime only; LiteRT int8 tables are not built). Default: int8 for an "
                        "ONNX file that is already quantised (read as it is), else fp32")
    p.add_argument("--calibration", metavar="DIR",
                   help="int8: the calibration samples deploy --calibration DIR quantises the model with (.npy or "
                        ".npz files; default: deploy's seeded inputs), so the model is read as that deploy runs it")
    p.add_argument("--runtime-version", help="refuse a table measured with another runtime version")
    p.add_argument("--batch", type=int, default=1, help="batch size, as deploy --batch")
    p.add_argument("--input", action="append", default=[], metavar="NAME=SHAPE",
                   help="input shape, as deploy --input (e.g. x=1x3x224x224)")
    p.add_argument("--input-value", action="append", default=[], metavar="NAME=V",
                   help="a constant the input is fed, as deploy --input-value (e.g. sr=16000): an If on it is then "
                        "predicted on the branch taken instead of both")
    p.add_argument("--input-range", action="append", default=[], metavar="NAME=LOW:HIGH",
                   help="the range an input's seeded values are drawn from, as deploy --input-range (e.g. "
                        "input_ids=0:30522): the one run on this host that reads shapes, loop counts and If "
                        "conditions is fed what deploy feeds (an index out of range makes that run fail)")
    p.add_argument("--input-data", metavar="FILE",
                   help="real input arrays (.npz, or .npy for one input), as deploy --input-data: fed to that run")
    p.add_argument("--measured", action="store_true",
                   help="also show the newest stored run of the same configuration (device, model content, "
                        "runtime, precision, threads, batch, shapes) next to each prediction, with the error")
    p.add_argument("--db", help="results database (as results --db): where the predictions are stored, and what "
                                "--measured reads")
    p.add_argument("--no-store", action="store_true",
                   help="do not store the predictions (by default each is stored, so results show, compare and "
                        "the report show it beside a measured run of the same configuration)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def measured_beside(rows: list[dict[str, Any]], db: str | None) -> None:
    """Adds to each prediction row the newest stored ok run of its configuration (the same config key: device,
    model content, runtime, precision, batch, threads, shapes fed): run id, p50, error, inside."""
    from .common import open_store

    store = open_store(db)
    for r in rows:
        found = next((run for run in store.list(config=r["config_key"], status="ok", limit=20) if run.p50_ms), None)
        if found is None or found.p50_ms is None:
            r["measured"] = None
            continue
        m = float(found.p50_ms)
        r["measured"] = {"run_id": found.run_id, "p50_ms": m, "created_at": found.created_at,
                         "error": r["p50_ms"] / m - 1, "inside_interval": r["low_ms"] <= m <= r["high_ms"]}


def given_precision(model: str) -> str | None:
    """The precision of an ONNX file that is already quantised (or fp16), as deploy reads it; None otherwise (a
    bundled name, a float file, a .tflite file)."""
    from pathlib import Path

    from ..export.quantize import onnx_given_precision

    if not str(model).endswith(".onnx") or not Path(model).is_file():
        return None
    try:
        given = onnx_given_precision(model)
    except Exception:  # noqa: BLE001 - an unreadable file is refused, in one line, where its graph is read
        return None
    return given[0] if given is not None else None


def precision_of(args: argparse.Namespace, runtime: str | None) -> str:
    """The precision predicted: --precision, else an already-quantised file's own, else fp32; what is not built
    (fp16, LiteRT int8) is refused in one line, as is a --calibration directory that is not there."""
    from ..files.datafiles import require_calibration_dir

    require_calibration_dir(args.calibration)  # a typo is one line, whatever the precision (as deploy)
    precision = str(args.precision or given_precision(args.model) or "fp32")
    if precision not in ("fp32", "int8"):
        what = f"{args.model} is already {precision}" if args.precision is None else f"predict --precision {precision}"
        raise ConfigError(f"{what}: tables are built for fp32 and int8 (onnxruntime) only; fp16 tables are not built",
                          hint="predict the fp32 model, or its int8 version with --precision int8")
    if precision != "fp32" and runtime == "tflite":
        raise ConfigError(f"predict --runtime tflite --precision {precision}: LiteRT tables are built for fp32 only",
                          hint="predict fp32, or int8 with onnxruntime tables (--runtime onnxruntime)")
    return precision


def run(args: argparse.Namespace) -> int:
    from ..export.inputs import parse_input_range, parse_input_value
    from ..export.resolve import resolve_model
    from ..predict.record import stored_prediction
    from ..predict.service import check_given_precision, find_table, model_graph, predict_lent
    from ..predict.table import check_key, load_table
    from .deploy import parse_input_shape

    if not args.device and not args.table:
        raise ConfigError("predict needs --device NAME or --table FILE",
                          hint="edgeprof calibrate --device NAME measures a table first")
    if ":" not in str(args.model):  # a mistyped path or name is said before a missing table (a builder: later)
        resolve_model(args.model)
    runtime = args.runtime or ("tflite" if str(args.model).endswith(".tflite") else None)
    precision = precision_of(args, runtime)
    tables = [(f"device {d}", find_table(d, runtime=runtime or "onnxruntime", precision=precision,
                                         threads=args.threads)) for d in args.device]
    tables += [(str(t), t) for t in args.table]
    loaded = [(label, load_table(path), str(path)) for label, path in tables]
    runtimes = {t.key.runtime for _, t, _ in loaded}
    if len(runtimes) > 1:
        raise ConfigError(f"the tables were measured with different runtimes ({', '.join(sorted(runtimes))})",
                          hint="predict with the tables of one runtime at a time (--runtime)")
    for _label, table, path in loaded:  # a .tflite model with an onnxruntime table: refused before reading it
        check_key(table, runtime=runtime, precision=precision, where=f"table {path}")
    if precision != "fp32" and loaded[0][1].key.runtime == "tflite":
        raise ConfigError(f"predict --precision {precision}: LiteRT tables are built for fp32 only",
                          hint="predict int8 with onnxruntime tables")
    level = {t.key.graph_level for _, t, _ in loaded}
    if len(level) > 1:
        raise ConfigError(f"the tables were measured at different graph levels ({', '.join(sorted(level))})",
                          hint="predict with tables of one --graph-opt level at a time")
    graph = model_graph(args.model, batch=args.batch, input_shapes=dict(parse_input_shape(s) for s in args.input),
                        level=level.pop(), input_values=dict(parse_input_value(v) for v in args.input_value),
                        threads=args.threads or loaded[0][1].key.threads, precision=precision,
                        calibration=args.calibration, input_data=args.input_data,
                        input_ranges=dict(parse_input_range(r) for r in args.input_range))
    note = check_given_precision(args.model, graph.precision, precision, loaded[0][1].key.runtime)
    ks, shapes = graph.kernels, graph.shapes
    rows: list[dict[str, Any]] = []
    records = []
    for _label, table, path in loaded:
        p = predict_lent(ks, table, path, batch=args.batch, threads=args.threads, where=f"table {path}",
                         runtime_version=args.runtime_version, runtime=runtime, precision=precision)
        if note:
            p.warnings.append(note)
        if graph.denormals:
            p.warnings.append(graph.denormals)
        records.append(stored_prediction(args.model, graph, table, p, batch=args.batch, table_path=path))
        rows.append({"board": table.key.device_name, "runtime": table.key.runtime, "threads": table.key.threads,
                     "sessions": table.sessions,
                     "table": path, "key": table.key.label(), "config_key": records[-1].config_key,
                     "table_id": records[-1].table_id, **p.to_dict()})
    stored_in = None
    if not args.no_store:
        from ..store.predictions import save_prediction
        from .common import open_store

        store = open_store(args.db)
        stored_in = store.display_url
        for r, rec in zip(rows, records, strict=True):
            r["prediction_id"] = save_prediction(store, rec).prediction_id
    if args.measured:
        measured_beside(rows, args.db)
    if args.json:
        import json

        sys.stdout.write(json.dumps({"model": args.model, "inputs": {k: list(v) for k, v in shapes.items()},
                                     "predictions": rows}, indent=2) + "\n")
        return 0
    read_as = "LiteRT's operators (XNNPACK partitions)" if loaded[0][1].key.runtime == "tflite" else \
        "onnxruntime's fused graph"
    out.print(f"{args.model}: {len(ks)} kernels in {read_as}; inputs "
              + ", ".join(f"{k}={'x'.join(map(str, v))}" for k, v in shapes.items()), markup=False)
    for r in rows:
        _print_row(r, bool(args.measured))
    if stored_in is not None:
        err.print(f"stored as prediction {', '.join(str(r['prediction_id']) for r in rows)} in {stored_in} "
                  f"(results show, compare and report put it beside a measured run of the same configuration)",
                  markup=False)
    out.print("\nnot measured: a prediction from the tables (docs/predict.md says how accurate it was and when not "
              "to trust it)", markup=False)
    return 0


def _print_row(r: dict[str, Any], measured: bool) -> None:
    """One table's prediction, as `predict` prints it (the --json row)."""
    out.print(f"\n{r['key']}", markup=False)
    flops = "an unknown share" if r["covered_flops"] is None else f"{100 * r['covered_flops']:.0f} %"
    out.print(f"  predicted p50 {r['p50_ms']:.3f} ms   {100 * r['level']:.0f} % interval "
              f"[{r['low_ms']:.3f}, {r['high_ms']:.3f}] ms   throughput {r['throughput_ips']:.1f} /s",
              markup=False)
    if r["sessions"] > 1:  # the table's models were timed in several sessions (docs/runtimes.md, Sessions)
        out.print(f"  the p50 of the fastest of {r['sessions']} runtime sessions, as the table's models were "
                  f"timed: one session may run slower (deploy --sessions {r['sessions']} shows it)", markup=False)
    out.print(f"  covered: {100 * r['covered_ops']:.0f} % of kernels, {flops} of FLOPs", markup=False)
    if measured:
        m = r.get("measured")
        if m is None:
            out.print("  measured: no stored run of this configuration", markup=False)
        else:
            out.print(f"  measured p50 {m['p50_ms']:.3f} ms (run {m['run_id']}, {m['created_at']}): prediction "
                      f"{100 * m['error']:+.1f} %, {'inside' if m['inside_interval'] else 'OUTSIDE'} the "
                      f"interval", markup=False)
    for u in r["uncovered"]:
        out.print(f"  not in the table: {u['op']} ×{u['count']}: assumed {assumed(u['assumed_ms'])} (roofline "
                  f"from the table's peak FLOP/s and bytes/s; its interval ×1/4 … ×4)", markup=False)
    for w in r["warnings"]:
        err.print(f"  warning: {w}", markup=False)
