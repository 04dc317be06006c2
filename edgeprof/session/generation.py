"""The generation measurement kind (docs/generative.md): a decoder-only language model's TTFT, prefill and decode
tokens/s and peak memory, measured by the agent's `generate` op (protocol 11) and stored as the Result's
`generation` section.

Which specs it takes (`wants`): a bundled generative model (edgeprof_models.generative), a path that is one (a
Hugging Face folder, an onnxruntime-genai folder, a .gguf or .litertlm file: detect() judges it), or a generation
runtime (vocab.GEN_RUNTIMES: llama.cpp, onnxruntime-genai). Its settings (prompt tokens, generated tokens, depth,
repetitions; llama-bench's defaults, vocab.GEN_DEFAULTS) are run settings (edgeprof/vocab.py RunSettings: deploy's
flags, a sweep's settings, the stored settings section).

Owns: the kind and its methods (AgentGeneration: the artifact (built by generative/build.py, cached), the
capability check on the device's facts before anything is pushed, the context check, the push (a GGUF file, or
each file of an onnxruntime-genai folder), the GenerateRequest, its silences, the Result; PhoneGeneration: the
phone's one-line refusal), the checks before connecting (`check`). Does not own: the agent's op (genworker.py),
building models (generative/build.py), the section's statistics (generative/reply.py, stats.py), storing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeprof_agent.vocab import GEN_DEFAULTS, GEN_RUNTIMES, SCENARIO_DEFAULTS, SINGLE_STREAM

from ..errors import CapabilityError, ConfigError
from .kinds import Job, MeasurementKind

if TYPE_CHECKING:
    from edgeprof_agent.messages import Facts

    from ..records import Artifact, Result, RunSpec
    from ..run.timing import PhaseClock
    from .agent import AgentMeasurer
    from .session import DeviceSession

# the precisions each generation runtime's artifacts are built at (generative/build.py)
GEN_PRECISIONS: dict[str, tuple[str, ...]] = {"llama.cpp": ("f16", "q8_0", "q4_0"),
                                              "onnxruntime-genai": ("fp32", "int4")}
ALL_GEN_PRECISIONS = ("f16", "q8_0", "q4_0", "fp32", "int4")
DEFAULT_PRECISION = {"llama.cpp": "q4_0", "onnxruntime-genai": "int4"}
# the module each runtime is imported as on the device (the agent's facts report it: environment.RUNTIME_MODULES)
RUNTIME_MODULE = {"llama.cpp": "llama_cpp", "onnxruntime-genai": "onnxruntime_genai"}
# the generation settings (vocab.RunSettings: --prompt-tokens, --gen-tokens, --depth, --repetitions; None: the
# agent's GEN_DEFAULTS, llama-bench's); the model's context bounds depth + prompt + generated tokens
GEN_SETTINGS = ("prompt_tokens", "gen_tokens", "depth", "repetitions")
# the settings only a generative model takes (refused on a forward pass): those and the server's bounds
GEN_ONLY = GEN_SETTINGS + ("ttft_bound_ms", "tpot_bound_ms")

LITERTLM_PHONES = "LiteRT-LM on phones: not supported yet"

# a generation's load scenarios (docs/generative.md "Scenarios"): single-stream (repetitions back to back), server
# (Poisson arrivals at --rate, one request at a time; the p99 TTFT and TPOT judged against --ttft-bound and
# --tpot-bound) and sustained (requests back to back for --duration in --window windows)
GEN_SCENARIOS = (SINGLE_STREAM, "server", "sustained")
# each scenario flag of deploy a generative model takes -> the scenarios it applies to (check_flags; --scenario
# itself: check_scenario); the server's
# request count is the forward-pass server's: --min-queries requests, enough to cover --min-duration, at most
# --max-queries
SCENARIO_FLAGS: dict[str, tuple[str, ...]] = {
    "--rate": ("server",), "--min-duration": ("server",),
    "--min-queries": ("server",), "--max-queries": ("server",), "--ttft-bound": ("server",),
    "--tpot-bound": ("server",), "--duration": ("sustained",), "--window": ("sustained",),
    "--repetitions": (SINGLE_STREAM,)}


def bundled(name: str) -> bool:
    import edgeprof_models.generative as gen

    return name in gen.GENERATIVE


def model_path_like(model: str) -> bool:
    """A path a generative model lives at (judged by its form; detect() validates it)."""
    p = Path(model).expanduser()
    return p.suffix.lower() in (".gguf", ".litertlm") or p.is_dir()


def wants(spec: RunSpec) -> bool:
    return spec.runtime in GEN_RUNTIMES or bundled(spec.model) or model_path_like(spec.model)


def is_generative(model: str, runtime: str | None) -> bool:
    return (runtime in GEN_RUNTIMES) or bundled(model) or model_path_like(model)


def settings_of(spec: RunSpec) -> dict[str, int]:
    """The generation settings of `spec`, each given or llama-bench's default."""
    out: dict[str, int] = {}
    for name in GEN_SETTINGS:
        value = getattr(spec, name)
        out[name] = int(GEN_DEFAULTS[name] if value is None else value)
    return out


def default_runtime(model: str) -> str:
    """llama.cpp for a GGUF, a bundled model or a Hugging Face folder; onnxruntime-genai for its own folder."""
    p = Path(model).expanduser()
    if p.is_dir() and (p / "genai_config.json").is_file():
        return "onnxruntime-genai"
    return "llama.cpp"


def gguf_precision(model: str) -> str | None:
    """A user GGUF's own precision (its general.file_type: MOSTLY_Q4_0 → q4_0), None for anything else."""
    p = Path(model).expanduser()
    if not p.is_file() or p.suffix.lower() != ".gguf":
        return None
    from ..generative.detect import detect

    weights = detect(p).weights or "unknown"
    return weights.lower().removeprefix("mostly_")


def check(spec: RunSpec) -> None:
    """Every problem of a generation spec that needs no device, one line each: the runtime and precision, the
    settings' bounds, a user path (detect()'s lines) and its context."""
    if spec.runtime not in GEN_RUNTIMES:
        raise ConfigError(f"--runtime {spec.runtime}: {spec.model} is a generative model; it runs on "
                          f"{' or '.join(GEN_RUNTIMES)}", hint="--runtime llama.cpp or --runtime onnxruntime-genai")
    own = gguf_precision(spec.model)
    if own is not None and spec.precision != own:
        raise ConfigError(f"--precision {spec.precision}: {spec.model} holds {own} weights (measured as they are)",
                          hint=f"leave --precision out (it is {own}), or give the Hugging Face folder to convert")
    if own is None and spec.precision not in GEN_PRECISIONS[spec.runtime]:
        raise ConfigError(f"--precision {spec.precision}: {spec.runtime} takes "
                          f"{', '.join(GEN_PRECISIONS[spec.runtime])}",
                          hint=f"--precision {DEFAULT_PRECISION[spec.runtime]} (the default for {spec.runtime})")
    from ..files.config import check_cli_settings

    check_cli_settings({name: getattr(spec, name) for name in GEN_ONLY})
    check_scenario(spec)
    s = settings_of(spec)
    if spec.threads is not None and spec.threads < 1:
        raise ConfigError(f"--threads {spec.threads}: must be at least 1 (leave it out for the runtime default)")
    if bundled(spec.model):
        import edgeprof_models.generative as gen

        _context(spec.model, gen.get_generative(spec.model).max_position_embeddings, s)
        return
    from ..generative.detect import detect

    info = detect(spec.model)
    need = {"gguf": ("llama.cpp",), "ortgenai": ("onnxruntime-genai",), "hf": GEN_RUNTIMES}.get(info.kind, ())
    if spec.runtime not in need:
        raise ConfigError(f"--runtime {spec.runtime}: {spec.model} is a {info.kind} model"
                          + (f"; it runs on {' or '.join(need)}" if need else "; not supported yet"),
                          hint=f"--runtime {need[0]}" if need else "give a .gguf, a Hugging Face folder or an "
                          "onnxruntime-genai folder")
    info.check_context(s["depth"], s["prompt_tokens"], s["gen_tokens"])


def check_flags(scenario: str, given: Iterable[str]) -> None:
    """Each scenario flag given applies to the generation's `scenario` (SCENARIO_FLAGS), or one line naming what
    it applies to."""
    for flag in sorted(given):
        where = SCENARIO_FLAGS.get(flag)
        if where is not None and scenario not in where:
            raise ConfigError(f"{flag}: for a generative model's {' or '.join(where)} scenario, not {scenario}",
                              hint=f"drop {flag}, or add --scenario {where[0]}" if where[0] != SINGLE_STREAM
                              else f"drop {flag}: {_COUNT_WORDS.get(scenario, '')}")


_COUNT_WORDS = {"server": "a server issues --min-queries requests and covers --min-duration",
                "sustained": "a sustained run lasts --duration"}


def check_scenario(spec: RunSpec) -> None:
    """The generation's load scenario and its settings, one line each (values, so a sweep's cell is judged as a
    deploy is)."""
    from ..run.validate import MIN_WINDOWS, longest_window
    from ..vocab import schedule_problem

    sc = spec.scenario
    if sc not in GEN_SCENARIOS:
        raise ConfigError(f"--scenario {sc}: a generative model runs {', '.join(GEN_SCENARIOS)}",
                          hint="--scenario server --rate R (requests/s), or --scenario sustained --duration TIME")
    bounds = [f for f, v in (("--ttft-bound", spec.ttft_bound_ms), ("--tpot-bound", spec.tpot_bound_ms))
              if v is not None]
    if bounds and sc != "server":
        raise ConfigError(f"{bounds[0]}: judges a generative server run, not {sc}",
                          hint="add --scenario server --rate R, or drop it")
    if sc == SINGLE_STREAM:
        return
    if spec.depth:
        raise ConfigError(f"--depth {spec.depth} with --scenario {sc}: not supported yet for generative models",
                          hint="leave --depth out (0), or measure depth single-stream")
    if sc == "server":
        if spec.rate is None:
            raise ConfigError("--scenario server needs --rate R: the requests' mean arrivals per second (Poisson)",
                              hint="e.g. --scenario server --rate 0.5 --ttft-bound 2000 --tpot-bound 100")
        problem = schedule_problem(spec.rate, spec.min_queries, spec.min_duration_s)
        if problem is not None:
            raise ConfigError(f"--rate {spec.rate:g}: {problem}")
        return
    if spec.rate is not None:
        raise ConfigError(f"--rate {spec.rate:g} with --scenario sustained: not supported yet for generative models",
                          hint="leave --rate out: requests run back to back")
    duration = spec.duration_s or SCENARIO_DEFAULTS["duration_s"]
    if spec.sustained_window_s * MIN_WINDOWS > duration:
        raise ConfigError(f"--scenario sustained: --window {spec.sustained_window_s:g} s leaves fewer than "
                          f"{MIN_WINDOWS} windows in --duration {duration:g} s",
                          hint=f"a shorter --window (at most {longest_window(duration)}) or a longer --duration")


def _context(model: str, ctx: int, s: dict[str, int]) -> None:
    need = s["depth"] + s["prompt_tokens"] + s["gen_tokens"]
    if need > ctx:
        raise ConfigError(f"--depth {s['depth']} + {s['prompt_tokens']} prompt + {s['gen_tokens']} generated = "
                          f"{need} tokens is past the context of {model} ({ctx} tokens)",
                          hint=f"lower --depth to at most {max(0, ctx - s['prompt_tokens'] - s['gen_tokens'])}, "
                               "or the prompt or generated tokens")


def capability(runtime: str, facts: Facts, device: str) -> None:
    """The device has the runtime's module importable (its facts), or one line saying it lacks it."""
    mod = RUNTIME_MODULE[runtime]
    fact = (facts.runtimes or {}).get(mod)
    if fact is None or fact.error is not None or fact.version is None:
        why = fact.error if fact is not None and fact.error else "not reported by the agent"
        pkg = {"llama.cpp": "llama-cpp-python", "onnxruntime-genai": "onnxruntime-genai"}[runtime]
        raise CapabilityError(f"device {device} has no {runtime}: {mod} is not importable there ({why})",
                              hint=f"install {pkg} on the device, or pick --runtime "
                                   f"{' / '.join(r for r in GEN_RUNTIMES if r != runtime)}")


def artifact_of(spec: RunSpec, cache_dir: Path | None) -> Artifact:
    """The model as the runtime loads it (cached builds): a GGUF file, or an onnxruntime-genai folder (its
    model.onnx: the Artifact's path)."""
    import dataclasses

    from ..agentlink.push import sha256_file
    from ..generative.build import gguf_file, hf_folder, ortgenai_folder
    from ..generative.detect import detect

    if bundled(spec.model):
        folder, name, kind = Path(hf_folder(spec.model, cache_dir=cache_dir).path).parent, spec.model, "hf"
    else:
        info = detect(spec.model)
        folder, name, kind = Path(info.path), Path(info.path).stem, info.kind
    if kind == "hf":
        art = (gguf_file(folder, spec.precision, cache_dir=cache_dir, name=name) if spec.runtime == "llama.cpp"
               else ortgenai_folder(folder, spec.precision, cache_dir=cache_dir, name=name))
    elif kind == "gguf":
        from ..records import Artifact

        art = Artifact(path=str(folder), format="gguf", sha256="", size_bytes=0, inputs=(), outputs=(),
                       model_name=name, source=f"file:{folder}", precision=spec.precision, export_options={})
    else:  # an onnxruntime-genai folder as it is
        from ..records import Artifact

        art = Artifact(path=str(folder / "model.onnx"), format="ortgenai", sha256="", size_bytes=0, inputs=(),
                       outputs=(), model_name=name, source=f"file:{folder}", precision=spec.precision,
                       export_options={})
    if art.format == "gguf":
        p = Path(art.path)
        return dataclasses.replace(art, sha256=art.sha256 or sha256_file(p), size_bytes=p.stat().st_size)
    files = _folder_files(Path(art.path).parent)
    import hashlib

    digest = hashlib.sha256("".join(f"{n}:{h}\n" for n, h, _s in files).encode()).hexdigest()
    return dataclasses.replace(art, sha256=digest, size_bytes=sum(s for _n, _h, s in files))


def _folder_files(folder: Path) -> list[tuple[str, str, int]]:
    """(name, sha256, size) of each file of a model folder (a cache entry's meta.json left out)."""
    from ..agentlink.push import sha256_file

    return [(p.name, sha256_file(p), p.stat().st_size) for p in sorted(folder.iterdir())
            if p.is_file() and p.name != "meta.json"]


def push(link: Any, art: Artifact) -> tuple[str, int]:
    """The artifact on the device (by content: a file the device has with this sha256 is not sent again): a GGUF
    as one file, an onnxruntime-genai folder file by file into a folder named by its digest. (remote path, bytes
    moved)."""
    from ..agentlink.push import push_file

    if art.format == "gguf":
        remote, moved = link.push_artifact(art.path, art.sha256, "gguf")
        return str(remote), int(moved)
    folder = posixpath.join(link.workdir, "artifacts", f"{art.sha256}.ortgenai")
    r = link.transport.run(["mkdir", "-p", "--", folder], timeout=60)
    if r.returncode != 0:
        raise ConfigError(f"cannot make {folder} on device {link.transport.device_name}: {r.stderr.strip()}",
                          hint="check permissions and free space in the device workdir")
    moved = 0
    for name, sha, _size in _folder_files(Path(art.path).parent):
        moved += push_file(link.transport, Path(art.path).parent / name, posixpath.join(folder, name), sha)
    link.bytes_moved += moved
    return folder, moved


def extra_buffers_default(runtime: str, precision: str, facts: Facts) -> bool | None:
    """llama.cpp's extra (repacked) buffers: off for quantised weights on x86-64, where llama-cpp-python 0.3.x
    crashes in the AMX buffer on CPUs that have it (docs/generative.md); llama.cpp's own default elsewhere."""
    if runtime != "llama.cpp" or precision == "f16":
        return None
    return False if facts.arch.lower() in ("x86_64", "amd64") else None


def repetition_silence_s(s: dict[str, int]) -> float:
    """The longest silence while one repetition runs (the agent says nothing until it ends): depth, prompt and
    generated tokens at 2 s each, on top of a minute — what a 1B model on a loaded 2-core board needs (prefill
    64 tokens in 15 s, decode 0.38 tokens/s: docs/generative.md)."""
    return 60.0 + 3.0 * (s["depth"] + s["prompt_tokens"] + s["gen_tokens"])


class AgentGeneration:
    """The generation kind on the agent: build the artifact, check the runtime on the facts, push, `generate`,
    the Result."""

    def __init__(self, measurer: AgentMeasurer) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        if find_max_rate:
            return "--find-max-rate searches a forward pass's rate; a generative model has none"
        return None

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        from edgeprof_agent.messages import GenerateRequest

        from ..run.execute import power_config, scenario_spec

        m, device, progress = self.m, session.device, job.progress
        if not job.checked:
            check(spec)
        s = settings_of(spec)
        with m.measuring(session, job, clock) as (link, facts):
            capability(spec.runtime, facts, device.name)  # before anything is built or pushed
            progress.stage(f"building {spec.model} for {spec.runtime} ({spec.precision})")
            with clock.phase("export"):
                art = artifact_of(spec, job.cache_dir)
            from ..generative.detect import detect

            detect(Path(art.path).parent if art.format != "gguf" else art.path).check_context(
                s["depth"], s["prompt_tokens"], s["gen_tokens"])
            progress.stage(f"pushing {Path(art.path).name if art.format == 'gguf' else 'the model folder'}")
            with clock.phase("push"):
                remote, _moved = push(link, art)
            opts = dict(spec.runtime_options or {})
            extra = opts.pop("extra_buffers", extra_buffers_default(spec.runtime, spec.precision, facts))
            req = GenerateRequest.from_dict({
                "runtime": spec.runtime, "artifact": {"path": remote, "format": art.format, "sha256": art.sha256},
                "precision": spec.precision, **s, "seed": spec.seed, "threads": spec.threads,
                "extra_buffers": extra, "runtime_options": opts,
                "power": (lambda p: p.to_dict() if p is not None else None)(power_config(spec, device)),
                "idle_s": spec.idle_s, "cooldown_c": spec.cooldown_c, "cooldown_timeout_s": spec.cooldown_timeout_s,
                "lease_token": session.lease_token,
                "scenario": (lambda sc: sc.to_dict() if sc is not None else None)(scenario_spec(spec)),
                "min_duration_s": spec.min_duration_s, "min_queries": spec.min_queries,
                "max_queries": spec.max_queries})
            silence = repetition_silence_s(s)
            progress.stage(f"generating: {_what(spec, s)}")

            def on_event(ev: Any) -> None:
                phase = getattr(ev, "phase", None)
                if getattr(ev, "window", None):  # a sustained window closed (windows.sustained_loop's event)
                    temp = f" · {ev.temp_c:g} °C" if ev.temp_c is not None else ""
                    mhz = f" · {ev.cpu_mhz:g} MHz" if ev.cpu_mhz is not None else ""
                    progress.stage(f"generating: window {ev.window}/{ev.windows}{temp}{mhz}")
                elif phase == "measure" and spec.scenario == "server" and ev.n is not None:
                    progress.stage(f"generating: {ev.n} of {ev.min_queries} requests done")
                elif phase:
                    progress.stage(f"generating: {phase}")

            with clock.phase("run"):
                reply = link.generate(req, on_event=on_event, timeout=600.0,
                                      silence_by_phase={"idle": 600.0, "load": 600.0, "warmup": silence,
                                                        "measure": silence})
        return assemble(spec, art, facts, reply)


def _what(spec: RunSpec, s: dict[str, int]) -> str:
    each = f"{s['prompt_tokens']} prompt + {s['gen_tokens']} tokens"
    if spec.scenario == "server":
        return f"server at {spec.rate:g} requests/s, each {each}"
    if spec.scenario == "sustained":
        from ..vocab import fmt_duration

        duration = spec.duration_s or SCENARIO_DEFAULTS["duration_s"]
        return (f"sustained for {fmt_duration(duration)} in {fmt_duration(spec.sustained_window_s)} windows, "
                f"requests of {each}")
    return f"{s['repetitions']} × ({each}, depth {s['depth']})"


def scenario_section(g: Any) -> Any:
    """The Result's scenario section of a generation (records.Scenario: its name, rate and seed make the
    configuration's identity; a server's verdict is its `valid`; the requests' due and start times in ms), or the
    single-stream default."""
    from ..records import Scenario

    sc = g.scenario
    if sc is None:
        return Scenario()
    return Scenario(name=sc.name, rate_qps=sc.rate_rps, seed=sc.seed, queries=sc.requests, samples=sc.requests,
                    mode=sc.mode, valid=sc.valid, valid_reason=sc.valid_reason, scheduled_ms=sc.scheduled_ms,
                    issued_ms=sc.start_ms)


def assemble(spec: RunSpec, art: Artifact, facts: Facts, reply: Any) -> Result:
    """The Result of one generate reply (the forward-pass figures None: no latency samples; memory in MiB)."""
    from ..generative.reply import generation_of
    from ..records import Environment, Memory, Power, Result, Settings, Thermal, new_run_id, utc_now

    mib = 2 ** 20
    mem = reply.memory
    g = generation_of(reply, spec.ttft_bound_ms, spec.tpot_bound_ms)
    from ..records import BoardFacts, RunWarning
    from ..run.assemble import host_environment

    return Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=spec.device, model=spec.model,
        runtime=spec.runtime, precision=spec.precision, batch=1, threads=spec.threads, latency_ms=None,
        throughput_ips=None,
        memory_mb=Memory(rss_before_load=(mem.rss_before_load_bytes or 0) / mib,
                         rss_after_load=(mem.rss_after_load_bytes or 0) / mib, peak_rss=(mem.peak_rss_bytes or 0) / mib,
                         peak_source=mem.peak_source, artifact_size=art.size_bytes / mib),
        power=Power.from_dict(reply.power.to_dict()) if reply.power is not None else None,
        thermal=Thermal.from_dict(reply.thermal.to_dict()) if reply.thermal is not None else None,
        fidelity=None,
        environment=Environment(device=BoardFacts.from_record(facts), host=host_environment(), runtime=reply.runtime.to_dict(),
                                agent_version=facts.agent_version, model_sha256=art.sha256, clock=reply.clock),
        warnings=[RunWarning.from_record(w) for w in reply.warnings], samples_ms=[], artifact=art, settings=Settings.of_run(spec),
        generation=g, scenario=scenario_section(g))


class PhoneGeneration:
    """The generation kind on a phone: refused (LiteRT-LM is not wired yet)."""

    def __init__(self, measurer: Any) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        return LITERTLM_PHONES

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        raise ConfigError(f"device {session.device.name}: {LITERTLM_PHONES}")


GENERATION = MeasurementKind(
    "generation", wants=wants,
    methods={"agent": "edgeprof.session.generation:AgentGeneration",
             "benchmark_model": "edgeprof.session.generation:PhoneGeneration"})
