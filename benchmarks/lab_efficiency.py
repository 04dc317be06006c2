"""Lab efficiency: how much of a sweep's wall time is spent inside timed windows (issue 22's figure).

One real OpenSSH sshd board on loopback (tests/integration/sshd.py) whose sysfs root is a powered board tree
(tests/data/boards/rpi5: the PMIC's rails through a replayed vcgencmd, driven by boardkit as in
tests/integration/boardlab.py), six cells of 5 s windows: ds_cnn and mobilenet_v2 × fp32/int8 on onnxruntime,
ds_cnn on tflite fp32/int8. The sweep runs twice (the first warms the export cache and the board's workdir)
and the second is timed: Σ timed windows ÷ wall, with the phase breakdown of that second sweep
(lab/efficiency.py). Settings: min_duration_s 5, warmup_s 1 (the warm-up stops as soon as latency is steady),
idle_s 0, retries 0. The machine's load average is printed with the figure: other load lengthens every phase
but the windows.

Not a test: run it by hand (it takes a few minutes).

    .venv/bin/python benchmarks/lab_efficiency.py [--min-duration 5] [--runs 2] [--tree rpi5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from boardlab import board_lab  # noqa: E402
from sshd import SSHLab, missing_reason  # noqa: E402

from edgeprof.inventory.devices import load_inventory  # noqa: E402
from edgeprof.lab import sweep_state as ledger  # noqa: E402
from edgeprof.lab.scheduler import SweepScheduler  # noqa: E402
from edgeprof.lab.spec import expand, parse_sweep  # noqa: E402
from edgeprof.report.phases import text_table  # noqa: E402
from edgeprof.store import Store  # noqa: E402

SWEEP = """version: 1
name: lab-efficiency
models: [ds_cnn, mobilenet_v2]
devices: [{device}]
runtimes: [onnxruntime]
precisions: [fp32, int8]
settings: {{min_duration_s: {min_duration}, warmup_s: 1, idle_s: 0, timeout_s: 600, retries: 0}}
include:
  - {{model: ds_cnn, runtime: tflite, precision: fp32}}
  - {{model: ds_cnn, runtime: tflite, precision: int8}}
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min-duration", type=float, default=5.0, help="seconds per cell's timed window (default 5)")
    ap.add_argument("--runs", type=int, default=2, help="sweeps in a row; the last is timed (default 2)")
    ap.add_argument("--tree", default="rpi5", help="board tree under tests/data/boards (default rpi5)")
    args = ap.parse_args()
    reason = missing_reason()
    if reason:
        print(f"lab_efficiency: {reason}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="edgeprof-labeff-"))
    lab = SSHLab(tmp / "lab")
    try:
        with board_lab(lab, tmp, "labeff") as bl, bl.board(args.tree) as board:
            board.go()  # the driver shows its power wave from the start (no deploy progress to wait for)
            inventory = load_inventory(str(board.inventory))
            devices = [inventory.get(board.device)]
            text = SWEEP.format(device=board.device, min_duration=args.min_duration)
            spec_path = tmp / "sweep.yaml"
            spec_path.write_text(text)
            spec = parse_sweep(text, str(spec_path))
            cells = expand(spec, devices)
            store = Store(str(tmp / "results.sqlite"))
            outcome = None
            for run in range(1, args.runs + 1):
                sid = ledger.new_sweep_id()
                ledger.create_sweep(store, sid, spec.name, None, {"name": spec.name}, cells)
                before = load()
                t0 = time.monotonic()
                outcome = SweepScheduler(store, sid, cells, devices).run()
                wall = time.monotonic() - t0
                bad = [(r.model, r.runtime, r.precision, r.reason) for r in outcome.results if r.status != "ok"]
                print(f"sweep {run}/{args.runs}: {len(outcome.results)} cells in {wall:.1f} s "
                      f"({before} before, {load()} after)", file=sys.stderr, flush=True)
                if bad or len(outcome.results) != len(cells):
                    print(f"lab_efficiency: the sweep did not complete: {bad}", file=sys.stderr)
                    return 1
    finally:
        lab.stop_all()
    assert outcome is not None
    bd = outcome.breakdown()
    share = bd.share()
    print(f"\nlab efficiency ({len(cells)} cells of {args.min_duration:g} s windows on one sshd board "
          f"({args.tree} tree), sweep {args.runs} of {args.runs}"
          f"{' (the earlier ones warmed the caches)' if args.runs > 1 else ''}; {load()})")
    for line in text_table(bd):
        print(line)
    ahead = [a for a in outcome.ahead if a.exported]
    behind = [b.behind for b in outcome.boards if b.behind is not None]
    print(f"overlapped with measurements (not in the wall time above): {len(ahead)} export(s) prepared ahead "
          f"({sum(a.seconds for a in ahead):.2f} s), {sum(b.stored for b in behind)} row(s) stored behind "
          f"({sum(b.seconds for b in behind):.2f} s)")
    print(f"\nΣ timed windows ÷ wall = {share:.2f}" if share is not None else "no timed windows")
    print("goal (issue 22): >= 0.90 at 5 s windows on an otherwise idle 2-core machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
