"""How much does edgeprof's harness add to what it measures?

Same ONNX model, same threads, one run, three measurements of p50 latency:
  1. edgeprof: `deploy --device local` (agent subprocess, IOBinding, perf_counter_ns loop);
  2. a bare Python loop: perf_counter_ns around session.run(feeds) with numpy inputs;
  3. onnxruntime's own `model_run` profiling events (its internal timing of the same session).
Prints each p50 and the ratios to `model_run`. Goal: edgeprof / model_run <= 1.01 on a ~1 ms model.

Run: python benchmarks/harness_overhead.py [--threads 1] [--duration 10] [--rounds 3]
Rounds alternate the methods (ABCABC...) so drift in the machine's speed hits each of them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper


def build_model(path: Path, width: int = 1024, layers: int = 2, rows: int = 32) -> None:
    """Two MatMul+Relu layers (few nodes, so profiling adds little inside model_run), about 1 ms on one core."""
    rs = np.random.RandomState(0)
    nodes, inits = [], []
    prev = "x"
    for i in range(layers):
        w = (rs.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, w.shape, w.ravel().tolist()))
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]))
        out = "y" if i == layers - 1 else f"r{i}"
        nodes.append(helper.make_node("Relu", [f"m{i}"], [out]))
        prev = out
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def session(path: Path, threads: int, profile: bool = False):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if profile:
        so.enable_profiling = True
        so.profile_file_prefix = str(path.parent / "ortprof")
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def feeds(width: int = 1024, rows: int = 32) -> dict[str, np.ndarray]:
    return {"x": np.random.RandomState(0).uniform(0, 1, size=(rows, width)).astype(np.float32)}


def bare_loop(path: Path, threads: int, duration: float) -> list[float]:
    sess, f = session(path, threads), feeds()
    for _ in range(50):
        sess.run(None, f)
    out: list[float] = []
    end = time.perf_counter_ns() + int(duration * 1e9)
    while time.perf_counter_ns() < end:
        t0 = time.perf_counter_ns()
        sess.run(None, f)
        out.append((time.perf_counter_ns() - t0) / 1e6)
    return out


def model_run_events(path: Path, threads: int, duration: float) -> list[float]:
    sess, f = session(path, threads, profile=True), feeds()
    for _ in range(50):
        sess.run(None, f)
    end = time.perf_counter_ns() + int(duration * 1e9)
    while time.perf_counter_ns() < end:
        sess.run(None, f)
    prof = sess.end_profiling()
    with open(prof) as fh:
        events = json.load(fh)
    runs = [e["dur"] / 1e3 for e in events if e.get("name") == "model_run" and e.get("cat") == "Session"]
    return runs[50:]  # drop the warm-up queries


def edgeprof_run(path: Path, threads: int, duration: float) -> list[float]:
    from edgeprof.records import RunSpec, local_device
    from edgeprof.session import deploy

    spec = RunSpec(device="local", model=str(path), threads=threads, min_duration_s=duration, min_queries=100,
                   warmup_s=1.0)
    return deploy(spec, local_device()).samples_ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--duration", type=float, default=8.0, help="seconds per measurement (default 8)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as td:
        os.environ.setdefault("EDGEPROF_CACHE", str(Path(td) / "cache"))
        path = Path(td) / "mlp.onnx"
        build_model(path)
        p50: dict[str, list[float]] = {"edgeprof": [], "bare loop": [], "ort model_run": []}
        for r in range(args.rounds):
            for name, fn in (("edgeprof", edgeprof_run), ("bare loop", bare_loop),
                             ("ort model_run", model_run_events)):
                s = fn(path, args.threads, args.duration)
                p50[name].append(float(np.percentile(s, 50)))
                print(f"round {r + 1} {name:14s} p50 {p50[name][-1]:.4f} ms  (n={len(s)})", file=sys.stderr)
        ref = statistics.median(p50["ort model_run"])
        print(f"\nmodel: 2x MatMul(32x1024 @ 1024x1024)+Relu, threads={args.threads}, {args.rounds} rounds of "
              f"{args.duration:g} s, median of per-round p50s")
        for name, vals in p50.items():
            m = statistics.median(vals)
            print(f"  {name:14s} p50 {m:.4f} ms   ratio to model_run {m / ref:.4f}")
        print("goal: edgeprof / model_run <= 1.01")
    return 0


if __name__ == "__main__":
    sys.exit(main())
