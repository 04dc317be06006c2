"""How accurate `edgeprof predict` is on this machine, measured: calibrate, predict, then measure and compare.

For each configuration (onnxruntime fp32 with 1 and with 2 threads; LiteRT and int8 tables are not built yet and
are printed as such) this script
1. calibrates `--device local` (edgeprof.predict.calibrate, the same code as `edgeprof calibrate`) within
   --budget, with the bundled models as reference models, or loads the table already in --tables;
2. predicts every model below from its graph and the table alone;
3. measures each model with an ordinary deploy (same inputs, threads, graph level) and compares the p50s; then
   measures it once more: the difference between the two measurements is this machine's own noise floor, which
   no prediction can beat.
The split: the bundled models (mobilenet_v2, resnet18, ds_cnn, bert_tiny) are DESIGN models: they are measured
inside the calibration as reference models, and the method was tuned looking at them; the third-party ONNX files of
tests/corpus (scripts/model-corpus.py: Silero VAD, PaddleOCR, openWakeWord for onnxruntime; the MediaPipe files
for LiteRT) are HELD OUT: no fit ever used them (docs/predict.md says how strictly). The ONNX node-test files of
the corpus (a single op each) are reported apart as "op tests". For LiteRT the bundled models are exported to
TFLite by deploy (litert-torch) and the corpus's .tflite files are the held-out ones.
Prints, per configuration and split and per configuration and family: the share within ±10 % and ±25 %, the
median and worst |error|, how often the measured p50 fell inside the 90 % interval; per model its error; the load
average before and after (the machine is shared: say so next to any figure). Writes everything as JSON with --out.

  PYTHONPATH=$PWD:$PWD/.pp python benchmarks/prediction_accuracy.py --budget 240 --tables /tmp/tables --out acc.json
  PYTHONPATH=$PWD:$PWD/.pp python benchmarks/prediction_accuracy.py --config tflite-fp32-1t --budget 120 --only-design
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ["mobilenet_v2", "resnet18", "ds_cnn", "bert_tiny"]
# configuration name → (runtime, threads)
CONFIGS = {"ort-fp32-1t": ("onnxruntime", 1), "ort-fp32-2t": ("onnxruntime", 2), "tflite-fp32-1t": ("tflite", 1),
           "tflite-fp32-2t": ("tflite", 2)}
DEFAULT_CONFIGS = "ort-fp32-1t,ort-fp32-2t,tflite-fp32-1t"
FAMILY = {"silero": "Silero VAD (LSTM in If)", "ppocr": "PaddleOCR (CNN)", "PP-OCR": "PaddleOCR (CNN)",
          "embedding_model": "openWakeWord (CNN)", "hey_mycroft": "openWakeWord (CNN)",
          "openwakeword_silero": "Silero VAD (LSTM in If)", "test_": "ONNX node test (one op)",
          "mobilenet": "bundled CNN", "resnet": "bundled CNN", "ds_cnn": "bundled CNN", "bert": "bundled transformer",
          "palm_detection": "MediaPipe (CNN)", "face_detection": "MediaPipe (CNN)", "iris_landmark": "MediaPipe (CNN)",
          "hand_recrop": "MediaPipe (CNN)", "selfie": "MediaPipe (CNN)", "face_landmark": "MediaPipe (CNN)"}


def _corpus() -> Any:
    spec = importlib.util.spec_from_file_location("model_corpus", ROOT / "scripts" / "model-corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def family(name: str) -> str:
    return next((v for k, v in FAMILY.items() if k in name), "other")


def measure(model: str, args: list[str], threads: int, seconds: float, tmp: Path, runtime: str = "onnxruntime"
            ) -> dict[str, Any]:
    from edgeprof.cli.main import main

    out = tmp / "r.json"
    if out.exists():
        out.unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["deploy", "--device", "local", "--model", model, "--runtime", runtime, *args,
                     "--threads", str(threads),
                     "--min-duration", str(seconds), "--warmup", "1", "--idle", "0", "--no-store", "--json", str(out),
                     "--quiet"])
    if code != 0 or not out.exists():
        return {"error": (err.getvalue().strip().splitlines() or ["?"])[0][:200]}
    return json.loads(out.read_text())


def _values(r: dict[str, Any]) -> dict[str, Any]:
    """The constants the run fed (--input-value), so that an If on them is predicted on the branch taken."""
    import numpy as np

    out = {}
    for i in r["settings"]["inputs"]:
        if i.get("value") is not None:
            out[i["name"]] = np.full(tuple(i["shape"]), i["value"], dtype=np.dtype(i.get("dtype") or "float32"))
    return out


def run_config(config: str, budget: float, tables: Path, seconds: float, corpus_files: dict[str, Path],
               corpus_args: dict[str, list[str]], only: str | None = None) -> dict[str, Any]:
    from edgeprof.predict.calibrate import calibrate
    from edgeprof.predict.graph import kernels
    from edgeprof.predict.service import predict
    from edgeprof.predict.table import load_table, save_table
    from edgeprof.predict.tflite import tflite_kernels
    from edgeprof.records.device import local_device

    runtime, threads = CONFIGS[config]
    path = tables / f"local-{runtime}-fp32-t{threads}.json"
    load_before = os.getloadavg()
    if path.exists():
        table = load_table(path)
        print(f"[{config}] table {path} ({len(table.models)} models)", flush=True)
    else:
        t0 = time.monotonic()
        table = calibrate(local_device(), threads=threads, budget_s=budget, cache_dir=tables / "kernels",
                          references=DESIGN, runtime=runtime)
        save_table(table, path)
        print(f"[{config}] calibrated in {time.monotonic() - t0:.0f} s: {len(table.models)} models", flush=True)
    rows = []
    ext = ".tflite" if runtime == "tflite" else ".onnx"
    models = [(m, [], "design") for m in DESIGN] + [
        (str(p), corpus_args[n], "op test" if n.startswith("test_") else "held-out")
        for n, p in corpus_files.items() if n.endswith(ext)]
    if only:
        models = [m for m in models if m[2] == only]
    with tempfile.TemporaryDirectory() as tmp:
        for model, args, split in models:
            name = Path(model).name
            r = measure(model, args, threads, seconds, Path(tmp), runtime)
            if "error" in r:
                rows.append({"model": name, "split": split, "family": family(name), "error": r["error"]})
                print(f"[{config}] {name}: not measured: {r['error']}", flush=True)
                continue
            shapes = {i["name"]: tuple(i["shape"]) for i in r["settings"]["inputs"]}
            t0 = time.monotonic()
            try:
                ks = tflite_kernels(r["artifact"]["path"], threads) if runtime == "tflite" else \
                    kernels(r["artifact"]["path"], shapes, values=_values(r))
                p = predict(ks, table, batch=int(r["batch"]), threads=threads, runtime=runtime)
            except Exception as e:  # noqa: BLE001 - a benchmark row, not a crash
                rows.append({"model": name, "split": split, "family": family(name),
                             "error": f"predict failed: {type(e).__name__}: {e}"[:200]})
                continue
            took = time.monotonic() - t0
            meas = float(r["latency_ms"]["p50"])
            again = measure(model, args, threads, seconds, Path(tmp), runtime)  # the same run later: the noise
            remeasured = float(again["latency_ms"]["p50"]) if "error" not in again else None
            rows.append({"model": name, "split": split, "family": family(name), "measured_ms": meas,
                         "measured_cv": r["latency_ms"]["cv"], "predicted_ms": p.p50_ms, "low_ms": p.low_ms,
                         "high_ms": p.high_ms, "error": p.p50_ms / meas - 1, "inside": p.low_ms <= meas <= p.high_ms,
                         "covered_ops": p.covered_ops, "covered_flops": p.covered_flops, "predict_s": took,
                         "kernels": p.kernels, "warnings": p.warnings, "remeasured_ms": remeasured,
                         "remeasure_error": None if remeasured is None else remeasured / meas - 1,
                         "artifact": r["artifact"]["path"], "inputs": {k: list(v) for k, v in shapes.items()},
                         "batch": int(r["batch"])})
            print(f"[{config}] {split:8s} {name:38s} measured {meas:9.3f} ms  predicted {p.p50_ms:9.3f} ms "
                  f"[{p.low_ms:.3f}, {p.high_ms:.3f}]  error {100 * (p.p50_ms / meas - 1):+6.1f} %  "
                  f"ops covered {100 * p.covered_ops:.0f} %  remeasured {remeasured or float('nan'):.3f} ms",
                  flush=True)
    from edgeprof.predict.fit import held_out_errors

    folds = [abs(math.exp(e) - 1) for _, e in held_out_errors(table)]  # generated models no fit saw (5-fold)
    fold_summary = {"n": len(folds), "within_10": sum(e <= 0.10 for e in folds) / len(folds),
                    "within_25": sum(e <= 0.25 for e in folds) / len(folds),
                    "median_abs_error": statistics.median(folds)} if folds else {"n": 0}
    return {"config": config, "runtime": runtime, "threads": threads, "table": str(path),
            "table_models": len(table.models), "folds": fold_summary, "table_spent_s": table.spent_s,
            "load_before": load_before, "load_after": os.getloadavg(), "rows": rows}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if isinstance(r.get("error"), float)]
    if not ok:
        return {"n": 0}
    errs = [abs(r["error"]) for r in ok]
    return {"n": len(ok), "within_10": sum(e <= 0.10 for e in errs) / len(ok),
            "within_25": sum(e <= 0.25 for e in errs) / len(ok), "median_abs_error": statistics.median(errs),
            "worst_abs_error": max(errs), "worst_model": max(ok, key=lambda r: abs(r["error"]))["model"],
            "interval_coverage": sum(bool(r["inside"]) for r in ok) / len(ok),
            "remeasure_median_abs": statistics.median(abs(r["remeasure_error"]) for r in ok
                                                      if r.get("remeasure_error") is not None)
            if any(r.get("remeasure_error") is not None for r in ok) else None}


def _line(label: str, s: dict[str, Any]) -> str:
    return (f"  {label:28s} n={s['n']:2d}  ±10 %: {100 * s['within_10']:3.0f} %  ±25 %: {100 * s['within_25']:3.0f} %"
            f"  median |err| {100 * s['median_abs_error']:5.1f} %  worst {100 * s['worst_abs_error']:4.0f} % "
            f"({s['worst_model']})  in 90 % interval: {100 * s['interval_coverage']:3.0f} %"
            + (f"  (measured twice: median |diff| {100 * s['remeasure_median_abs']:.1f} %)"
               if s.get("remeasure_median_abs") is not None else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=240.0, help="calibration budget per onnxruntime configuration (s)")
    ap.add_argument("--tflite-budget", type=float, default=600.0,
                    help="calibration budget per LiteRT configuration (s; one operator per model, ≈ 5 s each: "
                         "under ≈ 300 s the convolutions stay uncovered)")
    ap.add_argument("--config", default=DEFAULT_CONFIGS,
                    help=f"configurations, comma-separated, of {', '.join(CONFIGS)} (default {DEFAULT_CONFIGS})")
    ap.add_argument("--only", choices=["design", "held-out", "op test"], help="predict and measure one split only")
    ap.add_argument("--tables", type=Path, default=Path(tempfile.gettempdir()) / "edgeprof-tables")
    ap.add_argument("--measure-s", type=float, default=3.0, help="timed loop of each measurement (s)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    chosen = [c.strip() for c in a.config.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CONFIGS]
    if unknown:
        ap.error(f"--config {', '.join(unknown)}: not one of {', '.join(CONFIGS)}")
    corpus = _corpus()
    files = corpus.fetch()
    args = {f["name"]: list(f["args"]) + (f["needs"].split() if f["needs"] else []) for f in corpus.FILES}
    a.tables.mkdir(parents=True, exist_ok=True)
    configs = [run_config(c, a.tflite_budget if CONFIGS[c][0] == "tflite" else a.budget, a.tables, a.measure_s,
                          files, args, a.only) for c in chosen]
    print("\nint8 and fp16 (any runtime): not measured (their tables are not built)")
    for c in configs:
        print(f"\n{c['config']}: {c['runtime']} fp32 threads={c['threads']} (table: {c['table_models']} models, "
              f"load average before {c['load_before'][0]:.1f}, after {c['load_after'][0]:.1f})")
        f = c["folds"]
        if f["n"]:
            print(f"  {'table folds (generated)':28s} n={f['n']:3d}  ±10 %: {100 * f['within_10']:3.0f} %  ±25 %: "
                  f"{100 * f['within_25']:3.0f} %  median |err| {100 * f['median_abs_error']:.1f} %")
        c["summary"] = {split: summary([r for r in c["rows"] if r["split"] == split])
                        for split in ("design", "held-out", "op test")}
        for split, s in c["summary"].items():
            if s["n"]:
                print(_line(split, s))
        fams = sorted({r["family"] for r in c["rows"]})
        c["families"] = {fam: summary([r for r in c["rows"] if r["family"] == fam]) for fam in fams}
        for fam, s in c["families"].items():
            if s["n"]:
                print(_line(fam, s))
        failed = [r for r in c["rows"] if not isinstance(r.get("error"), float)]
        for r in failed:
            print(f"  not measured or not predicted: {r['model']}: {r['error']}")
    if a.out:
        a.out.write_text(json.dumps(configs, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
