"""edgeprof's TFLite p50 vs `litert-benchmark`'s median on the same .tflite, same threads, in one run.

    python benchmarks/tflite_overhead.py [--model mobilenet_v2] [--threads 2] [--runs 300] [--rounds 3]

Exports the model once (cached), then alternates, `--rounds` times: `edgeprof deploy --device local --runtime
tflite` (agent subprocess, XNNPACK on, timed loop of `--runs` queries) and `litert-benchmark --num_runs --runs
--num_threads` (ships with ai-edge-litert; the CompiledModel API). Alternating spreads machine drift over both
sides. Prints each round and the ratio of medians of the per-round p50/median figures. Goal: <= 1.03.
Not a test: timing belongs here, not in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="mobilenet_v2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    exe = Path(sys.executable).parent
    edgeprof = shutil.which("edgeprof", path=str(exe)) or "edgeprof"
    bench = shutil.which("litert-benchmark", path=str(exe)) or shutil.which("litert-benchmark")
    if not bench:
        print("litert-benchmark not found: pip install 'edgeprof[tflite]'", file=sys.stderr)
        return 2
    from edgeprof.export.onnx_export import default_cache_dir
    from edgeprof.export.resolve import resolve_model
    from edgeprof.export.tflite_export import prepare_tflite

    artifact = prepare_tflite(resolve_model(args.model), cache_dir=default_cache_dir(), batch=1,
                              progress=lambda m: print(f"  {m}", file=sys.stderr))
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, EDGEPROF_DB=os.path.join(tmp, "r.sqlite"))
        for i in range(args.rounds):
            out = os.path.join(tmp, f"e{i}.json")
            subprocess.run([edgeprof, "deploy", "--device", "local", "--model", args.model, "--runtime", "tflite",
                            "--threads", str(args.threads), "--min-duration", "0", "--min-queries", str(args.runs),
                            "--max-queries", str(args.runs), "--warmup", "2", "--no-store", "--quiet",
                            "--json", out], check=True, env=env, stdout=subprocess.DEVNULL)
            r = json.loads(Path(out).read_text())
            ours.append(r["latency_ms"]["p50"])
            rj = os.path.join(tmp, f"b{i}.json")
            subprocess.run([bench, "--model", artifact.path, "--num_runs", str(args.runs), "--num_threads",
                            str(args.threads), "--result_json", rj], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            theirs.append(json.loads(Path(rj).read_text())["latency"]["median_ms"])
            print(f"round {i + 1}: edgeprof p50 {ours[-1]:.3f} ms   litert-benchmark median {theirs[-1]:.3f} ms")
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"\n{args.model} · {args.threads} threads · {args.runs} queries × {args.rounds} rounds")
    print(f"edgeprof tflite p50 (median of rounds):      {a:.3f} ms")
    print(f"litert-benchmark median (median of rounds):  {b:.3f} ms")
    print(f"ratio edgeprof / litert-benchmark: {a / b:.3f}  (goal <= 1.03)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
