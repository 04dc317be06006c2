"""One generation measurement: the `generate` op (protocol 11), measured in a child of the serving agent as a run
is (children.py).

Owns: the order of a generation measurement (the GPU a request names pinned, as a run's is (gpus.py) → runtime
required and counts checked → thermal snapshot → cooldown → idle power → load and the timed loop with the power
sampler around it → thermal snapshot), the options handed to the backend (threads, use_mmap and extra_buffers from
their fields, the rest from runtime_options; one given twice is refused; onnxruntime-genai's CUDA device_id 0 when
a GPU was pinned), and the GenerateReply: the loop's raw figures as records, the power summary over the measured
span, every power reading on the loop's clock (so the host cuts the prefill and decode windows), the process's GPU
memory when the model ran on CUDA (NVML, after the load and after the last token: _AroundTheLoop), thermal
snapshots, phases. The thermal snapshot and cooldown, and their comparison, are worker.py's phases, shared.
Does not own: timing tokens (generation/loop.py), the runtimes (generation/*.py), sensors (power.py, thermal.py),
statistics and energy per phase (the host: edgeprof/generative/stats.py).
Python 3.6-safe, standard library only here.
"""

import os
import time

from . import gpus, memory, power, thermal, windows, worker
from .clock import CLOCK_NAME, now_ns
from .messages import (GenerateReply, GenGpuMemory, GenMemory, GenRepetition, GenTokenWindow, GenWarmup, KvCache,
                       PowerReadings, PowerSummary, RunPhases, RuntimeInfo, RunWarning, ScenarioReply)
from .protocol import OpError, received_ns, send_progress
from .vocab import ErrorKind

OPTION_FIELDS = ("threads", "use_mmap", "extra_buffers")  # request fields that are backend options


class _Generation(object):
    """What the phases of one generation measurement hand each other (the attributes worker._cool_down and
    worker._thermal_section read and set)."""

    def __init__(self, req, workdir, root, tools, started_ns):
        self.req = req
        self.workdir = workdir
        self.root = root
        self.tools = tools
        self.started_ns = started_ns
        self.phases = {}
        self.warnings = []
        self.thermal_before = None
        self.thermal_after = None
        self.cooled = None
        self.monitor = None
        self.power_reason = None
        self.gpu = None  # gpus.choose's GPU when the request names one (req.gpu), with the CUDA variables pinned

    def warn(self, code, message):
        self.warnings.append(RunWarning(code=code, message=message))


def options_of(req):
    """The backend's options: runtime_options, with threads, use_mmap and extra_buffers added where set."""
    opts = dict(req.runtime_options)
    for name in OPTION_FIELDS:
        value = getattr(req, name)
        if value is None:
            continue
        if name in opts:
            raise OpError(ErrorKind.BAD_REQUEST, "generate: %s is given twice, as a field and in runtime_options"
                          % name, hint="give it once, as the field")
        opts[name] = value
    return opts


def model_path(req, workdir):
    """The model's path (relative: in the workdir); LOAD_FAILED when nothing is there."""
    path = req.artifact.path
    if not path:
        raise OpError(ErrorKind.BAD_REQUEST, "generate: artifact.path names no model")
    real = path if os.path.isabs(path) else os.path.join(workdir, path)
    if not os.path.exists(real):
        raise OpError(ErrorKind.LOAD_FAILED, "generate: no model at %s" % real,
                      hint="push the model (a GGUF file or an onnxruntime-genai folder) before asking for it")
    return real


def run_generate(req, workdir, root, tools, received=None):
    """One generation measurement: a messages.GenerateRequest in, a messages.GenerateReply out. With req.gpu,
    CUDA is pinned to that GPU (gpus.choose: one BAD_REQUEST line for a GPU this machine has not; gpus.pin_cuda)
    before the runtime is imported, as a run's is (worker.run_measurement), and the environment restored after."""
    received = received if received is not None else received_ns()
    started = now_ns()
    m = _Generation(req, workdir, root, tools, started)
    if received is not None and received <= started:
        m.started_ns = received
        m.phases["setup_s"] = round((started - received) / 1e9, 4)
    saved = dict(os.environ)
    if req.gpu is not None:  # before the runtime is imported: CUDA then sees this GPU alone, as its device 0
        m.gpu = gpus.choose(root, req.gpu)
        m.gpu["cuda_env"] = gpus.pin_cuda(m.gpu)
    try:
        return _generate(m)
    finally:
        if m.gpu is not None:  # the generation's child ends here; one served in this process leaves it as it was
            os.environ.clear()
            os.environ.update(saved)


def _generate(m):
    from .generation import get_generation_backend
    from .generation.loop import check_counts, check_scenario, run_generation

    req, workdir, root, tools = m.req, m.workdir, m.root, m.tools
    backend = get_generation_backend(req.runtime)  # an unknown runtime, a missing one, a bad count or option:
    backend.require()  # refused before any waiting
    check_counts(req.prompt_tokens, req.gen_tokens, req.depth, req.repetitions)
    check_scenario(req.scenario, req.depth)
    options = options_of(req)
    if m.gpu is not None and options.get("provider") == "cuda":  # the pinned GPU is CUDA's device 0 here
        options["device_id"] = 0
    backend.check_options(options)  # e.g. onnxruntime-genai's CUDA on a build without it: before any waiting
    path = model_path(req, workdir)
    worker.timed(m, "cooldown_s", worker._cool_down)
    worker.timed(m, "idle_s", _idle_power)
    send_progress("load", runtime=req.runtime)

    def progress(phase, done, total):
        send_progress(phase, n=done, total=total)

    t0 = now_ns()
    around = _AroundTheLoop(m.monitor, backend, req.gpu)
    try:
        raw = run_generation(req.runtime, path, req.prompt_tokens, req.gen_tokens, depth=req.depth,
                             repetitions=req.repetitions, warmup=req.warmup, seed=req.seed, options=options,
                             backend=backend, around=around, progress=progress, scenario=req.scenario,
                             schedule={"min_duration_s": req.min_duration_s, "min_queries": req.min_queries,
                                       "max_queries": req.max_queries, "gpu_index": req.gpu}, root=root,
                             tools=tools)
    except OpError:
        raise
    except Exception as e:  # the runtime raised while generating: the run failed, not the agent
        text = (str(e).strip().splitlines() or [type(e).__name__])[0]
        import traceback
        raise OpError(ErrorKind.RUN_FAILED, "%s failed while generating: %s" % (req.runtime, text),
                      detail=traceback.format_exc())
    finally:
        if m.monitor is not None and m.monitor.sampler.running:
            m.monitor.sampler.stop()
    raw["memory"].update(around.gpu_memory(req.runtime))
    m.phases["load_s"] = round(raw["load_ns"] / 1e9, 4)
    m.phases["measure_s"] = round((now_ns() - t0 - raw["load_ns"]) / 1e9, 4)
    if m.thermal_before is not None:
        try:
            m.thermal_after = thermal.snapshot(root, tools)
        except Exception as e:
            m.warn("thermal_error", "thermal snapshot failed: %s" % e)
    return _reply(m, raw)


class _AroundTheLoop(object):
    """What loop.run_generation calls after the load (start) and after the last token (stop): the power monitor
    (None: no power source) started and stopped, and, when the loaded model runs on CUDA (backend.device()), this
    process's GPU memory read through NVML (memory.gpu_memory_read, on the request's GPU, else summed over every
    GPU) right after the load, before the monitor starts, and after the last token, once the monitor stopped. The
    forward pass reads it once after its timed loop (worker._measure); neither samples it in between."""

    def __init__(self, monitor, backend, gpu_index):
        self.monitor = monitor
        self.backend = backend
        self.gpu_index = gpu_index
        self.device = None
        self.readings = {}  # "after_load" / "end" -> (bytes, reason)

    def _read(self, when):
        if self.device is not None and self.device.upper() == "CUDA":
            self.readings[when] = memory.gpu_memory_read(os.getpid(), self.gpu_index)

    def start(self):
        self.device = self.backend.device()
        self._read("after_load")
        if self.monitor is not None:
            self.monitor.start()

    def stop(self):
        if self.monitor is not None:
            self.monitor.stop()
        self._read("end")

    def gpu_memory(self, runtime):
        """GenMemory's gpu (a GenGpuMemory's fields) and gpu_reason."""
        if self.device is None or self.device.upper() != "CUDA":
            where = "the CPU" if self.device in (None, "CPU") else "%s (not CUDA)" % self.device
            return {"gpu": None, "gpu_reason": "not read: %s ran on %s" % (runtime, where)}
        after, why = self.readings.get("after_load", (None, None))
        end, why_end = self.readings.get("end", (None, None))
        if after is None and end is None:
            return {"gpu": None, "gpu_reason": "not read: %s" % (why_end or why or "no reading")}
        on = ("GPU %d (the request's gpu)" % self.gpu_index if self.gpu_index is not None else
              "every GPU, summed (the request named none)")
        return {"gpu": GenGpuMemory(
            after_load_bytes=after, end_bytes=end, gpu=self.gpu_index,
            source="NVML nvmlDeviceGetComputeRunningProcesses: this process's usedGpuMemory on %s, read after the "
                   "load and after the last token (not sampled in between)" % on), "gpu_reason": None}


def _idle_power(m):
    """The power monitor of req.power (None, with the reason, when there is none) and its idle baseline; NVML
    reads the request's GPU when it names one (as a run's _idle_power)."""
    config = m.req.power
    if m.req.gpu is not None:
        config = dict(config.to_dict() if config is not None else {}, device=m.req.gpu)
    try:
        m.monitor = power.PowerMonitor.create(config, m.root, m.tools, log=worker.log)
        if not m.monitor.available:
            m.power_reason = m.monitor.reason
            m.monitor = None
    except Exception as e:
        m.power_reason = "power probe failed: %s" % e
        m.monitor = None
    if m.monitor is not None and m.req.idle_s > 0:
        send_progress("idle", total_s=m.req.idle_s)
        m.monitor.measure_idle(m.req.idle_s)


def _power(m, raw):
    """(PowerSummary over the measured span, PowerReadings, reason); closes the probe."""
    if m.monitor is None:
        return None, None, m.power_reason or "no power data"
    reps = raw["repetitions"]
    t0, t1 = reps[0]["t_prefill_start_ns"], reps[-1]["t_end_ns"]
    sched = raw.get("schedule")
    if sched is not None:  # a scenario's duty cycle: the schedule's start to its end (a server's idle gaps in it)
        t0, t1 = sched.t0, sched.t_end
    summary = readings = None
    reason = None
    try:
        if raw.get("sustained") is not None:  # each window's mean power from the readings inside it
            windows.add_power(raw["sustained"], m.monitor, sched.t0)
        s = m.monitor.summary(t0, t1, 0)  # no inferences: the per-inference figures stay null
        summary = PowerSummary.from_dict(s)
        ts, ws = m.monitor.readings()
        readings = PowerReadings(t_ns=[int(t) for t in ts], w=[float(w) for w in ws], source=s["source"],
                                 method=s["method"], rate_hz=m.monitor.rate_hz)
    except Exception as e:
        import traceback
        worker.log(traceback.format_exc())
        reason = "power summary failed: %s" % e
    m.monitor.close()
    return summary, readings, reason


def _reply(m, raw):
    summary, readings, reason = _power(m, raw)
    thermal_section = worker._thermal_section(m)
    described = dict(raw["runtime"])
    runtime = RuntimeInfo(runtime=described.pop("runtime"), version=described.pop("version", None),
                          options=described, gpu=m.gpu)
    m.phases["total_s"] = round((now_ns() - m.started_ns) / 1e9, 4)
    return GenerateReply(
        clock=raw["clock"] if raw.get("clock") else CLOCK_NAME,
        warnings=m.warnings,
        runtime=runtime,
        precision=m.req.precision,
        prompt_tokens=raw["prompt_tokens"], gen_tokens=raw["gen_tokens"], depth=raw["depth"], n_ctx=raw["n_ctx"],
        seed=raw["seed"], sampling=raw["sampling"], ids=raw["ids"],
        repetitions=[GenRepetition(**r) for r in raw["repetitions"]],
        warmup=GenWarmup(**raw["warmup"]) if raw["warmup"] is not None else None,
        load_ns=raw["load_ns"],
        memory=GenMemory(**raw["memory"]),
        kv_cache=KvCache(**raw["kv_cache"]),
        power=summary,
        power_readings=readings,
        power_reason=None if summary is not None else reason,
        thermal=thermal_section,
        phases=RunPhases(**m.phases),
        finished_at_unix=time.time(),
        scenario=_scenario(m.req, raw),
        token_windows=[GenTokenWindow(**w) for w in raw.get("token_windows") or []],
    )


def _scenario(req, raw):
    """What the scenario's loop did (messages.ScenarioReply), None for single-stream."""
    s = raw.get("schedule")
    if s is None:
        return None
    return ScenarioReply(name=s.name, rate=req.scenario.rate, queries=s.queries, samples=s.queries, t0_ns=s.t0,
                         scheduled_ns=list(s.scheduled), issued_ns=list(s.issued), misses=s.misses, mode=s.mode,
                         seed=req.scenario.seed if s.name == "server" else None, sustained=raw.get("sustained"))
