"""One vocabulary for the host: every notion that more than one module names is defined here, once.

Owns: runtimes, precisions, power sources and error kinds (re-exported from the agent package, which shares
them with the device), the comparable metrics (re-exported from metrics.py),
the run settings (RunSettings: the one table, with kinds, defaults, ranges, flags and help; deploy's flags, sweep
`settings:`, the RunSpec, the agent's request and the stored settings section are derived from it), the sweep
policy (SweepPolicy: a cell's timeout, retries and lease wait, declared alike), the bounds more than one place
checks (MAX_STREAMS, POWER_RATE_MAX_HZ, ...: their one home), the identity of a measured configuration, and the
finite-number test (the one number formatter is numfmt.py's, re-exported here).
Does not own: reading a metric from a Result (analysis/compare.py), validating YAML nodes (files/config.py), what a runtime
can do on a device (capability.py). Pure definitions, no I/O.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from edgeprof_agent.vocab import (
    GEN_DEFAULTS,
    LEASE_TTL_S,
    MAX_SESSIONS,
    POWER_AUTO_ORDER,
    POWER_SOURCES,
    PRECISIONS,
    PROGRESS_S,
    RUN_DEFAULTS,
    RUNTIMES,
    SCENARIO_DEFAULTS,
    SCENARIOS,
    SCHEDULED_SCENARIOS,
    SINGLE_STREAM,
    ErrorKind,
)

from .metrics import (  # re-exported (metrics.py)
    CHECKED_GENERATION,
    CHECKED_METRICS,
    CHECKED_SUSTAINED,
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    EXTRA_METRICS,
    GENERATION_METRICS,
    METRIC_BY_NAME,
    METRICS,
    SUSTAINED_METRICS,
    Metric,
)
from .numfmt import (  # re-exported (numfmt.py)
    DURATION_FORM,
    fmt_duration,
    fmt_num,
    fmt_p,
    fmt_value,
    parse_duration,
)

__all__ = [
    "RUNTIMES", "PRECISIONS", "POWER_SOURCES", "POWER_AUTO_ORDER", "ErrorKind", "RUN_DEFAULTS", "LEASE_TTL_S",
    "PROGRESS_S",
    "SCENARIOS", "SCHEDULED_SCENARIOS", "SINGLE_STREAM", "SCENARIO_DEFAULTS", "scenario_label",
    "Metric", "METRICS", "EXTRA_METRICS", "METRIC_BY_NAME", "CHECKED_METRICS", "SUSTAINED_METRICS",
    "CHECKED_SUSTAINED", "GENERATION_METRICS", "CHECKED_GENERATION", "DEFAULT_MIN_EFFECT", "parse_duration", "fmt_duration",
    "DEFAULT_ALPHA", "Setting", "SETTINGS", "RunSettings", "settings_kwargs", "SweepPolicy", "POLICY",
    "SWEEP_SETTINGS", "MAX_BACKOFF_S", "SERVER_MIN_QUERIES", "MAX_RATE_QPS",
    "MAX_SCHEDULE_S", "MAX_SESSIONS", "MAX_STREAMS", "MAX_COOLDOWN_C", "POWER_RATE_MAX_HZ", "MAX_RUN_S", "MIN_OPSET", "MAX_OPSET",
    "schedule_problem", "ConfigIdentity",
    "fmt_value", "fmt_p", "fmt_num", "is_finite_number",
]



# -- run settings ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """A run setting: its kind ("number" | "int" | "duration" | "bool" | "mapping" | "path"), default, allowed range,
    and how each place that takes it derives it (read from RunSettings' fields, below). A duration is seconds: a
    number, or text with units (`30m`, `1h30m`, `60s`; parse_duration), held as float seconds.

    `lo`/`hi` bound the value (inclusive); `lo_open` makes the lower bound exclusive (> lo). Every numeric value
    must be finite. `flag` is the deploy option that sets it (None: sweep files only), listed in deploy --help at
    `place` with `flag_help` (default: `help`) and `metavar`: "model" (after --precision), "inputs" (after --input),
    "measure" (after --providers) or "scenario" (the load scenario's group; cli/deploy.add_setting_flags). `item`
    says how one item of a repeated mapping flag and a mapping's values are read ("value": NAME=V, "range":
    NAME=LOW:HIGH). `stored` says what a deploy's stored settings section keeps: "always", "never" (sweep-only
    settings), "given" (an empty, false or default value is kept as null), "int8" (only for int8 runs), "scenario" (only for
    load scenarios). `wire`: "request" when the agent's RunRequest has a field of this name, "scenario" when its
    ScenarioSpec has. `feeds`: it feeds the model's inputs (refused for the null runtime)."""

    name: str
    kind: str
    default: Any
    help: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    flag: str | None = None
    nullable: bool = False  # None is a valid value (e.g. max_queries: no cap)
    place: str | None = None
    flag_help: str | None = None
    metavar: str | None = None
    item: str | None = None
    stored: str = "always"
    wire: str | None = None
    feeds: bool = False

    def check(self, value: Any) -> str | None:
        """None when `value` is acceptable, else what is wrong (one phrase, for `<where>: <phrase>`)."""
        if value is None:
            return None if self.nullable or self.default is None else "must be given"
        if self.kind == "mapping":
            return None if isinstance(value, dict) else "must be a mapping"
        if self.kind == "path":
            return None if isinstance(value, str) and value.strip() else "must be a file or directory path"
        if self.kind == "bool":
            return None if isinstance(value, bool) else "must be true or false"
        if self.kind == "duration" and isinstance(value, str):
            try:
                value = parse_duration(value)
            except ValueError as e:
                return str(e)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return {"number": "must be a number", "duration": DURATION_FORM}.get(self.kind, "must be an integer")
        if self.kind == "int" and not isinstance(value, int):
            return "must be an integer"
        if not is_finite_number(value):
            return "must be a finite number"
        unit = " s" if self.kind == "duration" else ""
        if self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo):
            return f"must be {'>' if self.lo_open else '>='} {self.lo:g}{unit}"
        if self.hi is not None and value > self.hi:
            return f"must be <= {self.hi:g}{unit}" + (f" ({fmt_duration(self.hi)})" if unit else "")
        return None

    def typed(self, value: Any) -> Any:
        """`value` (checked) as RunSettings holds it: numbers as float, integers as int, mappings as dicts (ranges
        as (low, high) tuples; None as {})."""
        if value is None:
            return {} if self.kind == "mapping" else None if self.nullable else self.default
        if self.kind in ("number", "int", "duration") and self.check(value) is not None:
            return value  # as given (argparse's [] for `--flag=--`): check() refuses it in one line, naming the flag
        if self.kind == "duration":
            return parse_duration(value) if isinstance(value, str) else float(value)
        if self.kind == "number":
            return float(value)
        if self.kind == "int":
            return int(value)
        if self.kind == "bool":
            return bool(value)
        if self.kind == "mapping" and self.item == "range":
            return {k: (float(v[0]), float(v[1])) for k, v in value.items()}
        return dict(value) if self.kind == "mapping" else value


_SETTING = "edgeprof.setting"


def _setting(kind: str, default: Any, help: str, **kw: Any) -> Any:
    """A RunSettings field carrying its Setting (named by the field). Mappings hold {} when not given."""
    meta = {_SETTING: Setting("", kind, default, help, **kw)}
    if kind == "mapping":
        return field(default_factory=dict, metadata=meta)
    return field(default=default, metadata=meta)


_D = RUN_DEFAULTS
MAX_GEN_TOKENS = 1 << 20  # a generative model's prompt, generated tokens or depth: a typo bound (the context rules)
MAX_GEN_REPETITIONS = 1000
SERVER_MIN_QUERIES = 662  # stats.min_queries_for(0.99): the fewest queries with an early-stopping p99 (deploy's default)

# Bounds that more than one place checks, each written here once: the table's `hi` below, run/validate.py's worded
# deploy errors, files/config.py's devices.yaml and flag rules, the sweep file's rates and analysis/maxrate.py's search import
# them (tests/unit/test_bounds_home.py fails when one is written out again).
MAX_STREAMS = 64  # offline: queries in flight, a thread and a runtime session each
MAX_COOLDOWN_C = 150.0  # above any board's trip point: a larger value is a typo (m°C, °F)
POWER_RATE_MAX_HZ = 1000.0  # a sensor read more often than this is the sampler measuring itself
MAX_RATE_QPS = 100000.0  # a server / fixed-rate schedule (--rate, a sweep's `rates:`): above any edge model's rate
MAX_RUN_S = 7 * 86400.0  # a run (or a wait for a device) longer than a week is a typo
MIN_OPSET = 15  # the ONNX opsets edgeprof exports at: the oldest row of capability.ORT_ONNX_MAX (onnxruntime 1.10)
MAX_OPSET = 21  # ... to the newest opset that table names


@dataclass(frozen=True)
class RunSettings:
    """The run settings: the one table of them. Each field is one setting with its kind, default, range, flag,
    help and where it goes (Setting, above); deploy's flags, a sweep's `settings:` and `overrides`, the RunSpec
    (which is a RunSettings), the agent's RunRequest and the stored settings section are derived from these fields.
    Adding a setting is adding a field here (and its word in docs/nightly.md's settings row). Fields are listed in deploy --help's
    order within each place."""

    # deploy --help after --precision
    calibration: str | None = _setting(
        "path", None, "int8 calibration samples: a directory of .npy / .npz by input name (relative to the sweep "
        "file; default: seeded random inputs)", flag="--calibration", nullable=True, place="model", metavar="DIR",
        flag_help="int8 calibration samples: .npy files (one input) or .npz files (keys = input names); default: "
                  "seeded random inputs", stored="int8", feeds=True)
    profile_ops: bool = _setting(
        "bool", False, "after the timed loop, a separate pass with the runtime's per-op profiler (top ops)",
        flag="--profile-ops", place="model", stored="given", wire="request",
        flag_help="after the timed loop, a separate pass with the runtime's per-op profiler; shows top ops")
    # what feeds the model's inputs (export/inputs.py): checked against the model before anything is pushed
    input_data: str | None = _setting(
        "path", None, "input arrays by input name: an .npz file or a directory of NAME.npy (relative to the sweep "
        "file)", flag="--input-data", nullable=True, place="inputs", metavar="FILE.npz|DIR", feeds=True,
        flag_help="input arrays by input name: an .npz file, or a directory of NAME.npy files (like trtexec "
                  "--loadInputs); pushed with the model")
    input_values: dict[str, Any] = _setting(
        "mapping", None, "constants by input name, e.g. {sr: 16000}", flag="--input-value", nullable=True,
        place="inputs", metavar="NAME=V", item="value", stored="given", feeds=True,
        flag_help="feed input NAME the constant V, e.g. sr=16000 for a scalar sample rate (repeatable)")
    input_ranges: dict[str, tuple[float, float]] = _setting(
        "mapping", None, "seeded value ranges by input name, e.g. {input_ids: '0:30522'}", flag="--input-range",
        nullable=True, place="inputs", metavar="NAME=LOW:HIGH", item="range", stored="given", feeds=True,
        flag_help="draw input NAME's seeded values from [LOW, HIGH), e.g. input_ids=0:30522 (repeatable)")
    # accuracy mode (edgeprof/evaluation/accuracy.py, docs/accuracy.md): a pass over this file after the timed loop
    accuracy: str | None = _setting(
        "path", None, "accuracy data: an .npz with inputs by name and `labels` (top-1/top-5) or `expected` outputs "
        "(errors); relative to the sweep file", flag="--accuracy", nullable=True, place="inputs",
        metavar="DATA.npz", feeds=True,
        flag_help="after the timed loop, run every sample of DATA.npz (arrays by input name, N samples on axis 0) "
                  "and score it: `labels` → top-1/top-5, `expected` → errors (docs/accuracy.md)")
    # the timed loop (MLPerf's rule: both minimums are met)
    min_duration_s: float = _setting(
        "number", float(_D["min_duration_s"]), "the timed loop runs at least this long (s)", lo=0, hi=86400,
        flag="--min-duration", place="inputs", metavar="S", wire="request",
        flag_help=f"timed loop runs at least this long (default {_D['min_duration_s']:g} s) ...")
    min_queries: int = _setting(
        "int", int(_D["min_queries"]), "... and at least this many queries", lo=1, hi=10**9, flag="--min-queries",
        place="inputs", metavar="N", wire="request",
        flag_help=f"... and at least this many queries (default {_D['min_queries']}; server {SERVER_MIN_QUERIES}, "
                  "what its early-stopping p99 needs); both must be met (MLPerf rule)")
    max_queries: int | None = _setting(
        "int", int(_D["max_queries"]), "stop at this many queries even before min_duration", lo=1, hi=10**9,
        flag="--max-queries", nullable=True, place="inputs", metavar="N", stored="never", wire="request",
        flag_help=f"stop at N queries even before --min-duration (default {_D['max_queries']}; bounds raw samples; "
                  "not for --scenario sustained, whose --duration rules)")
    warmup_s: float = _setting(
        "number", float(_D["warmup_s"]), "warm up until steady or this many seconds pass", lo=0, hi=86400,
        flag="--warmup", place="inputs", metavar="S", wire="request",
        flag_help=f"warm up until latency is steady or this many seconds pass (default {_D['warmup_s']:g})")
    # a runtime whose speed belongs to its session (the agent's sessions.py): the model timed in N fresh sessions,
    # the first the measurement's own; the bound is the agent's MAX_SESSIONS
    sessions: int = _setting(
        "int", int(_D["sessions"]), "fresh runtime sessions to time the model in (the first is the measurement's own)",
        lo=1, hi=MAX_SESSIONS, flag="--sessions", place="inputs", metavar="N", stored="given", wire="request",
        flag_help="time the model in N fresh runtime sessions, each loaded, warmed up and timed as the first "
                  "(default 1): shows a board whose speed changes from one session to the next (onnxruntime "
                  "at as many threads as cores); single-stream only")
    # deploy --help after --providers: the export, then telemetry
    # the bounds are MIN_OPSET / MAX_OPSET (above; export.onnx_export imports them, tests/unit/test_onnx_target.py
    # keeps them equal to capability.ORT_ONNX_MAX's rows); None: edgeprof's default, fitted to the device's runtime
    opset: int | None = _setting(
        "int", None, "ONNX opset to export bundled and builder models at (default: 18, or the newest the device's "
        "onnxruntime loads)", lo=MIN_OPSET, hi=MAX_OPSET, flag="--opset", nullable=True, place="measure", metavar="N",
        flag_help="ONNX opset to export a bundled or builder model at (default: 18, or the newest the device's "
                  "onnxruntime loads; an opset above that is refused before the export)")
    seed: int = _setting(
        "int", int(_D["seed"]), "seed for weights of bundled models and for inputs", lo=0, hi=2**32 - 1,
        flag="--seed", place="measure", wire="request")
    idle_s: float = _setting(
        "number", float(_D["idle_s"]), "idle power baseline before load (s; 0 = off)", lo=0, hi=3600, flag="--idle",
        place="measure", metavar="S", wire="request",
        flag_help=f"idle power baseline before the model loads, in seconds (default {_D['idle_s']:g}; 0 turns it off)")
    # cooldown_c's and power_rate_hz's bounds are MAX_COOLDOWN_C and POWER_RATE_MAX_HZ (above), as run/validate.py's
    cooldown_c: float | None = _setting(
        "number", None, "before measuring, wait until the hottest temperature sensor reads below this (°C; default: "
        "no wait)", lo=0, lo_open=True, hi=MAX_COOLDOWN_C, flag="--cooldown", nullable=True, place="measure", metavar="C",
        wire="request", flag_help="before measuring, wait until the hottest temperature sensor reads below C °C")
    cooldown_timeout_s: float = _setting(
        "duration", float(_D["cooldown_timeout_s"]), "give up waiting for --cooldown after (seconds, or 10m)", lo=0,
        lo_open=True, hi=86400, flag="--cooldown-timeout", place="measure", metavar="TIME", stored="never",
        wire="request",
        flag_help="with --cooldown: measure anyway (with a warning) after TIME (seconds, or 10m; default "
                  f"{fmt_duration(_D['cooldown_timeout_s'])})")
    # the GPU of a multi-GPU machine (NVML's index, as nvidia-smi numbers them; docs/devices.md): the runtime runs
    # on it (CUDA pinned to its UUID) and NVML's power, memory and telemetry read it; default: devices.yaml gpu:,
    # else GPU 0 as before. The bound is a sanity cap; the device's GPUs (its facts) bound it before the push
    gpu: int | None = _setting(
        "int", None, "the GPU a run uses on a machine with several (NVML's index, as nvidia-smi numbers them; "
        "default: devices.yaml gpu:, else 0)", lo=0, hi=63, flag="--gpu", nullable=True, place="measure",
        metavar="N", wire="request",
        flag_help="on a machine with several NVIDIA GPUs, run on GPU N (nvidia-smi's index) and read its power "
                  "and memory through NVML (default: the device's gpu: in devices.yaml, else 0)")
    power_rate_hz: float | None = _setting(
        "number", None, "power sampling rate (Hz; default: devices.yaml rate_hz; capped by the sensor)", lo=0,
        lo_open=True, hi=POWER_RATE_MAX_HZ, flag="--power-rate", nullable=True, place="measure", metavar="HZ",
        flag_help="power sampling rate (overrides devices.yaml rate_hz; capped by the sensor)")
    # load scenarios (the `scenarios:` and `rates:` sweep axes choose the scenario and rate; docs/scenarios.md)
    samples_per_query: int = _setting(
        "int", int(SCENARIO_DEFAULTS["samples_per_query"]), "multi-stream: samples per query", lo=1, hi=4096,
        flag="--samples-per-query", place="scenario", metavar="N", stored="scenario", wire="scenario",
        flag_help=f"multi-stream: samples per query (default {SCENARIO_DEFAULTS['samples_per_query']}, LoadGen's), "
                  "run as N / --batch inferences")
    streams: int = _setting(
        "int", int(SCENARIO_DEFAULTS["streams"]), "offline: queries in flight (one session each)", lo=1, hi=MAX_STREAMS,
        flag="--streams", place="scenario", metavar="N", stored="scenario", wire="scenario",
        flag_help="offline: queries in flight (threads, each with its own runtime session)")
    latency_bound_ms: float | None = _setting(
        "number", None, "server: VALID when the early-stopping p99 is within it (ms)", lo=0, lo_open=True,
        hi=3600 * 1000, flag="--latency-bound", nullable=True, place="scenario", metavar="MS", stored="scenario",
        wire="scenario", flag_help="server: VALID when the early-stopping p99 is within MS; fixed-rate: default the "
                                   "period")
    duration_s: float | None = _setting(
        "duration", None, "sustained: how long the run lasts (seconds, or 30m, 1h30m; default "
        f"{fmt_duration(SCENARIO_DEFAULTS['duration_s'])})", lo=1, hi=MAX_RUN_S, flag="--duration", nullable=True,
        place="scenario", metavar="TIME", stored="scenario", wire="scenario",
        flag_help="sustained: the run's length: seconds, or with units h, m, s (30m, 1h30m, 90s; default "
                  f"{fmt_duration(SCENARIO_DEFAULTS['duration_s'])})")
    sustained_window_s: float = _setting(
        "duration", float(SCENARIO_DEFAULTS["window_s"]), "sustained: the window the run is cut into (seconds, or "
        "60s, 2m)", lo=1, hi=86400, flag="--window", place="scenario", metavar="TIME", stored="scenario",
        wire="scenario", flag_help="sustained: cut the run into windows of TIME (seconds, or 60s, 2m; default "
                                   f"{fmt_duration(SCENARIO_DEFAULTS['window_s'])}); each has its own latency, "
                                   "throughput, temperature, clocks and power")
    battery_wh: float | None = _setting(
        "number", None, "hours on a battery of this many Wh at the run's duty cycle", lo=0, lo_open=True, hi=1e6,
        flag="--battery-wh", nullable=True, place="scenario", metavar="WH", stored="scenario",
        flag_help="with a power sensor: hours on a battery of WH watt-hours at this duty cycle (any "
                  "scenario; single-stream and offline: at full load)")
    # a generative model's (session/generation.py; docs/generative.md): None takes llama-bench's default, the agent's
    # GEN_DEFAULTS; deploy --help lists them in their own group ("generation"); the model's context bounds
    # depth + prompt + generated tokens, checked with the model; stored as given ("always": not given is null, and
    # --depth 0 given is 0, a value, not "no depth")
    prompt_tokens: int | None = _setting(
        "int", None, f"generative models: tokens in the timed prompt (default {GEN_DEFAULTS['prompt_tokens']}, "
        "llama-bench -p)", lo=1, hi=MAX_GEN_TOKENS, flag="--prompt-tokens", nullable=True, place="generation",
        metavar="N", stored="always")
    gen_tokens: int | None = _setting(
        "int", None, f"generative models: tokens generated after the prompt (default {GEN_DEFAULTS['gen_tokens']}, "
        "llama-bench -n)", lo=1, hi=MAX_GEN_TOKENS, flag="--gen-tokens", nullable=True, place="generation",
        metavar="N", stored="always")
    depth: int | None = _setting(
        "int", None, f"generative models: tokens already in the KV cache before the prompt, untimed (default "
        f"{GEN_DEFAULTS['depth']}, llama-bench -d)", lo=0, hi=MAX_GEN_TOKENS, flag="--depth", nullable=True,
        place="generation", metavar="N", stored="always")
    repetitions: int | None = _setting(
        "int", None, f"generative models: timed repetitions, each a fresh sequence (default "
        f"{GEN_DEFAULTS['repetitions']}, llama-bench -r)", lo=1, hi=MAX_GEN_REPETITIONS, flag="--repetitions",
        nullable=True, place="generation", metavar="N", stored="always")
    # a generative model's server verdict (MLPerf LoadGen's LLM server rule, loadgen/results.cc PerfConstraintsMet:
    # the p99 TTFT and the p99 TPOT each within its bound; generative/scenario.py judge)
    ttft_bound_ms: float | None = _setting(
        "number", None, "generative server: VALID needs the p99 time to first token, counted from each request's "
        "scheduled arrival, within it (ms)", lo=0, lo_open=True, hi=3600 * 1000, flag="--ttft-bound", nullable=True,
        place="generation", metavar="MS", stored="always",
        flag_help="generative --scenario server: VALID needs the p99 TTFT (from each request's scheduled arrival, "
                  "queueing included) within MS, and the p99 TPOT within --tpot-bound (MLPerf's LLM server rule)")
    tpot_bound_ms: float | None = _setting(
        "number", None, "generative server: VALID needs the p99 time per output token within it (ms)", lo=0,
        lo_open=True, hi=3600 * 1000, flag="--tpot-bound", nullable=True, place="generation", metavar="MS",
        stored="always", flag_help="generative --scenario server: VALID needs the p99 TPOT ((latency - TTFT) / "
                                  "(tokens - 1) per request) within MS")
    # sweep files only (runtime_options: deploy composes it from --graph-opt, --providers, --xnnpack, --delegate)
    runtime_options: dict[str, Any] = _setting(
        "mapping", None, "options passed to the runtime (see docs/runtimes.md)", nullable=True, wire="request")

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> RunSettings:
        """The settings `values` give by name (checked: a sweep cell's, parsed flags), each by its kind; a missing
        one takes the table's default."""
        return cls(**settings_kwargs(values))

    def values(self) -> dict[str, Any]:
        """Every setting by name, as this record holds it."""
        return {name: getattr(self, name) for name in SETTINGS}


MAX_BACKOFF_S = 3600.0  # one wait between retries, however many (lab/cell_decisions.py); the first one is at most this


@dataclass(frozen=True)
class SweepPolicy:
    """How a sweep runs a cell, not what the cell measures: its wall-clock bound, its retries, the wait for another
    controller's lease. Declared as RunSettings are (a Setting per field; sweep files only: no flag, not on the wire,
    never stored by a deploy); a sweep's `settings:` and `overrides` take both tables' keys (SWEEP_SETTINGS), a
    RunSpec holds only RunSettings'."""

    timeout_s: float = _setting(
        "duration", 900.0, "a whole sweep cell, wall clock (seconds, or 15m); the agent is stopped when it passes; "
        "a sustained cell's counts beyond its duration", lo=0, lo_open=True, hi=MAX_RUN_S, stored="never")
    retries: int = _setting("int", 2, "retries of a sweep cell on transport errors only", lo=0, hi=100,
                            stored="never")
    retry_backoff_s: float = _setting("number", 5.0, "first retry delay (doubled after each retry)", lo=0,
                                      hi=MAX_BACKOFF_S, stored="never")
    lease_wait_s: float = _setting(
        "duration", 3600.0, "how long to wait for another controller's lease on a device (seconds, or 1h)", lo=0,
        hi=MAX_RUN_S, stored="never")

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> SweepPolicy:
        """The policy `values` give by name (a sweep cell's settings, checked), typed by kind; names that are not
        policy are left out, a missing one takes the table's default."""
        return cls(**{name: s.typed(values[name]) for name, s in POLICY.items() if name in values})


def settings_kwargs(values: Mapping[str, Any]) -> dict[str, Any]:
    """RunSettings' (and RunSpec's) keyword arguments from `values` by setting name, typed by kind; names that are
    not run settings are left out, and a setting `values` lacks takes the table's default."""
    return {name: s.typed(values[name]) for name, s in SETTINGS.items() if name in values}


def _table(record: type) -> dict[str, Setting]:
    return {f.name: dataclasses.replace(f.metadata[_SETTING], name=f.name) for f in dataclasses.fields(record)}


SETTINGS: dict[str, Setting] = _table(RunSettings)  # what a measurement needs: deploy's flags, the RunSpec, the wire
POLICY: dict[str, Setting] = _table(SweepPolicy)  # how a sweep runs a cell
# a sweep file's `settings:` and `overrides` keys, a cell's settings and a stored settings section's fields, in order
SWEEP_SETTINGS: dict[str, Setting] = {**SETTINGS, **POLICY}

# the rate of a server / fixed-rate schedule (--rate, a sweep's `rates:`): one bound for both (MAX_RATE_QPS, above)
MAX_SCHEDULE_S = MAX_RUN_S  # a scheduled run longer than a week is a typo in --rate (1e-6/s: 3 years)


def schedule_problem(rate: float, min_queries: int, min_duration_s: float = 0.0) -> str | None:
    """None when a schedule at `rate` queries/s issuing `min_queries` ends within MAX_SCHEDULE_S, else why not
    (one phrase; the CLI and sweep files share it)."""
    if not math.isfinite(rate) or not 0 < rate <= MAX_RATE_QPS:
        return f"must be > 0 and <= {MAX_RATE_QPS:g} queries per second"
    span = max(min_queries / rate, min_duration_s)
    if span > MAX_SCHEDULE_S:
        return (f"{min_queries} queries at {rate:g}/s take {span / 86400:.3g} days, beyond the "
                f"{MAX_SCHEDULE_S / 86400:g}-day limit of a run; raise the rate or lower --min-queries")
    return None


# -- configuration identity --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigIdentity:
    """What makes two results measurements of the same configuration: compared across nights, grouped in
    reports, matched to sweep cells. Two results with the same key are comparable; anything else is not.

    The model is its content, not how its path was spelled: `content` is "sha256:<hex>" of the user's file
    (the fp32 file a conversion started from), or the source of a bundled model or builder; `shapes` are the
    concrete input shapes fed. A result that stores neither (a failed row, or one written before the artifact was
    recorded) is identified by the model string and source as typed (`by_path`)."""

    device: str
    model: str  # the model reference as stored on the Result
    runtime: str
    precision: str
    batch: int
    threads: int | None
    source: str | None = None  # the artifact's source ("bundled:mobilenet_v2", "file:/abs/path.onnx", ...)
    content: str | None = None  # "sha256:<hex>" of a user's file, else the source; None when not stored
    shapes: tuple[tuple[str, tuple[int, ...]], ...] | None = None  # (input name, shape fed), graph order
    scenario: str | None = None  # scenario_label(): None for single-stream (keys of single-stream runs unchanged)
    # the accelerator a run asked its runtime for beyond the CPU (onnxruntime's first execution provider when it is
    # not CPUExecutionProvider, onnxruntime-genai's provider "cuda"): None on the CPU (keys of CPU runs unchanged)
    accelerator: str | None = None

    @property
    def by_path(self) -> bool:
        """True when no content is known and the key falls back to the model string as typed."""
        return self.content is None

    def key(self) -> str:
        if self.content is None:  # the identity results had before content hashes (same keys as then)
            ident = json.dumps([self.device, self.model, self.runtime, self.precision, self.batch, self.threads,
                                self.source] + ([self.scenario] if self.scenario is not None else [])
                               + self._accel(), sort_keys=True)
        else:
            shapes = [[n, list(s)] for n, s in self.shapes] if self.shapes is not None else None
            ident = json.dumps(["content", self.device, self.content, self.runtime, self.precision, self.batch,
                                self.threads, shapes] + ([self.scenario] if self.scenario is not None else [])
                               + self._accel(), sort_keys=True)
        return hashlib.sha256(ident.encode()).hexdigest()[:16]

    def _accel(self) -> list[str]:
        return ["accelerator", self.accelerator] if self.accelerator is not None else []

    def shapes_label(self) -> str:
        """`x=1x3x224x224, mask=1x128` (empty when unknown)."""
        return ", ".join(f"{n}={'x'.join(str(d) for d in s) or 'scalar'}" for n, s in self.shapes or ())

    def model_label(self) -> str:
        model = self.model
        if "/" in model or model.endswith((".onnx", ".tflite")):
            model = model.rsplit("/", 1)[-1]
        return model

    def label(self) -> str:
        """`model on device · runtime precision · batch N · T threads`."""
        text = f"{self.model_label()} on {self.device} · {self.runtime} {self.precision} · batch {self.batch}"
        text += f" · {self.threads} threads" if self.threads else ""
        text += f" · on {self.accelerator}" if self.accelerator else ""
        return text + (f" · {self.scenario}" if self.scenario else "")


def scenario_label(name: str | None, rate: float | None = None, samples_per_query: int | None = None,
                   streams: int | None = None, *, duration_s: float | None = None,
                   window_s: float | None = None) -> str | None:
    """The part of a configuration's identity a load scenario adds: None for single-stream, else the scenario
    with the parameter that changes what is measured ("fixed-rate 30/s", "multi-stream 8/query", "offline 2
    streams"). The latency bound and the server's seed judge or draw a run; they do not make another one.
    Sustained: its rate when it has one, and, when the duration or the window is given (the identity gives
    both: Result.identity), the run's length and window ("sustained 30m in 1m windows": a 30-minute curve is
    not a 2-minute one); without them the plain label shown beside a run."""
    if name is None or name == SINGLE_STREAM:
        return None
    if name in SCHEDULED_SCENARIOS:
        return f"{name} {rate:g}/s" if rate is not None else name
    if name == "sustained":  # a fixed rate makes another run; back to back is the plain one
        label = f"{name} {rate:g}/s" if rate is not None else name
        if duration_s is None and window_s is None:
            return label
        duration = SCENARIO_DEFAULTS["duration_s"] if duration_s is None else duration_s
        window = SCENARIO_DEFAULTS["window_s"] if window_s is None else window_s
        return f"{label} {fmt_duration(float(duration))} in {fmt_duration(float(window))} windows"
    if name == "multi-stream":
        return f"{name} {samples_per_query or SCENARIO_DEFAULTS['samples_per_query']}/query"
    if name == "offline":
        n = streams or 1
        return f"{name} {n} stream{'s' if n != 1 else ''}"
    return name


# -- numbers (formatted for people: numfmt.py) -------------------------------------------------------------------------


def is_finite_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
