"""The records both measuring ops' messages hold (run and generate, messages.py and genmessages.py): the model's
reference, the power configuration and the power summary with its trace, the runtime's description, the phase
times and a warning. messages.py re-exports each (import them from there).

Owns: those records' fields and the power configuration's one check (PowerConfig.from_dict). Does not own: the
record machinery (record.py), the ops' requests and replies (messages.py, genmessages.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

from .record import Field, MessageError, Record
from .vocab import POWER_SOURCES

_NUM = (int, float)


class ArtifactRef(Record):
    NAME = "run.artifact"
    FIELDS = (Field("path", str, None), Field("format", str, None), Field("sha256", str, None))


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


class RunWarning(Record):
    NAME = "run reply.warnings[]"
    FIELDS = (Field("code", str), Field("message", str))


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
    child handed no stamp of its request), whose total_s starts at the measurement's start. `sessions_s`: the more
    sessions of run.sessions > 1 (sessions.py), each loaded, warmed up and timed; None: not asked."""

    NAME = "run reply.phases"
    FIELDS = (Field("cooldown_s", _NUM, 0.0), Field("idle_s", _NUM, 0.0), Field("load_s", _NUM, 0.0),
              Field("streams_s", _NUM, 0.0), Field("warmup_s", _NUM, 0.0), Field("measure_s", _NUM, 0.0),
              Field("outputs_s", _NUM, 0.0), Field("profile_s", _NUM, None), Field("accuracy_s", _NUM, None),
              Field("total_s", _NUM, 0.0), Field("setup_s", _NUM, None), Field("sessions_s", _NUM, None))
