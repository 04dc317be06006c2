"""Memory that the agent's own RSS does not show: GPU memory per process (NVML) and Jetson unified memory.

Owns: /proc/meminfo through SysfsRoot (system used = MemTotal - MemAvailable), a low-rate watcher that records
the system-wide peak during a run (on Jetson the GPU allocates from system RAM, so the model's GPU buffers only
show up here), and NVML per-process GPU memory (with the reason when NVML gives none: gpu_memory_read).
Does not own: this process's RSS / peak RSS (procinfo.py), power (power.py). baseline_note says in words what
the RSS before load holds.
System-wide numbers include every other process: they are an upper bound, labelled as such.
"""

import threading

from . import clock as _clock
from .probes import nvml as _nvml

METHOD = ("system-wide /proc/meminfo MemTotal - MemAvailable (includes other processes; on Jetson's unified "
          "memory it includes GPU allocations)")


def meminfo(root):
    """{field: bytes} from /proc/meminfo ('MemTotal:  3964656 kB')."""
    out = {}
    text = root.try_read_text("/proc/meminfo") or ""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":"):
            try:
                value = int(parts[1])
            except ValueError:
                continue
            if len(parts) >= 3 and parts[2].lower() == "kb":
                value *= 1024
            out[parts[0][:-1]] = value
    return out


def system_used_bytes(root):
    info = meminfo(root)
    if "MemTotal" not in info:
        return None
    avail = info.get("MemAvailable")
    if avail is None:  # kernels < 3.14
        avail = info.get("MemFree", 0) + info.get("Buffers", 0) + info.get("Cached", 0)
    return info["MemTotal"] - avail


class SystemMemoryWatch(object):
    """before = used at start(); peak = highest used seen while running (polled at rate_hz)."""

    def __init__(self, root, rate_hz=10.0):
        self.root = root
        self.period_s = 1.0 / float(rate_hz)
        self.before = None
        self.peak = None
        self.n_samples = 0
        self._stop = threading.Event()
        self._thread = None
        self._t0 = None

    def _poll(self):
        used = system_used_bytes(self.root)
        if used is not None:
            self.n_samples += 1
            if self.peak is None or used > self.peak:
                self.peak = used
        return used

    def start(self):
        self.before = self._poll()
        self._t0 = _clock.now_ns()
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="edgeprof-memory-watch")
        self._thread.daemon = True
        self._thread.start()

    def _loop(self):
        while not self._stop.wait(self.period_s):
            self._poll()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        self._poll()
        return self.result()

    def result(self):
        total = meminfo(self.root).get("MemTotal")
        delta = (self.peak - self.before) if (self.peak is not None and self.before is not None) else None
        return {"before_bytes": self.before, "peak_bytes": self.peak, "peak_delta_bytes": delta,
                "total_bytes": total, "n_samples": self.n_samples, "method": METHOD}


def baseline_note(modules=None):
    """What this process holds when its RSS before load is read, in words: the interpreter and the agent's
    modules, and which runtimes (and numpy) are already imported (none, unless an earlier run of this session
    loaded one: facts never import them, environment.runtimes)."""
    import platform
    import sys

    from .environment import RUNTIME_MODULES

    modules = sys.modules if modules is None else modules
    held = [m for m in RUNTIME_MODULES if m in modules]
    return "Python %s and the agent's modules; runtimes imported before load: %s" % (
        platform.python_version(), ", ".join(held) if held else "none")


def gpu_memory(pid, index=None):
    """Bytes of GPU memory `pid` uses according to NVML on GPU `index` (the run's --gpu; None: summed over GPUs),
    or None (no NVML, not reported).

    NVML reports host PIDs: inside a container without --pid=host the agent's PID will not match.
    """
    return gpu_memory_read(pid, index)[0]


def gpu_memory_read(pid, index=None):
    """gpu_memory's reading with the reason when there is none: (bytes, None) or (None, why: NVML not there, its
    call failed, or it lists no memory for `pid`)."""
    nv, reason = _nvml.load()
    if nv is None:
        return None, reason
    try:
        used = _nvml.process_memory(nv, pid, index)
    except Exception as e:
        return None, "NVML: reading the processes' GPU memory failed: %s" % (str(e) or type(e).__name__)
    finally:
        _nvml.shutdown(nv)
    if used is None:
        return None, ("NVML lists no GPU memory for this process (pid %d)%s; in a container without --pid=host "
                      "NVML's PIDs are the host's" % (pid, " on GPU %d" % index if index is not None else ""))
    return used, None
