"""The load scenario's messages: what a run or a generation asks of a scenario and what its loop did.

Owns: ScenarioSpec (run.scenario, generate.scenario), ScenarioReply (run reply.scenario, generate reply.scenario)
with SustainedReply and SustainedWindow (a sustained run's windows); messages.py re-exports each (import them from
there). Does not own: the record machinery (record.py), the loops (scenarios.py, windows.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

from .record import PACKED_INT64, Field, Record
from .vocab import SCENARIO_DEFAULTS

_NUM = (int, float)


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
