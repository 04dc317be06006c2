"""How long the CLI takes to start: `edgeprof --version`, `edgeprof --help` and a command's `--help`.

Runs each command line `--repeat` times in fresh processes, the working tree and a git ref (`--ref main` by
default, its edgeprof/ and agents/ extracted with `git archive` into a temporary directory and put first on
PYTHONPATH) interleaved, so both see the same load; prints the median and the fastest wall time of each side
by side (wall and CPU seconds), with `python -c pass` (the interpreter's own start) and the machine's load. Goal: `--version` and
`--help` <= 0.3 s.

  python benchmarks/cli_startup.py [--ref main] [--repeat 7]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENTRY = "import sys; from edgeprof.cli.main import main; sys.exit(main())"
LINES = (["--version"], ["--help"], ["deploy", "--help"])


def extract(ref: str, dest: Path) -> Path:
    data = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref, "edgeprof", "agents"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def wall(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds one command line takes, run outside the repository (`python -c` puts its directory
    first). CPU time (user + system of the child) depends far less on the machine's load than wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd, check=False)
    t1 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="git ref to compare with ('' for the working tree only)")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        sides: dict[str, dict[str, str]] = {"working tree": dict(os.environ)}
        if args.ref:
            tree = extract(args.ref, Path(t) / "ref")
            sides[args.ref] = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(tree / "agents")]))
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        load_before = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
        for _ in range(args.repeat):
            times.setdefault(("python -c pass", ""), []).append(
                wall([sys.executable, "-c", "pass"], dict(os.environ), t))
            for line in LINES:
                for name, env in sides.items():
                    times.setdefault((" ".join(["edgeprof", *line]), name), []).append(
                        wall([sys.executable, "-c", ENTRY, *line], env, t))
        load_after = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    print(f"CLI start-up, wall seconds over {args.repeat} runs (loadavg {' '.join(load_before)} before, "
          f"{' '.join(load_after)} after, {os.cpu_count()} CPUs)")
    print(f"{'command':<26}{'tree':<16}{'median':>8}{'fastest':>9}{'CPU median':>12}")
    for (command, name), values in times.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        print(f"{command:<26}{name:<16}{statistics.median(walls):>8.3f}{min(walls):>9.3f}"
              f"{statistics.median(cpus):>12.3f}")
    print("goal: edgeprof --version and edgeprof --help <= 0.3 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
