"""What `deploy` costs on top of the measurement itself, over SSH to a loopback sshd "board".

Measures, in one run and side by side:
  - cold deploy (empty workdir: the agent zipapp and the model go over),
  - warm deploy (same workdir: both cached by sha256, 0 artifact bytes must move),
  - the same warm deploy to `local` (no SSH), and one bare SSH command round trip (`true`),
and prints wall time, the agent-reported measurement (load + warm-up + timed window), the overhead (their
difference), bytes moved, and where the overhead went (time between the measurement's progress stages).

Goal: warm overhead <= 1 s. Needs OpenSSH sshd (apt-get install -y openssh-server). Touches nothing outside a
temporary directory (HOME, XDG dirs and the results database are pointed there).

  python benchmarks/deploy_overhead.py [--repeat 3] [--min-duration 1.0] [--weights-mb 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))


class StageClock:
    """A run.Progress that timestamps each stage."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.marks: list[tuple[str, float]] = []

    def stage(self, text: str) -> None:
        self.marks.append((text.split(" to ")[0], time.perf_counter()))

    def event(self, event: Any) -> None:
        pass

    def breakdown(self, end: float) -> dict[str, float]:
        out: dict[str, float] = {}
        points = self.marks + [("end", end)]
        for (name, t), (_, t_next) in zip(points, points[1:], strict=False):
            out[name] = out.get(name, 0.0) + (t_next - t)
        return out


def write_model(path: Path, weights_mb: float) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    n = max(8, int((weights_mb * 1e6 / 4) ** 0.5))
    w = np.random.RandomState(0).standard_normal((n, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "bench",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", n])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.tobytes(), raw=True)],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def one_deploy(spec: Any, device: Any, store: Any) -> dict[str, Any]:
    from edgeprof.session import deploy

    clock = StageClock()
    start = time.perf_counter()
    result = deploy(spec, device, progress=clock)
    if store is not None:
        store.save(result)
    end = time.perf_counter()
    s = result.settings
    measured = float(s.get("load_s") or 0) + float((s.get("warmup") or {}).get("duration_s") or 0) + float(
        s.get("window_s") or 0)
    wall = end - start
    return {"wall": wall, "measured": measured, "overhead": wall - measured, "bytes": result.transfer,
            "stages": clock.breakdown(end)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--min-duration", type=float, default=1.0)
    ap.add_argument("--weights-mb", type=float, default=4.0)
    args = ap.parse_args()

    from sshd import SSHLab, missing_reason

    reason = missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="edgeprof-bench-"))
    home = tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    os.environ.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
                      XDG_CACHE_HOME=str(home / "cache"), EDGEPROF_DB=str(tmp / "results.sqlite"))
    os.environ.pop("SSH_AUTH_SOCK", None)

    from edgeprof.agentlink import bundle as agentlink
    from edgeprof.records import RunSpec, local_device
    from edgeprof.store import Store
    from edgeprof.transport.ssh import SSHTransport

    # Freeze the agent zipapp for the whole run, so edits to agents/ made meanwhile do not count as pushes.
    agent_snapshot = agentlink.build_agent_bytes()
    agentlink.build_agent_bytes = lambda: agent_snapshot  # type: ignore[assignment]
    lab = SSHLab(tmp / "lab")
    board_home = tmp / "board-home"  # no rc files: what a board with a quiet login shell costs
    board_home.mkdir()
    results: dict[str, dict[str, Any]] = {}
    try:
        hosts = {
            "login shell as configured on this machine": lab.start_host("bench"),
            "quiet login shell (HOME without rc files)": lab.start_host(
                "bench-quiet", extra_config=(f"SetEnv HOME={board_home}",)),
        }
        (home / ".ssh" / "known_hosts").write_text("".join(h.known_hosts_line() for h in hosts.values()))
        model = write_model(tmp / "bench.onnx", args.weights_mb)
        spec = RunSpec(device="bench", model=str(model), runtime="onnxruntime", min_duration_s=args.min_duration,
                       min_queries=10, warmup_s=0.2)
        store = Store(str(tmp / "results.sqlite"))
        local: list[dict[str, Any]] = []
        for label, host in hosts.items():
            with SSHTransport(lab.device(host)) as t:
                t.connect()
                rtts = []
                for _ in range(10):
                    a = time.perf_counter()
                    t.run(["true"])
                    rtts.append(time.perf_counter() - a)
            cold: list[dict[str, Any]] = []
            warm: list[dict[str, Any]] = []
            for i in range(args.repeat):
                # the board's interpreter is this venv's python: it has onnxruntime and numpy
                dev = lab.device(host, python=sys.executable, workdir=str(tmp / f"work {host.name} {i}"))
                cold.append(one_deploy(spec, dev, store))
                warm.append(one_deploy(spec, dev, store))
                warm.append(one_deploy(spec, dev, store))
                if len(local) < args.repeat:
                    local_spec = RunSpec(**{**spec.__dict__, "device": "local"})
                    local.append(one_deploy(local_spec, local_device(), store))
            results[label] = {"rtt": statistics.median(rtts), "cold": cold, "warm": warm}
    finally:
        lab.stop_all()

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(f"deploy overhead over SSH (loopback sshd, {os.cpu_count()} CPUs), model {args.weights_mb:g} MB, "
          f"measurement ~{args.min_duration:g} s, {args.repeat} cold / {2 * args.repeat} warm runs, medians")
    print(f"  {'':28} {'wall s':>8} {'measured s':>11} {'overhead s':>11} {'agent B':>9} {'artifact B':>11}")

    def row(name: str, rows: list[dict[str, Any]]) -> None:
        b = rows[-1]["bytes"]
        print(f"  {name:28} {med(rows, 'wall'):8.2f} {med(rows, 'measured'):11.2f} {med(rows, 'overhead'):11.2f} "
              f"{b.get('agent_bytes', 0):9d} {b.get('artifact_bytes', 0):11d}")

    row("local (no SSH), warm", local)
    ok = True
    for label, r in results.items():
        print(f"  {label}: one SSH command round trip {r['rtt'] * 1000:.0f} ms")
        row("  cold (first push)", r["cold"])
        row("  warm (cached)", r["warm"])
        warm = r["warm"]
        print(f"    warm overhead = {med(warm, 'overhead') / r['rtt']:.1f} round trips; "
              f"{med(warm, 'overhead') / med(local, 'overhead'):.2f}x local; by stage (s): " + ", ".join(
                  f"{k} {statistics.median(x['stages'].get(k, 0.0) for x in warm):.3f}"
                  for k in warm[-1]["stages"]))
        artifact_moved = max(x["bytes"].get("artifact_bytes", 0) for x in warm)
        agent_moved = max(x["bytes"].get("agent_bytes", 0) for x in warm)
        goal = med(warm, "overhead") <= 1.0
        print(f"    warm runs moved {artifact_moved} artifact + {agent_moved} agent bytes (must be 0); "
              f"goal warm overhead <= 1 s: {'met' if goal else 'NOT met'}")
        ok = ok and artifact_moved == 0 and agent_moved == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
