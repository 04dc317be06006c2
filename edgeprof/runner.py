"""One RunSpec on one Device → one Result: prepare the artifact, push, measure, compute statistics, store.

Owns: the order of a deploy and turning the agent's raw measurement into a Result (statistics from raw samples,
memory, environment, warnings with advice). A failure raises before anything is stored, so the database never
holds half a run.
Does not own: exporting (export/), moving bytes (agentlink, transport), measuring (agent), persisting (store).
"""

from __future__ import annotations

import platform
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from . import __version__
from .agentlink import AgentLink
from .errors import ConfigError, ModelError
from .records import Artifact, Device, Result, RunSpec, new_run_id, utc_now
from .stats import latency_summary, stability_warnings, throughput
from .store import Store
from .transport import open_transport

RUNTIMES = ("onnxruntime", "null")
PRECISIONS = ("fp32",)
AGENT_SILENCE_TIMEOUT_S = 600.0


class Progress(Protocol):
    def stage(self, text: str) -> None: ...

    def event(self, event: dict[str, Any]) -> None: ...


class _Quiet:
    def stage(self, text: str) -> None:
        pass

    def event(self, event: dict[str, Any]) -> None:
        pass


def validate_spec(spec: RunSpec) -> None:
    if spec.runtime not in RUNTIMES:
        raise ConfigError(f"--runtime {spec.runtime}: not supported yet", hint=f"supported: {', '.join(RUNTIMES)}")
    if spec.precision not in PRECISIONS:
        raise ConfigError(f"--precision {spec.precision}: not supported yet for {spec.runtime}",
                          hint=f"supported: {', '.join(PRECISIONS)}")
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


def prepare_artifact(spec: RunSpec, cache_dir: Path | None = None,
                     say: Callable[[str], None] | None = None) -> Artifact:
    from .export.onnx_export import default_cache_dir, prepare_onnx
    from .export.resolve import resolve_model

    source = resolve_model(spec.model)
    if getattr(source, "kind", None) == "tflite":
        raise ModelError(f"{spec.model}: TFLite models are not supported yet",
                         hint="use an .onnx file or a bundled model with --runtime onnxruntime")
    return prepare_onnx(source, cache_dir=cache_dir or default_cache_dir(), seed=spec.seed, progress=say)


def input_params(artifact: Artifact, spec: RunSpec) -> list[dict[str, Any]]:
    known = {t.name for t in artifact.inputs}
    unknown = sorted(set(spec.input_shapes) - known)
    if unknown:
        raise ModelError(f"--input {unknown[0]}: the model has no input named {unknown[0]!r}",
                         hint="its inputs are " + ", ".join(f"{t.name}{t.shape_str()}" for t in artifact.inputs))
    out = []
    for t in artifact.inputs:
        shape = t.concrete(spec.batch, spec.input_shapes)
        if len(shape) != len(t.shape):
            raise ModelError(f"--input {t.name}={'x'.join(map(str, shape))}: the model's input has rank "
                             f"{len(t.shape)} {t.shape_str()}", hint="give one size per dimension")
        for i, (want, got) in enumerate(zip(t.shape, shape, strict=True)):
            if isinstance(want, int) and want >= 0 and want != got:
                raise ModelError(f"--input {t.name}: dimension {i} is fixed at {want} in the model, not {got}")
        out.append({"name": t.name, "shape": list(shape), "dtype": t.dtype, "low": t.low, "high": t.high})
    return out


def host_environment() -> dict[str, Any]:
    return {"hostname": socket.gethostname(), "python": platform.python_version(), "edgeprof": __version__,
            "platform": platform.platform()}


def deploy(spec: RunSpec, device: Device, *, store: Store | None, progress: Progress | None = None,
           cache_dir: Path | None = None, extra_params: dict[str, Any] | None = None) -> Result:
    progress = progress or _Quiet()
    validate_spec(spec)
    artifact: Artifact | None = None
    inputs: list[dict[str, Any]] = []
    if spec.runtime != "null":
        progress.stage("export")
        artifact = prepare_artifact(spec, cache_dir, progress.stage)
        inputs = input_params(artifact, spec)

    progress.stage(f"connecting to {device.name}")
    with open_transport(device) as transport:
        link = AgentLink.open(transport, device, progress=progress.stage)
        try:
            agent_bytes = link.bytes_moved
            artifact_bytes = 0
            remote_path = None
            if artifact is not None:
                progress.stage("pushing model")
                remote_path, artifact_bytes = link.push_artifact(artifact.path, artifact.sha256, artifact.extension)
            facts = link.call("facts", {"runtimes": False})
            params: dict[str, Any] = {
                "runtime": spec.runtime,
                "artifact": {"path": remote_path, "format": artifact.format if artifact else None,
                             "sha256": artifact.sha256 if artifact else None},
                "inputs": inputs,
                "seed": spec.seed,
                "batch": spec.batch,
                "threads": spec.threads,
                "runtime_options": spec.runtime_options,
                "warmup_s": spec.warmup_s,
                "min_duration_s": spec.min_duration_s,
                "min_queries": spec.min_queries,
                "max_queries": spec.max_queries,
                "power": device.power,
            }
            params.update(extra_params or {})
            progress.stage("measuring")
            raw = link.call("run", params, on_event=progress.event, timeout=AGENT_SILENCE_TIMEOUT_S)
        finally:
            link.close()

    result = build_result(spec, device, artifact, raw, facts,
                          transfer={"agent_bytes": agent_bytes, "artifact_bytes": artifact_bytes,
                                    "total_bytes": agent_bytes + artifact_bytes})
    if store is not None:
        progress.stage("storing")
        store.save(result)
    return result


def build_result(spec: RunSpec, device: Device, artifact: Artifact | None, raw: dict[str, Any],
                 facts: dict[str, Any], transfer: dict[str, Any]) -> Result:
    samples_ms = [ns / 1e6 for ns in raw["samples_ns"]]
    lat = latency_summary(samples_ms)
    window_s = float(raw["window_s"])
    tput = throughput(len(samples_ms), spec.batch, window_s)
    mem = dict(raw.get("memory") or {})
    if artifact is not None:
        mem["artifact_size"] = artifact.size_bytes / 1e6
    runtime_desc = raw.get("runtime") or {}
    environment = {
        "device": facts,
        "host": host_environment(),
        "runtime": runtime_desc,
        "agent_version": facts.get("agent_version"),
        "edgeprof_version": __version__,
        "model_sha256": artifact.sha256 if artifact else None,
        "export_options": artifact.export_options if artifact else None,
        "thread_env": facts.get("env", {}),
        "clock": raw.get("clock"),
    }
    result = Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=device.name, model=spec.model,
        runtime=spec.runtime, precision=spec.precision, batch=spec.batch, threads=spec.threads,
        latency_ms=lat, throughput_ips=tput, memory_mb=mem, power=raw.get("power"), thermal=raw.get("thermal"),
        fidelity=None, environment=environment, warnings=[], samples_ms=samples_ms,
        artifact=artifact.to_dict() if artifact else None,
        settings={
            "min_duration_s": spec.min_duration_s, "min_queries": spec.min_queries, "warmup_s": spec.warmup_s,
            "seed": spec.seed, "inputs": [{"name": i["name"], "shape": i["shape"], "dtype": i["dtype"]}
                                          for i in raw.get("inputs_used", [])] or spec.input_shapes,
            "runtime_options": spec.runtime_options, "window_s": window_s, "stopped_by": raw.get("stopped_by"),
            "warmup": raw.get("warmup"), "load_s": raw.get("load_s"),
        },
        transfer=transfer,
    )
    result.extra["null_reasons"] = {
        k: v for k, v in {
            "power": None if raw.get("power") else raw.get("power_reason") or "no power data",
            "thermal": None if raw.get("thermal") else "thermal telemetry not available on this device/agent",
            "fidelity": "output fidelity checks are not implemented yet",
        }.items() if v
    }
    power = result.power
    if power and artifact is not None and artifact.flops and power.get("mean_w") and tput:
        gflops = artifact.flops * tput / 1e9
        power["achieved_gflops"] = gflops
        power["gflops_per_watt"] = gflops / power["mean_w"]
    for w in stability_warnings(lat, min_duration_s=spec.min_duration_s):
        result.warn(w["code"], w["message"])
    for w in raw.get("warnings") or []:
        result.warn(w.get("code", "agent"), w.get("message", ""))
    warm = raw.get("warmup") or {}
    if warm.get("iterations") and not warm.get("steady"):
        result.warn("warmup_not_steady", f"latency was not steady after {warm.get('duration_s')} s of warm-up; "
                    "raise --warmup (clocks or caches may still have been settling)")
    if raw.get("stopped_by", "").startswith("max_duration"):
        result.warn("max_duration", "the run hit its time limit before --min-queries was reached")
    if raw.get("stopped_by", "").startswith("max_queries"):
        result.warn("max_queries", f"the run stopped at --max-queries {spec.max_queries} before --min-duration "
                    f"{spec.min_duration_s:g} s passed (queries are very short); raise --max-queries to run longer")
    return result
