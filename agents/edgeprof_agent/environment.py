"""Facts about the machine the agent runs on, recorded with every result and by `edgeprof devices check`.

Owns: hostname, arch, CPU, cores, memory, OS, kernel, Python, JetPack/L4T release, board model, runtimes with
versions and providers, thread-related environment variables, free disk in the workdir, this process's memory.
Reads the board through the same SysfsRoot (/proc, /etc, device tree) as the probes, and finds trtexec through
the same ToolRunner, so a board tree under tests/data/boards gives one consistent picture. Returns a
messages.Facts record.
Does not own: sensors (probes/, power.py), device state changes (never changes anything), and what this
Python process itself is (hostname, kernel, python, environment variables: read from the running process).
"""

import os
import platform
import socket
import sys

from . import AGENT_VERSION, PROTOCOL_VERSION
from .gpus import nvidia_gpus
from .messages import Facts, L4TRelease
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


def runtimes():
    """Runtimes importable here, with versions and providers. Imports each one (can take a second)."""
    found = {}
    try:
        import onnxruntime as ort
        found["onnxruntime"] = {"version": ort.__version__, "providers": list(ort.get_available_providers())}
    except Exception as e:
        found["onnxruntime"] = {"error": "%s: %s" % (type(e).__name__, e)}
    for mod in ("ai_edge_litert", "tflite_runtime"):
        try:
            m = __import__(mod)
            found[mod] = {"version": getattr(m, "__version__", None) or dist_version(mod)}
        except Exception as e:
            found[mod] = {"error": "%s: %s" % (type(e).__name__, e)}
    try:
        import tensorrt as trt
        found["tensorrt"] = {"version": trt.__version__}
    except Exception as e:
        found["tensorrt"] = {"error": "%s: %s" % (type(e).__name__, e)}
    try:
        import numpy
        found["numpy"] = {"version": numpy.__version__}
    except Exception as e:
        found["numpy"] = {"error": "%s: %s" % (type(e).__name__, e)}
    return found


def dist_version(name):
    """Installed version of a distribution (importlib.metadata, Python 3.8+), or None."""
    try:
        from importlib import metadata  # novermin (Python 3.8+, guarded)
    except ImportError:
        return None
    for dist in (name.replace("_", "-"), name):
        try:
            return metadata.version(dist)
        except Exception:
            continue
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
        d.runtimes = runtimes()
    try:  # NVIDIA GPUs (capability matrix: tensorrt, CUDA providers); cheap, imports nothing
        d.gpus = nvidia_gpus(root)
    except Exception as e:
        d.gpus_error = "%s: %s" % (type(e).__name__, e)
    return d
