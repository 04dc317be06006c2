"""Run the telemetry end to end under the board's Python (3.6 on JetPack 4): every board tree, real thread.

Usage: python3.6 smoke36.py REPO. Standard library only; prints one line per board and exits non-zero on failure.
"""
import json
import os
import shutil
import sys
import tempfile
import time

REPO = sys.argv[1]
sys.path.insert(0, os.path.join(REPO, "agents"))

from edgeprof_agent import clock, memory, power, thermal  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402
from edgeprof_agent.tools import ToolRunner  # noqa: E402

BOARDS = os.path.join(REPO, "tests", "data", "boards")
REPLAY = os.path.join(REPO, "tests", "agent", "fakes", "bin", "replay")


def main():
    assert sys.version_info[:2] == (3, 6), sys.version
    tmp = tempfile.mkdtemp()
    try:
        for name in sorted(os.listdir(BOARDS)):
            if not os.path.isdir(os.path.join(BOARDS, name)):
                continue
            d = os.path.join(tmp, name)
            shutil.copytree(os.path.join(BOARDS, name), d, symlinks=True)
            bindir = os.path.join(tmp, "bin-" + name)
            os.makedirs(bindir)
            if os.path.isdir(os.path.join(d, "tools")):
                for t in os.listdir(os.path.join(d, "tools")):
                    os.symlink(REPLAY, os.path.join(bindir, t))
            os.environ["EDGEPROF_FAKE_BOARD"] = d
            root, tools = SysfsRoot(d), ToolRunner([bindir], search_path=False)
            mon = power.PowerMonitor.create(None, root, tools)
            assert mon.available, mon.reason
            mon.measure_idle(0.3)
            mon.start()
            t0 = clock.now_ns()
            time.sleep(0.4)
            t1 = clock.now_ns()
            mon.stop()
            s = mon.summary(t0, t1, 100, 0.4)
            assert s["energy_j"] is not None and s["n_samples"] >= 2, s
            json.dumps([s, mon.describe(), power.discover_all(root, tools)])
            snap = thermal.snapshot(root, tools)
            json.dumps([snap, thermal.compare(snap, snap), thermal.wait_cool(root, tools, 99.0, 1.0)])
            assert memory.system_used_bytes(root) > 0
            print(f"{name}: {s['source']} {s['method']} {s['mean_w']:.3f} W, {s['n_samples']} samples")
    finally:
        shutil.rmtree(tmp)
    print("OK")


if __name__ == "__main__":
    main()
