"""The generation measurement kind (docs/generative.md): a decoder-only language model's TTFT, prefill and decode
tokens/s and peak memory, measured by the agent's `generate` op (protocol 11) and stored as the Result's
`generation` section.

Which specs it takes (`wants`): a bundled generative model (edgeprof_models.generative), a path that is one (a
Hugging Face folder, an onnxruntime-genai folder, a .gguf or .litertlm file: detect() judges it), or a generation
runtime (vocab.GEN_RUNTIMES: llama.cpp, onnxruntime-genai; and LITERT_LM, litert-lm: a .litertlm on a phone's
litert_lm_main, edgeprof/phone/litertlm.py, or on a board, run by the agent's LiteRT-LM backend, a .litertlm built
here from a bundled model or a Hugging Face folder, or a user's .litertlm as it is, its vocabulary and KV cache read
from it by generative/litertlm_read.py). Its settings (prompt tokens, generated tokens, depth,
repetitions; llama-bench's defaults, vocab.GEN_DEFAULTS) are run settings (edgeprof/vocab.py RunSettings: deploy's
flags, a sweep's settings, the stored settings section).

Owns: the kind and its methods (AgentGeneration: the capability check on the device's facts and the GPU, asked of
session/genruntime.py before anything is pushed, the context check, the GenerateRequest, the Result; the artifact
and its push are session/genartifact.py's), what deploy takes for it (its flags' group, its precisions and runtimes,
--providers as onnxruntime-genai's provider option (genruntime.gen_provider_options), the hook from parsed flags to
its spec and the refusal of its flags on a forward pass: kinds.MeasurementKind), the checks before connecting (`check`), what a sweep takes for it (its
cells, their defaults, its axes prompt_tokens × gen_tokens × depth in a cell's id as llama-bench's pp512/tg128/d0,
a cell's decision `decide`, its runtimes llama.cpp, onnxruntime-genai and litert-lm and each one's default
precision for a model `precision_default`, its budgets: kinds.MeasurementKind). The kind's method on a phone is
session/phone.py's Generation. Does not own: the agent's op (genworker.py), the request's silences and deadline (generative/limits.py),
building models (generative/build.py), the section's statistics (generative/reply.py, stats.py), storing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeprof_agent.vocab import GEN_DEFAULTS, GEN_RUNTIMES, LITERT_LM, SCENARIO_DEFAULTS

from ..errors import ConfigError, UserError
from ..generative.limits import generation_deadline, repetition_silence_s
from ..generative.settings import GEN_SETTINGS, settings_of
from ..vocab import CHECKED_GENERATION, GENERATION_METRICS, SINGLE_STREAM
from .genartifact import artifact_of, bundled, litertlm_options, push
from .genruntime import (  # noqa: F401 (names of the kind's, defined there)
    GEN_PROVIDERS,
    LLAMA_LOAD_OPTIONS,
    RUNTIME_MODULE,
    capability,
    check_llama_options,
    extra_buffers_default,
    gen_provider_options,
    gpu_of,
)
from .kinds import Job, MeasurementKind

if TYPE_CHECKING:
    import argparse

    from edgeprof_agent.messages import Facts

    from ..records import Artifact, Phases, Result, RunSpec, Transfer
    from ..run.timing import PhaseClock
    from .agent import AgentMeasurer
    from .session import DeviceSession

# the generation runtimes a spec can name: the agent's backends and LiteRT-LM (a phone's litert_lm_main)
ALL_GEN_RUNTIMES = (*GEN_RUNTIMES, LITERT_LM)
# a .litertlm is measured as it was built: its weights' types are inside its TFLite sections, not chosen here
AS_BUILT = "as-built"
# the precisions each generation runtime's artifacts are built at (generative/build.py)
# (a .litertlm edgeprof builds from a bundled model or a Hugging Face folder: litert-torch's recipes, build.py
# LITERTLM_PRECISIONS: int8 weights with fp32 activations, or fp32)
GEN_PRECISIONS: dict[str, tuple[str, ...]] = {"llama.cpp": ("f16", "q8_0", "q4_0"),
                                              "onnxruntime-genai": ("fp32", "int4"),
                                              LITERT_LM: (AS_BUILT, "wi8_afp32", "fp32")}
ALL_GEN_PRECISIONS = ("f16", "q8_0", "q4_0", "fp32", "int4", AS_BUILT, "wi8_afp32")
LITERTLM_BUILD_DEFAULT = "wi8_afp32"  # litert-torch's exporter's default recipe (dynamic_wi8_afp32)
DEFAULT_PRECISION = {"llama.cpp": "q4_0", "onnxruntime-genai": "int4", LITERT_LM: AS_BUILT}
# the generation settings (vocab.RunSettings: --prompt-tokens, --gen-tokens, --depth, --repetitions; None: the
# agent's GEN_DEFAULTS, llama-bench's); the model's context bounds depth + prompt + generated tokens
# the settings only a generative model takes (refused on a forward pass): those and the server's bounds
GEN_ONLY = GEN_SETTINGS + ("ttft_bound_ms", "tpot_bound_ms")

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


def model_path_like(model: str) -> bool:
    """A path a generative model lives at (judged by its form; detect() validates it)."""
    p = Path(model).expanduser()
    return p.suffix.lower() in (".gguf", ".litertlm") or p.is_dir()


def wants(spec: RunSpec) -> bool:
    return spec.runtime in ALL_GEN_RUNTIMES or bundled(spec.model) or model_path_like(spec.model)


def is_generative(model: str, runtime: str | None) -> bool:
    return (runtime in ALL_GEN_RUNTIMES) or bundled(model) or model_path_like(model)


def default_runtime(model: str) -> str:
    """llama.cpp for a GGUF, a bundled model or a Hugging Face folder; onnxruntime-genai for its own folder;
    litert-lm for a .litertlm file."""
    p = Path(model).expanduser()
    if p.is_dir() and (p / "genai_config.json").is_file():
        return "onnxruntime-genai"
    if p.suffix.lower() == ".litertlm":
        return LITERT_LM
    return "llama.cpp"


def gguf_precision(model: str) -> str | None:
    """A user GGUF's own precision (its general.file_type: MOSTLY_Q4_0 → q4_0), None for anything else."""
    p = Path(model).expanduser()
    if not p.is_file() or p.suffix.lower() != ".gguf":
        return None
    from ..generative.detect import detect

    weights = detect(p).weights or "unknown"
    return weights.lower().removeprefix("mostly_")


def precision_default(runtime: str, model: str) -> str | None:
    """A generation runtime's precision for `model` when deploy or a sweep file names none: llama.cpp
    q4_0, onnxruntime-genai int4; LiteRT-LM wi8_afp32 for a model edgeprof builds into a .litertlm (a bundled one, a
    Hugging Face folder), as-built for a .litertlm file. None: not a generation runtime."""
    if runtime == LITERT_LM and Path(model).suffix.lower() != ".litertlm":
        return LITERTLM_BUILD_DEFAULT
    return DEFAULT_PRECISION.get(runtime)


def check(spec: RunSpec) -> None:
    """Every problem of a generation spec that needs no device, one line each: the runtime and precision, the
    settings' bounds, a user path (detect()'s lines) and its context."""
    if spec.runtime not in ALL_GEN_RUNTIMES:
        raise ConfigError(f"--runtime {spec.runtime}: {spec.model} is a generative model; it runs on "
                          f"{', '.join(ALL_GEN_RUNTIMES)}", hint="--runtime llama.cpp or --runtime onnxruntime-genai "
                          "(a .litertlm: --runtime litert-lm)")
    litertlm_file = Path(spec.model).suffix.lower() == ".litertlm"
    if spec.runtime == LITERT_LM and not (litertlm_file or bundled(spec.model) or Path(spec.model).is_dir()):
        raise ConfigError(f"--runtime {LITERT_LM}: it runs a .litertlm file (LiteRT-LM's format), or one edgeprof "
                          f"builds from a bundled model or a Hugging Face folder, not {spec.model}",
                          hint="give a .litertlm, llama_tiny or a Hugging Face folder, or --runtime llama.cpp / "
                               "onnxruntime-genai")
    own = gguf_precision(spec.model)
    if own is not None and spec.precision != own:
        raise ConfigError(f"--precision {spec.precision}: {spec.model} holds {own} weights (measured as they are)",
                          hint=f"leave --precision out (it is {own}), or give the Hugging Face folder to convert")
    if own is None and spec.runtime == LITERT_LM and litertlm_file and spec.precision != AS_BUILT:
        raise ConfigError(f"--precision {spec.precision}: a .litertlm is measured as it was built (its weights' types "
                          "are inside its TFLite sections)", hint="leave --precision out")
    if spec.runtime == LITERT_LM and not litertlm_file and spec.precision == AS_BUILT:
        raise ConfigError(f"--precision {AS_BUILT}: {spec.model} is built for LiteRT-LM by edgeprof, at wi8_afp32 or "
                          "fp32", hint=f"--precision {LITERTLM_BUILD_DEFAULT} (the default) or fp32")
    if own is None and spec.precision not in GEN_PRECISIONS[spec.runtime]:
        raise ConfigError(f"--precision {spec.precision}: {spec.runtime} takes "
                          f"{', '.join(GEN_PRECISIONS[spec.runtime])}",
                          hint=f"--precision {precision_default(spec.runtime, spec.model)} (the default for "
                               f"{spec.runtime} with this model)")
    check_llama_options(spec)
    gen_provider_options(spec.runtime, spec.runtime_options)
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
    need = {"gguf": ("llama.cpp",), "ortgenai": ("onnxruntime-genai",), "hf": (*GEN_RUNTIMES, LITERT_LM),
            "litertlm": (LITERT_LM,)}.get(info.kind, ())
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


def litertlm_refusal(spec: RunSpec) -> str | None:
    """Why the agent's LiteRT-LM backend cannot run a user's .litertlm for `spec`, as one line (None: it can, or
    the spec is not one): its vocabulary and KV cache unreadable from the file (generative/litertlm_read.py, one
    line each; also on a host without litert-lm-builder or ai-edge-litert), or depth + prompt + generated tokens
    past the cache its graphs were built with. Asked before connecting, so nothing is pushed."""
    from ..generative.litertlm_read import is_litertlm_file, read_litertlm

    if spec.runtime != LITERT_LM or bundled(spec.model) or not is_litertlm_file(spec.model):
        return None
    s = settings_of(spec)
    try:
        read_litertlm(spec.model).check_fits(s["depth"], s["prompt_tokens"], s["gen_tokens"])
    except UserError as e:
        return e.one_line()
    return None


class AgentGeneration:
    """The generation kind on the agent: build the artifact, check the runtime on the facts, push, `generate`,
    the Result."""

    def __init__(self, measurer: AgentMeasurer) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        if find_max_rate:
            return "--find-max-rate searches a forward pass's rate; a generative model has none"
        return litertlm_refusal(spec)

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        from edgeprof_agent.messages import GenerateRequest

        from ..run.execute import power_config, scenario_spec

        m, device, progress = self.m, session.device, job.progress
        if not job.checked:
            check(spec)
        s = settings_of(spec)
        with m.measuring(session, job, clock) as (link, facts):
            opts = gen_provider_options(spec.runtime, spec.runtime_options)
            capability(spec.runtime, facts, device.name, opts.get("provider"))  # before any build
            gpu = gpu_of(spec, device, facts)  # a GPU the facts do not show: one line
            if gpu is not None:
                import dataclasses

                spec = dataclasses.replace(spec, gpu=gpu)  # sent, and stored as the GPU used
            progress.stage(f"building {spec.model} for {spec.runtime} ({spec.precision})")
            with clock.phase("export"):
                art = artifact_of(spec, job.cache_dir)
            from ..generative.detect import detect

            if art.format != "litertlm":  # a .litertlm's KV cache is built for the run (build.litertlm_file)
                detect(Path(art.path).parent if art.format != "gguf" else art.path).check_context(
                    s["depth"], s["prompt_tokens"], s["gen_tokens"])
            one_file = art.format in ("gguf", "litertlm")
            progress.stage(f"pushing {Path(art.path).name if one_file else 'the model folder'}")
            from ..records import Transfer

            agent_bytes = link.bytes_moved  # the agent itself, pushed when it was not on the device
            with clock.phase("push"):
                remote, moved = push(link, art)
            transfer = Transfer(agent_bytes=agent_bytes, artifact_bytes=moved, total_bytes=agent_bytes + moved)
            opts = {**litertlm_options(spec, art), **opts}
            extra = opts.pop("extra_buffers", extra_buffers_default(spec.runtime, spec.precision, facts))
            use_mmap = opts.pop("use_mmap", None)  # None: the runtime's default, which its description states
            req = GenerateRequest.from_dict({
                "runtime": spec.runtime, "artifact": {"path": remote, "format": art.format, "sha256": art.sha256},
                "precision": spec.precision, **s, "seed": spec.seed, "threads": spec.threads,
                "use_mmap": use_mmap, "extra_buffers": extra, "runtime_options": opts,
                "power": (lambda p: p.to_dict() if p is not None else None)(power_config(spec, device)),
                "idle_s": spec.idle_s, "cooldown_c": spec.cooldown_c, "cooldown_timeout_s": spec.cooldown_timeout_s,
                "lease_token": session.lease_token,
                "scenario": (lambda sc: sc.to_dict() if sc is not None else None)(scenario_spec(spec)),
                "min_duration_s": spec.min_duration_s, "min_queries": spec.min_queries,
                "max_queries": spec.max_queries, "gpu": spec.gpu})
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
                                                        "measure": silence},
                                      deadline=generation_deadline(spec, s))
            reps = reply.repetitions
            span = (max(r.t_end_ns for r in reps) - min(r.t_prefill_start_ns for r in reps)) / 1e9 if reps else 0.0
            phases = clock.phases(reply, window_s=span)  # where the time went: the report's and a sweep's table
        return assemble(spec, art, facts, reply, transfer, phases)


def _what(spec: RunSpec, s: dict[str, int]) -> str:
    each = f"{s['prompt_tokens']} prompt + {s['gen_tokens']} tokens"
    if spec.scenario != SINGLE_STREAM and s["depth"]:
        each += f" at depth {s['depth']}"
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


def assemble(spec: RunSpec, art: Artifact, facts: Facts, reply: Any, transfer: Transfer | None = None,
             phases: Phases | None = None) -> Result:
    """The Result of one generate reply (the forward-pass figures None: no latency samples; memory in MiB);
    `transfer`: the bytes moved to the device for it (the agent, the model's file or folder)."""
    from ..generative.reply import generation_of
    from ..records import Environment, Memory, Power, Result, Settings, Thermal, new_run_id, utc_now

    mib = 2 ** 20
    mem = reply.memory
    g = generation_of(reply, spec.ttft_bound_ms, spec.tpot_bound_ms)
    from ..records import BoardFacts, RuntimeFacts, RunWarning
    from ..run.assemble import host_environment

    return Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=spec.device, model=spec.model,
        runtime=spec.runtime, precision=spec.precision, batch=1, threads=spec.threads, latency_ms=None,
        throughput_ips=None,
        memory_mb=Memory(rss_before_load=(mem.rss_before_load_bytes or 0) / mib,
                         rss_after_load=(mem.rss_after_load_bytes or 0) / mib, peak_rss=(mem.peak_rss_bytes or 0) / mib,
                         peak_source=mem.peak_source, artifact_size=art.size_bytes / mib,
                         # NVML's reading after the last token, as a run's is after its timed loop
                         gpu_process_bytes=mem.gpu.end_bytes if mem.gpu is not None else None),
        power=Power.from_dict(reply.power.to_dict()) if reply.power is not None else None,
        thermal=Thermal.from_dict(reply.thermal.to_dict()) if reply.thermal is not None else None,
        fidelity=None,
        environment=Environment(device=BoardFacts.from_record(facts), host=host_environment(),
                                runtime=RuntimeFacts.of_backend(reply.runtime.to_dict()),
                                agent_version=facts.agent_version, model_sha256=art.sha256, clock=reply.clock),
        warnings=[RunWarning.from_record(w) for w in reply.warnings], samples_ms=[], artifact=art, settings=Settings.of_run(spec),
        generation=g, scenario=scenario_section(g), transfer=transfer, phases=phases)


# deploy's flags that apply to a generative model besides its own settings' (the rest are a forward pass's)
_APPLIES = ("--seed", "--idle", "--cooldown", "--cooldown-timeout", "--power-rate", "--mmap", "--extra-buffers",
            "--providers", "--gpu")


def from_args(args: argparse.Namespace, spec: RunSpec, given: frozenset[str]) -> RunSpec | None:
    """The generation spec parsed flags say when the model or the runtime is generative (its settings are run
    settings, in `spec` already), else None (refuse_args then refuses its flags). `given`: the run settings' and
    runtime flags on the command line (cli/deploy._given); one that applies to a forward pass only is refused."""
    import dataclasses

    if not is_generative(args.model, args.runtime):
        return None
    applies = {*_APPLIES, *GENERATION.flag_names(args), "--scenario", *SCENARIO_FLAGS}
    flags = set(given) | {f for f, on in (("--scenario", args.scenario != SINGLE_STREAM),
                                          ("--rate", args.rate is not None)) if on}
    other = sorted(f for f in flags if f not in applies)
    other += [f for f, on in (("--input", args.input), ("--find-max-rate", args.find_max_rate)) if on]
    if other:
        raise ConfigError(f"{other[0]}: applies to a forward pass, not to the generative model {args.model}",
                          hint="leave it out; a generative model takes --prompt-tokens, --gen-tokens, --depth, "
                               "--repetitions, --threads, --mmap, --extra-buffers, --providers (onnxruntime-genai), "
                               "--gpu and --scenario server or sustained")
    check_flags(args.scenario, flags)
    runtime = args.runtime or default_runtime(args.model)
    if runtime not in ALL_GEN_RUNTIMES:
        raise ConfigError(f"--runtime {runtime}: {args.model} is a generative model; it runs on "
                          f"{', '.join(ALL_GEN_RUNTIMES)}", hint="--runtime llama.cpp or --runtime "
                          "onnxruntime-genai (a .litertlm: --runtime litert-lm)")
    precision = args.precision or gguf_precision(args.model) or precision_default(runtime, args.model)
    assert precision is not None  # runtime is one of ALL_GEN_RUNTIMES here
    return dataclasses.replace(spec, runtime=runtime, precision=precision,
                               runtime_options=gen_provider_options(runtime, spec.runtime_options))


def decide(spec: RunSpec, label: str, facts: Facts | None) -> str | None:
    """Why a sweep's generation cell cannot run, or None: statically, what deploy refuses before connecting (the
    runtime and the precision, a model that is not generative, depth + prompt + generated tokens past the model's
    context, a batch or a scenario the kind has not: it has single-stream, server and sustained); with facts, the
    runtime's module importable on the device — decided before anything is built or pushed (a user's .litertlm on a
    board is judged by AgentGeneration.refusal, which a sweep asks before connecting). A phone has no such facts:
    its measurer's refusal (phone/litertlm.refusal) decides there."""
    if not (bundled(spec.model) or model_path_like(spec.model)):
        return (f"{spec.runtime} runs generative models (llama_tiny, a .gguf, a Hugging Face or onnxruntime-genai "
                f"folder); {label} is not one")
    if spec.batch != 1:
        return f"batch {spec.batch}: a generative model is measured one sequence at a time (batch 1)"
    if spec.scenario not in GEN_SCENARIOS:
        return (f"the {spec.scenario} scenario for a generative model: not supported yet (it runs "
                f"{', '.join(GEN_SCENARIOS)})")
    try:
        check(spec)
        if facts is not None:
            capability(spec.runtime, facts, spec.device, provider=gen_provider_options(
                spec.runtime, spec.runtime_options).get("provider"))
    except UserError as e:
        return e.one_line()
    return None


def refuse_args(args: argparse.Namespace, claimed: MeasurementKind) -> None:
    """A generation precision (one the claiming kind does not take) or setting flag on another kind's spec."""
    if args.precision in ALL_GEN_PRECISIONS and args.precision not in claimed.precisions:
        raise ConfigError(f"--precision {args.precision}: for generative models only (llama.cpp, "
                          f"onnxruntime-genai), not {args.model}",
                          hint=f"--precision {', '.join(claimed.precisions[:-1])}"
                               f"{' or ' if len(claimed.precisions) > 1 else ''}{claimed.precisions[-1]}")
    for flag in GENERATION.flag_names(args):
        raise ConfigError(f"{flag}: for generative models only, not {args.model}",
                          hint="leave it out, or give a generative model (e.g. llama_tiny)")


GENERATION = MeasurementKind(
    "generation", wants=wants,
    methods={"agent": "edgeprof.session.generation:AgentGeneration",
             "benchmark_model": "edgeprof.session.phone:Generation"},
    group="generative models (docs/generative.md: llama_tiny, a .gguf, a Hugging Face or onnxruntime-genai folder; "
          "--runtime llama.cpp with --precision f16, q8_0, q4_0 (default), or onnxruntime-genai with fp32, int4 "
          "(default); --runtime litert-lm with wi8_afp32 (default) or fp32 on a board, built from the model; a "
          ".litertlm as built, on a board (its vocabulary and KV cache read from it) or on a phone (litert_lm_main))",
    place="generation", precisions=ALL_GEN_PRECISIONS, runtimes=ALL_GEN_RUNTIMES, from_args=from_args,
    refuse_args=refuse_args, check=check,
    owns=is_generative, bundled=bundled, default_runtime=default_runtime, default_precision=precision_default,
    sweep_runtimes=ALL_GEN_RUNTIMES, axes=("prompt_tokens", "gen_tokens", "depth"),
    axis_ids={"prompt_tokens": "pp", "gen_tokens": "tg", "depth": "d"},  # llama-bench's names: pp512/tg128/d0
    axis_defaults={k: int(GEN_DEFAULTS[k]) for k in ("prompt_tokens", "gen_tokens", "depth")}, cleared=GEN_SETTINGS,
    decide=decide, budget_groups=("generation", "memory", "power"),  # besides its figures: memory and power
    budget_metrics=GENERATION_METRICS, section="generation", check_metrics=CHECKED_GENERATION,
    budget_hint="add model: or runtime: (llama.cpp, onnxruntime-genai, litert-lm) to the budget's match")
