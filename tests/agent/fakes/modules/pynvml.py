"""Test double of nvidia-ml-py's `pynvml`: the real function, error and constant names, fake GPUs behind them.

Put this directory first on sys.path (and drop any cached `pynvml`) to use it. Configure with fake_reset():

    pynvml.fake_reset([pynvml.FakeGpu("Tesla T4", power_fn=lambda t: 30.0)], clock=fake_clock_seconds)

power_fn(t) gives watts at clock time t (seconds); the energy counter is its integral (energy_fn(t0, t1) when
given, else a fine midpoint sum), quantised to `energy_update_s` like the real 20-100 ms update. temp_c, sm_mhz,
mem_mhz and reasons are numbers, or functions of the same clock time t (a GPU driven to throttle: its SM clock
falls and SwThermalSlowdown rises at a known time). Calls before
nvmlInit raise NVMLError_Uninitialized, as the real library does; init/shutdown calls are counted.

In another process (an agent started over SSH), set EDGEPROF_FAKE_NVML to a JSON file read at import:
{"gpus": [{"name", "uuid", "bus_id", "temp_c", "reasons", "energy_update_s", "processes": [["self" | pid, bytes]],
"wave": {"base", "amp", "period", "phase"}, "sm_mhz", "throttle": {"file", "after_s", "sm_mhz", "reasons",
"temp_c"}}]}: power P(t) = base + amp*sin(2*pi*t/period + phase) W at time.perf_counter() t (CLOCK_MONOTONIC,
shared with the test process), its exact integral as the counter; "self" is the importing process's pid. With
"throttle", the GPU throttles after_s seconds after the test writes `file` (its mtime): from then on its SM
clock, reason bits and temperature are the throttle's (a sustained run over SSH sees the onset in a known window).

Two API generations, as in nvidia-ml-py's own pynvml.py (12.575.51 read for this double):
fake_reset(module_version=..., driver_version=...). A module from 12.535 on has
nvmlDeviceGetCurrentClocksEventReasons and its unversioned nvmlDeviceGetComputeRunningProcesses calls the `_v3`
symbol under `throwOnVersionMismatch` (NVMLLibraryMismatchError when the driver lacks it); an older module
(e.g. 11.495) has only ...ClocksThrottleReasons and calls `_v2`. A driver exports a symbol only from the release
that added it (`_nvmlGetFunctionPointer` raises NVMLError_FunctionNotFound otherwise): ClocksEventReasons from
R535, ComputeRunningProcesses_v3 from R510, _v2 from R450, ClocksThrottleReasons always.
"""

import json
import math
import os
import time

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_UNKNOWN = 999

NVML_TEMPERATURE_GPU = 0
NVML_CLOCK_GRAPHICS = 0
NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_CLOCK_VIDEO = 3

nvmlClocksEventReasonGpuIdle = 0x0000000000000001
nvmlClocksEventReasonApplicationsClocksSetting = 0x0000000000000002
nvmlClocksEventReasonSwPowerCap = 0x0000000000000004
nvmlClocksEventReasonHwSlowdown = 0x0000000000000008
nvmlClocksEventReasonSyncBoost = 0x0000000000000010
nvmlClocksEventReasonSwThermalSlowdown = 0x0000000000000020
nvmlClocksEventReasonHwThermalSlowdown = 0x0000000000000040
nvmlClocksEventReasonHwPowerBrakeSlowdown = 0x0000000000000080
nvmlClocksEventReasonDisplayClockSetting = 0x0000000000000100
nvmlClocksEventReasonNone = 0x0
nvmlClocksThrottleReasonGpuIdle = nvmlClocksEventReasonGpuIdle
nvmlClocksThrottleReasonSwPowerCap = nvmlClocksEventReasonSwPowerCap
nvmlClocksThrottleReasonHwSlowdown = nvmlClocksEventReasonHwSlowdown
nvmlClocksThrottleReasonSwThermalSlowdown = nvmlClocksEventReasonSwThermalSlowdown
nvmlClocksThrottleReasonHwThermalSlowdown = nvmlClocksEventReasonHwThermalSlowdown

_ERROR_STRINGS = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_INVALID_ARGUMENT: "Invalid Argument",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_NO_PERMISSION: "Insufficient Permissions",
    NVML_ERROR_NOT_FOUND: "Not Found",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}


def nvmlErrorString(result):
    return _ERROR_STRINGS.get(result, "Unknown Error")


class NVMLError(Exception):
    _subclasses = {}

    def __new__(cls, value):
        if cls is NVMLError and value in NVMLError._subclasses:
            cls = NVMLError._subclasses[value]
        obj = Exception.__new__(cls)
        obj.value = value
        return obj

    def __init__(self, value):
        Exception.__init__(self, value)
        self.value = value

    def __str__(self):
        return nvmlErrorString(self.value)


def _make_error(name, value):
    sub = type(name, (NVMLError,), {})
    NVMLError._subclasses[value] = sub
    return sub


NVMLError_Uninitialized = _make_error("NVMLError_Uninitialized", NVML_ERROR_UNINITIALIZED)
NVMLError_InvalidArgument = _make_error("NVMLError_InvalidArgument", NVML_ERROR_INVALID_ARGUMENT)
NVMLError_NotSupported = _make_error("NVMLError_NotSupported", NVML_ERROR_NOT_SUPPORTED)
NVMLError_NoPermission = _make_error("NVMLError_NoPermission", NVML_ERROR_NO_PERMISSION)
NVMLError_NotFound = _make_error("NVMLError_NotFound", NVML_ERROR_NOT_FOUND)
NVMLError_DriverNotLoaded = _make_error("NVMLError_DriverNotLoaded", NVML_ERROR_DRIVER_NOT_LOADED)
NVMLError_LibraryNotFound = _make_error("NVMLError_LibraryNotFound", NVML_ERROR_LIBRARY_NOT_FOUND)
NVMLError_FunctionNotFound = _make_error("NVMLError_FunctionNotFound", NVML_ERROR_FUNCTION_NOT_FOUND)


class NVMLLibraryMismatchError(Exception):
    pass


# the driver branch that first exports each symbol (a symbol not listed is in every driver we model)
SYMBOL_SINCE = {
    "nvmlDeviceGetCurrentClocksEventReasons": 535,
    "nvmlDeviceGetComputeRunningProcesses_v3": 510,
    "nvmlDeviceGetComputeRunningProcesses_v2": 450,
}
NEW_API_MODULE = (12, 535)  # the first nvidia-ml-py with ClocksEventReasons and `_v3` processes


class c_nvmlProcessInfo_t:
    def __init__(self, pid, usedGpuMemory):
        self.pid = pid
        self.usedGpuMemory = usedGpuMemory
        self.gpuInstanceId = 0xFFFFFFFF
        self.computeInstanceId = 0xFFFFFFFF


class c_nvmlPciInfo_t:
    """The fields of the real struct that callers read: busId / busIdLegacy are `c_char * N` arrays in pynvml.py,
    which ctypes hands back as bytes ("00000000:3B:00.0": NVML_DEVICE_PCI_BUS_ID_FMT, 8-digit domain)."""

    def __init__(self, bus_id):
        self.busId = bus_id.encode()
        self.busIdLegacy = bus_id[4:].encode()
        self.domain, rest = int(bus_id.split(":")[0], 16), bus_id.split(":", 1)[1]
        self.bus = int(rest.split(":")[0], 16)
        self.device = int(rest.split(":")[1].split(".")[0], 16)


class FakeGpu:
    def __init__(self, name="Tesla T4", power_fn=None, energy_fn=None, has_energy=True, temp_c=45,
                 sm_mhz=1590, mem_mhz=5000, reasons=0, processes=None, energy_update_s=0.0, power_supported=True,
                 uuid="GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70", bus_id="00000000:3B:00.0"):
        self.name = name
        self.uuid = uuid
        self.bus_id = bus_id
        self.power_fn = power_fn or (lambda t: 27.5)
        self.energy_fn = energy_fn
        self.has_energy = has_energy
        self.power_supported = power_supported
        self.temp_c = temp_c
        self.sm_mhz = sm_mhz
        self.mem_mhz = mem_mhz
        self.reasons = reasons
        self.processes = processes or []   # [(pid, bytes)]
        self.energy_update_s = energy_update_s
        self.energy_base_mj = 123456789


class _State:
    def __init__(self):
        self.gpus = [FakeGpu()]
        self.clock = time.perf_counter
        self.t_ref = self.clock()
        self.driver_loaded = True
        self.init_depth = 0
        self.init_calls = 0
        self.shutdown_calls = 0
        self.module_version = "12.575.51"
        self.driver_version = "535.183.01"


_state = _State()
_NEW_API = {}  # the functions only a module from NEW_API_MODULE on has (filled below)


def fake_reset(gpus=None, clock=None, driver_loaded=True, module_version="12.575.51", driver_version="535.183.01"):
    global _state
    _state = _State()
    _state.module_version = module_version
    _state.driver_version = driver_version
    new = tuple(int(x) for x in module_version.split(".")[:2]) >= NEW_API_MODULE
    for name, fn in _NEW_API.items():
        if new:
            globals()[name] = fn
        else:
            globals().pop(name, None)
    if gpus is not None:
        _state.gpus = list(gpus)
    if clock is not None:
        _state.clock = clock
    _state.t_ref = _state.clock()
    _state.driver_loaded = driver_loaded
    return _state


def fake_state():
    return _state


def _check():
    if _state.init_depth <= 0:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)


def _at(value):
    """A FakeGpu attribute now: a number, or a function of clock time."""
    return value(_state.clock()) if callable(value) else value


def _gpu(handle):
    _check()
    if not isinstance(handle, int) or not 0 <= handle < len(_state.gpus):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return _state.gpus[handle]


def nvmlInit():
    _state.init_calls += 1
    if not _state.driver_loaded:
        raise NVMLError(NVML_ERROR_DRIVER_NOT_LOADED)
    _state.init_depth += 1


def nvmlShutdown():
    _check()
    _state.shutdown_calls += 1
    _state.init_depth -= 1


def nvmlSystemGetDriverVersion():
    _check()
    return _state.driver_version


def _symbol(name):
    """What `_nvmlGetFunctionPointer` does: FunctionNotFound when this driver does not export `name`."""
    _check()
    if int(_state.driver_version.split(".")[0]) < SYMBOL_SINCE.get(name, 0):
        raise NVMLError(NVML_ERROR_FUNCTION_NOT_FOUND)


def nvmlDeviceGetCount():
    _check()
    return len(_state.gpus)


def nvmlDeviceGetHandleByIndex(index):
    _check()
    if not 0 <= index < len(_state.gpus):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return index


def nvmlDeviceGetName(handle):
    return _gpu(handle).name


def nvmlDeviceGetUUID(handle):
    """`@convertStrBytes` in pynvml.py: a str ("GPU-" and 36 characters) on Python 3."""
    return _gpu(handle).uuid


def nvmlDeviceGetPciInfo(handle):
    return c_nvmlPciInfo_t(_gpu(handle).bus_id)


def nvmlDeviceGetPowerUsage(handle):
    g = _gpu(handle)
    if not g.power_supported:
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
    return int(round(g.power_fn(_state.clock()) * 1000.0))


def _energy_j(g, t):
    """Energy since fake_reset(): energy_fn when given, else a midpoint sum of power_fn (<= 10000 steps)."""
    t_ref = _state.t_ref
    if g.energy_fn is not None:
        return g.energy_fn(t_ref, t)
    n = min(10000, max(1, int((t - t_ref) * 1000)))
    h = (t - t_ref) / n
    return sum(g.power_fn(t_ref + (i + 0.5) * h) for i in range(n)) * h


def nvmlDeviceGetTotalEnergyConsumption(handle):
    g = _gpu(handle)
    if not g.has_energy:
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
    t = _state.clock()
    if g.energy_update_s > 0:
        t = int(t / g.energy_update_s) * g.energy_update_s
    return g.energy_base_mj + int(_energy_j(g, t) * 1000.0)


def nvmlDeviceGetTemperature(handle, sensor):
    g = _gpu(handle)
    if sensor != NVML_TEMPERATURE_GPU:
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return int(_at(g.temp_c))


def nvmlDeviceGetClockInfo(handle, clock_type):
    g = _gpu(handle)
    if clock_type in (NVML_CLOCK_SM, NVML_CLOCK_GRAPHICS):
        return int(_at(g.sm_mhz))
    if clock_type == NVML_CLOCK_MEM:
        return int(_at(g.mem_mhz))
    raise NVMLError(NVML_ERROR_NOT_SUPPORTED)


def nvmlDeviceGetCurrentClocksEventReasons(handle):
    _symbol("nvmlDeviceGetCurrentClocksEventReasons")
    return int(_at(_gpu(handle).reasons))


def nvmlDeviceGetCurrentClocksThrottleReasons(handle):
    _symbol("nvmlDeviceGetCurrentClocksThrottleReasons")
    return int(_at(_gpu(handle).reasons))


def nvmlDeviceGetComputeRunningProcesses_v2(handle):
    _symbol("nvmlDeviceGetComputeRunningProcesses_v2")
    return [c_nvmlProcessInfo_t(os.getpid() if pid == "self" else pid, used) for pid, used in _gpu(handle).processes]


def nvmlDeviceGetComputeRunningProcesses_v3(handle):
    _symbol("nvmlDeviceGetComputeRunningProcesses_v3")
    return [c_nvmlProcessInfo_t(os.getpid() if pid == "self" else pid, used) for pid, used in _gpu(handle).processes]


def nvmlDeviceGetComputeRunningProcesses(handle):
    """The unversioned call: `_v3` under throwOnVersionMismatch on a new module, `_v2` on an old one."""
    if "nvmlDeviceGetComputeRunningProcesses_v3" not in globals():
        return nvmlDeviceGetComputeRunningProcesses_v2(handle)
    try:
        return nvmlDeviceGetComputeRunningProcesses_v3(handle)
    except NVMLError_FunctionNotFound:
        raise NVMLLibraryMismatchError("Unversioned function called and the pyNVML version does not match the "
                                       "NVML lib version. Either use matching pyNVML and NVML lib versions or use "
                                       "a versioned function such as nvmlDeviceGetComputeRunningProcesses_v2") from None


_NEW_API.update(nvmlDeviceGetCurrentClocksEventReasons=nvmlDeviceGetCurrentClocksEventReasons,
                nvmlDeviceGetComputeRunningProcesses_v3=nvmlDeviceGetComputeRunningProcesses_v3)


def _wave_fns(w):
    base, amp, period, phase = (float(w.get("base", 30.0)), float(w.get("amp", 0.0)), float(w.get("period", 1.0)),
                                float(w.get("phase", 0.0)))
    omega = 2 * math.pi / period

    def power(t):
        return base + amp * math.sin(omega * t + phase)

    def energy(t0, t1):
        return base * (t1 - t0) - amp / omega * (math.cos(omega * t1 + phase) - math.cos(omega * t0 + phase))
    return power, energy


def _throttled(state, th):
    """The GPU's temp_c / reasons / sm_mhz as functions: the throttle's values from after_s seconds after
    th["file"] was written, the state's before (and while the file does not exist)."""
    def since():
        try:
            return time.time() - os.stat(th["file"]).st_mtime
        except OSError:
            return None

    def pick(key):
        def value(_t):
            s = since()
            return th[key] if key in th and s is not None and s >= float(th.get("after_s", 0.0)) else state[key]
        return value
    return dict((key, pick(key)) for key in state)


def _from_env():
    path = os.environ.get("EDGEPROF_FAKE_NVML")
    if not path:
        return
    with open(path) as f:
        cfg = json.load(f)
    gpus = []
    for g in cfg.get("gpus") or [{}]:
        kw = {}
        if g.get("wave"):
            kw["power_fn"], kw["energy_fn"] = _wave_fns(g["wave"])
        procs = [("self" if pid == "self" else int(pid), int(used)) for pid, used in g.get("processes") or []]
        state = {"temp_c": g.get("temp_c", 45), "reasons": int(g.get("reasons", 0)), "sm_mhz": g.get("sm_mhz", 1590)}
        if g.get("throttle"):
            state = _throttled(state, g["throttle"])
        ident = {k: g[k] for k in ("uuid", "bus_id") if k in g}
        gpus.append(FakeGpu(name=g.get("name", "Tesla T4"), processes=procs, **ident,
                            energy_update_s=float(g.get("energy_update_s", 0.0)), **dict(state, **kw)))
    fake_reset(gpus, module_version=cfg.get("module_version", "12.575.51"),
               driver_version=cfg.get("driver_version", "535.183.01"))


_from_env()
