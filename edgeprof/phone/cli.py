"""`edgeprof deploy --device PHONE`: the model exported to (or given as) TFLite, pushed by content, measured by
benchmark_model (session.py), printed, and written with --json. What a phone cannot do yet is one line each."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ..errors import ConfigError
from ..records import Device, RunSpec, dumps_json
from ..vocab import SINGLE_STREAM
from .benchmark import DELEGATES, placement_line
from .session import NOT_ON_PHONES, PhoneRun, PhoneSession


def refused(spec: RunSpec, args: argparse.Namespace) -> str | None:
    """The first flag a phone cannot honour yet, as one line."""
    if spec.runtime not in ("tflite", "onnxruntime") or (args.runtime and args.runtime != "tflite"):
        return f"--runtime {spec.runtime}: a phone runs LiteRT (tflite) through benchmark_model"
    for given, what in ((spec.accuracy, "--accuracy"), (spec.input_data, "--input-data"),
                        (spec.scenario != SINGLE_STREAM, f"--scenario {spec.scenario}"),
                        (spec.batch != 1, "--batch"), (getattr(args, "find_max_rate", False), "--find-max-rate"),
                        (spec.precision == "fp16", "--precision fp16 (no fp16 TFLite export; an fp16 .tflite runs as "
                                                   "given, without --precision)"),
                        (spec.cooldown_c is not None, "--cooldown")):
        if given:
            return f"{what} is {NOT_ON_PHONES}"
    return None


def deploy_phone(args: argparse.Namespace, spec: RunSpec, device: Device) -> int:
    from ..cli.ui import err, out
    from ..run.prepare import prepare
    from .device import open_adb

    reason = refused(spec, args)
    if reason is not None:
        raise ConfigError(f"device {device.name}: {reason}")
    spec = dataclasses.replace(spec, runtime="tflite")
    options = spec.runtime_options
    delegate = str(options.get("delegate") or ("cpu" if options.get("xnnpack") is False else "xnnpack"))
    if delegate not in DELEGATES:
        raise ConfigError(f"--delegate {delegate}: a phone offers {', '.join(DELEGATES)} through benchmark_model "
                          f"(external delegates are {NOT_ON_PHONES})")
    say = (lambda s: None) if args.quiet else (lambda s: err.print(s))
    prepared = prepare(spec, say=say, calibration=spec.calibration)
    art = prepared.artifact
    say(f"connecting to {device.name} over adb")
    transport = open_adb(device)
    session = PhoneSession(transport, device)
    say("pushing model")
    remote, _ = session.push_artifact(art.path, art.sha256, art.extension)
    say("measuring with benchmark_model")
    run = session.measure(remote, threads=spec.threads, num_runs=spec.min_queries, warmup_runs=1,
                          warmup_min_secs=spec.warmup_s, min_secs=spec.min_duration_s, delegate=delegate,
                          profile_ops=spec.profile_ops)
    data = {"device": device.name, "model": spec.model, "precision": spec.precision, "delegate": delegate,
            "artifact": {"sha256": art.sha256, "bytes": art.size_bytes},
            "stored": f"storing a phone run is {NOT_ON_PHONES} (a stored result needs every run's time)",
            **run.to_dict()}
    if args.json == "-":
        print(dumps_json(data, indent=2))
    elif args.json:
        with open(args.json, "w") as f:
            f.write(dumps_json(data, indent=2))
    if args.json != "-":
        render(run, out)
        err.print(data["stored"])
    return 0


def render(run: PhoneRun, out: Any) -> None:
    lat = run.latency_ms
    parts = [f"{k} {lat[k]:.3f}" for k in ("p5", "p50", "p95", "mean", "min", "max") if k in lat]
    out.print(f"latency ms ({lat['count']} runs, benchmark_model's own statistics): {'  '.join(parts)}",
              markup=False)
    out.print(f"not measured: p99 and per-run samples — {lat['absent']['p99']}", markup=False, soft_wrap=True)
    out.print(f"init {run.init_ms:.3f} ms, first inference {run.first_inference_ms:.3f} ms", markup=False, soft_wrap=True)
    peak = run.memory_mb.peak
    if peak is not None:
        out.print(f"memory: peak {peak:.2f} MB (benchmark_model's periodic RSS monitor)", markup=False, soft_wrap=True)
    if run.power is not None:
        p = run.power
        what = "battery, whole phone" if p["source"] == "battery" else f"rails: {p['covers']}"
        out.print(f"power ({what}): mean {p['mean_w']:.3f} W over {p['duration_s']:.1f} s, "
                  f"{p['energy_per_inference_j'] * 1000:.3f} mJ per inference", markup=False, soft_wrap=True)
    elif not any(w.startswith("power refused") for w in run.warnings):  # a refusal is its one warning line
        out.print(f"power: not measured — {run.power_reason}", markup=False, soft_wrap=True)
    for d in run.delegation:
        out.print(placement_line(d), markup=False, soft_wrap=True)
    out.print(f"thermal: {run.thermal_before.status_name} → {run.thermal_after.status_name}", markup=False,
              soft_wrap=True)
    for w in run.warnings:
        out.print(f"warning: {w}", markup=False, soft_wrap=True)
