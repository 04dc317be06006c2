"""The agent's footprint: its RSS before the model loads, and which runtimes the measuring process holds.

Starts the agent the way the host does (`python -m edgeprof_agent serve`, JSON lines on stdin/stdout), asks for
its facts (runtimes included, as a deploy does), then runs the null runtime and onnxruntime (a small MatMul
model) and prints, per agent tree side by side in one run:
  - RSS before load (the run reply's memory.rss_before_load: what the process holds before the runtime import),
  - RSS after load (the runtime's import and the model's load count here),
  - VmRSS of the agent process after facts, before any run (/proc/PID/status).

The trees compared are the working tree's agents/ and the agents/ of a git ref (`--ref main` by default,
extracted with `git archive` into a temporary directory); `--ref ''` measures the working tree only.
Goal: RSS before load <= 25 MB with the null runtime and with onnxruntime. Touches nothing outside a
temporary directory.

  python benchmarks/agent_footprint.py [--ref main] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PROTOCOL_PARAMS = {"min_duration_s": 0.2, "min_queries": 10, "warmup_s": 0, "idle_s": 0, "max_queries": None}


def write_model(path: Path, n: int = 64) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = np.random.RandomState(0).standard_normal((n, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "footprint",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor("w", TensorProto.FLOAT, [n, n], w.ravel().tolist())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def vm_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


class Agent:
    def __init__(self, agents_dir: Path, workdir: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(agents_dir))
        self.p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, env=env, cwd=str(workdir.parent))
        self.next_id = 1

    def call(self, op: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert self.p.stdin is not None and self.p.stdout is not None
        rid, self.next_id = self.next_id, self.next_id + 1
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"the agent exited during {op!r}")
            msg = json.loads(line)
            if "event" not in msg and msg.get("id") == rid:
                if not msg["ok"]:
                    raise SystemExit(f"{op}: {msg['error']}")
                result: dict[str, Any] = msg["result"]
                return result

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def measure(agents_dir: Path, tmp: Path, model: Path, runtime: str) -> dict[str, float | None]:
    from edgeprof_agent import PROTOCOL_VERSION

    work = tmp / f"w-{runtime}"
    work.mkdir(exist_ok=True)
    a = Agent(agents_dir, work)
    try:
        a.call("hello", {"protocol": PROTOCOL_VERSION})
        a.call("facts", {"runtimes": True})
        after_facts = vm_rss_mb(a.p.pid)
        params = dict(PROTOCOL_PARAMS, runtime=runtime)
        if runtime != "null":
            params.update(artifact={"path": str(model)}, threads=1,
                          inputs=[{"name": "x", "shape": [1, 64], "dtype": "float32", "low": 0, "high": 1}])
        mem = a.call("run", params)["memory"]
        return {"after_facts": after_facts, "before_load": mem["rss_before_load"],
                "after_load": mem["rss_after_load"]}
    finally:
        a.close()


def extract(ref: str, dest: Path) -> Path:
    data = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref, "agents"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "agents"


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="git ref whose agents/ to compare with ('' for none)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        model = tmp / "mm.onnx"
        write_model(model)
        trees = {"working tree": REPO / "agents"}
        if args.ref:
            trees[args.ref] = extract(args.ref, tmp / "ref")
        rows: dict[tuple[str, str], dict[str, float | None]] = {}
        for runtime in ("null", "onnxruntime"):
            for name, path in trees.items():
                runs = [measure(path, tmp, model, runtime) for _ in range(args.repeat)]
                rows[(name, runtime)] = {k: median([r[k] for r in runs]) for k in runs[0]}
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"]
    print(f"agent RSS (MB, median of {args.repeat}; Python {sys.version.split()[0]}; loadavg {' '.join(load)})")
    print(f"{'agent':<16}{'runtime':<14}{'after facts':>12}{'before load':>13}{'after load':>12}")
    for (name, runtime), r in rows.items():
        cells = "".join(f"{'-' if r[k] is None else format(r[k], '.1f'):>{w}}"
                        for k, w in (("after_facts", 12), ("before_load", 13), ("after_load", 12)))
        print(f"{name:<16}{runtime:<14}{cells}")
    print("goal: before load <= 25 MB with the null runtime and with onnxruntime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
