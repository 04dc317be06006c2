"""The messages host and agent exchange, as records both sides import (protocol version 11).

Owns: one record class per op's request and reply (hello, facts, run, generate, ping, lease, renew, release,
lease_info, sha256, shutdown), the error reply and the events, with each field's type and default declared once (run
defaults come from vocab.RUN_DEFAULTS). `from_dict` is strict: a missing required field, an unknown field or a
value of the wrong type raises MessageError naming the field ("run.inputs[0].shape: expected a list, got str").
The agent answers such a request with ErrorKind.PROTOCOL; the host turns such a reply into a one-line AgentError.
The power configuration, power summary, thermal snapshots, the runtime's description and the op profile are
records too (protocol 5), and so are facts' runtimes (RuntimeFact by module name; same wire shape) and what
each probe reports inside a thermal snapshot (snapshots.py, re-exported here: ThermalReply, ThermalSnapshot,
CooldownWait and the probes' ThermalZone, CpuFreq, GpuFreq, FanState, NvpModel, JetsonClocks, RpiState, NvmlGpu;
same wire shape: absent values stay absent). Facts' power sources keep their probe's shape on
the wire; the host reads them through Facts.power_source_facts (PowerSourceFact records). The records a run's and a
generation's messages share (ArtifactRef, PowerConfig, PowerSummary, PowerTrace, RuntimeInfo, RunPhases,
RunWarning) live in payloads.py, the load scenario's (ScenarioSpec, ScenarioReply, SustainedReply,
SustainedWindow: a run's and a generation's scenario) in scenmessages.py, the generate op's (protocol 11: GenerateRequest, GenerateReply and its parts) in
genmessages.py; both are re-exported here, and OPS lists every op.
Does not own: the record machinery (record.py: Field, Record, strict from_dict), framing (protocol.py) or what the ops do (__main__.py, worker.py, lease.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

# REQUIRED, Field, MessageError and Record are imported from here by the host and the agent
from .record import PACKED_INT64, REQUIRED, Field, MessageError, Record, type_name
from .genmessages import (GenerateReply, GenerateRequest, GenGpuMemory, GenMemory, GenRepetition,  # noqa: F401
                          GenTokenWindow, GenWarmup, KvCache, PowerReadings)
from .payloads import (ArtifactRef, PowerConfig, PowerSummary, PowerTrace, RunPhases, RunWarning,  # noqa: F401
                       RuntimeInfo)
from .scenmessages import ScenarioReply, ScenarioSpec, SustainedReply, SustainedWindow  # noqa: F401
from .snapshots import (CooldownWait, CpuFreq, FanState, GpuFreq, JetsonClocks, NvmlGpu, NvpModel, RpiState,
                        RpiThrottled, ThermalReply, ThermalSnapshot, ThermalZone)
from .vocab import RUN_DEFAULTS

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
    execution providers; onnxruntime_genai: whether its build has CUDA, og.is_cuda_available(), None when not
    read: an agent before it, or a call that raised), or the error importing it gave. On the wire
    {version[, providers][, cuda]} or {error}."""

    NAME = "facts reply.runtimes{}"
    FIELDS = (Field("version", str, None), Field("providers", list, None, of=str), Field("error", str, None),
              Field("cuda", bool, None))

    def to_dict(self):
        if self.error is not None:
            return {"error": self.error}
        out = {"version": self.version}
        if self.providers is not None:
            out["providers"] = list(self.providers)
        if self.cuda is not None:
            out["cuda"] = self.cuda
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
class InputSpec(Record):
    """One model input the agent builds (inputs.py): concrete shape, dtype, and what feeds it: seeded values in
    [low, high), every element = `value`, or the array `data` of the run's input data file (run.input_data)."""

    NAME = "run.inputs[]"
    FIELDS = (Field("name", str), Field("shape", list, of=int), Field("dtype", str, "float32"),
              Field("low", _NUM, 0.0, nullable=True), Field("high", _NUM, 1.0, nullable=True),
              Field("value", (bool, int, float), None), Field("data", str, None))


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
        Field("sessions", int, RUN_DEFAULTS["sessions"]),  # >1: the model timed again in fresh sessions (sessions.py)
    )


class Warmup(Record):
    NAME = "run reply.warmup"
    FIELDS = (Field("iterations", int), Field("duration_s", _NUM), Field("steady", bool), Field("reason", str),
              Field("last_ms", _NUM, None))


class SessionRun(Record):
    """One more runtime session of a measurement (run.sessions > 1; sessions.py): the model loaded afresh, warmed
    up and timed by the single-stream loop as the measurement's own session was. `index`: 2 for the first of them
    (1 is the measurement's own, whose samples are the reply's samples_ns)."""

    NAME = "run reply.sessions[]"
    FIELDS = (Field("index", int), Field("load_s", _NUM), Field("warmup", dict, record=Warmup),
              Field("samples_ns", list, of=int, packed=PACKED_INT64), Field("t_first_ns", int),
              Field("t_last_ns", int), Field("stopped_by", str))


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


class OpsProfileReply(Record):
    """The per-op profile pass (opprof.py): `nodes` are [node name, op type, provider, total `unit` over the
    iterations (us when unit is None), calls]; `run_total_us` the profiled runs' own time; `op_counts` the graph's ops by type (a
    runtime without per-op times); `providers` the profiling session's."""

    NAME = "run reply.ops"
    OMIT_NONE = True
    FIELDS = (Field("available", bool), Field("source", str, None), Field("reason", str, None),
              Field("iterations", int, 0), Field("unit", str, None), Field("nodes", list, [], of=list),
              Field("run_total_us", _NUM, None), Field("op_counts", dict, None), Field("providers", list, None, of=str))


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
        Field("sessions", list, None, record=SessionRun, many=True),  # run.sessions > 1: sessions 2..N
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
    "generate": (GenerateRequest, GenerateReply),
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
