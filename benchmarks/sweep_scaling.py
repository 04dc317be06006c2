"""Sweep scaling: does running N boards in parallel take as long as the slowest board alone?

Starts 1, 4 and 16 real OpenSSH sshd test hosts on loopback (tests/integration/sshd.py), gives each the same
short cells (a small ONNX model, --min-duration 1 s), and measures side by side in one run:

  serial   each host's own sweep, alone (its cells one after another, lease, connection and all)
  parallel one sweep over all N hosts (edgeprof's scheduler: one thread per device)

and prints wall(parallel) / max over hosts of serial(host). The goal is <= 1.15: the scheduler adds
next to nothing on top of the slowest board. All "boards" here share this machine's CPUs: with more hosts than
cores, agent start-up and SSH work compete for CPU, which the ratio shows honestly (real boards bring their own
CPUs). Not a test: run it by hand.

    .venv/bin/python benchmarks/sweep_scaling.py [--hosts 1,4,16] [--cells 3] [--min-duration 1.0]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from sshd import SSHLab, missing_reason  # noqa: E402

from edgeprof.lab import sweep_state as ledger  # noqa: E402
from edgeprof.lab.scheduler import SweepScheduler  # noqa: E402
from edgeprof.lab.spec import expand, parse_sweep  # noqa: E402
from edgeprof.records import Device  # noqa: E402
from edgeprof.store import Store  # noqa: E402

CONTROLLER_CPU: dict[int, float] = {}  # devices in the last sweep → CPU seconds the controller itself used


def write_model(path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = (np.random.RandomState(0).standard_normal((128, 128)) / 12).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])]
    graph = helper.make_graph(nodes, "bench", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 128])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 128])],
                              [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


def sweep(devices: list[Device], spec_text: str, spec_path: Path, db: Path) -> tuple[float, dict[str, float]]:
    """Run the cells of `spec_text` on `devices`; (wall seconds, per-device busy seconds)."""
    spec = parse_sweep(spec_text, str(spec_path))
    cells = expand(spec, devices)
    store = Store(str(db))
    sid = ledger.new_sweep_id()
    ledger.create_sweep(store, sid, spec.name, None, {"name": spec.name}, cells)
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    outcome = SweepScheduler(store, sid, cells, devices).run()
    wall = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    CONTROLLER_CPU[len(devices)] = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    bad = [r for r in outcome.results if r.status != "ok"]
    if bad or len(outcome.results) != len(cells):
        raise SystemExit(f"benchmark sweep did not complete: {[(r.device, r.reason) for r in bad]}")
    busy: dict[str, float] = {}
    for r in outcome.results:
        sw = r.sweep
        if sw is None or sw.ended_at_unix is None or sw.started_at_unix is None:
            raise SystemExit(f"result {r.run_id} has no sweep timing")
        busy[r.device] = busy.get(r.device, 0.0) + sw.ended_at_unix - sw.started_at_unix
    return wall, busy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", default="1,4,16", help="comma-separated host counts (default 1,4,16)")
    ap.add_argument("--cells", type=int, default=3, help="cells per host (default 3)")
    ap.add_argument("--min-duration", type=float, default=1.0, help="seconds per cell's timed loop (default 1)")
    args = ap.parse_args()
    reason = missing_reason()
    if reason:
        print(f"sweep_scaling: {reason}", file=sys.stderr)
        return 2
    counts = [int(x) for x in args.hosts.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="edgeprof-scaling-"))
    os.environ["HOME"] = str(tmp / "home")  # client side: no user known_hosts, keys or caches touched
    os.environ["XDG_CACHE_HOME"] = str(tmp / "home" / "cache")
    (tmp / "home" / ".ssh").mkdir(parents=True)
    model = tmp / "bench.onnx"
    write_model(model)
    threads = ", ".join(str(t) for t in range(1, args.cells + 1))
    spec_text = (f"name: scaling\nmodels: [bench.onnx]\ndevices: [x]\nthreads: [{threads}]\n"
                 f"settings: {{min_duration_s: {args.min_duration}, min_queries: 10, warmup_s: 0.2, "
                 "timeout_s: 300, retries: 0}\n")
    lab = SSHLab(tmp / "lab")
    rows = []
    try:
        for n in counts:
            while len(lab.hosts) < n:
                lab.start_host(f"h{len(lab.hosts):02d}")
            hosts = lab.hosts[:n]
            known = lab.known_hosts(tmp / "known_hosts", *lab.hosts)
            devices = [lab.device(h, python=sys.executable, known_hosts=str(known), env={"HOME": str(h.dir)})
                       for h in hosts]
            serial = {}
            for d in devices:
                wall, _ = sweep([d], spec_text, tmp / "s.yaml", tmp / f"serial-{n}-{d.name}.sqlite")
                serial[d.name] = wall
            wall, busy = sweep(devices, spec_text, tmp / "s.yaml", tmp / f"parallel-{n}.sqlite")
            slowest = max(serial.values())
            rows.append((n, n * args.cells, slowest, wall, max(busy.values()), CONTROLLER_CPU[n]))
            print(f"  {n:>2} hosts: slowest serial {slowest:6.2f} s, parallel {wall:6.2f} s, "
                  f"ratio {wall / slowest:.2f}", file=sys.stderr, flush=True)
    finally:
        lab.stop_all()
    print(f"\nsweep scaling ({args.cells} cells per host, --min-duration {args.min_duration:g} s, "
          f"{os.cpu_count()} CPUs on this machine)")
    print(f"{'hosts':>5} {'cells':>5} {'A: slowest host alone s':>24} {'B: parallel s':>14} {'B/A':>6} "
          f"{'C: busiest host in B s':>23} {'B/C':>5} {'controller CPU s':>17}")
    for n, cells, slowest, wall, busiest, ctl in rows:
        flag = "" if wall / slowest <= 1.15 else "  (B/A > 1.15)"
        print(f"{n:>5} {cells:>5} {slowest:>24.2f} {wall:>14.2f} {wall / slowest:>6.2f} {busiest:>23.2f} "
              f"{wall / busiest:>5.2f} {ctl:>17.2f}{flag}")
    print("goal: B/A <= 1.15 (parallel wall time vs the slowest host's own serial time, measured alone).\n"
          "B/C is the scheduler's own overhead: wall time vs the busiest host's serial chain of cells in the same run.\n"
          "With more simulated hosts than CPUs, the hosts' agents compete for this machine's CPUs, which lengthens\n"
          "every cell (A vs C); real boards bring their own CPUs, and the controller's CPU column is what it costs.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
