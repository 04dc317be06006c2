"""The measurement: load a model, warm up, run the timed loop of the run's scenario, collect raw samples.

Owns: the order of a run (thermal snapshot → cooldown → idle power → load → warm-up → timed loop → thermal snapshot →
op profile, accuracy pass and more sessions, if asked), the stop rule (BOTH min duration and min queries met, as
MLPerf LoadGen), progress events, and process memory around the run. Raw per-query latencies are returned in ns;
nothing is clipped. run_measurement runs one phase function after another (_cool_down, _idle_power, _load,
_load_streams, _warm_up, _measure, _collect_outputs, _profile_ops, accuracy_pass, sessions.run_more, _reply), handing
them one _Measurement; a backend is used only through its declared interface (backends/base.py).
The single-stream loop lives here; the other scenarios' loops in scenarios.py (chosen by run.scenario).
Does not own: statistics (the host computes them from the raw samples), sensors (power.py, thermal.py),
runtimes (backends/).
"""

import array
import os
import statistics
import sys
import time
import traceback

from . import gpus, memory, power, procinfo, sessions, thermal, watchdog
from .backends import get_backend
from .clock import CLOCK_NAME, now_ns
from .messages import (CooldownWait, Memory, OpsProfileReply, Output, PowerSummary, RunPhases, RunReply, RunWarning,
                       RuntimeInfo, ScenarioReply, SystemMemory, ThermalReply, ThermalSnapshot, Warmup)
from .protocol import OpError, received_ns, send_progress
from .vocab import PROGRESS_S, SINGLE_STREAM, ErrorKind

STEADY_WINDOW = 10  # warm-up is steady when the median of the last 10 is within 5 % of the 10 before
STEADY_MIN_WINDOW = 3  # ... or of the last k, fewer than 10 when 2 x 10 runs would not fit half the warm-up
STEADY_TOLERANCE = 0.05


def steady_window(warmup_s, first_s):
    """k, the runs in each of the two windows the steadiness rule compares: 10, or as many as let both windows
    fit in half of warmup_s at the first warm-up run's latency, at least STEADY_MIN_WINDOW (a model of 60 ms
    with --warmup 1 compares 4 with 4 instead of running out of time before 20 runs)."""
    if first_s <= 0:
        return STEADY_WINDOW
    return max(STEADY_MIN_WINDOW, min(STEADY_WINDOW, int(warmup_s / (4.0 * first_s))))


def log(msg):
    sys.stderr.write("edgeprof-agent: %s\n" % msg)
    sys.stderr.flush()


def warm_up(run, warmup_s, progress_interval_s=PROGRESS_S):
    """Run until latency is steady or warmup_s passes. Returns a messages.Warmup describing what happened."""
    if warmup_s <= 0:
        return Warmup(iterations=0, duration_s=0.0, steady=False, reason="warm-up disabled")
    lat = []
    start = now_ns()
    limit = start + int(warmup_s * 1e9)
    next_progress = start + int(progress_interval_s * 1e9)
    steady = False
    k = STEADY_WINDOW
    while True:
        t0 = now_ns()
        try:
            run()
        except OpError:
            raise
        except Exception as e:  # the runtime raised in an inference: the model's or the runtime's error
            raise runtime_error(e, first=not lat)
        t1 = now_ns()
        lat.append(t1 - t0)
        if len(lat) == 1:
            k = steady_window(warmup_s, lat[0] / 1e9)
        if len(lat) >= 2 * k:
            last = statistics.median(lat[-k:])
            prev = statistics.median(lat[-2 * k:-k])
            if prev > 0 and abs(last - prev) / float(prev) <= STEADY_TOLERANCE:
                steady = True
                break
        if t1 >= limit:
            break
        if t1 >= next_progress:
            send_progress("warmup", elapsed_s=round((t1 - start) / 1e9, 2),
                       total_s=warmup_s, n=len(lat))
            next_progress = t1 + int(progress_interval_s * 1e9)
    return Warmup(
        iterations=len(lat),
        duration_s=round((now_ns() - start) / 1e9, 3),
        steady=steady,
        reason="latency steady (median of last %d within %d %% of the %d before)" % (k, STEADY_TOLERANCE * 100, k)
        if steady else "warm-up time limit reached before latency was steady",
        last_ms=round(lat[-1] / 1e6, 4) if lat else None,
    )


def runtime_error(e, first):
    """An exception the runtime raised in an inference, as an error reply: at the first inference it is the
    model refusing the inputs fed (ErrorKind.MODEL_INPUT), later a failed run (RUN_FAILED)."""
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    if first:
        return OpError(ErrorKind.MODEL_INPUT, "the model rejected these inputs: %s" % text,
                       detail=traceback.format_exc())
    return OpError(ErrorKind.RUN_FAILED, "an inference failed during warm-up: %s" % text,
                   detail=traceback.format_exc())


def timed_loop(run, min_duration_s, min_queries, progress_interval_s=PROGRESS_S, max_queries=None, starts=None):
    """Single stream: the next query starts when the previous returns. Ends when BOTH limits are met
    (or when max_queries samples are held: reported in stopped_by). There is no time limit of its own: the
    host stops a run that goes silent (agentlink) and a sweep cell by its timeout_s. `starts`: a list that
    gets each query's start (outside the timed interval; watchdog.py places stalls with it).
    Returns (samples_ns, t_first_start, t_last_end, stopped_by)."""
    samples = []
    append = samples.append
    mark = starts.append if starts is not None else (lambda _t0: None)
    start = now_ns()
    min_end = start + int(min_duration_s * 1e9)
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
        mark(t0)
        if first is None:
            first = t0
            min_end = first + int(min_duration_s * 1e9)  # the window is measured from the first query's start
        if t1 >= min_end and len(samples) >= min_queries:
            break
        if len(samples) == cap:
            stopped_by = "max_queries reached before min_duration"
            break
        if t1 >= next_progress:
            send_progress("measure", elapsed_s=round((t1 - start) / 1e9, 2),
                       total_s=min_duration_s, n=len(samples), min_queries=min_queries,
                       last_ms=round(samples[-1] / 1e6, 4))
            next_progress = t1 + interval
    return samples, first, t1, stopped_by


def check_scenario(req):
    """OpError(BAD_REQUEST) for a scenario the loops cannot run (the host checks the same before sending)."""
    sc = req.scenario
    if sc is None or sc.name == SINGLE_STREAM:
        return
    if sc.name not in ("multi-stream", "server", "offline", "fixed-rate", "sustained"):
        raise OpError(ErrorKind.BAD_REQUEST, "unknown scenario %r" % sc.name,
                      hint="one of single-stream, multi-stream, server, offline, fixed-rate, sustained")
    w = sc.sustained_window_s
    if sc.name == "sustained" and not (w and 0 < w <= (sc.duration_s or w)):
        raise OpError(ErrorKind.BAD_REQUEST, "scenario sustained needs duration_s > 0 and 0 < window_s <= it")
    if sc.name in ("server", "fixed-rate") and not (sc.rate and sc.rate > 0):
        raise OpError(ErrorKind.BAD_REQUEST, "scenario %s needs a rate > 0 (queries per second)" % sc.name)
    if sc.streams < 1 or sc.samples_per_query < 1:
        raise OpError(ErrorKind.BAD_REQUEST, "scenario %s: streams and samples_per_query must be >= 1" % sc.name)


def run_scenario(req, backends, starts=None, root=None, tools=None):
    """The timed loop of req.scenario on the loaded backends (one; offline: one per stream). `starts`: a list
    that gets each sample's start on clock.now_ns. root/tools: the board the sustained scenario reads.
    Returns (samples_ns, t_first, t_last, stopped_by, ScenarioReply or None, inferences)."""
    sc = req.scenario
    run = backends[0].run
    if sc is None or sc.name == SINGLE_STREAM:
        samples, t_first, t_last, stopped_by = timed_loop(run, req.min_duration_s, req.min_queries,
                                                          max_queries=req.max_queries, starts=starts)
        return samples, t_first, t_last, stopped_by, None, len(samples) * req.batch
    from . import scenarios, windows  # imported by the runs that use them: a single-stream run's setup is shorter

    sustained = None
    if sc.name == "sustained":
        s, sustained = windows.sustained_loop(run, sc, root, tools, gpu_index=req.gpu)  # its duration rules: max_queries does not apply
        per_query = req.batch
    elif sc.name == "fixed-rate":
        n = scenarios.query_count(sc.rate, req.min_duration_s, req.min_queries, req.max_queries)
        period = int(round(1e9 / sc.rate))
        s = scenarios.scheduled_loop(run, sc.name, scenarios.fixed_rate_offsets(sc.rate, n), period_ns=period)
        per_query = req.batch
    elif sc.name == "server":
        offsets = scenarios.poisson_offsets(sc.rate, req.min_duration_s, req.min_queries, req.max_queries, sc.seed)
        s = scenarios.scheduled_loop(run, sc.name, offsets)
        per_query = req.batch
    elif sc.name == "multi-stream":
        runs = max(1, sc.samples_per_query // max(1, req.batch))
        s = scenarios.back_to_back_loop(run, sc.name, req.min_duration_s, req.min_queries, req.max_queries,
                                        runs_per_query=runs)
        s.mode = ("each query: %d sample(s) as %d run(s) of batch %d, the next query when it completes"
                  % (sc.samples_per_query, runs, req.batch))
        per_query = runs * req.batch
    else:  # offline
        s = scenarios.offline_loop([b.run for b in backends], req.min_duration_s, req.min_queries,
                                   req.max_queries)
        per_query = req.batch
    if starts is not None:
        starts.extend(s.t0 + i for i in s.issued)
    reply = ScenarioReply(
        name=sc.name, rate=sc.rate, samples_per_query=per_query, streams=len(backends), queries=s.queries,
        samples=s.queries * per_query, t0_ns=s.t0, scheduled_ns=s.scheduled, issued_ns=s.issued,
        misses=s.misses, mode=s.mode, seed=sc.seed if sc.name == "server" else None, sustained=sustained)
    return s.latencies, s.t0, s.t_end, s.stopped_by, reply, s.queries * per_query


def _encode_output(arr):
    import base64
    import numpy as np

    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return Output(shape=list(a.shape), dtype=str(a.dtype), b64=base64.b64encode(a.tobytes()).decode("ascii"))


def _in_workdir(workdir, path, what):
    """The real path of a pushed file named relative to the workdir; BAD_PATH when it leads outside."""
    real = os.path.realpath(os.path.join(workdir, path))
    if not (real + os.sep).startswith(os.path.realpath(workdir) + os.sep):
        raise OpError(ErrorKind.BAD_PATH, "%s %r is outside the agent's workdir" % (what, path))
    return real


def accuracy_pass(req, backend, workdir):
    """run.accuracy after the timed loop: a messages.AccuracyReply; a failure is its `error` (the run's
    measurement is kept), never the run's."""
    from . import accuracy
    from .inputs import _load_data
    from .messages import AccuracyReply

    spec = req.accuracy
    try:
        if spec.data.path is None:
            raise OpError(ErrorKind.BAD_INPUTS, "the accuracy request names no data file")
        data = _load_data(_in_workdir(workdir, spec.data.path, "accuracy data"))
        return accuracy.run_pass(backend, spec, data)
    except OpError as e:
        return AccuracyReply(error=e.message + ("; " + e.hint if e.hint else ""))
    except Exception as e:  # the runtime raised on a sample: the pass stops, the run stands
        log(traceback.format_exc())
        return AccuracyReply(error="the runtime failed on an accuracy sample: %s: %s" % (
            type(e).__name__, (str(e).strip().splitlines() or [""])[0]))


def _warn(warnings, code, message):
    warnings.append(RunWarning(code=code, message=message))


def run_measurement(req, workdir, root, tools, received=None):
    """One measurement: a messages.RunRequest in, a messages.RunReply out. root/tools: the hardware seam.
    `received`: when the request was read (clock.now_ns; protocol.received_ns() by default: None in a forked
    child), where the reply's phases start (setup_s: parsing it, importing this code, a child started for it);
    None: they start here and setup_s is None."""
    m = _Measurement(req, workdir, root, tools, received if received is not None else received_ns())
    saved = dict(os.environ)
    if req.gpu is not None:  # before the power probe and any runtime: both then use this GPU (gpus.py)
        m.gpu = gpus.choose(root, req.gpu)
        m.gpu["cuda_env"] = gpus.pin_cuda(m.gpu)
    try:
        return _phases(m, req, workdir)
    finally:
        if m.gpu is not None:  # the run's child ends here; a run served in this process leaves it as it was
            os.environ.clear()
            os.environ.update(saved)


def _phases(m, req, workdir):
    m.timed("cooldown_s", _cool_down)
    m.timed("idle_s", _idle_power)
    m.timed("load_s", _load)
    try:
        m.timed("streams_s", _load_streams)
        m.timed("warmup_s", _warm_up)
        m.timed("measure_s", _measure)
        m.timed("outputs_s", _collect_outputs)
        if req.profile_ops:  # after the timed loop and the power window
            m.ops = m.timed("profile_s", _profile_ops)
        if req.accuracy is not None:
            m.accuracy = m.timed("accuracy_s", lambda m: accuracy_pass(req, m.backend, workdir))
        if req.sessions > 1:  # after every pass of the measurement's own session
            m.sessions = m.timed("sessions_s", sessions.run_more)
    finally:
        if m.monitor is not None and m.monitor.sampler.running:  # the timed loop failed: stop sampling now
            m.monitor.sampler.stop()
        for b in m.backends:
            b.close()
    return _reply(m)


class _Measurement(object):
    """What the phases of one measurement hand each other, in the order run_measurement runs them."""

    def __init__(self, req, workdir, root, tools, received=None):
        self.req = req
        self.workdir = workdir
        self.root = root
        self.tools = tools
        self.runtime = req.runtime
        started = now_ns()
        self.phases = {}  # RunPhases field -> seconds (timed)
        self.started_ns = started
        if received is not None and received <= started:  # the phases start when the request was read
            self.started_ns = received
            self.phases["setup_s"] = round((started - received) / 1e9, 4)
        self.path = req.artifact.path if req.artifact is not None else None
        self.options = dict(req.runtime_options)
        if req.threads:
            self.options["threads"] = req.threads
        self.warnings = []  # [RunWarning]
        # _cool_down
        self.thermal_before = None
        self.cooled = None
        # _idle_power
        self.monitor = None  # power.PowerMonitor, None without power data
        self.power_reason = None
        # _load, _load_streams
        self.backend = None  # the one the warm-up, outputs, op profile and accuracy pass use
        self.backends = []  # offline: one per stream, backend first
        self.inputs = []
        self.load_s = None
        self.rss_before = None
        self.rss_after = None
        self.sys_watch = None
        self.peak_reset = False
        # _warm_up, _measure
        self.warm = None
        self.samples = None
        self.t_first = None
        self.t_last = None
        self.stopped_by = None
        self.scenario = None
        self.inferences = 0
        self.peak = None
        self.system_mem = None
        self.gpu_bytes = None
        self.baseline = None  # memory.baseline_note(), read with rss_before
        self.thermal_after = None
        # _collect_outputs, _profile_ops, accuracy_pass
        self.outputs = None
        self.output_shapes = None
        self.describe = None
        self.ops = None
        self.accuracy = self.sessions = None  # sessions.run_more: [SessionRun] of run.sessions > 1
        self.gpu = None  # gpus.choose's GPU when the request names one

    def warn(self, code, message):
        _warn(self.warnings, code, message)

    def timed(self, name, phase):
        return timed(self, name, phase)


def timed(m, name, phase):
    """phase(m), its seconds kept as m.phases[name] even when it raises (a run's and a generation's phases)."""
    t0 = now_ns()
    try:
        return phase(m)
    finally:
        m.phases[name] = round((now_ns() - t0) / 1e9, 4)


def _cool_down(m):
    """The thermal snapshot before, after waiting below req.cooldown_c when asked."""
    req = m.req
    try:
        m.thermal_before = thermal.snapshot(m.root, m.tools)
        cooldown = req.cooldown_c
        if cooldown:
            send_progress("cooldown", below_c=cooldown)
            cooled = m.cooled = thermal.wait_cool(m.root, m.tools, cooldown, req.cooldown_timeout_s, log)
            send_progress("cooled", below_c=cooldown, waited_s=round(cooled["waited_s"], 1), end_c=cooled["end_c"])
            if cooled["cooled"] is None:
                m.warn("cooldown_no_sensor", (
                    "--cooldown %g: no temperature sensor is readable on this device, so it did not wait"
                    % cooldown))
            elif not cooled["cooled"]:
                m.warn("cooldown_timeout", (
                    "--cooldown %g: still %.1f C after %.0f s; measured anyway. Raise --cooldown-timeout, "
                    "improve cooling, or choose a higher --cooldown" % (cooldown, cooled["end_c"],
                                                                        cooled["waited_s"])))
            m.thermal_before = thermal.snapshot(m.root, m.tools)
    except Exception as e:  # telemetry never breaks a measurement
        m.warn("thermal_error", "thermal snapshot failed: %s" % e)


def _idle_power(m):
    """The power monitor of req.power (None, with the reason, when there is none) and its idle baseline."""
    config = m.req.power
    if m.req.gpu is not None:  # NVML reads the run's GPU (a power block's own `device:` is the same or absent)
        config = dict(config.to_dict() if config is not None else {}, device=m.req.gpu)
    try:
        m.monitor = power.PowerMonitor.create(config, m.root, m.tools, log=log)
        if not m.monitor.available:
            m.power_reason = m.monitor.reason
            m.monitor = None
    except Exception as e:
        m.power_reason = "power probe failed: %s" % e
        m.monitor = None
    if m.monitor is not None and m.req.idle_s > 0:
        send_progress("idle", total_s=m.req.idle_s)
        m.monitor.measure_idle(m.req.idle_s)


# (RSS MB, note) read by the agent's standby child before it imported numpy ahead of its run (children.py):
# that run's memory baseline, taken once; None: the run reads its own
BASELINE = None


def _baseline():
    global BASELINE
    taken, BASELINE = BASELINE, None
    return taken if taken is not None else (procinfo.rss_mb(), memory.baseline_note())


def _load(m):
    """The backend: required (a missing runtime is reported before anything else), loaded with the run's inputs,
    with the process memory around the load."""
    req = m.req
    m.backend = get_backend(m.runtime, m.root, m.tools, m.workdir)  # runtime output -> workdir/runtime.log
    m.rss_before, m.baseline = _baseline()
    send_progress("load", runtime=m.runtime)
    m.backend.require()  # a missing runtime is reported before anything else is needed
    if m.runtime != "null":
        m.inputs = _make_inputs(req, m.workdir)
    check_scenario(req)
    sessions.check(req)
    t_load = now_ns()
    m.backend.load(m.path, m.inputs, m.options)
    m.load_s = (now_ns() - t_load) / 1e9
    m.backends = [m.backend]
    for w in m.backend.warnings:  # what the runtime said at load, in edgeprof's words
        m.warn(w["code"], w["message"])
    m.rss_after = procinfo.rss_mb()
    try:
        m.sys_watch = memory.SystemMemoryWatch(m.root)
    except Exception as e:
        m.warn("memory_watch", "system memory watch unavailable: %s" % e)
    m.peak_reset = procinfo.reset_peak()


def _make_inputs(req, workdir):
    """The run's input arrays [(name, array)]: req.input_data's file when pushed, else generated from req.seed."""
    data_path = None
    if req.input_data is not None and req.input_data.path:
        data_path = _in_workdir(workdir, req.input_data.path, "input data")
    try:
        from .inputs import make_inputs
        return make_inputs(req.inputs, req.seed, data_path)
    except ImportError as e:
        raise OpError(ErrorKind.RUNTIME_MISSING, "numpy is not importable on this device: %s" % e,
                      hint="install numpy for the device's python (pip3 install numpy)")


def _load_streams(m):
    """Offline: one more runtime session per stream beyond the first."""
    sc = m.req.scenario
    streams = sc.streams if sc is not None and sc.name == "offline" else 1
    for _ in range(streams - 1):
        extra = get_backend(m.runtime, m.root, m.tools, m.workdir)
        m.backends.append(extra)
        extra.load(m.path, m.inputs, m.options)


def _warm_up(m):
    send_progress("warmup", elapsed_s=0.0, total_s=m.req.warmup_s, n=0)
    m.warm = warm_up(m.backend.run, m.req.warmup_s)
    for extra in m.backends[1:]:
        warm_up(extra.run, min(m.req.warmup_s, 1.0))


def _measure(m):
    """The timed loop inside the power window and the system memory watch; memory and temperature after it."""
    req = m.req
    if m.monitor is not None:
        m.monitor.start()
    if m.sys_watch is not None:
        m.sys_watch.start()
    send_progress("measure", elapsed_s=0.0, total_s=req.min_duration_s, n=0, min_queries=req.min_queries)
    dog, starts = watchdog.Watchdog().start(), array.array("q")  # 8 bytes a query (sustained: millions)
    try:
        m.samples, m.t_first, m.t_last, m.stopped_by, m.scenario, m.inferences = run_scenario(
            req, m.backends, starts, m.root, m.tools)
    finally:
        stalls = dog.stop()
    for text in watchdog.stall_warnings(stalls, starts, m.samples, m.t_first):
        m.warn(watchdog.STALL_CODE, text)
    if m.monitor is not None:
        m.monitor.stop()
        if m.scenario is not None and m.scenario.sustained is not None:
            from . import windows

            windows.add_power(m.scenario.sustained, m.monitor, m.scenario.t0_ns)
    m.peak = procinfo.peak_rss_mb()
    m.system_mem = m.sys_watch.stop() if m.sys_watch is not None else None
    m.gpu_bytes = memory.gpu_memory(os.getpid(), m.req.gpu)
    if m.thermal_before is not None:  # the measurement's end, before the op profile and the accuracy pass
        try:
            m.thermal_after = thermal.snapshot(m.root, m.tools)
        except Exception as e:
            m.warn("thermal_error", "thermal snapshot failed: %s" % e)


def _collect_outputs(m):
    """The last query's outputs (as req.return_outputs asks), their shapes and dtypes, and the runtime's
    description."""
    req = m.req
    last = m.backend.outputs()  # once: on a GPU runtime each call copies the outputs to the host
    if req.return_outputs == "base64":  # compact, exact: raw little-endian bytes
        m.outputs = [_encode_output(o) for o in last]
    elif req.return_outputs:
        m.outputs = [Output(shape=list(o.shape), dtype=str(o.dtype), data=o.ravel().tolist()) for o in last]
    # the shape and dtype of each output of the last query (the I/O summary)
    m.output_shapes = [Output(shape=[int(d) for d in o.shape], dtype=str(o.dtype)) for o in last]
    m.describe = RuntimeInfo.from_dict(dict(m.backend.describe(), **({"gpu": m.gpu} if m.gpu else {})))


def _profile_ops(m):
    """The op profile pass (opprof.py): a runtime's failed profiler is a profile that says why, not an error."""
    from . import opprof

    send_progress("profile", runtime=m.runtime)
    try:
        return OpsProfileReply.from_dict(opprof.profile(m.runtime, m.backend, m.req.profile_iterations))
    except OpError as e:
        return OpsProfileReply(available=False, source=m.runtime, reason=e.message, iterations=0, nodes=[])


def _power_summary(m, window_s):
    """(power summary or None, the reason there is none); closes the probe."""
    if m.monitor is None:
        return None, m.power_reason
    summary, reason = None, m.power_reason
    try:
        summary = PowerSummary.from_dict(m.monitor.summary(m.t_first, m.t_last, m.inferences, window_s))
    except Exception as e:
        reason = "power summary failed: %s" % e
        log(traceback.format_exc())
    m.monitor.close()  # the probe's resources (NVML handle, jtop connection)
    return summary, reason


def _thermal_section(m):
    """{before, after[, cooldown]} with the warnings of their comparison, or None without both snapshots."""
    if m.thermal_before is None or m.thermal_after is None:
        return None
    section = None
    try:
        section = ThermalReply(before=ThermalSnapshot.from_dict(m.thermal_before),
                               after=ThermalSnapshot.from_dict(m.thermal_after),
                               cooldown=CooldownWait.from_dict(m.cooled) if m.cooled is not None else None)
        for w in thermal.compare(m.thermal_before, m.thermal_after):
            m.warn(w["code"], w["message"])
    except Exception as e:
        m.warn("thermal_error", "thermal snapshot failed: %s" % e)
    return section


def _reply(m):
    """The RunReply of a finished measurement."""
    window_s = (m.t_last - m.t_first) / 1e9
    power_summary, power_reason = _power_summary(m, window_s)
    thermal_section = _thermal_section(m)
    first_run_s = m.backend.first_run_s
    for w in {w["code"]: w for b in reversed(m.backends) for w in b.late_warnings}.values():  # after every pass,
        m.warn(w["code"], w["message"])  # what a backend changed after its load (an output's shape): once a kind
    return RunReply(
        clock=CLOCK_NAME,
        warnings=m.warnings,
        samples_ns=m.samples,
        t_first_ns=m.t_first,
        t_last_ns=m.t_last,
        window_s=window_s,
        stopped_by=m.stopped_by,
        warmup=m.warm,
        load_s=round(m.load_s, 4),
        first_run_ms=round(first_run_s * 1e3, 4) if first_run_s is not None else None,
        output_shapes=m.output_shapes,
        memory=Memory(
            rss_before_load=m.rss_before,
            rss_after_load=m.rss_after,
            peak_rss=m.peak,
            peak_source="VmHWM after reset at load end" if m.peak_reset else "VmHWM since process start",
            # system-wide used memory (MemTotal - MemAvailable) before/peak: on Jetson the GPU shares it
            system=SystemMemory.from_dict(m.system_mem) if m.system_mem is not None else None,
            gpu_process_bytes=m.gpu_bytes,
            baseline=m.baseline,
        ),
        runtime=m.describe,
        outputs=m.outputs,
        ops=m.ops,
        power=power_summary,
        power_reason=None if power_summary is not None else power_reason or "no power data",
        thermal=thermal_section,
        finished_at_unix=time.time(),
        scenario=m.scenario,
        accuracy=m.accuracy,
        phases=RunPhases(total_s=round((now_ns() - m.started_ns) / 1e9, 4), **m.phases),
        sessions=m.sessions,
    )
