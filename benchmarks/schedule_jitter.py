"""How closely does the fixed-rate scenario issue queries on its schedule?

The agent's fixed-rate loop (agents/edgeprof_agent/scenarios.py) with the null runtime (a query costs nothing),
at 100 Hz and 1000 Hz: lateness = actual issue time - scheduled time of each query, p50 / p99 / max. Side by side
in the same run, a naive loop that sleeps one period after each query (relative intervals): how far its last query
has drifted from where the schedule wanted it. Goal: p99 lateness <= 0.5 ms at 100 Hz.

Run: python benchmarks/schedule_jitter.py [--duration 10] [--rounds 2]
Rounds alternate the two loops so drift in the machine's load hits both alike. On a loaded machine lateness
is mostly the OS waking the process late: say how loaded it was (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from edgeprof_agent import scenarios  # noqa: E402
from edgeprof_agent.backends.null import Backend  # noqa: E402
from edgeprof_agent.clock import now_ns  # noqa: E402


def absolute(rate: float, duration: float) -> tuple[np.ndarray, float]:
    """The agent's loop: lateness of every issue (ms) and of the last one."""
    b = Backend()
    b.load(None, [], {})
    n = int(rate * duration)
    s = scenarios.scheduled_loop(b.run, "fixed-rate", scenarios.fixed_rate_offsets(rate, n),
                                 period_ns=int(1e9 / rate), progress=False)
    late = (np.asarray(s.issued, dtype=np.float64) - np.asarray(s.scheduled, dtype=np.float64)) / 1e6
    return late, float(late[-1])


def relative(rate: float, duration: float) -> tuple[np.ndarray, float]:
    """A naive loop: run, then time.sleep(1 / rate). Lateness against the schedule it meant to keep."""
    b = Backend()
    b.load(None, [], {})
    n = int(rate * duration)
    period = 1.0 / rate
    t0 = now_ns()
    issued = []
    for _ in range(n):
        issued.append(now_ns() - t0)
        b.run()
        time.sleep(period)
    sched = np.arange(n, dtype=np.float64) * period * 1e9
    late = (np.asarray(issued, dtype=np.float64) - sched) / 1e6
    return late, float(late[-1])


def fmt(late: np.ndarray) -> str:
    return (f"p50 {np.percentile(late, 50):7.3f} ms  p99 {np.percentile(late, 99):7.3f} ms  "
            f"max {late.max():7.3f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=10.0, help="seconds per loop and rate (default 10)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for rate in (100.0, 1000.0):
        abs_all, rel_all, rel_drift = [], [], []
        for _ in range(args.rounds):
            a, _ = absolute(rate, args.duration)
            r, drift = relative(rate, args.duration)
            abs_all.append(a)
            rel_all.append(r)
            rel_drift.append(drift)
        a = np.concatenate(abs_all)
        r = np.concatenate(rel_all)
        print(f"{rate:6.0f} Hz, {len(a)} queries per loop:")
        print(f"  absolute deadlines (edgeprof):  lateness {fmt(a)}")
        print(f"  relative sleep (naive):         lateness {fmt(r)}  drift at the end "
              f"{np.mean(rel_drift):.1f} ms after {args.duration:g} s")
        if rate == 100.0:
            p99 = float(np.percentile(a, 99))
            print(f"  goal p99 <= 0.5 ms at 100 Hz: {'met' if p99 <= 0.5 else 'NOT met'} ({p99:.3f} ms)")
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
