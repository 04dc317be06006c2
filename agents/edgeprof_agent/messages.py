"""The messages host and agent exchange, as records both sides import (protocol version 10).

Owns: one record class per op's request and reply (hello, facts, run, ping, lease, renew, release, lease_info,
sha256, shutdown), the error reply and the events, with each field's type and default declared once (run
defaults come from vocab.RUN_DEFAULTS). `from_dict` is strict: a missing required field, an unknown field or a
value of the wrong type raises MessageError naming the field ("run.inputs[0].shape: expected a list, got str").
The agent answers such a request with ErrorKind.PROTOCOL; the host turns such a reply into a one-line AgentError.
The power configuration, power summary, thermal snapshots, the runtime's description and the op profile are
records too (protocol 5), and so are facts' runtimes (RuntimeFact by module name; same wire shape) and what
each probe reports inside a thermal snapshot (snapshots.py, re-exported here: ThermalReply, ThermalSnapshot,
CooldownWait and the probes' ThermalZone, CpuFreq, GpuFreq, FanState, NvpModel, JetsonClocks, RpiState, NvmlGpu;
same wire shape: absent values stay absent). Facts' power sources keep their probe's shape on
the wire; the host reads them through Facts.power_source_facts (PowerSourceFact records).
Does not own: the record machinery (record.py: Field, Record, strict from_dict), framing (protocol.py) or what the ops do (__main__.py, worker.py, lease.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

# REQUIRED, Field, MessageError and Record are imported from here by the host and the agent
from .record import PACKED_INT64, REQUIRED, Field, MessageError, Record, type_name
from .snapshots import (CooldownWait, CpuFreq, FanState, GpuFreq, JetsonClocks, NvmlGpu, NvpModel, RpiState,
                        RpiThrottled, ThermalReply, ThermalSnapshot, ThermalZone)
from .vocab import POWER_SOURCES, RUN_DEFAULTS, SCENARIO_DEFAULTS

_NUM = (int, float)
_OPT_STR = (str,)


# ------------------------------------------------------------------------------------------------ hello
class HelloRequest(Record):
    NAME = "hello"
    FIELDS = (Field("protocol", int), Field("host", str, "edgeprof"))


class HelloReply(Record):
    NAME = "hello reply"
    FIELDS = (Field("agent_version", str), Field("protocol", int), Field("python", str), Field("pid", int),
              Field("workdir", str), Field("sysfs_root", str))


# ------------------------------------------------------------------------------------------------ facts
class FactsRequest(Record):
    NAME = "facts"
    FIELDS = (Field("runtimes", bool, True),)


class L4TRelease(Record):
    NAME = "facts.l4t"
    FIELDS = (Field("release", str), Field("raw", str))


class RuntimeFact(Record):
    """One runtime module in facts (environment.runtime_fact): the version it reports (onnxruntime: and its
    execution providers), or the error importing it gave. On the wire {version[, providers]} or {error}."""

    NAME = "facts reply.runtimes{}"
    FIELDS = (Field("version", str, None), Field("providers", list, None, of=str), Field("error", str, None))

    def to_dict(self):
        if self.error is not None:
            return {"error": self.error}
        out = {"version": self.version}
        if self.providers is not None:
            out["providers"] = list(self.providers)
        return out


class PowerSourceFact(Record):
    """One power source facts looked for (power.discover_all): available, with what its probe describes (the
    total rail and every rail, what it covers, how it measures), or not available, with the reason."""

    NAME = "facts reply.power_sources[]"
    FIELDS = (Field("source", str, None), Field("available", bool, None), Field("reason", str, None),
              Field("rail", str, None), Field("rails", list, None), Field("total_kind", str, None),
              Field("covers", str, None), Field("method", str, None), Field("max_rate_hz", _NUM, None),
              Field("detail", dict, None))


class Facts(Record):
    """The machine the agent runs on (environment.py); `runtimes` by module name (RuntimeFact). `env`,
    `power_sources` and each GPU entry keep their probe's shape (probe discovery lists)."""

    NAME = "facts reply"
    FIELDS = (
        Field("hostname", str), Field("arch", str), Field("cpu", str), Field("cores", int, None),
        Field("memory_mb", _NUM, None), Field("os", str), Field("kernel", str), Field("python", str),
        Field("python_executable", str), Field("l4t", dict, None, record=L4TRelease),
        Field("board_model", str, None), Field("agent_version", str), Field("protocol", int),
        Field("env", dict, {}), Field("workdir", str, None), Field("disk_free_mb", _NUM, None),
        Field("runtimes", dict, None, record=RuntimeFact, keyed=True), Field("gpus", list, None, of=dict),
        Field("gpus_error", str, None), Field("power_sources", (list, dict), None),
    )

    def runtime(self, module):
        """The RuntimeFact of one module (None when facts were read without runtimes, or do not list it)."""
        return (self.runtimes or {}).get(module)

    def power_source_facts(self):
        """power_sources (a probe's shape on the wire) as PowerSourceFact records, in discovery order; keys the
        record does not name are left out. A mapping (a discovery that failed as a whole: {"error": ...}) gives
        one record per key, named by it."""
        found = self.power_sources or []
        if isinstance(found, dict):
            found = [dict(v, source=k) if isinstance(v, dict) else {"source": k} for k, v in found.items()]
        names = PowerSourceFact._names()
        return [PowerSourceFact.from_dict(dict((k, v) for k, v in x.items() if k in names), PowerSourceFact.NAME)
                if isinstance(x, dict) else PowerSourceFact(source=str(x)) for x in found]


# ------------------------------------------------------------------------------------------------ run
class ArtifactRef(Record):
    NAME = "run.artifact"
    FIELDS = (Field("path", str, None), Field("format", str, None), Field("sha256", str, None))


class InputSpec(Record):
    """One model input the agent builds (inputs.py): concrete shape, dtype, and what feeds it: seeded values in
    [low, high), every element = `value`, or the array `data` of the run's input data file (run.input_data)."""

    NAME = "run.inputs[]"
    FIELDS = (Field("name", str), Field("shape", list, of=int), Field("dtype", str, "float32"),
              Field("low", _NUM, 0.0, nullable=True), Field("high", _NUM, 1.0, nullable=True),
              Field("value", (bool, int, float), None), Field("data", str, None))


class ScenarioSpec(Record):
    """The load scenario of a run (scenarios.py; vocab.SCENARIOS). `rate`: queries per second of server (Poisson
    mean) and fixed-rate (one every 1/rate s); `samples_per_query`: multi-stream; `streams`: offline queries in
    flight; `latency_bound_ms`: server validity (the host judges it; sent so the agent can log it); `seed`: the
    server's arrival generator."""

    NAME = "run.scenario"
    FIELDS = (Field("name", str), Field("rate", _NUM, None), Field("samples_per_query", int,
                                                                    SCENARIO_DEFAULTS["samples_per_query"]),
              Field("streams", int, SCENARIO_DEFAULTS["streams"]), Field("latency_bound_ms", _NUM, None),
              Field("seed", int, SCENARIO_DEFAULTS["seed"]), Field("duration_s", _NUM, None),
              Field("sustained_window_s", _NUM, SCENARIO_DEFAULTS["window_s"]))


class AccuracySpec(Record):
    """An accuracy pass after the timed loop (accuracy.py): every sample of `data` (a pushed .npz the host wrote)
    through the loaded model. `inputs`: the inputs fed from it (array `in:NAME`, samples along axis 0); the run's
    own arrays feed the others. `per_inference`: samples per inference (the batch fed; the last one is padded
    with the last sample). `stacked`: a sample is one row of the input's dim 0 (False: the whole input, one
    sample per inference). `topk_output`/`k`: return the top-k class indices of that output per sample;
    `expected`: output indices scored against arrays `expected:<index>` (per-sample errors)."""

    NAME = "run.accuracy"
    FIELDS = (Field("data", dict, record=ArtifactRef), Field("samples", int), Field("inputs", list, of=str),
              Field("per_inference", int, 1), Field("stacked", bool, True), Field("topk_output", int, None),
              Field("k", int, 5), Field("expected", list, [], of=int))


class PowerConfig(Record):
    """The devices.yaml `power:` block (docs/power.md), with --power-rate as its rate_hz: the host builds this
    record from the validated block and the agent's power.py reads it; from_dict is the one check of what crosses
    (types, a known source, W or mW, rate_hz and timeouts > 0). None fields are left out on the wire."""

    NAME = "run.power"
    OMIT_NONE = True
    FIELDS = (Field("source", str, None), Field("rail", str, None), Field("rate_hz", _NUM, None),
              Field("command", str, None), Field("unit", str, None), Field("covers", str, None),
              Field("device", int, None), Field("interval_s", _NUM, None), Field("hwmon", str, None),
              Field("timeout_s", _NUM, None))

    def __init__(self, **values):
        Record.__init__(self, **values)
        self._validate(self.NAME)

    @classmethod
    def from_dict(cls, data, where=None):
        obj = super(PowerConfig, cls).from_dict(data, where)
        obj._validate(where or cls.NAME)
        return obj

    def _validate(self, where):
        if self.source is not None and self.source not in POWER_SOURCES:
            raise MessageError(where + ".source", "%r is not one of %s" % (self.source, ", ".join(POWER_SOURCES)))
        if self.unit is not None and self.unit not in ("W", "mW"):
            raise MessageError(where + ".unit", "must be W or mW, not %r" % (self.unit,))
        for name in ("rate_hz", "timeout_s", "interval_s"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise MessageError("%s.%s" % (where, name), "must be > 0, got %r" % (v,))


class RunRequest(Record):
    """Everything the host sends for one measurement. Defaults: vocab.RUN_DEFAULTS (their one home)."""

    NAME = "run"
    FIELDS = (
        Field("runtime", str),
        Field("artifact", dict, None, record=ArtifactRef),
        Field("inputs", list, [], record=InputSpec, many=True),
        Field("input_data", dict, None, record=ArtifactRef),  # the pushed .npz that InputSpec.data names
        Field("seed", int, RUN_DEFAULTS["seed"]),
        Field("batch", int, RUN_DEFAULTS["batch"]),
        Field("threads", int, None),
        Field("runtime_options", dict, {}),
        Field("warmup_s", float, RUN_DEFAULTS["warmup_s"]),
        Field("min_duration_s", float, RUN_DEFAULTS["min_duration_s"]),
        Field("min_queries", int, RUN_DEFAULTS["min_queries"]),
        Field("max_queries", int, RUN_DEFAULTS["max_queries"], nullable=True),
        Field("power", dict, None, record=PowerConfig),  # the devices.yaml `power:` block; None = auto
        Field("idle_s", float, RUN_DEFAULTS["idle_s"]),
        Field("cooldown_c", float, None),
        Field("cooldown_timeout_s", float, RUN_DEFAULTS["cooldown_timeout_s"]),
        Field("return_outputs", (bool, str), False),  # False, True (JSON lists) or "base64"
        Field("profile_ops", bool, False),
        Field("profile_iterations", int, RUN_DEFAULTS["profile_iterations"]),
        Field("lease_token", str, None),  # the sweep's device lease (lab/lease.py); None = unleased deploy
        Field("scenario", dict, None, record=ScenarioSpec),  # None: single-stream
        Field("accuracy", dict, None, record=AccuracySpec),  # None: no accuracy pass
        Field("gpu", int, None),  # NVML's index of the GPU the run uses (gpus.py); None: as before, index 0
    )


class RunWarning(Record):
    NAME = "run reply.warnings[]"
    FIELDS = (Field("code", str), Field("message", str))


class Warmup(Record):
    NAME = "run reply.warmup"
    FIELDS = (Field("iterations", int), Field("duration_s", _NUM), Field("steady", bool), Field("reason", str),
              Field("last_ms", _NUM, None))


class SystemMemory(Record):
    """System-wide used memory (MemTotal - MemAvailable) sampled around the run (memory.SystemMemoryWatch), bytes."""

    NAME = "run reply.memory.system"
    FIELDS = (Field("before_bytes", int, None), Field("peak_bytes", int, None), Field("peak_delta_bytes", int, None),
              Field("total_bytes", int, None), Field("n_samples", int, None), Field("method", str, None))


class Memory(Record):
    """Process memory around the run (MB), the system-wide watch (memory.py) and GPU bytes of this process.
    `baseline`: what the process holds when rss_before_load is read (memory.baseline_note)."""

    NAME = "run reply.memory"
    FIELDS = (Field("rss_before_load", _NUM, None), Field("rss_after_load", _NUM, None),
              Field("peak_rss", _NUM, None), Field("peak_source", str),
              Field("system", dict, None, record=SystemMemory), Field("gpu_process_bytes", int, None),
              Field("baseline", str, None))


class Output(Record):
    """One output tensor of the last timed query: `b64` (raw little-endian bytes) or `data` (a flat list)."""

    NAME = "run reply.outputs[]"
    OMIT_NONE = True
    FIELDS = (Field("shape", list, of=int), Field("dtype", str), Field("b64", str, None), Field("data", list, None))


class SustainedWindow(Record):
    """One window of a sustained run (windows.py): [start_ns, end_ns) from the run's t0; its queries are
    samples_ns[first:first + count]. The board's state from the n_readings readings taken inside it (means, never
    interpolated): mean °C per zone and the hottest zone's mean, the CPUs' mean and lowest scaling_cur_freq (MHz),
    the GPU devfreq clock, the Raspberry Pi's get_throttled "now" bits seen in any reading (None: not read); mean
    power and energy from the n_power power readings inside it (None without a power source). NVML (protocol 8):
    from the n_nvml readings of the first NVIDIA GPU inside it, its mean board power (W), temperature (°C), SM and
    graphics clocks (MHz), and the clock event (throttle) reason bits seen in any of them (None: no NVML)."""

    NAME = "run reply.scenario.sustained.windows[]"
    FIELDS = (Field("index", int), Field("start_ns", int), Field("end_ns", int), Field("first", int),
              Field("count", int), Field("n_readings", int, 0), Field("zones_c", dict, {}),
              Field("temp_c", _NUM, None), Field("cpu_mhz", _NUM, None), Field("cpu_mhz_min", _NUM, None),
              Field("gpu_mhz", _NUM, None), Field("throttled", int, None), Field("mean_w", _NUM, None),
              Field("energy_j", _NUM, None), Field("n_power", int, 0), Field("n_nvml", int, 0),
              Field("nvml_w", _NUM, None), Field("nvml_temp_c", _NUM, None), Field("nvml_sm_mhz", _NUM, None),
              Field("nvml_graphics_mhz", _NUM, None), Field("nvml_reasons", int, None))


class SustainedReply(Record):
    """A sustained run's windows (windows.py): the duration and window asked, how often the board's state was
    read, failed reads, where throttle flags came from (None: no such reading here), the power source and the
    GPU NVML was read from (protocol 8; None: no NVML here)."""

    NAME = "run reply.scenario.sustained"
    FIELDS = (Field("duration_s", _NUM), Field("window_s", _NUM), Field("read_period_s", _NUM),
              Field("telemetry_errors", int, 0), Field("throttle_source", str, None),
              Field("power_source", str, None), Field("windows", list, [], record=SustainedWindow, many=True),
              Field("nvml_gpu", str, None))


class ScenarioReply(Record):
    """What a scenario's loop did (scenarios.py). Times are ns from `t0_ns` (the schedule's start, clock.now_ns):
    `scheduled_ns` when each query was due (empty for back-to-back scenarios), `issued_ns` when it started. The
    reply's samples_ns are each query's latency: from its scheduled time for server and fixed-rate, from its
    start otherwise. `misses`: fixed-rate queries not done before the next one was due. `samples`: inferences
    of all queries (queries x samples per query, or x batch). Lists are bounded by max_queries (sustained: by
    its duration). Protocol 10: scheduled_ns and issued_ns are packed on the wire, as the samples are."""

    NAME = "run reply.scenario"
    FIELDS = (Field("name", str), Field("rate", _NUM, None), Field("samples_per_query", int, 1),
              Field("streams", int, 1), Field("queries", int), Field("samples", int),
              Field("t0_ns", int), Field("scheduled_ns", list, [], of=int, packed=PACKED_INT64),
              Field("issued_ns", list, [], of=int, packed=PACKED_INT64),
              Field("misses", int, None), Field("mode", str), Field("seed", int, None),
              Field("sustained", dict, None, record=SustainedReply))


class OutputErrors(Record):
    """Per-sample errors of one output against the expected arrays: max and mean absolute error, mean squared
    error and cosine similarity, one number per sample (None where the output was not finite)."""

    NAME = "run reply.accuracy.errors[]"
    FIELDS = (Field("output", int), Field("max_abs", list, [], of=_NUM, nullable_items=True),
              Field("mean_abs", list, [], of=_NUM, nullable_items=True),
              Field("mse", list, [], of=_NUM, nullable_items=True),
              Field("cosine", list, [], of=_NUM, nullable_items=True))


class AccuracyReply(Record):
    """What the accuracy pass did: samples scored, inferences run, padding of the last one, its time; per sample
    the top-k class indices of the scored output (`classes`: its values per sample; [] where not finite) and/or
    the errors of each expected output; `nonfinite`: samples with a NaN or infinite output. `error`: why the pass
    stopped (the run's measurement is kept; the host stores no accuracy and says why)."""

    NAME = "run reply.accuracy"
    FIELDS = (Field("samples", int, 0), Field("inferences", int, 0), Field("padded", int, 0),
              Field("duration_s", _NUM, 0.0), Field("classes", int, None),
              Field("topk", list, [], of=list), Field("errors", list, [], record=OutputErrors, many=True),
              Field("nonfinite", int, 0), Field("error", str, None))


class RuntimeInfo(Record):
    """What the loaded backend says about itself (Backend.describe, backends/base.py): the runtime, its version,
    the providers (execution providers, delegates) in use and the options it ran with; onnxruntime also lists
    the providers available and its device, tflite the module it imported."""

    NAME = "run reply.runtime"
    OMIT_NONE = True
    FIELDS = (Field("runtime", str), Field("version", str, None), Field("providers", list, [], of=str),
              Field("options", dict, {}), Field("providers_available", list, None, of=str),
              Field("device", str, None), Field("module", str, None),
              Field("gpu", dict, None))  # the run's GPU when it named one: gpus.choose (index, name, uuid, bus)


class OpsProfileReply(Record):
    """The per-op profile pass (opprof.py): `nodes` are [node name, op type, provider, total `unit` over the
    iterations (us when unit is None), calls]; `run_total_us` the profiled runs' own time; `op_counts` the graph's ops by type (a
    runtime without per-op times); `providers` the profiling session's."""

    NAME = "run reply.ops"
    OMIT_NONE = True
    FIELDS = (Field("available", bool), Field("source", str, None), Field("reason", str, None),
              Field("iterations", int, 0), Field("unit", str, None), Field("nodes", list, [], of=list),
              Field("run_total_us", _NUM, None), Field("op_counts", dict, None), Field("providers", list, None, of=str))


class PowerTrace(Record):
    """Watts over time (seconds from the start of its window), downsampled (power.downsample)."""

    NAME = "run reply.power.trace"
    FIELDS = (Field("t_s", list, [], of=_NUM), Field("w", list, [], of=_NUM))


class PowerSummary(Record):
    """power.py's summary over exactly the timed window [t0_ns, t1_ns]: where it came from (source, rail, what
    the total is and covers, how it was integrated), the sampling, mean/p95/idle/dynamic W, energy and the
    derived figures, each rail's mean W (never summed onto the total), the traces, notes and warnings."""

    NAME = "run reply.power"
    FIELDS = (
        Field("source", str, None), Field("rail", str, None), Field("total_kind", str, None),
        Field("covers", str, None), Field("method", str, None), Field("rate_hz", _NUM, None),
        Field("rate_hz_requested", _NUM, None), Field("window_s", _NUM, None), Field("t0_ns", int, None),
        Field("t1_ns", int, None), Field("n_samples", int, None), Field("n_dropped_nonpositive", int, None),
        Field("n_read_errors", int, None), Field("mean_w", _NUM, None), Field("p95_w", _NUM, None),
        Field("idle_w", _NUM, None), Field("dynamic_w", _NUM, None), Field("energy_j", _NUM, None),
        Field("energy_mj_per_inference", _NUM, None), Field("inferences_per_joule", _NUM, None),
        Field("perf_per_watt", _NUM, None), Field("rails", dict, None),
        Field("trace", dict, None, record=PowerTrace), Field("idle_trace", dict, None, record=PowerTrace),
        Field("idle_note", str, None), Field("note", str, None), Field("warnings", list, [], of=str),
    )


class RunPhases(Record):
    """Seconds each phase of the measurement took on the device (clock.now_ns around each phase function of
    worker.run_measurement): the thermal snapshot before and the --cooldown wait (cooldown_s), the idle power
    baseline, the load (backend import and model load; the reply's load_s is the model load alone), the extra
    offline streams, the warm-up, the measure phase (the timed loop with the power window and memory/thermal
    reads around it; the reply's window_s is the timed window alone), the outputs and the runtime's
    description, the op profile and accuracy passes (None: not made), and `total_s` from the request's start
    to the reply being built. `setup_s` (protocol 9): from the
    request read off the agent's stdin to the measurement's start (parsing it, importing the measuring code,
    a child started for it), inside total_s; None where the agent could not tell (protocol <= 8, or a run's
    child handed no stamp of its request), whose total_s starts at the measurement's start."""

    NAME = "run reply.phases"
    FIELDS = (Field("cooldown_s", _NUM, 0.0), Field("idle_s", _NUM, 0.0), Field("load_s", _NUM, 0.0),
              Field("streams_s", _NUM, 0.0), Field("warmup_s", _NUM, 0.0), Field("measure_s", _NUM, 0.0),
              Field("outputs_s", _NUM, 0.0), Field("profile_s", _NUM, None), Field("accuracy_s", _NUM, None),
              Field("total_s", _NUM, 0.0), Field("setup_s", _NUM, None))


class RunReply(Record):
    NAME = "run reply"
    FIELDS = (
        Field("clock", str),
        Field("warnings", list, [], record=RunWarning, many=True),
        Field("samples_ns", list, of=int, packed=PACKED_INT64),  # packed on the wire (protocol 9; zlib: 10)
        Field("t_first_ns", int),
        Field("t_last_ns", int),
        Field("window_s", _NUM),
        Field("stopped_by", str),
        Field("warmup", dict, record=Warmup),
        Field("load_s", _NUM),
        Field("first_run_ms", _NUM, None),  # the first inference (inside load, outside the timed loop)
        Field("output_shapes", list, None, record=Output, many=True),  # shape and dtype of each output
        Field("memory", dict, record=Memory),
        Field("runtime", dict, record=RuntimeInfo),  # the backend's describe()
        Field("outputs", list, None, record=Output, many=True),
        Field("ops", dict, None, record=OpsProfileReply),  # opprof.py's per-op profile
        Field("power", dict, None, record=PowerSummary),  # power.py's summary
        Field("power_reason", str, None),
        Field("thermal", dict, None, record=ThermalReply),  # thermal.py snapshots
        Field("finished_at_unix", _NUM),
        Field("scenario", dict, None, record=ScenarioReply),  # None: an agent's single-stream loop
        Field("accuracy", dict, None, record=AccuracyReply),  # the accuracy pass (None: not asked)
        Field("phases", dict, None, record=RunPhases),  # seconds per phase (protocol 6; None: an older agent)
    )


# ------------------------------------------------------------------------------------------------ small ops
class Empty(Record):
    NAME = "request"
    FIELDS = ()


class PingRequest(Empty):
    NAME = "ping"


class PingReply(Record):
    NAME = "ping reply"
    FIELDS = (Field("pong", bool),)


class LeaseRequest(Record):
    NAME = "lease"
    FIELDS = (Field("holder", dict, {}), Field("ttl_s", _NUM, None))


class LeaseReply(Record):
    NAME = "lease reply"
    OMIT_NONE = True
    FIELDS = (Field("acquired", bool), Field("token", str, None), Field("holder", dict, None),
              Field("renewed", bool, None), Field("holder_text", str, None))


class RenewRequest(Record):
    NAME = "renew"
    FIELDS = (Field("token", str, None),)


class RenewReply(Record):
    NAME = "renew reply"
    OMIT_NONE = True
    FIELDS = (Field("held", bool), Field("token", str, None), Field("age_s", _NUM, None),
              Field("reason", str, None))


class ReleaseRequest(Empty):
    NAME = "release"


class ReleaseReply(Record):
    NAME = "release reply"
    FIELDS = (Field("released", bool),)


class LeaseInfoRequest(Empty):
    NAME = "lease_info"


class LeaseInfoReply(Record):
    NAME = "lease_info reply"
    FIELDS = (Field("holder", dict, None), Field("text", str))


class Sha256Request(Record):
    NAME = "sha256"
    FIELDS = (Field("path", str),)


class Sha256Reply(Record):
    NAME = "sha256 reply"
    FIELDS = (Field("sha256", str, None),)


class ShutdownRequest(Empty):
    NAME = "shutdown"


class ShutdownReply(Record):
    NAME = "shutdown reply"
    FIELDS = (Field("bye", bool),)


# ------------------------------------------------------------------------------------------------ errors, events
class ErrorReply(Record):
    """`error` of a failed reply. `type` is a vocab.ErrorKind constant; `protocol` is the agent's protocol
    version, sent with ErrorKind.PROTOCOL_MISMATCH so the host can say which side is older; `holder`, sent with
    ErrorKind.LEASED, who holds the device's lease and since when (lease.describe)."""

    NAME = "error reply"
    OMIT_NONE = True
    FIELDS = (Field("type", str), Field("message", str), Field("hint", str, None), Field("detail", str, None),
              Field("protocol", int, None), Field("holder", str, None))


class ProgressEvent(Record):
    """`{"event": "progress", "phase": ...}`: what the run is doing (phases: cooldown, cooled, idle, load,
    warmup, measure, profile, accuracy) with the numbers that phase has (accuracy: n samples done of total)."""

    NAME = "progress event"
    OMIT_NONE = True
    FIELDS = (Field("event", str), Field("phase", str), Field("elapsed_s", _NUM, None),
              Field("total_s", _NUM, None), Field("n", int, None), Field("min_queries", int, None),
              Field("last_ms", _NUM, None), Field("runtime", str, None), Field("below_c", _NUM, None),
              Field("waited_s", _NUM, None), Field("end_c", _NUM, None), Field("total", int, None),
              Field("window", int, None), Field("windows", int, None), Field("p50_ms", _NUM, None),
              Field("temp_c", _NUM, None), Field("cpu_mhz", _NUM, None))

    def __init__(self, **values):
        values.setdefault("event", "progress")
        Record.__init__(self, **values)


class LogEvent(Record):
    """`{"event": "log", "message": ...}`: a line the host shows (nothing sends one today but the UI shows it)."""

    NAME = "log event"
    OMIT_NONE = True
    FIELDS = (Field("event", str), Field("message", str), Field("level", str, None))


EVENTS = {"progress": ProgressEvent, "log": LogEvent}

# op -> (request record, reply record). The agent parses params with the first, the host replies with the second.
OPS = {
    "hello": (HelloRequest, HelloReply),
    "facts": (FactsRequest, Facts),
    "run": (RunRequest, RunReply),
    "ping": (PingRequest, PingReply),
    "lease": (LeaseRequest, LeaseReply),
    "renew": (RenewRequest, RenewReply),
    "release": (ReleaseRequest, ReleaseReply),
    "lease_info": (LeaseInfoRequest, LeaseInfoReply),
    "sha256": (Sha256Request, Sha256Reply),
    "shutdown": (ShutdownRequest, ShutdownReply),
}

# request record -> op
OP_OF = dict((req, op) for op, (req, _reply) in OPS.items())


def parse_event(data):
    """The record of an event line; MessageError for an unknown event or a malformed one."""
    if not isinstance(data, dict):
        raise MessageError("event", "expected an object, got %s" % type_name(data))
    cls = EVENTS.get(data["event"]) if isinstance(data.get("event"), str) else None
    if cls is None:
        raise MessageError("event", "unknown event %r" % (data.get("event"),))
    return cls.from_dict(data)
