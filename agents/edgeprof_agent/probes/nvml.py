"""NVIDIA GPUs through NVML (nvidia-ml-py, module `pynvml`, imported lazily; never required).

Owns: the NVML power probe, the per-tick GPU reading of a sustained run (GpuTelemetry) and small NVML helpers
used by thermal.py and memory.py.
- Energy: nvmlDeviceGetTotalEnergyConsumption (mJ since driver load, Volta and newer) is a counter, so the
  window's energy is the counter difference (method "counter"); it updates every 20-100 ms, so it is exact
  only for windows much longer than that. Without it, nvmlDeviceGetPowerUsage (mW) is integrated.
- Power trace: nvmlDeviceGetPowerUsage each tick. Turing (T4) returns an instantaneous value; Ampere and newer
  (except GA100) return a 1-second average, so its p95 is smoothed there.
- Clock event (throttle) reasons decoded to names; per-process GPU memory.
It covers the GPU board (power rail of the card), not the host CPU, memory or power supply.
Does not own: CUDA contexts, clock changes (it never changes device state).
"""

import importlib

from . import Probe, ProbeError

SOURCE = "nvml"

# nvmlClocksEventReason* / nvmlClocksThrottleReason* bits.
CLOCK_REASONS = (
    (0x1, "GpuIdle"),
    (0x2, "ApplicationsClocksSetting"),
    (0x4, "SwPowerCap"),
    (0x8, "HwSlowdown"),
    (0x10, "SyncBoost"),
    (0x20, "SwThermalSlowdown"),
    (0x40, "HwThermalSlowdown"),
    (0x80, "HwPowerBrakeSlowdown"),
    (0x100, "DisplayClockSetting"),
)


def decode_clock_reasons(bits):
    return [name for bit, name in CLOCK_REASONS if bits & bit]


def load():
    """(pynvml module, None) after nvmlInit, or (None, reason). Callers pair it with nvmlShutdown."""
    try:
        nv = importlib.import_module("pynvml")
    except ImportError:
        return None, "NVML: python module pynvml (nvidia-ml-py) is not installed"
    try:
        nv.nvmlInit()
    except Exception as e:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
        return None, "NVML: nvmlInit failed (no NVIDIA driver?): %s" % _err(e)
    return nv, None


def shutdown(nv):
    try:
        nv.nvmlShutdown()
    except Exception:
        pass


def _err(e):
    return str(e) or type(e).__name__


def _milli(value):
    return value / 1000.0


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _function_not_found(nv, e):
    """True for the error a call raises when the driver lacks the symbol (NVMLError_FunctionNotFound), and for
    the NVMLLibraryMismatchError that nvidia-ml-py's unversioned wrappers turn it into."""
    if type(e).__name__ == "NVMLLibraryMismatchError":
        return True
    return getattr(e, "value", None) == getattr(nv, "NVML_ERROR_FUNCTION_NOT_FOUND", 13)


def clock_reasons(nv, handle):
    """Current clock event reason bits, or None when the driver does not report them.

    nvidia-ml-py from 12.535 has ...ClocksEventReasons, which raises NVMLError_FunctionNotFound on a driver older
    than R535: then the older name ...ClocksThrottleReasons (every driver has it) is asked; an older module has
    only that one."""
    for fn in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
        getter = getattr(nv, fn, None)
        if getter is not None:
            try:
                return int(getter(handle))
            except Exception as e:
                if _function_not_found(nv, e):
                    continue
                return None
    return None


def _compute_processes(nv, handle):
    """nvmlDeviceGetComputeRunningProcesses on both API generations: a new module calls the `_v3` symbol, which a
    driver older than R510 lacks (FunctionNotFound / NVMLLibraryMismatchError): then `_v2` is asked directly."""
    try:
        return nv.nvmlDeviceGetComputeRunningProcesses(handle)
    except Exception as e:
        v2 = getattr(nv, "nvmlDeviceGetComputeRunningProcesses_v2", None)
        if v2 is None or not _function_not_found(nv, e):
            raise
        return v2(handle)


def _answers(fields):
    """{key: conv(call(*args))} for each (key, call, args, conv) the GPU answers; one it does not is left out."""
    d = {}
    for key, call, args, conv in fields:
        try:
            d[key] = conv(call(*args))
        except Exception:
            pass
    return d


def device_state(nv):
    """Per-GPU temperature, clocks and clock reasons for thermal snapshots (absent values simply absent)."""
    out = []
    for i in range(nv.nvmlDeviceGetCount()):
        h = nv.nvmlDeviceGetHandleByIndex(i)
        d = {"index": i}
        d.update(_answers((
            ("name", nv.nvmlDeviceGetName, (h,), _text),
            ("temp_c", nv.nvmlDeviceGetTemperature, (h, nv.NVML_TEMPERATURE_GPU), float),
            ("sm_mhz", nv.nvmlDeviceGetClockInfo, (h, nv.NVML_CLOCK_SM), int),
            ("mem_mhz", nv.nvmlDeviceGetClockInfo, (h, nv.NVML_CLOCK_MEM), int),
            ("power_w", nv.nvmlDeviceGetPowerUsage, (h,), _milli))))
        bits = clock_reasons(nv, h)
        if bits is not None:
            d["clock_reasons_bits"] = bits
            d["clock_reasons"] = decode_clock_reasons(bits)
        out.append(d)
    return out


def process_memory(nv, pid, index=None):
    """Bytes of GPU memory used by `pid` on GPU `index` (None: summed over GPUs), or None when NVML does not
    report it."""
    total, seen = 0, False
    for i in range(nv.nvmlDeviceGetCount()) if index is None else (index,):
        h = nv.nvmlDeviceGetHandleByIndex(i)
        try:
            procs = _compute_processes(nv, h)
        except Exception:
            continue
        for p in procs:
            if int(p.pid) == int(pid):
                used = getattr(p, "usedGpuMemory", None)
                if used is not None:
                    total += int(used)
                    seen = True
    return total if seen else None


class GpuTelemetry(object):
    """One GPU's state read every tick of a sustained run's telemetry thread (windows.py): found once (open), then
    read(): {"w": board power (nvmlDeviceGetPowerUsage, mW -> W), "temp_c" (nvmlDeviceGetTemperature, GPU sensor),
    "sm_mhz" / "graphics_mhz" (nvmlDeviceGetClockInfo, NVML_CLOCK_SM / NVML_CLOCK_GRAPHICS), "reasons" (the clock
    event reason bits, clock_reasons)}; a value the GPU does not report is left out."""

    def __init__(self, nv, handle, name):
        self._nv, self._h, self.name = nv, handle, name

    @classmethod
    def open(cls, index=0):
        """The GPU `index` through NVML, or None (no pynvml, no driver, no such GPU). close() pairs nvmlInit."""
        nv, _reason = load()
        if nv is None:
            return None
        try:
            if nv.nvmlDeviceGetCount() <= index:
                shutdown(nv)
                return None
            h = nv.nvmlDeviceGetHandleByIndex(index)
            return cls(nv, h, _text(nv.nvmlDeviceGetName(h)))
        except Exception:
            shutdown(nv)
            return None

    def read(self):
        nv, h = self._nv, self._h
        d = _answers((
            ("w", nv.nvmlDeviceGetPowerUsage, (h,), _milli),
            ("temp_c", nv.nvmlDeviceGetTemperature, (h, nv.NVML_TEMPERATURE_GPU), float),
            ("sm_mhz", nv.nvmlDeviceGetClockInfo, (h, nv.NVML_CLOCK_SM), float),
            ("graphics_mhz", nv.nvmlDeviceGetClockInfo, (h, nv.NVML_CLOCK_GRAPHICS), float)))
        bits = clock_reasons(nv, h)
        if bits is not None:
            d["reasons"] = bits
        return d

    def close(self):
        if self._nv is not None:
            shutdown(self._nv)
            self._nv = None


class NvmlProbe(Probe):
    source = SOURCE
    total_kind = "device"
    max_rate_hz = 100.0
    counter_update_s = 0.1

    def __init__(self, nv, handle, index, name, has_counter):
        Probe.__init__(self)
        self._nv = nv
        self._h = handle
        self.method = "counter" if has_counter else "trapezoid"
        if not has_counter:
            self.counter_update_s = 0.0
        self.rail = "gpu%d" % index
        self.rails = (self.rail,)
        self.covers = "GPU board power of %s (NVML), not the host CPU, memory or power supply" % name
        self.detail = {"gpu": name, "index": index,
                       "energy": "nvmlDeviceGetTotalEnergyConsumption (mJ counter)" if has_counter
                       else "integrated nvmlDeviceGetPowerUsage"}
        self._e0 = nv.nvmlDeviceGetTotalEnergyConsumption(handle) if has_counter else 0

    def read(self):
        nv, h = self._nv, self._h
        try:
            w = nv.nvmlDeviceGetPowerUsage(h) / 1000.0
            if self.method == "counter":
                j = (nv.nvmlDeviceGetTotalEnergyConsumption(h) - self._e0) / 1000.0
                return j, (j,), w
        except nv.NVMLError as e:
            raise ProbeError("NVML read failed: %s" % _err(e)) from None
        return w, (w,), None

    def close(self):
        if self._nv is not None:
            shutdown(self._nv)
            self._nv = None


def discover(root, tools, config):
    config = config or {}
    nv, reason = load()
    if nv is None:
        return None, reason
    try:
        count = nv.nvmlDeviceGetCount()
        index = int(config.get("device", 0))
        if count < 1 or index >= count:
            shutdown(nv)
            return None, "NVML: %d GPU(s), asked for device %d" % (count, index)
        h = nv.nvmlDeviceGetHandleByIndex(index)
        name = _text(nv.nvmlDeviceGetName(h))
        try:
            nv.nvmlDeviceGetPowerUsage(h)
        except nv.NVMLError as e:
            shutdown(nv)
            return None, "NVML: %s does not report power: %s" % (name, _err(e))
        has_counter = True
        try:
            nv.nvmlDeviceGetTotalEnergyConsumption(h)
        except nv.NVMLError:
            has_counter = False  # pre-Volta: integrate power instead
        return NvmlProbe(nv, h, index, name, has_counter), None
    except Exception as e:
        shutdown(nv)
        return None, "NVML: %s" % _err(e)
