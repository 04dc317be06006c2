"""Facts about the machine the agent runs on, recorded with every result and by `edgeprof devices check`.

Owns: hostname, arch, CPU, cores, memory, OS, kernel, Python, JetPack/L4T release, board model, runtimes with
versions and providers, thread-related environment variables, free disk in the workdir, this process's memory.
Runtimes are found WITHOUT importing them into the agent's process (it then measures: its memory before load
and its native libraries must be the run's alone): the import path and package metadata, or a short-lived child
process for what metadata cannot tell (onnxruntime's providers, whether onnxruntime-genai has CUDA, a TensorRT
without metadata). See runtimes().
Reads the board through the same SysfsRoot (/proc, /etc, device tree) as the probes, and finds trtexec through
the same ToolRunner, so a board tree under tests/data/boards gives one consistent picture. Returns a
messages.Facts record.
Does not own: sensors (probes/, power.py), device state changes (never changes anything), and what this
Python process itself is (hostname, kernel, python, environment variables: read from the running process).
"""

import io
import os
import platform
import re
import socket
import sys
import time

from . import AGENT_VERSION, PROTOCOL_VERSION
from .gpus import nvidia_gpus
from .messages import Facts, L4TRelease, RuntimeFact
from .sysfs import SysfsRoot

THREAD_VARS = (
    "OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS", "CUDA_VISIBLE_DEVICES", "ORT_TENSORRT_FP16_ENABLE", "LD_PRELOAD",
)


# where JetPack puts trtexec (not on PATH by default)
TRTEXEC_PATHS = ("/usr/src/tensorrt/bin/trtexec", "/usr/local/tensorrt/bin/trtexec")


# The cores an Arm /proc/cpuinfo names by number (its "CPU implementer" and "CPU part" lines, the MIDR fields), as
# Linux (arch/arm64/include/asm/cputype.h) and util-linux's lscpu (sys-utils/lscpu-arm.c) name them.
ARM_IMPLEMENTERS = {"0x41": "ARM", "0x42": "Broadcom", "0x4e": "NVIDIA", "0x51": "Qualcomm", "0x61": "Apple"}
ARM_PARTS = {
    ("0x41", "0xb76"): "ARM1176", ("0x41", "0xc07"): "Cortex-A7", ("0x41", "0xc0f"): "Cortex-A15",
    ("0x41", "0xd03"): "Cortex-A53", ("0x41", "0xd04"): "Cortex-A35", ("0x41", "0xd05"): "Cortex-A55",
    ("0x41", "0xd07"): "Cortex-A57", ("0x41", "0xd08"): "Cortex-A72", ("0x41", "0xd09"): "Cortex-A73",
    ("0x41", "0xd0a"): "Cortex-A75", ("0x41", "0xd0b"): "Cortex-A76", ("0x41", "0xd0c"): "Neoverse-N1",
    ("0x41", "0xd0d"): "Cortex-A77", ("0x41", "0xd0e"): "Cortex-A76AE", ("0x41", "0xd40"): "Neoverse-V1",
    ("0x41", "0xd41"): "Cortex-A78", ("0x41", "0xd42"): "Cortex-A78AE", ("0x41", "0xd44"): "Cortex-X1",
    ("0x41", "0xd46"): "Cortex-A510", ("0x41", "0xd47"): "Cortex-A710", ("0x41", "0xd48"): "Cortex-X2",
    ("0x41", "0xd49"): "Neoverse-N2", ("0x41", "0xd4b"): "Cortex-A78C", ("0x41", "0xd4f"): "Neoverse-V2",
    ("0x41", "0xd80"): "Cortex-A520", ("0x41", "0xd81"): "Cortex-A720", ("0x41", "0xd82"): "Cortex-X4",
    ("0x4e", "0x000"): "Denver", ("0x4e", "0x003"): "Denver 2", ("0x4e", "0x004"): "Carmel",
}


def _arm_cores(text):
    """The core types an Arm cpuinfo lists ("ARM Cortex-A76"), each once in order; [] for any other cpuinfo."""
    names, implementer = [], None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip().lower()
        if key == "CPU implementer":
            implementer = value
        elif key == "CPU part" and implementer:
            vendor = ARM_IMPLEMENTERS.get(implementer, "implementer " + implementer)
            part = ARM_PARTS.get((implementer, value))
            name = "%s %s" % (vendor, part) if part else "%s part %s" % (vendor, value)
            if name not in names:
                names.append(name)
    return names


def _cpu_model(root):
    text = root.try_read_text("/proc/cpuinfo") or ""
    # An Arm cpuinfo names its cores only by number: its "Hardware" is the SoC family (every Raspberry Pi up to
    # the 5 says BCM2835), "model name" where present says "ARMv8 Processor rev 1 (v8l)", and an arm64 kernel
    # writes neither (a Jetson Orin's cpuinfo would leave just "aarch64")
    cores = _arm_cores(text)
    if cores:
        return " + ".join(cores)
    for key in ("model name", "Hardware", "Model", "cpu model", "Processor"):
        for line in text.splitlines():
            if line.startswith(key) and ":" in line:
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _cpu_count(root):
    """Online CPUs from /sys/devices/system/cpu/online ("0-3,6"), else this process's count."""
    text = (root.try_read_text("/sys/devices/system/cpu/online") or "").strip()
    n = 0
    try:
        for part in text.split(","):
            if "-" in part:
                lo, hi = part.split("-", 1)
                n += int(hi) - int(lo) + 1
            elif part:
                int(part)
                n += 1
    except ValueError:
        n = 0
    return n or os.cpu_count()


def _kernel_value(root, name, fallback):
    """/proc/sys/kernel/<name> (hostname, osrelease) of the board under `root`, else the running system's."""
    value = (root.try_read_text("/proc/sys/kernel/" + name) or "").strip()
    return value or fallback


def _meminfo(root):
    out = {}
    for line in (root.try_read_text("/proc/meminfo") or "").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":"):
            try:
                out[parts[0][:-1]] = int(parts[1])  # kB
            except ValueError:
                pass
    return out


def _os_release(root):
    info = {}
    for line in (root.try_read_text("/etc/os-release") or "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            info[k] = v.strip().strip('"')
    return info.get("PRETTY_NAME") or platform.platform()


def _l4t(root):
    text = root.try_read_text("/etc/nv_tegra_release")
    if not text:
        return None
    first = text.splitlines()[0] if text.splitlines() else ""
    # "# R32 (release), REVISION: 7.1, GCID: ..., BOARD: t210ref, EABI: aarch64, DATE: ..."
    rel = rev = None
    for part in first.lstrip("# ").split(","):
        part = part.strip()
        if part.startswith("R") and "(release)" in part:
            rel = part.split()[0][1:]
        elif part.startswith("REVISION:"):
            rev = part.split(":", 1)[1].strip()
    return L4TRelease(release="%s.%s" % (rel, rev) if rel and rev else first, raw=first)


def _board_model(root):
    text = root.try_read_text("/proc/device-tree/model")
    return text.strip("\x00\n ") or None if text else None


def find_trtexec(tools):
    """trtexec's path (PATH, the system directories, then JetPack's), or None."""
    for name in ("trtexec",) + TRTEXEC_PATHS:
        found = tools.which(name)
        if found:
            return found
    return None


# the modules whose presence and version facts report, in this order (capability.py reads them)
RUNTIME_MODULES = ("onnxruntime", "ai_edge_litert", "tflite_runtime", "tensorrt", "numpy", "onnxruntime_genai",
                   "llama_cpp", "litert_lm")
# what metadata cannot tell: onnxruntime's available execution providers need the library loaded, and whether
# onnxruntime-genai's build has CUDA (og.is_cuda_available(): its compile-time USE_CUDA, src/python/python.cpp; it
# touches no GPU) needs its module imported
NEEDS_IMPORT = ("onnxruntime", "onnxruntime_genai")
# the longest a child process may take to import one runtime (TensorRT on a Jetson Nano: seconds); two such
# children (onnxruntime, TensorRT) stay inside the host's 120 s facts timeout (agentlink, lab/lease.py)
PROBE_TIMEOUT_S = 45.0
_PROBE_MARK = "edgeprof-runtime-probe: "


def runtimes(timeout_s=PROBE_TIMEOUT_S, cache_dir=None):
    """Runtimes importable here, with versions and providers, WITHOUT importing them into this process (the
    one that then measures: its memory before load and its native libraries must be the run's alone).

    For each module: absent from the import path -> the ImportError an import would raise; a version in its
    package metadata (the *.dist-info / *.egg-info that owns it) -> that version; otherwise (onnxruntime's
    providers, onnxruntime-genai's CUDA, JetPack's TensorRT, a Debian package without metadata) a short-lived
    child process of this Python imports it and prints what an import tells; the children of several modules run
    at the same time.
    A module this process has already imported (a run loaded it) is described from that import. The answer
    has the same shape and values as importing each. `cache_dir` (the agent zipapp's directory by default):
    what a child said is kept there (ChildFacts) and said again, without a child, while the files it imported
    are the same ones.
    """
    zipapp = _zipapp()
    cache = ChildFacts(cache_dir if cache_dir is not None else os.path.dirname(zipapp) if zipapp else None)
    found, children = {}, []
    for mod in RUNTIME_MODULES:
        fact, location = _without_child(mod)
        if fact is None:
            fact = cache.get(mod, location)
        if fact is None:
            children.append((mod, location, _start_probe(mod)))
        found[mod] = fact
    deadline = time.monotonic() + timeout_s
    for mod, location, child in children:
        found[mod] = _finish_probe(mod, child, max(0.0, deadline - time.monotonic()), timeout_s)
        cache.put(mod, location, found[mod])
    return dict((mod, found[mod]) for mod in RUNTIME_MODULES)


def runtime_fact(mod, timeout_s=PROBE_TIMEOUT_S):
    """{"version": ...} (onnxruntime: and "providers"; onnxruntime_genai: and "cuda") or {"error": "..."} for one
    module (see runtimes)."""
    fact, _ = _without_child(mod)
    return fact if fact is not None else probe_in_child(mod, timeout_s)


def _without_child(mod):
    """(the fact, None) when no child is needed for `mod`, else (None, its module_location)."""
    if mod in sys.modules:
        return describe_module(mod), None
    try:
        location = module_location(mod)
    except Exception as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}, None
    if location is None:
        return {"error": "ModuleNotFoundError: No module named %r" % mod}, None
    if mod not in NEEDS_IMPORT:
        version = owner_version(mod, location)
        if version:
            return {"version": version}, None
    return None, location


def describe_module(mod):
    """What importing `mod` tells: {"version", ("providers"), ("cuda")} or {"error"}. Imports it into THIS process:
    called in the child process of probe_in_child, or for a module already imported."""
    try:
        m = __import__(mod)
        if mod == "onnxruntime":
            return {"version": m.__version__, "providers": list(m.get_available_providers())}
        if mod == "onnxruntime_genai":
            return _ortgenai_fact(m)
        if mod in ("ai_edge_litert", "tflite_runtime"):
            return {"version": getattr(m, "__version__", None) or dist_version(mod)}
        if mod == "litert_lm":  # litert-lm-api defines no __version__: its distribution's metadata says it
            location = module_location(mod)
            version = owner_version(mod, location) if location else None
            if version:
                return {"version": version}
        return {"version": m.__version__}
    except Exception as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}


def _ortgenai_fact(og):
    """onnxruntime_genai's {"version", "cuda"}: cuda is og.is_cuda_available() (the build's USE_CUDA; False on the
    CPU wheel, onnxruntime-genai-cuda's True), left out when it cannot be read (a build without the function, or a
    call that raised): unknown, never a failed fact."""
    fact = {"version": og.__version__}
    try:
        fact["cuda"] = bool(og.is_cuda_available())
    except Exception:
        pass
    return fact


def module_location(mod):
    """(sys.path entry, path of the package or module) where `mod` would be imported from, or None when it is
    not on the import path. Finds it as the import system does (importlib.util.find_spec of a top-level name
    runs no module code); the sys.path entry is the directory holding it."""
    import importlib.util

    spec = importlib.util.find_spec(mod)
    if spec is None:
        return None
    origin = spec.origin if spec.has_location and spec.origin else None
    if origin is None:
        locations = list(spec.submodule_search_locations or [])  # a namespace package: no __init__
        origin = locations[0] if locations else None
    if origin is None:
        return ("", "")
    path = os.path.dirname(origin) if os.path.basename(origin).startswith("__init__.") else origin
    return (os.path.dirname(path), path)


def _norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def _read(path, limit=1 << 22):
    try:
        with io.open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read(limit)
    except (IOError, OSError):
        return None


def _meta_version(meta_dir):
    """The Version: header of a *.dist-info's METADATA or an *.egg-info's PKG-INFO (a directory or a file)."""
    if os.path.isdir(meta_dir):
        text = _read(os.path.join(meta_dir, "METADATA")) or _read(os.path.join(meta_dir, "PKG-INFO"))
    else:
        text = _read(meta_dir)
    for line in (text or "").splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip() or None
    return None


def _top_levels(meta_dir):
    """The top-level names a distribution installs: top_level.txt, else its RECORD (dist-info) or
    installed-files.txt (egg-info, paths relative to the egg-info directory)."""
    if not os.path.isdir(meta_dir):
        return set()
    text = _read(os.path.join(meta_dir, "top_level.txt"))
    if text:
        return set(line.strip() for line in text.splitlines() if line.strip())
    names = set()
    record = _read(os.path.join(meta_dir, "RECORD"))
    if record is not None:
        paths = [line.split(",", 1)[0] for line in record.splitlines()]
    else:
        installed = _read(os.path.join(meta_dir, "installed-files.txt")) or ""
        paths = [os.path.normpath(os.path.join(os.path.basename(meta_dir), line.strip()))
                 for line in installed.splitlines() if line.strip()]
    for p in paths:
        first = p.replace("\\", "/").split("/", 1)[0]
        if first and first != ".." and not first.endswith((".dist-info", ".egg-info", ".data")):
            names.add(first.split(".", 1)[0] if first.endswith((".py", ".so", ".pyd")) else first)
    return names


def owner_version(mod, location):
    """The version in the metadata of the distribution that installed `mod` at `location` (module_location),
    or None (no metadata there, or none that claims the module). Standard library only, any Python >= 3.6:
    the *.dist-info / *.egg-info beside the module whose name starts with the module's (onnxruntime-gpu,
    tensorrt-cu12-bindings, tflite-runtime) and that lists it among its top-level names."""
    entry = location[0]
    try:
        names = sorted(os.listdir(entry)) if entry else []
    except OSError:
        return None
    want = _norm(mod)
    for name in names:
        base, ext = os.path.splitext(name)
        if ext not in (".dist-info", ".egg-info") or not _norm(base.split("-", 1)[0]).startswith(want):
            continue
        meta_dir = os.path.join(entry, name)
        if os.path.isdir(meta_dir):
            if mod not in _top_levels(meta_dir):
                continue
        elif _norm(base.split("-", 1)[0]) != want:  # a single-file egg-info lists nothing: its name must be it
            continue
        version = _meta_version(meta_dir)
        if version:
            return version
    return None


_PROBE = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
          "from edgeprof_agent.environment import describe_module; "
          "sys.stdout.write('\\n' + sys.argv[3] + json.dumps(describe_module(sys.argv[2])) + '\\n')")


def probe_in_child(mod, timeout_s=PROBE_TIMEOUT_S):
    """describe_module(mod) run in a short-lived child process of this Python, with this process's import
    path, so that the import (its native libraries, its memory, its threads) never enters this one. A child
    that outlives `timeout_s`, or dies (a runtime's native crash), is an error fact, not a failed facts."""
    return _finish_probe(mod, _start_probe(mod), timeout_s, timeout_s)


def _start_probe(mod):
    """The started child of probe_in_child (a Popen), or the error fact when it could not start."""
    import json
    import subprocess

    argv = [sys.executable or "python3", "-c", _PROBE, json.dumps(sys.path), mod, _PROBE_MARK]
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True)
    except (IOError, OSError) as e:
        return {"error": "%s: could not start %s to import %s: %s" % (type(e).__name__, argv[0], mod, e)}


def _finish_probe(mod, p, wait_s, timeout_s):
    """The fact a started child (_start_probe) prints, waiting at most `wait_s` more (`timeout_s` its limit)."""
    import json
    import subprocess

    if isinstance(p, dict):
        return p
    try:
        out, err = p.communicate(timeout=wait_s)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return {"error": "TimeoutError: importing %s took longer than %g s (in a child process)" % (mod, timeout_s)}
    for line in reversed(out.splitlines()):
        if line.startswith(_PROBE_MARK):
            try:
                found = json.loads(line[len(_PROBE_MARK):])
            except ValueError:
                break
            if isinstance(found, dict):
                return found
            break
    tail = (err or "").strip().splitlines()[-1:] or ["no output"]
    how = "was killed by signal %d" % -p.returncode if p.returncode < 0 else "exited with %d" % p.returncode
    return {"error": "ImportError: importing %s in a child process failed: it %s (%s)" % (mod, how, tail[0][-300:])}


def _zipapp():
    """The agent zipapp this module was imported from (in the agent's workdir), None otherwise."""
    return getattr(globals().get("__loader__"), "archive", None)  # zipimport's importer names its archive


class ChildFacts(object):
    """What the runtime probe children said, kept in `<dir>/runtime-facts.json` per module with the identity
    of what they imported: this Python (its path, version and import path, LD_LIBRARY_PATH, LD_PRELOAD), the
    agent (its zipapp's name: its sha256) and every file of the module's package and of numpy's (name, size,
    mtime, inode; the package directory and the directories directly in it: onnxruntime's native libraries
    are in capi/). A fact is said again only while all of those are the same; an error fact is never kept
    (the child runs again). Without a directory, nothing is kept."""

    NAME = "runtime-facts.json"

    def __init__(self, directory):
        self.path = os.path.join(directory, self.NAME) if directory else None

    def get(self, mod, location):
        entry = self._entries().get(mod) if self.path else None
        if not isinstance(entry, dict) or entry.get("key") != self._key(mod, location):
            return None
        fact = entry.get("fact")
        return fact if isinstance(fact, dict) and "error" not in fact else None

    def put(self, mod, location, fact):
        if not self.path or "error" in fact:
            return
        import json
        import tempfile

        entries = self._entries()
        entries[mod] = {"key": self._key(mod, location), "fact": fact}
        try:
            fd, tmp = tempfile.mkstemp(prefix=".runtime-facts-", dir=os.path.dirname(self.path))
            with os.fdopen(fd, "w") as f:
                json.dump(entries, f, sort_keys=True)
            os.replace(tmp, self.path)  # atomic: another agent of this workdir reads the old file or this one
        except (IOError, OSError):
            pass  # a read-only or full workdir: the child runs again next time

    def _entries(self):
        import json

        try:
            with io.open(self.path, "r", encoding="utf-8") as f:
                entries = json.load(f)
        except (IOError, OSError, ValueError):
            return {}
        return entries if isinstance(entries, dict) else {}

    @staticmethod
    def _key(mod, location):
        import hashlib
        import json

        numpy = module_location("numpy") if mod != "numpy" else None
        key = [sys.executable, sys.version, sys.path, os.environ.get("LD_LIBRARY_PATH"),
               os.environ.get("LD_PRELOAD"), os.path.basename(_zipapp() or ""), AGENT_VERSION, mod,
               _files(location[1]), _files(numpy[1] if numpy else None)]
        return hashlib.sha256(json.dumps(key).encode("utf-8")).hexdigest()


def _files(path, depth=1):
    """[(path, size, mtime_ns, inode)] of a module file, or of a package directory's files and those of the
    directories directly in it (`depth` levels below; __pycache__ left out: importing writes there), sorted;
    [] for None."""
    if not path:
        return []
    if not os.path.isdir(path):
        try:
            st = os.stat(path)
        except OSError:
            return []
        return [(path, st.st_size, st.st_mtime_ns, st.st_ino)]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    out = []
    for name in names:
        where = os.path.join(path, name)
        if name == "__pycache__":
            continue
        if os.path.isdir(where):
            out.extend(_files(where, depth - 1) if depth > 0 else [])
        else:
            out.extend(_files(where))
    return out


def dist_version(name):
    """Installed version of a distribution: importlib.metadata (Python 3.8+), else the *.dist-info /
    *.egg-info of that name on sys.path (read with the standard library); None when not installed."""
    try:
        from importlib import metadata  # novermin (Python 3.8+, guarded)
    except ImportError:
        metadata = None
    if metadata is not None:
        for dist in (name.replace("_", "-"), name):
            try:
                return metadata.version(dist)
            except Exception:
                continue
        return None
    want = _norm(name)
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for n in names:
            base, ext = os.path.splitext(n)
            if ext in (".dist-info", ".egg-info") and _norm(base.split("-", 1)[0]) == want:
                version = _meta_version(os.path.join(entry or ".", n))
                if version:
                    return version
    return None


def disk_free_mb(path):
    try:
        st = os.statvfs(path)
        return round(st.f_bavail * st.f_frsize / 1e6, 1)
    except OSError:
        return None


def facts(workdir=None, with_runtimes=True, root=None, tools=None):
    """This machine's Facts, its board files read under `root` (a SysfsRoot; "/" by default). `tools`: the
    ToolRunner for programs facts may run (none today: trtexec is looked up by the TensorRT backend when it
    needs it, not reported, as capability.py would take it for a trtexec-only TensorRT the backend lacks)."""
    root = root or SysfsRoot("/")
    mem = _meminfo(root)
    d = Facts(
        hostname=_kernel_value(root, "hostname", socket.gethostname()),
        arch=platform.machine(),
        cpu=_cpu_model(root),
        cores=_cpu_count(root),
        memory_mb=round(mem.get("MemTotal", 0) / 1024.0, 1) if mem else None,
        os=_os_release(root),
        kernel=_kernel_value(root, "osrelease", platform.release()),
        python=platform.python_version(),
        python_executable=sys.executable,
        l4t=_l4t(root),
        board_model=_board_model(root),
        agent_version=AGENT_VERSION,
        protocol=PROTOCOL_VERSION,
        env=dict((k, os.environ[k]) for k in THREAD_VARS if k in os.environ),
    )
    if workdir:
        d.workdir = workdir
        d.disk_free_mb = disk_free_mb(workdir)
    if with_runtimes:
        d.runtimes = dict((mod, RuntimeFact.from_dict(fact)) for mod, fact in runtimes().items())
    try:  # NVIDIA GPUs (capability matrix: tensorrt, CUDA providers); cheap, imports nothing
        d.gpus = nvidia_gpus(root)
    except Exception as e:
        d.gpus_error = "%s: %s" % (type(e).__name__, e)
    return d
