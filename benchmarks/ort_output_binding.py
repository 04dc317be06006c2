"""The onnxruntime backend's timed-loop cost per query, side by side in one run: outputs pre-bound as OrtValues
(the path of every model whose output declarations are right) vs bound by name and device again before each run
(the path of a model that declares a wrong output shape), vs plain `session.run_with_iobinding`.

    python benchmarks/ort_output_binding.py [--size 64] [--queries 20000] [--rounds 5]

Builds a small ONNX (MatMul + Relu, float32 [1, size] x [size, size]) where per-query harness cost shows, loads it
through the agent's backend (agents/edgeprof_agent/backends/ort.py) twice — as is, and with the output's
declared rank made wrong (so the backend takes its re-binding path) — and alternates `--rounds` times over the
three loops, in interleaved blocks of 100 queries. Prints each round's median µs per query and the ratios of medians: pre-bound / plain (the cost of
the harness, goal <= 1.02) and re-binding / pre-bound (what a wrong declaration costs).
Not a test: timing belongs here, not in the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "agents"))


def model(path: Path, size: int, wrong: bool) -> str:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.random.RandomState(0).rand(size, size).astype("float32"), "w")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             # a data-dependent reshape (rank not inferable), so a wrong declaration survives into the session
             helper.make_node("Shape", ["r"], ["s"]), helper.make_node("ReduceMax", ["r"], ["m"], keepdims=0),
             helper.make_node("Cast", ["m"], ["mi"], to=TensorProto.INT64),
             helper.make_node("Mul", ["mi", "zero"], ["z"]), helper.make_node("Add", ["z", "two"], ["e"]),
             helper.make_node("Unsqueeze", ["e", "ax"], ["e1"]), helper.make_node("Slice", ["s", "ax", "e1"], ["s2"]),
             helper.make_node("Reshape", ["r", "s2"], ["y"])]
    inits = [w, numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array(2, np.int64), "two"), numpy_helper.from_array(np.array([0], np.int64), "ax")]
    out = ["batch"] if wrong else ["batch", size]
    g = helper.make_graph(nodes, "bind", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", size])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def loops(runs, n: int) -> list[float]:
    """Median µs per query of each run, over blocks of 100 queries interleaved (one block of each in turn), so
    drift of a shared machine falls on all of them alike."""
    blocks: list[list[float]] = [[] for _ in runs]
    for _ in range(n // 100):
        for i, run in enumerate(runs):
            t = time.perf_counter_ns()
            for _ in range(100):
                run()
            blocks[i].append((time.perf_counter_ns() - t) / 100 / 1e3)
    return [statistics.median(b) for b in blocks]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import numpy as np

    from edgeprof_agent.backends.ort import Backend

    x = np.random.RandomState(1).rand(1, args.size).astype("float32")
    with tempfile.TemporaryDirectory() as tmp:
        right, wrong = Backend(workdir=tmp), Backend(workdir=tmp)
        right.load(model(Path(tmp) / "right.onnx", args.size, False), [("x", x)], {"threads": 1})
        wrong.load(model(Path(tmp) / "wrong.onnx", args.size, True), [("x", x)], {"threads": 1})
        assert not right._rebind and wrong._rebind == ["y"], "the models did not take the two paths"
        right.run()
        wrong.run()
        a, b = right.outputs()[0], wrong.outputs()[0]
        assert a.shape == b.shape and np.allclose(a, b), (a.shape, b.shape, a.ravel()[:4], b.ravel()[:4])
        sess, binding = right._sess, right._binding

        def plain() -> None:
            sess.run_with_iobinding(binding)

        rows = []
        for r in range(args.rounds):
            row = loops((plain, right.run, wrong.run), args.queries)
            rows.append(row)
            print(f"round {r + 1}: plain {row[0]:.2f} µs · pre-bound {row[1]:.2f} µs · re-binding {row[2]:.2f} µs")
    med = [statistics.median(c) for c in zip(*rows, strict=True)]
    print(f"pre-bound / plain = {med[1] / med[0]:.3f} (goal <= 1.02); re-binding / pre-bound = {med[2] / med[1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
