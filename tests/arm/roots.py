"""Build, cache, restore and enter the aarch64 board roots of tests/lanes/arm_recipes.py (run under qemu-user).

Owns: readying this machine (as root: apt-get install qemu-user-static mmdebstrap binfmt-support arch-test zstd
when one is missing, binfmt_misc mounted, qemu-aarch64 enabled, `arch-test arm64` ok); building a root with
mmdebstrap from Debian's registry; downloading each venv's aarch64 wheels on the host (`pip download
--only-binary=:all: --platform manylinux_2_N_aarch64 ...`: pip in the root cannot verify TLS) and installing them
offline in the root (the root's python3 makes each venv; this machine's pip unpacks the wheels into it with
the root's platform tags: pip under qemu takes minutes a venv); packing the root as `<cache>/archives/<name>-<hash>.tar.zst` (hash of its recipe) and
unpacking it again on a later run; the scripts that enter it (`enter`: a private mount namespace with /proc, the
root's Arm cpuinfo over /proc/cpuinfo, /dev and /sys, then chroot; `python-<venv>`: a board's `python:`); probing
every venv (arch, Python, numpy, each pin's version and import) and a report per root: built / restored / reused
/ failed with the reason. A root that cannot be had is a failed entry and a non-zero exit, never a skip.
Does not own: the recipes (tests/lanes/arm_recipes.py), the command line (scripts/build-arm-roots.py), the tests.

Layout under the cache ($EDGEPROF_ARM_CACHE, else $XDG_CACHE_HOME/edgeprof/arm-roots):
    archives/<name>-<hash16>.tar.zst      the packed root (restored in seconds)
    roots/<name>-<hash16>/root/           the unpacked arm64 Debian tree
    roots/<name>-<hash16>/{enter,cpuinfo,python-<venv>,ready.json}
Inside each root, the root's own host path is a symlink to "/", so a host path under the root (a board's
workdir, a board tree given as `sysfs_root`) names the same file inside the chroot.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from arm_recipes import (  # noqa: E402
    DPKG_EXCLUDES,
    MIRROR,
    ArmRoot,
    ArmVenv,
    aarch64_platforms,
    recipe_hash,
)
from venv_probe import IMPORTS, PROBE  # noqa: E402

CPUINFO_DIR = REPO / "tests" / "data" / "arm"
BINFMT = Path("/proc/sys/fs/binfmt_misc")
HOST_PACKAGES = ("qemu-user-static", "mmdebstrap", "binfmt-support", "arch-test", "zstd")
HOST_TOOLS = (("mmdebstrap", "mmdebstrap"), ("update-binfmts", "binfmt-support"), ("arch-test", "arch-test"),
              ("zstd", "zstd"), ("unshare", "util-linux"))
QEMU = Path("/usr/libexec/qemu-binfmt/aarch64-binfmt-P")  # qemu-user-static's binfmt interpreter (Debian 12)


ENTER = """#!/bin/sh
# written by tests/arm/roots.py: run a command inside the aarch64 root {name} (qemu-user through binfmt_misc).
# A private mount namespace, gone with the command: /proc (the Arm cpuinfo over /proc/cpuinfo: the cpuinfo
# library of onnxruntime and LiteRT dies on the host's x86 one under qemu), /dev and /sys; then chroot.
# QEMU_CPU: qemu emulates the board's core, so the runtimes pick the kernels the board runs.
export QEMU_CPU={qemu_cpu}
exec unshare --mount --propagation private /bin/sh -ec '
r=$1; c=$2; shift 2
mount -t proc proc "$r/proc"
mount --bind "$c" "$r/proc/cpuinfo"
mount --rbind /dev "$r/dev"
mount --rbind /sys "$r/sys"
exec chroot "$r" "$@"' edgeprof-arm-enter {root} {cpuinfo} "$@"
"""

WRAPPER = """#!/bin/sh
# written by tests/arm/roots.py: the `python:` of a board on the aarch64 root {name}: venv {venv}'s
# Python (aarch64, Debian's python3 {python}), run inside the root. Arguments and environment pass through.
exec {enter} /usr/bin/env PATH={venv_path}/bin:/usr/local/bin:/usr/bin:/bin {venv_path}/bin/python "$@"
"""


class BuildError(Exception):
    pass


def default_cache() -> Path:
    if os.environ.get("EDGEPROF_ARM_CACHE"):
        return Path(os.environ["EDGEPROF_ARM_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "edgeprof" / "arm-roots"


class RootPaths:
    """Where one root's archive, tree and scripts are under the cache."""

    def __init__(self, cache: Path, root: ArmRoot) -> None:
        self.hash = recipe_hash(root)
        self.key = f"{root.name}-{self.hash[:16]}"
        self.archive = cache / "archives" / f"{self.key}.tar.zst"
        self.dir = cache / "roots" / self.key
        self.tree = self.dir / "root"
        self.enter = self.dir / "enter"
        self.cpuinfo = self.dir / "cpuinfo"
        self.ready = self.dir / "ready.json"

    def python(self, venv: ArmVenv) -> Path:
        return self.dir / f"python-{venv.name}"


def _run(args: Sequence[str], what: str, timeout: float = 1800, env: dict[str, str] | None = None) -> str:
    try:
        p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired as e:
        raise BuildError(f"{what} did not finish in {timeout:.0f} s") from e
    except OSError as e:
        raise BuildError(f"{what}: {e}") from e
    if p.returncode != 0:
        tail = " | ".join(line for line in p.stdout.strip().splitlines()[-8:])
        raise BuildError(f"{what} failed (exit {p.returncode}): {tail}")
    return p.stdout


def _log(msg: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- this machine --------------------------------------------------------------------------------------------

def ensure_host() -> list[str]:
    """Ready this machine to run arm64 binaries; the steps taken. Raises BuildError with what is missing."""
    steps: list[str] = []
    if os.geteuid() != 0:
        raise BuildError("the aarch64 roots need root (mmdebstrap, mount, chroot): run as root")
    missing = sorted({pkg for tool, pkg in HOST_TOOLS if shutil.which(tool) is None}
                     | ({"qemu-user-static"} if not QEMU.exists() and shutil.which("qemu-aarch64-static") is None
                        else set()))
    if missing:
        if shutil.which("apt-get") is None:
            raise BuildError(f"missing {', '.join(missing)} and no apt-get to install them")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        _run(["apt-get", "update", "-q"], "apt-get update", timeout=900, env=env)
        _run(["apt-get", "install", "-y", "-q", *HOST_PACKAGES], "apt-get install " + " ".join(HOST_PACKAGES),
             timeout=1800, env=env)
        steps.append("installed " + " ".join(HOST_PACKAGES))
    if not (BINFMT / "register").exists():
        _run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], "mounting binfmt_misc")
        steps.append(f"mounted binfmt_misc on {BINFMT}")
    entry = BINFMT / "qemu-aarch64"
    if not entry.exists() or not entry.read_text().startswith("enabled"):
        _run(["update-binfmts", "--enable", "qemu-aarch64"], "update-binfmts --enable qemu-aarch64")
        steps.append("enabled qemu-aarch64 in binfmt_misc")
    text = entry.read_text() if entry.exists() else ""
    if not text.startswith("enabled") or "F" not in _flags(text):
        raise BuildError(f"binfmt_misc's qemu-aarch64 is not enabled with the F flag (a chroot needs it): {text!r}")
    out = _run(["arch-test", "arm64"], "arch-test arm64", timeout=120).strip()
    if "ok" not in out:
        raise BuildError(f"arch-test arm64 says {out!r}")
    return steps


def _flags(binfmt_entry: str) -> str:
    for line in binfmt_entry.splitlines():
        if line.startswith("flags:"):
            return line.split(":", 1)[1].strip()
    return ""


# -- building ------------------------------------------------------------------------------------------------

def mmdebstrap(root: ArmRoot, tree: Path) -> None:
    args = ["mmdebstrap", "--quiet", "--arch=arm64", "--variant=minbase", "--include=" + ",".join(root.packages),
            *(f"--dpkgopt=path-exclude={p}" for p in DPKG_EXCLUDES), root.suite, str(tree),
            f"deb {MIRROR} {root.suite} main"]
    _run(args, f"mmdebstrap {root.suite} arm64", timeout=3600)


def constraints(root: ArmRoot, venv: ArmVenv) -> list[str]:
    """The root's Debian numpy, unless the venv pins its own (then pip installs that one in the venv)."""
    pinned = {r.split("==")[0] for r in venv.requirements}
    return [] if "numpy" in pinned else [f"numpy=={root.numpy}"]


def download_wheels(root: ArmRoot, venv: ArmVenv, dest: Path) -> list[str]:
    """The venv's pins and their dependencies as aarch64 wheels for the root's Python and glibc; file names."""
    dest.mkdir(parents=True, exist_ok=True)
    cons = dest / "constraints.txt"
    cons.write_text("".join(c + "\n" for c in constraints(root, venv)))
    platforms = [a for p in aarch64_platforms(root.glibc) for a in ("--platform", p)]
    _run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--only-binary=:all:",
          "--python-version", root.python_tag, "--implementation", "cp", *platforms, "-c", str(cons),
          "-d", str(dest), *venv.requirements], f"pip download (aarch64, cp{root.python_tag}) "
         + " ".join(venv.requirements), timeout=1800)
    return sorted(p.name for p in dest.glob("*.whl"))


def install_venv(paths: RootPaths, root: ArmRoot, venv: ArmVenv, wheels: Path) -> list[str]:
    """The venv in the root, its wheels unpacked into it offline; the wheels installed.

    The venv is made inside the root by its own python3 (`-m venv --system-site-packages --without-pip`: Debian's
    numpy shows through unless the venv pins its own). The wheels are unpacked by this machine's pip
    (`--target` the venv's site-packages, `--platform` / `--python-version` of the root, `--no-deps`: exactly the
    set downloaded), not by a pip inside the root: under qemu, ensurepip alone took over 6 minutes a venv and
    an emulated pip install of these wheels as long again. Every import is then checked inside the root."""
    _run([str(paths.enter), "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", f"QEMU_CPU={root.qemu_cpu}",
          "/usr/bin/python3", "-m", "venv",
          "--system-site-packages", "--without-pip", venv.path], f"python3 -m venv {venv.path} in {root.name}",
         timeout=1800, env=_clean_env())
    major_minor = ".".join(root.python.split(".")[:2])
    site = paths.tree / venv.path.lstrip("/") / "lib" / f"python{major_minor}" / "site-packages"
    if not site.is_dir():
        raise BuildError(f"python3 -m venv made no {site}")
    own_numpy = "numpy" in {r.split("==")[0] for r in venv.requirements}
    files = sorted(p for p in wheels.glob("*.whl") if own_numpy or not p.name.startswith("numpy-"))
    platforms = [a for p in aarch64_platforms(root.glibc) for a in ("--platform", p)]
    _run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--no-deps",
          "--no-compile", "--only-binary=:all:", "--python-version", root.python_tag, "--implementation", "cp",
          *platforms, "--target", str(site), *map(str, files)],
         f"pip install --target {venv.path} (aarch64 wheels, offline)", timeout=1800)
    return [p.name for p in files]


def _clean_env() -> dict[str, str]:
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}


def pack(tree: Path, archive: Path) -> None:
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(archive.name + ".part")
    with open(tmp, "wb") as out:
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(tree), "-cf", "-", "."], stdout=subprocess.PIPE)
        assert tar.stdout is not None
        z = subprocess.run(["zstd", "-q", "-T0", "-3", "-c"], stdin=tar.stdout, stdout=out)
        tar.stdout.close()
        tar_rc = tar.wait()
    if tar_rc != 0 or z.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"packing {tree} failed (tar exit {tar_rc}, zstd exit {z.returncode})")
    tmp.replace(archive)


def unpack(archive: Path, tree: Path) -> None:
    tree.mkdir(parents=True)
    with open(archive, "rb") as src:  # through stdin: zstd skips an archive given as a symlink
        z = subprocess.Popen(["zstd", "-q", "-d", "-c"], stdin=src, stdout=subprocess.PIPE)
    assert z.stdout is not None
    t = subprocess.run(["tar", "--numeric-owner", "-C", str(tree), "-xf", "-"], stdin=z.stdout,
                       stderr=subprocess.PIPE, text=True)
    z.stdout.close()
    if z.wait() != 0 or t.returncode != 0:
        raise BuildError(f"unpacking {archive} failed: {t.stderr.strip()[-500:]}")


def write_scripts(paths: RootPaths, root: ArmRoot) -> None:
    """The enter script, the cpuinfo, one `python-<venv>` per venv, and the root's own host path inside it."""
    paths.dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CPUINFO_DIR / root.cpuinfo, paths.cpuinfo)
    tree = paths.tree.resolve()
    paths.enter.write_text(ENTER.format(name=root.name, root=shlex.quote(str(tree)), qemu_cpu=root.qemu_cpu,
                                        cpuinfo=shlex.quote(str(paths.cpuinfo.resolve()))))
    paths.enter.chmod(0o755)
    for venv in root.venvs:
        w = paths.python(venv)
        w.write_text(WRAPPER.format(name=root.name, venv=venv.name, python=root.python,
                                    enter=shlex.quote(str(paths.enter.resolve())), venv_path=venv.path))
        w.chmod(0o755)
    link = tree / str(tree).lstrip("/")
    if not link.is_symlink():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to("/")


# -- checking ------------------------------------------------------------------------------------------------

def probe(paths: RootPaths, root: ArmRoot, venv: ArmVenv) -> dict[str, object]:
    pairs = [f"{d}={IMPORTS.get(d, d.replace('-', '_'))}" for d, _ in venv.expected]
    out = _run([str(paths.enter), "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", f"QEMU_CPU={root.qemu_cpu}",
                f"{venv.path}/bin/python", "-c", PROBE, *pairs], f"probing venv {venv.name}", timeout=900, env=_clean_env())
    found: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return found


def check(root: ArmRoot, venv: ArmVenv, found: dict[str, object]) -> None:
    """Raise BuildError naming everything in the venv that is not what the recipe says."""
    problems = []
    if found.get("machine") != "aarch64":
        problems.append(f"machine is {found.get('machine')}, not aarch64")
    if found.get("python") != root.python:
        problems.append(f"python is {found.get('python')}, not {root.python}")
    if found.get("os") != root.os:
        problems.append(f"os is {found.get('os')!r}, not {root.os!r}")
    dists, imports = found.get("dists"), found.get("imports")
    assert isinstance(dists, dict) and isinstance(imports, dict)
    for dist, want in venv.expected:
        if dists.get(dist) != want:
            problems.append(f"{dist} is {dists.get(dist) or 'missing'}, not {want}")
        module = IMPORTS.get(dist, dist.replace("-", "_"))
        if imports.get(module):
            problems.append(f"import {module} fails: {imports[module]}")
    if problems:
        raise BuildError(f"venv {venv.name}: " + "; ".join(problems))


def check_all(paths: RootPaths, root: ArmRoot) -> dict[str, dict[str, object]]:
    found = {}
    for venv in root.venvs:
        f = probe(paths, root, venv)
        check(root, venv, f)
        found[venv.name] = f
    return found


# -- one root ------------------------------------------------------------------------------------------------

RECORD_IN_ROOT = "etc/edgeprof-arm-root.json"  # what the build found, packed with the root


def build(root: ArmRoot, cache: Path, *, rebuild: bool = False, verify: bool = False) -> dict[str, object]:
    """Reuse, restore or build the root; its report entry (status reused / restored / built / failed).

    A reused or restored root is not probed again unless `verify` (each probe imports the runtimes under
    emulation: ~10 s a venv); the versions recorded when it was built are reported, and the lane checks them
    through the agent anyway. Two builders of one root (the lane and `make arm-roots`) take turns (a lock)."""
    (cache / "locks").mkdir(parents=True, exist_ok=True)
    with open(cache / "locks" / f"{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(root, cache, rebuild=rebuild, verify=verify)


def _build_locked(root: ArmRoot, cache: Path, *, rebuild: bool, verify: bool) -> dict[str, object]:
    t0 = time.monotonic()
    paths = RootPaths(cache, root)
    report: dict[str, object] = {
        "name": root.name, "board": root.board, "suite": root.suite, "hash": paths.hash, "dir": str(paths.dir),
        "tree": str(paths.tree), "archive": str(paths.archive), "enter": str(paths.enter), "cpu": root.cpu,
        "venvs": {v.name: {"python": str(paths.python(v)), "stack": v.stack, "expected": dict(v.expected),
                           "runtimes": dict(v.runtimes)} for v in root.venvs},
        "steps": [],
    }
    steps: list[str] = []
    report["steps"] = steps
    try:
        steps.extend(ensure_host())
        steps.extend(_prune(paths, root))
        status, found = None, None
        if paths.ready.exists() and not rebuild:
            status, found = "reused", _recorded(paths, root, verify)
            if found is None:
                status = None
                steps.append("the unpacked root is incomplete or no longer checks out: unpacked again")
        if status is None and paths.archive.exists() and not rebuild:
            _log(f"{root.name}: restoring {paths.archive.name}")
            t = time.monotonic()
            _clear(paths)
            unpack(paths.archive, paths.tree)
            status, found = "restored", _recorded(paths, root, verify)
            steps.append(f"unpacked {paths.archive.name} in {time.monotonic() - t:.1f} s")
            if found is None:
                status = None
                steps.append("the cached archive does not check out: rebuilt")
        if status is None or found is None:
            if rebuild:
                _clear(paths)
            found = _build_fresh(paths, root, steps)
            status = "built"
        for venv in root.venvs:
            report["venvs"][venv.name]["found"] = found[venv.name]  # type: ignore[index]
        report.update(status=status, seconds=round(time.monotonic() - t0, 1))
        paths.ready.write_text(json.dumps({k: v for k, v in report.items() if k != "steps"}, indent=1,
                                          sort_keys=True))
    except (BuildError, OSError, subprocess.SubprocessError, json.JSONDecodeError) as e:
        report.update(status="failed", error=str(e), seconds=round(time.monotonic() - t0, 1))
    return report


def _recorded(paths: RootPaths, root: ArmRoot, verify: bool) -> dict[str, dict[str, object]] | None:
    """What the root's build found (probed again with `verify`), or None when the tree does not match it."""
    try:
        record = json.loads((paths.tree / RECORD_IN_ROOT).read_text())
        found: dict[str, dict[str, object]] = record["found"]
        if record.get("hash") != paths.hash:
            return None
        write_scripts(paths, root)
        for venv in root.venvs:
            if not (paths.tree / venv.path.lstrip("/") / "bin" / "python").exists():
                return None
            if not verify:
                check(root, venv, found[venv.name])
        return check_all(paths, root) if verify else found
    except (OSError, KeyError, ValueError, BuildError):
        return None


def _prune(paths: RootPaths, root: ArmRoot) -> list[str]:
    """Remove unpacked trees of this root's earlier recipes (~0.3-0.5 GB each); their archives stay."""
    done = []
    for old in sorted(paths.dir.parent.glob(f"{root.name}-*")):
        if old != paths.dir and old.is_dir() and len(old.name) == len(paths.key):
            shutil.rmtree(old)  # the symlink to "/" inside is removed as a link, never followed
            done.append(f"removed the unpacked root of an earlier recipe: {old.name}")
    return done


def _clear(paths: RootPaths) -> None:
    """Remove the unpacked root (the symlink to "/" inside is removed as a link, never followed)."""
    if paths.dir.exists():
        shutil.rmtree(paths.dir)


def _build_fresh(paths: RootPaths, root: ArmRoot, steps: list[str]) -> dict[str, dict[str, object]]:
    bootstrapped = paths.dir / "mmdebstrap.done"  # an interrupted build resumes after mmdebstrap
    if bootstrapped.exists() and paths.tree.is_dir():
        shutil.rmtree(paths.tree / "opt" / "venvs", ignore_errors=True)
        steps.append(f"mmdebstrap {root.suite} arm64: kept from an unfinished build")
    else:
        _clear(paths)
        paths.dir.mkdir(parents=True)
        t = time.monotonic()
        _log(f"{root.name}: mmdebstrap {root.suite} arm64 (several minutes under qemu)")
        mmdebstrap(root, paths.tree)
        bootstrapped.write_text(root.suite + "\n")
        steps.append(f"mmdebstrap {root.suite} arm64 in {time.monotonic() - t:.0f} s")
    write_scripts(paths, root)
    with tempfile.TemporaryDirectory(prefix=f"edgeprof-wheels-{root.name}-") as tmp:
        for venv in root.venvs:
            t = time.monotonic()
            wheels = Path(tmp) / venv.name
            download_wheels(root, venv, wheels)
            _log(f"{root.name}: venv {venv.name}: installing its aarch64 wheels offline")
            names = install_venv(paths, root, venv, wheels)
            steps.append(f"venv {venv.name}: {', '.join(names)} in {time.monotonic() - t:.0f} s")
    found = check_all(paths, root)
    (paths.tree / RECORD_IN_ROOT).write_text(json.dumps({"hash": paths.hash, "found": found}, indent=1))
    t = time.monotonic()
    link = paths.tree / str(paths.tree.resolve()).lstrip("/")
    link.unlink()  # packed without the host path: a restore elsewhere writes its own
    try:
        pack(paths.tree, paths.archive)
    finally:
        write_scripts(paths, root)
    steps.append(f"packed {paths.archive.name} ({paths.archive.stat().st_size / 2**20:.0f} MiB) in "
                 f"{time.monotonic() - t:.0f} s")
    return found


def build_all(roots: Sequence[ArmRoot], cache: Path, *, rebuild: bool = False, verify: bool = False,
              jobs: int = 1) -> list[dict[str, object]]:
    """Every root's report entry, in the order given; with jobs > 1 the roots build side by side."""
    if jobs <= 1 or len(roots) <= 1:
        return [build(r, cache, rebuild=rebuild, verify=verify) for r in roots]
    from concurrent.futures import ThreadPoolExecutor

    try:
        ensure_host()  # once, before the threads (apt-get must not run twice at once)
    except BuildError:
        pass  # each build reports it
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda r: build(r, cache, rebuild=rebuild, verify=verify), roots))


def print_entry(entry: dict[str, object]) -> None:
    print(f"{entry['name']}: {entry['status']} in {entry['seconds']} s — {entry['dir']}")
    for step in entry.get("steps", []):  # type: ignore[attr-defined]
        print(f"  {step}")
    if entry["status"] == "failed":
        print(f"  FAILED: {entry['error']}")
        return
    venvs = entry["venvs"]
    assert isinstance(venvs, dict)
    for name, v in venvs.items():
        f = v["found"]
        dists = ", ".join(f"{d} {ver}" for d, ver in sorted(f["dists"].items()))
        print(f"  {name}: {f['machine']}, {f['os']}, Python {f['python']}, {dists} — python: {v['python']}")
