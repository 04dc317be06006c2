"""check(): every flag and spec problem of one measurement, found before anything connects.

Owns: the validation of a RunSpec (runtime, precision, the static capability of format × runtime × precision,
numbers, the load scenario, telemetry) and of the deploy flags that are not run settings (Options: calibration,
opset, find-max-rate), each problem one line. Does not own: what can only be known after the hello (plan.py:
the device's capability, the export target, the input plan), nor parsing flags (cli/deploy.py).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .. import capability
from ..errors import ConfigError
from ..evaluation.sustained import MIN_WINDOWS  # deploy's rule is the curve's need (3 windows)
from ..files import datafiles
from ..files.config import check_cli_settings
from ..records import RunSpec
from ..vocab import (
    MAX_COOLDOWN_C,
    MAX_STREAMS,
    POWER_RATE_MAX_HZ,
    PRECISIONS,
    RUNTIMES,
    SCENARIO_DEFAULTS,
    SCENARIOS,
    SCHEDULED_SCENARIOS,
    SETTINGS,
    SINGLE_STREAM,
    schedule_problem,
)

MAX_POWER_RATE_HZ = POWER_RATE_MAX_HZ  # the bounds' one home is vocab.py (the table's `hi`); named here as always


@dataclass(frozen=True)
class Options:
    """What one deploy takes beside its RunSpec: the flags that are not run settings (--find-max-rate) and the flags
    on the command line (`given`: applicability is judged on these). The run settings themselves are the spec's."""

    find_max_rate: bool = False
    given: frozenset[str] = frozenset()

    @classmethod
    def of(cls, spec: RunSpec, *, find_max_rate: bool = False, given: frozenset[str] = frozenset()) -> Options:
        return cls(find_max_rate=find_max_rate, given=given)


def check(spec: RunSpec, options: Options | None = None) -> None:
    """Every problem of `spec` and `options` as a one-line ConfigError, before anything connects (the order is
    the one users have always seen: the first problem found is the one reported). A spec that passes is not checked
    again: deploy() takes it as it is."""
    o = options or Options.of(spec)
    if _not_a_number(spec.rate):
        raise ConfigError(f"--rate {spec.rate!r}: must be a number (queries per second)")
    if o.find_max_rate and spec.scenario not in SCHEDULED_SCENARIOS:
        raise ConfigError(f"--find-max-rate searches a rate: it needs --scenario server or fixed-rate, not "
                          f"{spec.scenario}")
    # every number by the rules sweep files and devices.yaml use (finite, in range): the table's own; those this
    # module words itself (_WORDED) are checked by validate_spec, in their words first
    check_cli_settings({**{name: getattr(spec, name) for name, s in SETTINGS.items()
                           if s.kind in ("number", "int", "duration")
                           and (name not in _WORDED or _not_a_number(getattr(spec, name)))},
                        "batch": spec.batch, "threads": spec.threads})
    if spec.opset is not None and (capability.model_format(spec.model) != "torch"
                                   or spec.runtime not in ("onnxruntime", "tensorrt")):
        raise ConfigError(f"--opset {spec.opset}: applies to a bundled or builder model exported to ONNX "
                          f"(--runtime onnxruntime or tensorrt), not to {spec.model} on {spec.runtime}",
                          hint="leave --opset out; an ONNX file is pushed as it is")
    _check_applies(spec, o)
    if "--cooldown-timeout" in o.given and spec.cooldown_c is None:
        raise ConfigError("--cooldown-timeout needs --cooldown C (the temperature to wait for)")
    validate_spec(spec)
    _check_feeds(spec, o)


# run settings whose problems validate_spec words itself (a temperature, the scenario's parameters) before the
# table's rule is applied to them
_WORDED = ("cooldown_c", "samples_per_query", "streams", "latency_bound_ms", "battery_wh")
# flag -> (the runtimes it applies to, what it is) and flag -> the scenarios it applies to
_RUNTIME_FLAGS = {"--xnnpack": ("tflite",), "--delegate": ("tflite",), "--delegate-option": ("tflite",),
                  "--graph-opt": ("onnxruntime",), "--providers": ("onnxruntime",),
                  "--profile-ops": ("onnxruntime", "tflite", "tensorrt"), "--mmap": ("llama.cpp",),
                  "--extra-buffers": ("llama.cpp",), "--sessions": ("onnxruntime", "tflite", "tensorrt", "null")}
_SCENARIO_FLAGS = {"--latency-bound": SCHEDULED_SCENARIOS, "--samples-per-query": ("multi-stream",),
                   "--duration": ("sustained",), "--window": ("sustained",)}


def longest_window(duration_s: float) -> str:
    """The longest window that leaves MIN_WINDOWS in duration_s, rounded down to 0.1 s, as the flags take it."""
    from ..vocab import fmt_duration

    return fmt_duration(math.floor(duration_s / MIN_WINDOWS * 10) / 10)


def _check_applies(spec: RunSpec, o: Options) -> None:
    """Every flag given applies to the chosen runtime and scenario, or one line naming what it applies to."""
    for flag, runtimes in _RUNTIME_FLAGS.items():
        if flag in o.given and spec.runtime not in runtimes:
            raise ConfigError(f"{flag} applies to --runtime {' or '.join(runtimes)}, not {spec.runtime}",
                              hint=f"drop {flag}, or choose --runtime {runtimes[0]}")
    for flag, scenarios in _SCENARIO_FLAGS.items():
        if flag in o.given and spec.scenario not in scenarios:
            raise ConfigError(f"{flag} applies to --scenario {' or '.join(scenarios)}, not {spec.scenario}",
                              hint=f"drop {flag}, or add --scenario {scenarios[0]}")
    if "--max-queries" in o.given and spec.scenario == "sustained":  # its duration rules (agent windows.py)
        raise ConfigError("--max-queries does not apply to --scenario sustained: it runs for --duration and keeps "
                          "every sample", hint="drop --max-queries; a shorter --duration runs fewer queries")
    if o.find_max_rate and spec.sessions > 1:
        raise ConfigError(f"--sessions {spec.sessions} with --find-max-rate: every probe would load the model again "
                          f"{spec.sessions - 1} times", hint="compare sessions in a plain deploy of the same model")
    if o.find_max_rate and spec.profile_ops:
        raise ConfigError("--profile-ops with --find-max-rate: every probe would profile the ops again",
                          hint="profile them once in a plain deploy of the same model")




def _check_feeds(spec: RunSpec, o: Options) -> None:
    """What feeds the model: nothing for the null runtime; the data and accuracy files exist."""
    fed = [f for f, v in (("--input", spec.input_shapes),
                          *((s.flag, getattr(spec, n)) for n, s in SETTINGS.items() if s.feeds and s.flag)) if v]
    if spec.runtime == "null" and fed:
        raise ConfigError(f"{fed[0]} with --runtime null: the null runtime feeds no model inputs",
                          hint=f"drop {' and '.join(fed)}, or pick a runtime (onnxruntime, tflite, tensorrt)")
    datafiles.require_calibration_dir(spec.calibration)  # whatever the precision: a path pointing nowhere is a typo
    if spec.input_data is not None and not os.path.exists(os.path.expanduser(spec.input_data)):
        raise ConfigError(f"--input-data {spec.input_data}: no such file or directory",
                          hint="give an .npz file (arrays by input name) or a directory of NAME.npy files")
    if spec.accuracy is not None:
        from ..evaluation.accuracy import require_file

        require_file(spec.accuracy)  # found now, not after connecting and exporting
        if o.find_max_rate:
            raise ConfigError("--accuracy with --find-max-rate: every probe would score the data again",
                              hint="score it once in a plain deploy of the same model")


def validate_spec(spec: RunSpec) -> None:
    """The run specification alone (what a sweep cell is checked with, and deploy() before it connects)."""
    if spec.runtime not in RUNTIMES:
        raise ConfigError(f"--runtime {spec.runtime}: not supported yet", hint=f"supported: {', '.join(RUNTIMES)}")
    if spec.precision not in PRECISIONS:
        raise ConfigError(f"--precision {spec.precision}: not supported yet for {spec.runtime}",
                          hint=f"supported: {', '.join(PRECISIONS)}")
    static = capability.decide(spec.model, spec.runtime, spec.precision, None, spec.device, spec.runtime_options)
    if not static.ok:
        raise ConfigError(f"--runtime {spec.runtime} --precision {spec.precision}: {static.reason}")
    if spec.batch < 1:
        raise ConfigError(f"--batch {spec.batch}: must be at least 1")
    if spec.threads is not None and spec.threads < 1:
        raise ConfigError(f"--threads {spec.threads}: must be at least 1 (leave it out for the runtime default)")
    if spec.min_duration_s < 0 or spec.warmup_s < 0:
        raise ConfigError("--min-duration and --warmup must be >= 0 seconds")
    if spec.max_queries is not None and spec.max_queries < spec.min_queries:
        raise ConfigError(f"--max-queries {spec.max_queries} is below --min-queries {spec.min_queries}")
    if spec.min_queries < 1:
        raise ConfigError(f"--min-queries {spec.min_queries}: must be at least 1")
    validate_telemetry(spec)
    validate_scenario(spec)
    if spec.accuracy and spec.runtime == "null":
        raise ConfigError(f"--accuracy {spec.accuracy}: the null runtime computes nothing to score",
                          hint="pick a runtime (onnxruntime, tflite, tensorrt)")


def validate_scenario(spec: RunSpec) -> None:
    """--scenario and its parameters: one-line errors before anything connects."""
    if spec.scenario not in SCENARIOS:
        raise ConfigError(f"--scenario {spec.scenario}: unknown", hint=f"choose one of: {', '.join(SCENARIOS)}")
    if spec.scenario in SCHEDULED_SCENARIOS:
        if spec.rate is None:
            raise ConfigError(f"--scenario {spec.scenario} needs --rate QPS (queries per second)",
                              hint=f"e.g. --scenario {spec.scenario} --rate 30")
    elif spec.rate is not None and spec.scenario != "sustained":
        raise ConfigError(f"--rate {spec.rate:g}: only server and fixed-rate (and sustained, at a fixed rate) issue "
                          "queries on a schedule, "
                          f"not {spec.scenario}", hint="leave --rate out, or choose --scenario fixed-rate or server")
    problem = schedule_problem(spec.rate, spec.min_queries) if spec.rate is not None else None
    if problem is not None:
        raise ConfigError(f"--rate {spec.rate:g}: {problem}")
    if spec.scenario == "multi-stream" and (spec.samples_per_query < 1 or spec.samples_per_query % spec.batch):
        raise ConfigError(f"--samples-per-query {spec.samples_per_query}: must be a multiple of --batch "
                          f"{spec.batch} (each query runs samples_per_query / batch inferences)")
    if not 1 <= spec.streams <= MAX_STREAMS:
        raise ConfigError(f"--streams {spec.streams}: must be between 1 and {MAX_STREAMS}")
    if spec.sessions != 1 and spec.scenario != SINGLE_STREAM:
        raise ConfigError(f"--sessions {spec.sessions}: more sessions time the single-stream loop only, not "
                          f"--scenario {spec.scenario}", hint="leave --sessions out for a load scenario")
    if spec.streams != 1 and spec.scenario != "offline":
        raise ConfigError(f"--streams {spec.streams}: only the offline scenario runs several streams",
                          hint="add --scenario offline")
    for flag, v in (("--latency-bound", spec.latency_bound_ms), ("--battery-wh", spec.battery_wh)):
        if v is not None and (not _finite(v) or v <= 0):
            raise ConfigError(f"{flag} {v:g}: must be > 0")
    # the table's bounds (vocab.SETTINGS), the same a sweep file's settings are checked with
    check_cli_settings({name: getattr(spec, name) for name in _WORDED})
    if spec.scenario == "sustained":
        duration = spec.duration_s or SCENARIO_DEFAULTS["duration_s"]
        if spec.sustained_window_s * MIN_WINDOWS > duration:
            raise ConfigError(f"--scenario sustained: --window {spec.sustained_window_s:g} s leaves fewer than "
                              f"{MIN_WINDOWS} windows in --duration {duration:g} s",
                              hint=f"a shorter --window (at most {longest_window(duration)}) or a longer --duration")
    for flag, v in (("--ttft-bound", spec.ttft_bound_ms), ("--tpot-bound", spec.tpot_bound_ms)):
        if v is not None:  # a sweep's settings reach a forward-pass cell here (deploy refuses the flag earlier)
            raise ConfigError(f"{flag} {v:g}: judges a generative model's server run (its p99 TTFT / TPOT), not "
                              f"{spec.model}'s forward pass", hint="use --latency-bound for a forward-pass server")
    if spec.scenario == "server" and spec.latency_bound_ms is None:
        raise ConfigError("--scenario server needs --latency-bound MS (the run is VALID when p99 is within it)",
                          hint="e.g. --scenario server --rate 40 --latency-bound 50")


def _not_a_number(v: object) -> bool:
    """A value no comparison can judge (argparse hands `--cooldown=--` over as []): the table's check words it."""
    return v is not None and (isinstance(v, bool) or not isinstance(v, int | float))


def _finite(v: float) -> bool:
    return v == v and v not in (float("inf"), float("-inf"))


def validate_telemetry(spec: RunSpec) -> None:
    """--idle, --cooldown, --cooldown-timeout, --power-rate: one-line errors before anything connects."""
    if not _finite(spec.idle_s) or spec.idle_s < 0:
        raise ConfigError(f"--idle {spec.idle_s:g}: must be >= 0 seconds (0 turns the idle power baseline off)")
    if spec.cooldown_c is not None and (not _finite(spec.cooldown_c) or not 0 < spec.cooldown_c <= MAX_COOLDOWN_C):
        raise ConfigError(f"--cooldown {spec.cooldown_c:g}: a temperature in °C between 0 and {MAX_COOLDOWN_C:g}",
                          hint="e.g. --cooldown 50 waits until the hottest sensor reads below 50 °C")
    if not _finite(spec.cooldown_timeout_s) or spec.cooldown_timeout_s <= 0:
        raise ConfigError(f"--cooldown-timeout {spec.cooldown_timeout_s:g}: must be > 0 seconds")
    if spec.power_rate_hz is not None and (not _finite(spec.power_rate_hz)
                                           or not 0 < spec.power_rate_hz <= MAX_POWER_RATE_HZ):
        raise ConfigError(f"--power-rate {spec.power_rate_hz:g}: must be > 0 and <= {MAX_POWER_RATE_HZ:g} Hz",
                          hint="the sensor caps it anyway (INA3221 ~50 Hz, vcgencmd ~10 Hz)")
