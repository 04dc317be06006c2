"""The predictor's development figures: the tables' own folds and the design models, never the held-out ones.

For developing the cost model (edgeprof/predict/fit.py) without looking at the held-out models' errors
(docs/predict.md, "honesty about the split"): for each table in --tables and each variant of fit.FitOptions asked
for, prints
- the table's generated models, each predicted by a fit without its fold (5-fold): the share within ±10 % and
  ±25 % and the median |error|, all of them and those under 0.2 ms (the small models' proxy);
- the table's reference models (the design models, measured inside the calibration), predicted the same way;
- the design models' rows of an earlier benchmark run (--measured, prediction_accuracy.py --out): their measured
  p50 against the prediction of the variant's fit on the whole table. Rows of any other split are skipped unread.
Nothing is measured.

  PYTHONPATH=$PWD python benchmarks/prediction_folds.py --tables DIR --measured acc.json \\
      --variant knn=7,shape=False --variant knn=4,shape=True
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

TABLES = {"ort-fp32-1t": "local-onnxruntime-fp32-t1.json", "ort-fp32-2t": "local-onnxruntime-fp32-t2.json",
          "tflite-fp32-1t": "local-tflite-fp32-t1.json", "tflite-fp32-2t": "local-tflite-fp32-t2.json"}


def stats(errs: list[float]) -> str:
    a = [abs(e) for e in errs]
    if not a:
        return "n=0"
    return (f"n={len(a):3d} ±10 % {100 * sum(x <= .1 for x in a) / len(a):3.0f} %  ±25 % "
            f"{100 * sum(x <= .25 for x in a) / len(a):3.0f} %  median {100 * statistics.median(a):5.1f} %")


def design_kernels(row: dict[str, Any], runtime: str, cache: dict[str, Any]) -> list[Any]:
    from edgeprof.predict.graph import Kernel, kernels
    from edgeprof.predict.tflite import tflite_kernels

    key = f"{runtime}/{row['artifact']}"
    if key not in cache:
        ks = tflite_kernels(row["artifact"], 1) if runtime == "tflite" else \
            kernels(row["artifact"], {n: tuple(v) for n, v in row["inputs"].items()})
        cache[key] = [k.to_dict() for k in ks]
    return [Kernel.from_dict(d) for d in cache[key]]


def variant(text: str) -> Any:
    from edgeprof.predict.fit import FitOptions

    kw: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in FitOptions.__dataclass_fields__:
            raise SystemExit(f"--variant {text}: {name} is not a FitOptions field")
        kw[name] = value == "True" if value in ("True", "False") else int(value) if value.isdigit() else float(value)
    return FitOptions(**kw)


def main() -> int:
    from edgeprof.predict.fit import fit, held_out_errors
    from edgeprof.predict.table import load_table

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=Path, required=True)
    ap.add_argument("--measured", type=Path, help="a prediction_accuracy.py --out JSON: its design rows only")
    ap.add_argument("--variant", action="append", default=[], help="FitOptions fields, e.g. knn=4,shape=True")
    ap.add_argument("--config", default=",".join(TABLES), help="which tables of --tables (those present)")
    ap.add_argument("--cache", type=Path, help="a JSON file keeping the design models' kernels between runs")
    a = ap.parse_args()
    measured = json.loads(a.measured.read_text()) if a.measured else []
    cache = json.loads(a.cache.read_text()) if a.cache and a.cache.exists() else {}
    for text in a.variant or [""]:
        options = variant(text)
        print(f"variant {options}")
        for config in a.config.split(","):
            path = a.tables / TABLES[config]
            if not path.exists():
                continue
            table = load_table(path)
            roles = {m.name: m for m in table.models}
            held = [(n, math.exp(e) - 1) for n, e in held_out_errors(table, options=options)]
            gen = [(n, e) for n, e in held if roles[n].role != "reference"]
            small = [e for n, e in gen if roles[n].p50_ms < 0.2]
            ref = " ".join(f"{n} {100 * e:+.0f} %" for n, e in held if roles[n].role == "reference")
            p = fit(table, options)
            design = []
            for c in measured:
                if c.get("config") != config:
                    continue
                for r in c["rows"]:
                    if r.get("split") != "design" or not isinstance(r.get("measured_ms"), (int, float)):
                        continue
                    pr = p.predict(design_kernels(r, table.key.runtime, cache))
                    design.append((r["model"], pr.p50_ms / r["measured_ms"] - 1))
            print(f"  {config:15s} folds {stats([e for _, e in gen])} | under 0.2 ms {stats(small)}\n"
                  f"  {'':15s} reference folds: {ref or '-'} | interval ×{math.exp(p.spread):.2f}\n"
                  f"  {'':15s} design {stats([e for _, e in design])}: "
                  + " ".join(f"{n} {100 * e:+.0f} %" for n, e in design), flush=True)
    if a.cache:
        a.cache.write_text(json.dumps(cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
