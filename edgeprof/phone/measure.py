"""One measurement on a phone, from a RunSpec to a Result: the forward-pass kind's steps on a phone, which the phone's
measurer (edgeprof/session/phone.py) takes for `deploy --device PHONE`, a sweep's phone cells and a queue worker's.

Owns: what a phone refuses (one line each: another runtime, --accuracy, scenarios, ...), the delegate a spec asks
for, and the steps: the TFLite export (run/prepare.py, cached), the phone's facts, the push by content, the
benchmark_model run (runner.py), the Result (result.py). Does not own: the connection and the lease (the phone's
measurer, edgeprof/session/phone.py, holds them), storing (the caller), the sweep's rows (lab/).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError
from ..records import Device, Phases, Result, RunSpec
from ..run.timing import PhaseClock
from ..transport.adb import ADBTransport
from ..vocab import SINGLE_STREAM
from .benchmark import DELEGATES, BenchmarkStats
from .facts import PhoneFacts
from .runner import NOT_ON_PHONES, TIMEOUT_S, PhoneRun


def refusal(spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
    """The first thing of `spec` a phone cannot do yet, as one line (None: a phone can measure it)."""
    if spec.runtime not in ("tflite", "onnxruntime") or (runtime_given and runtime_given != "tflite"):
        return f"runtime {runtime_given or spec.runtime}: a phone runs LiteRT (tflite) through benchmark_model"
    for given, what in ((spec.accuracy, "--accuracy"), (spec.input_data, "--input-data"),
                        (spec.scenario != SINGLE_STREAM, f"--scenario {spec.scenario}"),
                        (spec.batch != 1, "--batch"), (find_max_rate, "--find-max-rate"),
                        (spec.cooldown_c is not None, "--cooldown"), (spec.gpu is not None, "--gpu")):
        if given:
            return f"{what} is {NOT_ON_PHONES}"
    return None


def delegate_of(spec: RunSpec) -> str:
    """The delegate a spec asks benchmark_model for (--delegate, or --xnnpack false: cpu; default xnnpack)."""
    options = spec.runtime_options
    delegate = str(options.get("delegate") or ("cpu" if options.get("xnnpack") is False else "xnnpack"))
    if delegate not in DELEGATES:
        raise ConfigError(f"--delegate {delegate}: a phone offers {', '.join(DELEGATES)} through benchmark_model "
                          f"(external delegates are {NOT_ON_PHONES})")
    return delegate


def measure(spec: RunSpec, device: Device, transport: ADBTransport, *, say: Callable[[str], None] | None = None,
            cache_dir: Path | None = None, facts: PhoneFacts | None = None,
            timeout_s: float = TIMEOUT_S, clock: PhaseClock | None = None) -> tuple[Result, PhoneFacts]:
    """Measure `spec` (a phone can: see refusal) on the phone behind `transport`, under the caller's lease.
    Returns the Result (not stored) and the phone's facts (read here unless given: a sweep reads them once).
    `clock`: the measurement's phases so far (a deploy's connect; a sweep times it once per board)."""
    from ..run.prepare import prepare
    from .facts import read_facts
    from .result import phone_result
    from .runner import PhoneRunner

    tell = say or (lambda s: None)
    clock = clock or PhaseClock()
    spec = dataclasses.replace(spec, runtime="tflite")
    delegate = delegate_of(spec)
    with clock.phase("export"):
        prepared = prepare(spec, cache_dir, say=tell, calibration=spec.calibration)
    art = prepared.artifact
    if facts is None:
        tell(f"reading {device.name}'s facts")
        with clock.phase("facts"):
            facts = read_facts(transport, device)
    session = PhoneRunner(transport, device)
    tell("pushing model")
    with clock.phase("push"):
        remote, _ = session.push_artifact(art.path, art.sha256, art.extension)
    tell("measuring with benchmark_model")
    with clock.phase("run"):
        run = session.measure(remote, threads=spec.threads, num_runs=spec.min_queries, warmup_runs=1,
                              warmup_min_secs=spec.warmup_s, min_secs=spec.min_duration_s, delegate=delegate,
                              profile_ops=spec.profile_ops, timeout=timeout_s)
    result = phone_result(spec, device, art, run, facts, delegate=delegate, period_s=session.sampler_period_s)
    return dataclasses.replace(result, phases=phases(clock, run)), facts


def phases(clock: PhaseClock, run: PhoneRun) -> Phases:
    """The measurement's phases: the host's (export, facts, push, the benchmark_model run's round trip, as the
    device's time) and benchmark_model's own: init as load, the warm-up and timed runs as the sums of their
    durations (count × mean: benchmark_model's gaps between runs are not in them)."""
    out = run.output
    host = clock.phases(None)

    def summed(stats: BenchmarkStats | None) -> float | None:
        return round(stats.count * stats.mean / 1e6, 4) if stats is not None and stats.mean is not None else None

    timed = summed(out.timed if out is not None else None)
    return dataclasses.replace(host, device_s=host.run_s, load_s=round(run.init_ms / 1000, 4),
                               warmup_s=summed(out.warmup if out is not None else None), window_s=timed,
                               measure_s=timed)
