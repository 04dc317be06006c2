"""The measurement: load a model, warm up, run the timed single-stream loop, collect raw samples.

Owns: the order of a run (thermal snapshot → cooldown → idle power → load → warm-up → timed loop → thermal
snapshot), the stop rule (BOTH min duration and min queries met, as MLPerf LoadGen), progress events, and
process memory around the run. Raw per-query latencies are returned in ns; nothing is clipped.
Does not own: statistics (the host computes them from the raw samples), sensors (power.py, thermal.py),
runtimes (backends/).
"""

import os
import sys
import time
import traceback

from . import procinfo
from .backends import get_backend
from .clock import CLOCK_NAME, now_ns
from .protocol import OpError, send_event

STEADY_WINDOW = 10  # warm-up is steady when the median of the last 10 is within 5 % of the 10 before
STEADY_TOLERANCE = 0.05


def log(msg):
    sys.stderr.write("edgeprof-agent: %s\n" % msg)
    sys.stderr.flush()


def _median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def _optional(module_name):
    """Import an optional agent module (power, thermal); None when it is not part of this agent build."""
    try:
        return __import__("edgeprof_agent." + module_name, fromlist=["x"])
    except ImportError:
        return None


def warm_up(run, warmup_s, progress_interval_s=0.5):
    """Run until latency is steady or warmup_s passes. Returns a dict describing what happened."""
    if warmup_s <= 0:
        return {"iterations": 0, "duration_s": 0.0, "steady": False, "reason": "warm-up disabled"}
    lat = []
    start = now_ns()
    limit = start + int(warmup_s * 1e9)
    next_progress = start + int(progress_interval_s * 1e9)
    steady = False
    while True:
        t0 = now_ns()
        run()
        t1 = now_ns()
        lat.append(t1 - t0)
        if len(lat) >= 2 * STEADY_WINDOW:
            last = _median(lat[-STEADY_WINDOW:])
            prev = _median(lat[-2 * STEADY_WINDOW:-STEADY_WINDOW])
            if prev > 0 and abs(last - prev) / float(prev) <= STEADY_TOLERANCE:
                steady = True
                break
        if t1 >= limit:
            break
        if t1 >= next_progress:
            send_event("progress", phase="warmup", elapsed_s=round((t1 - start) / 1e9, 2),
                       total_s=warmup_s, n=len(lat))
            next_progress = t1 + int(progress_interval_s * 1e9)
    return {
        "iterations": len(lat),
        "duration_s": round((now_ns() - start) / 1e9, 3),
        "steady": steady,
        "reason": "latency steady (median of last %d within %d %%)" % (STEADY_WINDOW, STEADY_TOLERANCE * 100)
        if steady else "warm-up time limit reached before latency was steady",
        "last_ms": round(lat[-1] / 1e6, 4) if lat else None,
    }


def timed_loop(run, min_duration_s, min_queries, max_duration_s=None, progress_interval_s=0.5,
               max_queries=None):
    """Single stream: the next query starts when the previous returns. Ends when BOTH limits are met
    (or max_duration_s passes, or max_queries samples are held: both reported).
    Returns (samples_ns, t_first_start, t_last_end, stopped_by)."""
    samples = []
    append = samples.append
    start = now_ns()
    min_end = start + int(min_duration_s * 1e9)
    hard_end = start + int(max_duration_s * 1e9) if max_duration_s else None
    interval = int(progress_interval_s * 1e9)
    next_progress = start + interval
    first = None
    cap = int(max_queries) if max_queries else -1
    stopped_by = "min_duration and min_queries met"
    t1 = start
    while True:
        t0 = now_ns()
        run()
        t1 = now_ns()
        append(t1 - t0)
        if first is None:
            first = t0
            min_end = first + int(min_duration_s * 1e9)  # the window is measured from the first query's start
        if t1 >= min_end and len(samples) >= min_queries:
            break
        if len(samples) == cap:
            stopped_by = "max_queries reached before min_duration"
            break
        if t1 >= next_progress:
            if hard_end is not None and t1 >= hard_end:
                stopped_by = "max_duration reached before min_queries"
                break
            send_event("progress", phase="measure", elapsed_s=round((t1 - start) / 1e9, 2),
                       total_s=min_duration_s, n=len(samples), min_queries=min_queries,
                       last_ms=round(samples[-1] / 1e6, 4))
            next_progress = t1 + interval
    return samples, first, t1, stopped_by


def _encode_output(arr):
    import base64
    import numpy as np

    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return {"shape": list(a.shape), "dtype": str(a.dtype), "b64": base64.b64encode(a.tobytes()).decode("ascii")}


def run_measurement(params, workdir, root=None, tools=None):
    runtime = params.get("runtime", "onnxruntime")
    artifact = params.get("artifact") or {}
    specs = params.get("inputs") or []
    seed = int(params.get("seed", 0))
    options = dict(params.get("runtime_options") or {})
    if params.get("threads"):
        options["threads"] = params["threads"]

    thermal = _optional("thermal")
    power = _optional("power")
    warnings = []
    result = {"clock": CLOCK_NAME, "warnings": warnings}

    thermal_before = None
    cooled = None
    if thermal is not None and root is not None:
        try:
            thermal_before = thermal.snapshot(root, tools)
            cooldown = params.get("cooldown_c")
            if cooldown:
                send_event("progress", phase="cooldown", below_c=cooldown)
                cooled = thermal.wait_cool(root, tools, float(cooldown),
                                           float(params.get("cooldown_timeout_s") or 600), log)
                send_event("progress", phase="cooled", below_c=cooldown, waited_s=round(cooled["waited_s"], 1),
                           end_c=cooled["end_c"])
                if cooled["cooled"] is None:
                    warnings.append({"code": "cooldown_no_sensor", "message": (
                        "--cooldown %g: no temperature sensor is readable on this device, so it did not wait"
                        % float(cooldown))})
                elif not cooled["cooled"]:
                    warnings.append({"code": "cooldown_timeout", "message": (
                        "--cooldown %g: still %.1f C after %.0f s; measured anyway. Raise --cooldown-timeout, "
                        "improve cooling, or choose a higher --cooldown" % (float(cooldown), cooled["end_c"],
                                                                            cooled["waited_s"]))})
                thermal_before = thermal.snapshot(root, tools)
        except Exception as e:  # telemetry never breaks a measurement
            warnings.append({"code": "thermal_error", "message": "thermal snapshot failed: %s" % e})

    monitor = None
    power_reason = "power telemetry is not part of this agent build"
    if power is not None and root is not None:
        try:
            monitor = power.PowerMonitor.create(params.get("power"), root, tools, log=log)
            if not monitor.available:
                power_reason = monitor.reason
                monitor = None
        except Exception as e:
            power_reason = "power probe failed: %s" % e
            monitor = None
    if monitor is not None:
        idle_s = float(params.get("idle_s", 3.0))
        if idle_s > 0:
            send_event("progress", phase="idle", total_s=idle_s)
            monitor.measure_idle(idle_s)

    backend = get_backend(runtime)
    if root is not None and hasattr(backend, "sysfs_root"):
        backend.sysfs_root = root.root  # hardware discovery under the injectable root (tensorrt: GPUs)
    if hasattr(backend, "workdir"):
        backend.workdir = workdir  # the runtime's own output goes to workdir/runtime.log (quiet.py)
    rss_before = procinfo.rss_mb()
    send_event("progress", phase="load", runtime=runtime)
    inputs = []
    require = getattr(backend, "require", None)
    if require is not None:
        require()  # a missing runtime is reported before anything else is needed
    if runtime != "null":
        try:
            from .inputs import make_inputs
            inputs = make_inputs(specs, seed)
        except ImportError as e:
            raise OpError("runtime_missing", "numpy is not importable on this device: %s" % e,
                          hint="install numpy for the device's python (pip3 install numpy)")
    t_load = now_ns()
    backend.load(artifact.get("path"), inputs, options)
    load_s = (now_ns() - t_load) / 1e9
    warnings.extend(getattr(backend, "warnings", None) or [])  # the runtime's load output, in edgeprof's words
    rss_after = procinfo.rss_mb()
    memory_mod = _optional("memory")
    sys_watch = None
    if memory_mod is not None and root is not None:
        try:
            sys_watch = memory_mod.SystemMemoryWatch(root)
        except Exception as e:
            warnings.append({"code": "memory_watch", "message": "system memory watch unavailable: %s" % e})
    peak_reset = procinfo.reset_peak()

    try:
        send_event("progress", phase="warmup", elapsed_s=0.0, total_s=float(params.get("warmup_s", 5.0)), n=0)
        warm = warm_up(backend.run, float(params.get("warmup_s", 5.0)))
        if monitor is not None:
            monitor.start()
        if sys_watch is not None:
            sys_watch.start()
        send_event("progress", phase="measure", elapsed_s=0.0, total_s=float(params.get("min_duration_s", 10.0)),
                   n=0, min_queries=int(params.get("min_queries", 100)))
        samples, t_first, t_last, stopped_by = timed_loop(
            backend.run, float(params.get("min_duration_s", 10.0)), int(params.get("min_queries", 100)),
            params.get("max_duration_s"), max_queries=params.get("max_queries"))
        if monitor is not None:
            monitor.stop()
        peak = procinfo.peak_rss_mb()
        system_mem = sys_watch.stop() if sys_watch is not None else None
        gpu_bytes = memory_mod.gpu_memory(os.getpid()) if memory_mod is not None else None
        outputs = None
        if params.get("return_outputs") == "base64":  # compact, exact: raw little-endian bytes
            outputs = [_encode_output(o) for o in backend.outputs()]
        elif params.get("return_outputs"):
            outputs = [{"shape": list(o.shape), "dtype": str(o.dtype), "data": o.ravel().tolist()}
                       for o in backend.outputs()]
        describe = backend.describe()
        ops = None
        if params.get("profile_ops"):  # a separate pass, after the timed loop and the power window
            from . import opprof
            send_event("progress", phase="profile", runtime=runtime)
            try:
                ops = opprof.profile(runtime, backend, artifact.get("path"), inputs, options,
                                     int(params.get("profile_iterations") or 20), workdir=workdir)
            except OpError as e:
                ops = {"available": False, "source": runtime, "reason": e.message, "iterations": 0, "nodes": []}
    finally:
        if monitor is not None and monitor.sampler.running:  # the timed loop failed: stop sampling now
            monitor.sampler.stop()
        backend.close()

    window_s = (t_last - t_first) / 1e9
    result.update({
        "samples_ns": samples,
        "t_first_ns": t_first,
        "t_last_ns": t_last,
        "window_s": window_s,
        "stopped_by": stopped_by,
        "warmup": warm,
        "load_s": round(load_s, 4),
        "memory": {
            "rss_before_load": rss_before,
            "rss_after_load": rss_after,
            "peak_rss": peak,
            "peak_source": "VmHWM after reset at load end" if peak_reset else "VmHWM since process start",
            # system-wide used memory (MemTotal - MemAvailable) before/peak: on Jetson the GPU shares it
            "system": system_mem,
            "gpu_process_bytes": gpu_bytes,
        },
        "runtime": describe,
        "outputs": outputs,
    })
    if ops is not None:
        result["ops"] = ops
    if monitor is not None:
        try:
            result["power"] = monitor.summary(t_first, t_last, len(samples) * int(params.get("batch", 1)),
                                              window_s)
        except Exception as e:
            result["power"] = None
            result["power_reason"] = "power summary failed: %s" % e
            log(traceback.format_exc())
        monitor.close()  # the probe's resources (NVML handle, jtop connection)
    else:
        result["power"] = None
        result["power_reason"] = power_reason
    if thermal is not None and root is not None and thermal_before is not None:
        try:
            after = thermal.snapshot(root, tools)
            result["thermal"] = {"before": thermal_before, "after": after}
            if cooled is not None:
                result["thermal"]["cooldown"] = cooled
            warnings.extend(thermal.compare(thermal_before, after))
        except Exception as e:
            warnings.append({"code": "thermal_error", "message": "thermal snapshot failed: %s" % e})
    else:
        result["thermal"] = None
    result["finished_at_unix"] = time.time()
    return result
