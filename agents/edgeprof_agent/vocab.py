"""The words host and agent share: runtimes, precisions, power sources, error kinds, run-setting defaults, and
the bounds both sides apply (a lease's ttl, how often a busy loop says it is alive).

Owns: the single definition of each name that crosses the host<->agent line. The host package imports these
(edgeprof/vocab.py re-exports them and adds host-only notions: metrics, configuration identity, formatting);
the agent uses them directly. Python 3.6-safe, standard library only.
Does not own: what the names do (backends/, probes/, power.py) or how messages are framed (protocol.py).
"""

# load scenarios (scenarios.py runs each; MLPerf LoadGen's four plus a camera's fixed frame rate)
SINGLE_STREAM = "single-stream"
SCENARIOS = (SINGLE_STREAM, "multi-stream", "server", "offline", "fixed-rate", "sustained")
SCHEDULED_SCENARIOS = ("server", "fixed-rate")  # queries issued on a clock; latency counted from the schedule
SCENARIO_DEFAULTS = {
    "samples_per_query": 8,  # multi-stream: LoadGen's default samples per query
    "streams": 1,  # offline: queries in flight (threads, each with its own runtime session)
    "seed": 0,  # server: the Poisson arrival generator's seed
    "window_s": 60.0,  # sustained: the window the run is cut into (30 windows in a 30-minute run)
    "duration_s": 1800.0,  # sustained: the run's length when --duration is not given
}

# runtimes a run can ask for (one backend module each, backends/__init__.py)
RUNTIMES = ("onnxruntime", "tflite", "tensorrt", "null")
# runtimes a generation request can ask for (one backend module each, generation/__init__.py GEN_BACKENDS)
GEN_RUNTIMES = ("onnxruntime-genai", "llama.cpp")
# LiteRT-LM: a generation runtime measured by its own tool on a phone (litert_lm_main over adb), and on a board by
# the agent's backend (generation/litertlm.py, a .litertlm edgeprof builds; not a sweep runtime yet); the agent's
# facts report whether its module (litert_lm, environment.RUNTIME_MODULES) is installed, so that the capability
# check can say so in one line
LITERT_LM = "litert-lm"
# a generation request's defaults (protocol 11): llama-bench's pp512 / tg128, -r 5, -d 0, one warm-up
GEN_DEFAULTS = {
    "prompt_tokens": 512,
    "gen_tokens": 128,
    "depth": 0,
    "repetitions": 5,
    "warmup": True,
}
# numeric precisions an artifact can be prepared in
PRECISIONS = ("fp32", "fp16", "int8")
# devices.yaml `power: {source: ...}` values (power.py implements each; "auto" tries AUTO_ORDER, "none" is off)
POWER_SOURCES = ("auto", "jetson-ina3221", "jtop", "rpi5-pmic", "hwmon", "nvml", "rapl", "command", "none")
POWER_AUTO_ORDER = ("jetson-ina3221", "jtop", "hwmon", "rpi5-pmic", "nvml", "rapl")


class ErrorKind(object):
    """The `type` of an error reply. The host maps errors by these constants, never by message text."""

    PROTOCOL = "protocol"  # malformed request, first request not hello, missing/unknown field
    PROTOCOL_MISMATCH = "protocol_mismatch"  # host and agent speak different protocol versions
    UNKNOWN_OP = "unknown_op"
    BAD_REQUEST = "bad_request"  # a request field has a value the agent cannot use
    BAD_PATH = "bad_path"  # a path outside the agent's workdir
    BAD_OPTION = "bad_option"  # a runtime option the runtime refuses
    BAD_INPUTS = "bad_inputs"  # input specs the agent cannot build tensors for
    UNKNOWN_RUNTIME = "unknown_runtime"
    RUNTIME_MISSING = "runtime_missing"  # the runtime (or numpy) is not importable on the device
    PROVIDER_MISSING = "provider_missing"  # an onnxruntime execution provider asked for is not in this build
    CAPABILITY = "capability"  # the device cannot run this combination (no GPU, ...)
    CUDA_ERROR = "cuda_error"
    LOAD_FAILED = "load_failed"  # the runtime refused the model
    RUN_FAILED = "run_failed"  # an inference raised during the run
    MODEL_INPUT = "model_input"  # the model refused the inputs fed at the first inference (its own error)
    PROFILE_FAILED = "profile_failed"
    LEASED = "leased"  # another controller holds the device lease
    DISK = "disk"  # the board's disk is full (ENOSPC, EDQUOT) or read-only (EROFS) where the agent writes
    AGENT_EXCEPTION = "agent_exception"  # a bug in the agent: traceback in `detail`

    ALL = (PROTOCOL, PROTOCOL_MISMATCH, UNKNOWN_OP, BAD_REQUEST, BAD_PATH, BAD_OPTION, BAD_INPUTS,
           UNKNOWN_RUNTIME, RUNTIME_MISSING, PROVIDER_MISSING, CAPABILITY, CUDA_ERROR, LOAD_FAILED, RUN_FAILED,
           MODEL_INPUT, PROFILE_FAILED, LEASED, DISK, AGENT_EXCEPTION)
    # failures of the measurement itself (the model or runtime on the device): never retried by a sweep
    MEASUREMENT = (LOAD_FAILED, RUN_FAILED, MODEL_INPUT, BAD_INPUTS, BAD_OPTION, CUDA_ERROR, PROFILE_FAILED)


# The one home of bounds both sides apply (the host imports them through edgeprof/vocab.py)
LEASE_TTL_S = 120.0  # a device lease ends when its controller sent nothing this long; controllers renew well within
PROGRESS_S = 0.5  # warming up and measuring, the agent tells the host this often that it is alive (between queries)

# The one home of each run setting's default that the agent sees. The host's RunSpec, the deploy flags and the
# sweep settings all take their defaults from here (edgeprof/vocab.py SETTINGS).
RUN_DEFAULTS = {
    "batch": 1,
    "seed": 0,
    "warmup_s": 5.0,
    "min_duration_s": 10.0,
    "min_queries": 100,
    "max_queries": 200000,  # bounds raw samples for very short queries (null runtime, tiny ops)
    "idle_s": 3.0,  # idle power baseline before the model loads; 0 = off
    "cooldown_timeout_s": 600.0,
    "profile_iterations": 20,  # runs in the --profile-ops pass (after the timed loop)
    "sessions": 1,  # fresh runtime sessions the model is timed in (sessions.py): the first is the measurement's own
}
MAX_SESSIONS = 50
