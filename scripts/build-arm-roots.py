#!/usr/bin/env python3
"""Build (or restore) the aarch64 board roots of tests/lanes/arm_recipes.py and report each; run as root.

Readies this machine first (qemu-user-static, mmdebstrap, binfmt-support, arch-test and zstd from apt when one is
missing; binfmt_misc mounted; qemu-aarch64 enabled), then per root: reuse the unpacked root, or unpack its cached
archive (seconds), or build it with mmdebstrap and install its venvs' aarch64 wheels offline (minutes: every arm64
binary runs under qemu). A root that cannot be had is reported with the reason and the exit status is 1.
The logic lives in tests/arm/roots.py; the lane that uses the roots is tests/arm/ (`make test-arm`).

    sudo .venv/bin/python scripts/build-arm-roots.py [--cache DIR] [--only NAME ...] [--rebuild] [--verify]
                                                      [--jobs N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "lanes"))  # the stack profiles and aarch64 recipes
sys.path.insert(0, str(REPO / "tests" / "arm"))

import roots  # noqa: E402
from arm_recipes import ROOT_BY_NAME, ROOTS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--cache", type=Path, default=None,
                    help="cache directory (default: $EDGEPROF_ARM_CACHE, else $XDG_CACHE_HOME/edgeprof/arm-roots)")
    ap.add_argument("--only", action="append", choices=sorted(ROOT_BY_NAME), help="only this root (repeatable)")
    ap.add_argument("--rebuild", action="store_true", help="build again even when a root or its archive is cached")
    ap.add_argument("--verify", action="store_true",
                    help="probe every venv of a reused or restored root again (imports under emulation)")
    ap.add_argument("--jobs", type=int, default=2, help="roots built side by side (default 2)")
    ap.add_argument("--json", type=Path, help="also write the report as JSON to this file")
    args = ap.parse_args(argv)
    cache = (args.cache or roots.default_cache()).resolve()
    todo = [ROOT_BY_NAME[n] for n in args.only] if args.only else list(ROOTS)
    entries = roots.build_all(todo, cache, rebuild=args.rebuild, verify=args.verify, jobs=args.jobs)
    for entry in entries:
        roots.print_entry(entry)
    failed = [str(e["name"]) for e in entries if e["status"] == "failed"]
    print(f"aarch64 roots: {len(entries) - len(failed)} ready, {len(failed)} failed"
          + (f" ({', '.join(failed)})" if failed else "") + f"; cache {cache}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"cache": str(cache), "roots": entries}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
