"""Does the power sampler disturb the latency it sits beside?

One run, two conditions, alternated in blocks (off, on, off, on, ...) so drift in the machine's speed hits both:
  off: a CPU-bound "inference" loop alone (numpy matmuls, or pure Python when numpy is missing);
  on:  the same loop while PowerMonitor samples an INA3221 tree at 50 Hz on its background thread.
Prints p50 (and p90/p99 for information) of each and the ratio on/off of p50. Goal: ratio <= 1.01.

By default the sensor is a temp sysfs tree laid out like a Jetson Orin Nano (JetPack 6 hwmon ina3221), so it
runs anywhere; on a board, --real samples the board's own sensor (auto-discovered from /).

Run: python benchmarks/sampler_perturbation.py [--rounds 10] [--block 1.0] [--rate 50] [--threads 1] [--real]
Short alternated blocks keep slow drift (other load, frequency changes) out of the ratio; the median of the
per-round ratios is printed too. On a shared or busy machine both move by a few percent: run it on a quiet one.
Runs on Python >= 3.6 (the boards' Python), numpy optional.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "agents"))


def make_tree(base):
    """A minimal Orin Nano power tree: /sys/bus/i2c/devices/1-0040 (ina3221) with hwmon rails."""
    dev = os.path.join(base, "sys", "bus", "i2c", "devices", "1-0040")
    hw = os.path.join(dev, "hwmon", "hwmon1")
    os.makedirs(hw)
    files = {os.path.join(dev, "name"): "ina3221", os.path.join(hw, "name"): "ina3221"}
    for k, (label, mv, ma) in enumerate((("VDD_IN", 5056, 1176), ("VDD_CPU_GPU_CV", 5064, 296),
                                         ("VDD_SOC", 5064, 624)), 1):
        files[os.path.join(hw, f"in{k}_label")] = label
        files[os.path.join(hw, f"in{k}_input")] = str(mv)
        files[os.path.join(hw, f"curr{k}_input")] = str(ma)
    for path, text in files.items():
        with open(path, "w") as f:
            f.write(text + "\n")


def make_work(threads):
    """A callable of roughly 1 ms of CPU work."""
    try:
        import numpy as np
    except ImportError:
        def py_work():
            acc = 0
            for i in range(20000):
                acc += i * i % 7
            return acc
        return py_work, "pure Python loop (numpy missing)"
    rs = np.random.RandomState(0)
    x = rs.standard_normal((64, 256)).astype(np.float32)
    ws = [rs.standard_normal((256, 256)).astype(np.float32) / 16.0 for _ in range(6)]

    def np_work():
        h = x
        for w in ws:
            h = np.maximum(h @ w, 0.0)
        return h
    return np_work, f"numpy {np.__version__} 6x(64x256 @ 256x256)+relu, {threads} BLAS thread(s)"


def block(work, seconds, now_ns):
    out = []
    end = now_ns() + int(seconds * 1e9)
    while True:
        t0 = now_ns()
        work()
        t1 = now_ns()
        out.append(t1 - t0)
        if t1 >= end:
            return out


def pct(values, q):
    s = sorted(values)
    k = (len(s) - 1) * q / 100.0
    f = int(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--block", type=float, default=1.0, help="seconds per block")
    ap.add_argument("--rate", type=float, default=50.0, help="sampler rate in Hz")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for the numpy work")
    ap.add_argument("--real", action="store_true", help="sample this board's own sensor (root /)")
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))

    from edgeprof_agent.clock import now_ns
    from edgeprof_agent.power import PowerMonitor
    from edgeprof_agent.sysfs import SysfsRoot
    from edgeprof_agent.tools import ToolRunner

    tmp = None
    if args.real:
        root, config = SysfsRoot("/"), {"source": "auto", "rate_hz": args.rate}
    else:
        tmp = tempfile.mkdtemp(prefix="edgeprof-bench-")
        make_tree(tmp)
        root, config = SysfsRoot(tmp), {"source": "jetson-ina3221", "rate_hz": args.rate}
    try:
        mon = PowerMonitor.create(config, root, ToolRunner())
        if not mon.available:
            print(f"no power source: {mon.reason}")
            return 2
        work, what = make_work(args.threads)
        block(work, 0.5, now_ns)                       # warm-up
        off, on, ratios, rates = [], [], [], []
        for _ in range(args.rounds):
            a = block(work, args.block, now_ns)
            mon.start()
            t0 = now_ns()
            b = block(work, args.block, now_ns)
            t1 = now_ns()
            mon.stop()
            s = mon.summary(t0, t1, len(b), (t1 - t0) / 1e9)
            rates.append(s["rate_hz"] or 0.0)
            off.extend(a)
            on.extend(b)
            ratios.append(statistics.median(b) / statistics.median(a))
        desc = mon.describe()
        print(f"work: {what}")
        print(f"sampler: {desc['source']} rail {desc['rail']} at {args.rate:.0f} Hz asked, "
              f"{statistics.median(rates):.1f} Hz achieved; {args.rounds} rounds x {args.block:.1f} s per condition")
        for name, xs in (("off", off), ("on", on)):
            print(f"  sampler {name:3s}: n={len(xs):6d}  p50={pct(xs, 50) / 1e6:.4f} ms  "
                  f"p90={pct(xs, 90) / 1e6:.4f} ms  p99={pct(xs, 99) / 1e6:.4f} ms")
        ratio = pct(on, 50) / pct(off, 50)
        print(f"per-round p50 ratios: {', '.join(f'{r:.4f}' for r in ratios)} "
              f"(median {statistics.median(ratios):.4f})")
        print(f"p50 ratio on/off: {ratio:.4f}; goal <= 1.01: {'met' if ratio <= 1.01 else 'NOT met'}")
        return 0
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
