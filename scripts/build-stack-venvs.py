#!/usr/bin/env python3
"""Build (or reuse) one x86 stand-in venv per board stack profile and trap (tests/lanes/stack_profiles.py); report each.

Owns: finding each profile's Python (PATH, then pyenv), creating the venv under a cache directory keyed by a hash
of the profile (a rerun reuses it: `ready.json` marks a finished build), installing the profile's exact pins from
binary wheels only, checking that each pinned distribution reports its version and its module imports, and a
report per profile: built / reused / failed (with the reason), what was installed, what cannot be had here and
why. Nothing is skipped silently: a missing interpreter or a wheel that cannot be had is a failed profile and a
non-zero exit.
Does not own: the profiles themselves (tests/lanes/stack_profiles.py) or the tests that use the venvs (tests/stacks/).

    .venv/bin/python scripts/build-stack-venvs.py [--cache DIR] [--only NAME ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "lanes"))  # the stack profiles and aarch64 recipes

from stack_profiles import PROFILE_BY_NAME, PROFILES, TRAPS, StackProfile, as_json, profile_hash  # noqa: E402
from venv_probe import IMPORTS, PROBE  # noqa: E402


def default_cache() -> Path:
    if os.environ.get("EDGEPROF_STACKS_CACHE"):
        return Path(os.environ["EDGEPROF_STACKS_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "edgeprof" / "stacks"


def find_python(version: str) -> str | None:
    """An interpreter of this major.minor: `pythonX.Y` on PATH (not a pyenv shim, which refuses versions that
    are not selected), else the newest pyenv build of it."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and os.path.basename(d.rstrip("/")) != "shims":
            found = shutil.which(f"python{version}", path=d)
            if found:
                return found
    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    for root in filter(None, roots):
        cands = sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")))
        if cands:
            return cands[-1]
    return None


def venv_dir(cache: Path, profile: StackProfile) -> Path:
    return cache / f"{profile.name}-{profile_hash(profile)[:16]}"


def _run(args: list[str], what: str, timeout: float = 1800) -> None:
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if p.returncode != 0:
        tail = " | ".join(line for line in p.stdout.strip().splitlines()[-6:])
        raise BuildError(f"{what} failed (exit {p.returncode}): {tail}")


class BuildError(Exception):
    pass


def probe(python: str, profile: StackProfile) -> dict[str, object]:
    pairs = [f"{d}={IMPORTS.get(d, d.replace('-', '_'))}" for d, _ in profile.expected]
    p = subprocess.run([python, "-c", PROBE, *pairs], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        raise BuildError(f"probing the venv failed: {p.stderr.strip().splitlines()[-1:]}")
    result: dict[str, object] = json.loads(p.stdout)
    return result


def check(profile: StackProfile, found: dict[str, object]) -> None:
    """Raise BuildError naming every pinned distribution that is missing, at another version, or not importable."""
    problems = []
    dists = found["dists"]
    imports = found["imports"]
    assert isinstance(dists, dict) and isinstance(imports, dict)
    if not str(found["python"]).startswith(profile.python + "."):
        problems.append(f"python is {found['python']}, not {profile.python}")
    for dist, want in profile.expected:
        got = dists.get(dist)
        if got != want:
            problems.append(f"{dist} is {got or 'missing'}, not {want}")
        module = IMPORTS.get(dist, dist.replace("-", "_"))
        if imports.get(module):
            problems.append(f"import {module} fails: {imports[module]}")
    if problems:
        raise BuildError("; ".join(problems))


def build(profile: StackProfile, cache: Path, *, rebuild: bool = False) -> dict[str, object]:
    """Build or reuse the profile's venv; the report entry (status built / reused / failed)."""
    t0 = time.monotonic()
    final = venv_dir(cache, profile)
    report: dict[str, object] = {
        "name": profile.name, "board": profile.board, "os_release": profile.os_release,
        "hash": profile_hash(profile), "venv": str(final), "python": str(final / "bin" / "python"),
        "runtimes": list(profile.runtimes), "requirements": list(profile.requirements),
        "unavailable": [{"requirement": u.requirement, "why": u.why} for u in profile.unavailable],
        "profile": as_json(profile),
    }
    ready = final / "ready.json"
    if ready.exists() and not rebuild:
        try:
            found = probe(str(final / "bin" / "python"), profile)
            check(profile, found)
            report.update(status="reused", found=found, seconds=round(time.monotonic() - t0, 1))
            return report
        except (BuildError, OSError, subprocess.SubprocessError, json.JSONDecodeError):
            pass  # a broken cached venv is rebuilt below
    try:
        py = find_python(profile.python)
        if py is None:
            raise BuildError(f"no python{profile.python} on PATH or under pyenv "
                             f"(install it: pyenv install {profile.python_on_board})")
        shutil.rmtree(final, ignore_errors=True)  # a partial build (no ready.json) or --rebuild
        cache.mkdir(parents=True, exist_ok=True)
        _run([py, "-m", "venv", str(final)], f"{py} -m venv")
        pip = [str(final / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        if profile.pip_bootstrap:
            _run([*pip, profile.pip_bootstrap], f"pip install {profile.pip_bootstrap}")
        _run([*pip, "--only-binary=:all:", *profile.requirements], "pip install " + " ".join(profile.requirements))
        found = probe(str(final / "bin" / "python"), profile)
        check(profile, found)
        report.update(status="built", found=found, seconds=round(time.monotonic() - t0, 1))
        ready.write_text(json.dumps({k: v for k, v in report.items() if k != "profile"}, indent=1, sort_keys=True))
    except (BuildError, OSError, subprocess.SubprocessError) as e:
        report.update(status="failed", error=str(e), seconds=round(time.monotonic() - t0, 1))
    return report


def print_entry(entry: dict[str, object]) -> None:
    name, status = entry["name"], entry["status"]
    print(f"{name}: {status} in {entry['seconds']} s — {entry['venv']}")
    if status == "failed":
        print(f"  FAILED: {entry['error']}")
    else:
        found = entry["found"]
        assert isinstance(found, dict)
        dists = ", ".join(f"{d} {v}" for d, v in sorted(found["dists"].items()))
        print(f"  installed: Python {found['python']}, {dists}")
    for u in entry["unavailable"]:  # type: ignore[attr-defined]
        print(f"  cannot be had here: {u['requirement']} — {u['why']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, default=None, help="cache directory (default: $EDGEPROF_STACKS_CACHE, "
                    "else $XDG_CACHE_HOME/edgeprof/stacks)")
    ap.add_argument("--only", action="append", choices=sorted(PROFILE_BY_NAME), help="build only this profile")
    ap.add_argument("--rebuild", action="store_true", help="rebuild even when a finished venv is cached")
    ap.add_argument("--json", type=Path, help="also write the report as JSON to this file")
    args = ap.parse_args(argv)
    cache = (args.cache or default_cache()).resolve()
    profiles = [PROFILE_BY_NAME[n] for n in args.only] if args.only else list(PROFILES + TRAPS)
    entries = []
    for profile in profiles:
        entry = build(profile, cache, rebuild=args.rebuild)
        print_entry(entry)
        sys.stdout.flush()
        entries.append(entry)
    failed = [e["name"] for e in entries if e["status"] == "failed"]
    print(f"stack venvs: {len(entries) - len(failed)} ready, {len(failed)} failed"
          + (f" ({', '.join(map(str, failed))})" if failed else "") + f"; cache {cache}")
    if args.json:
        args.json.write_text(json.dumps({"cache": str(cache), "stacks": entries}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
