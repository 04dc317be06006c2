"""LiteRT-LM on a phone: a .litertlm measured by LiteRT-LM's own benchmark tool, litert_lm_main, over adb — the
generation kind's steps on a phone (session/phone.py's Generation takes them).

Owns: what a phone refuses of a generation spec (one line each, before connecting: no litert_lm_main in
devices.yaml, a model that is not a .litertlm, --depth > 0, ...), litert_lm_main's command line (quoted word by
word by PhoneRunner.run_tool), the parsing of what its benchmark mode prints (runtime/engine/io_types.cc
operator<<(BenchmarkInfo) through litert_lm_lib.cc LogBenchmarkInfo, LogMemoryUsage; absl::FormatDuration's
durations), its error line (absl's E/F log lines, its flag parser's ERROR line), and the Result: the `generation`
section with the TOOL's own figures (Generation.measured_by; no per-token times: Generation.absent says so), the
durations it hands phases.py for the energy per phase (the warm-up's Init Total, then every iteration's prefill and
decode turns, laid from the process's start on the phone clock) or the reason there is none, the battery or rails
power over the whole tool process, the phone's thermal status before and after (the `phone` section), the phone's
facts.
Does not own: the adb transport and the push by content, the battery sampler and the phone clock read around the
tool, the thermal reads (runner.py PhoneRunner), laying the durations out and integrating the trace (phases.py),
the lease and the connection (the phone's measurer), .litertlm validation on the host (generative/detect.py),
storing.

Where each number comes from (google-ai-edge/LiteRT-LM, runtime/engine/io_types.cc BenchmarkInfo): one prefill turn
and one decode turn per iteration (--benchmark_prefill_tokens dummy token ids, then --benchmark_decode_tokens
decode steps), each printed as "Processed N tokens in D duration."; prefill tokens/s = N / D (GetPrefillTokensPerSec)
and decode tokens/s = N / D of the decode turn (GetDecodeTokensPerSec: every generated token over the decode turn's
time); TTFT = the prefill turn + the decode turn's time / its tokens (GetTimeToFirstToken: the first token's time is
the decode turn's mean, not timed on its own). The turns' durations are read at absl's full precision (the "Time to
first token: X s" line is rounded to 10 ms, so TTFT is recomputed from the turns by the tool's own formula). One
extra first iteration (--num_iterations repetitions + 1) is the warm-up and is kept apart, as llama-bench and
`litert-lm benchmark` warm up once.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from edgeprof_agent.vocab import LITERT_LM

from ..errors import MeasurementFailed
from ..records import (
    Artifact,
    Device,
    Generation,
    GenerativeBuild,
    Memory,
    NullReasons,
    PhoneBenchmark,
    PhoneTool,
    Result,
    RunSpec,
    RuntimeFacts,
    RunWarning,
    Settings,
    Thermal,
    new_run_id,
    utc_now,
)
from ..run.timing import PhaseClock
from ..transport.adb import ADBTransport
from . import phases
from .facts import PhoneFacts
from .phases import PhaseFigures
from .runner import NOT_ON_PHONES, TIMEOUT_S, PhoneRunner, ToolRun

TOOL = "litert_lm_main"
BACKEND = "cpu"  # the backend asked for (GPU needs its own settings: not supported on phones yet)
HINT = ("set litert_lm_main: in devices.yaml (LiteRT-LM's android_arm64 litert_lm_main, from its GitHub releases: "
        "docs/phones.md)")
NO_TOKEN_TIMES = (f"{TOOL} prints one duration per prefill turn and per decode turn, no per-token times "
                  "(edgeprof cannot time tokens inside a tool on a phone)")
ABSENT = {
    "token_ns": NO_TOKEN_TIMES,
    "itl_ms": NO_TOKEN_TIMES,
    "first_token": f"not timed on its own: {TOOL}'s TTFT adds the decode turn's mean token time to the prefill "
                   "(the energy's TTFT window ends there too)",
    "kv_cache": f"{TOOL} does not print the KV cache's size, and a .litertlm's dimensions are not read",
}
DEFINITIONS = {
    "prefill_ms": f"{TOOL}'s prefill turn: its BenchmarkInfo 'Processed N tokens in D duration' (the tool's clock)",
    "prefill_tps": "prompt_tokens / prefill time, per repetition (BenchmarkInfo::GetPrefillTokensPerSec)",
    "ttft_ms": "prefill turn + decode turn / decode tokens, per repetition (BenchmarkInfo::GetTimeToFirstToken; "
               "load excluded)",
    "tpot_ms": "decode turn / decode tokens, per repetition (the tool's mean time per generated token)",
    "decode_tps": "decode tokens / decode turn, per repetition (BenchmarkInfo::GetDecodeTokensPerSec: every "
                  "generated token, the first included)",
    "e2e_ms": "prefill turn + decode turn",
    "spread": "mean and sample standard deviation (ddof 1) over repetitions (the warm-up iteration left out)",
    "load_ms": f"{TOOL}'s 'Init Total' init phase of the warm-up iteration (engine and model set-up)",
    "energy": "the battery sampler's samples (|current_now| x voltage_now on the phone clock) integrated "
              "(trapezoids, linear interpolation at the edges, as on boards) over each timed iteration's TTFT window "
              "(prefill turn + decode turn / decode tokens) and decode window (the rest of the decode turn), summed "
              f"over repetitions; the windows are {TOOL}'s durations laid end to end from its process's start on the "
              "phone clock (windows_ns); J/token = decode J / (tokens - 1), J/prompt token = TTFT-window J / prompt "
              "tokens (a constant W gives W x TPOT and W x TTFT / prompt tokens)",
    "windows_ns": "each timed iteration's [prefill start, prefill end, first token end (prefill turn + decode turn / "
                  f"decode tokens), decode turn end] in ns from the first timed prefill's start: not stamped by {TOOL} "
                  "but laid from its printed durations (Init Total, then every iteration's turns, the warm-up first) "
                  "from the process's start on the phone clock (phone/phases.py)",
}

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|ms|h|m|s)")
_UNIT_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
_TURN = re.compile(r"^\s*(Prefill|Decode) Turn (\d+): Processed (\d+) tokens in (\S+) duration\.")
_PHASE = re.compile(r"^\s*- (.+): (-?\d+(?:\.\d+)?) ms$")
_PEAK = re.compile(r"\] Peak system ram usage: (\d+(?:\.\d+)?(?:e[+-]?\d+)?)MB\.")
_ABSL = re.compile(r"^([EF])\d{4} [\d:.]+\s+\d+ [^\]]*\] (.*)$")


class LitertLmOutputError(ValueError):
    """The tool's output is not a finished benchmark (the message says what is missing)."""


def parse_duration(text: str) -> int:
    """absl::FormatDuration's text ("819.9514ms", "8.7038005s", "1m2.5s", "11.2us", "0") in ns."""
    if text == "0":
        return 0
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise LitertLmOutputError(f"not an absl duration: {text!r}")
    return round(sum(float(n) * _UNIT_NS[u] for n, u in parts))


@dataclass(frozen=True)
class Turn:
    tokens: int
    ns: int


@dataclass
class BenchmarkInfo:
    """One iteration's BenchmarkInfo as printed: init phases (ms), prefill and decode turns."""

    init_ms: dict[str, float] = field(default_factory=dict)
    prefill: list[Turn] = field(default_factory=list)
    decode: list[Turn] = field(default_factory=list)


@dataclass
class LitertLmOutput:
    infos: list[BenchmarkInfo]
    peak_mb: list[float]  # "Peak system ram usage", one per iteration (--report_peak_memory_footprint)


def parse_output(text: str) -> LitertLmOutput:
    """Every iteration's BenchmarkInfo block (the aggregated median block after several is not one: its turns have
    no durations) and memory line. LitertLmOutputError when there is no block with a prefill and a decode turn."""
    infos: list[BenchmarkInfo] = []
    peaks: list[float] = []
    current: BenchmarkInfo | None = None
    for line in text.splitlines():
        if line.endswith("] BenchmarkInfo:") or line == "BenchmarkInfo:":
            current = BenchmarkInfo()
            infos.append(current)
            continue
        if "Aggregated BenchmarkInfo" in line:
            current = None
            continue
        m = _PEAK.search(line)
        if m:
            peaks.append(float(m.group(1)))
            continue
        if current is None:
            continue
        m = _TURN.match(line)
        if m:
            turn = Turn(int(m.group(3)), parse_duration(m.group(4)))
            (current.prefill if m.group(1) == "Prefill" else current.decode).append(turn)
            continue
        m = _PHASE.match(line)
        if m and not current.prefill and not current.decode:
            current.init_ms[m.group(1)] = float(m.group(2))
    infos = [i for i in infos if i.prefill or i.decode]
    if not infos:
        raise LitertLmOutputError("no BenchmarkInfo with a prefill and a decode turn (was --benchmark given?)")
    for i, info in enumerate(infos, 1):
        if len(info.prefill) != 1 or len(info.decode) != 1:
            raise LitertLmOutputError(f"iteration {i} has {len(info.prefill)} prefill and {len(info.decode)} decode "
                                      "turns (benchmark mode has one of each)")
        if info.prefill[0].ns <= 0 or info.decode[0].ns <= 0 or info.decode[0].tokens <= 0:
            raise LitertLmOutputError(f"iteration {i} has an empty turn")
    return LitertLmOutput(infos=infos, peak_mb=peaks)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def error_line(output: str) -> str | None:
    """The tool's own reason: the last absl E/F log line's message, or its flag parser's `ERROR: ...` line;
    control characters escaped (a model's bytes are quoted in some)."""
    found: str | None = None
    for line in output.splitlines():
        m = _ABSL.match(line)
        if m:
            found = m.group(2)
        elif line.startswith("ERROR: "):
            found = line[len("ERROR: "):]
    return _printable(found.strip()) if found else None


def command(binary: str, model: str, *, prompt_tokens: int, gen_tokens: int, iterations: int,
            threads: int | None) -> list[str]:
    """litert_lm_main's argv for benchmark mode (runtime/engine/shared_flags.cc, litert_lm_main.cc): sync (the 2025
    main refused dummy token counts in async mode), the peak memory monitor on."""
    argv = [binary, f"--model_path={model}", f"--backend={BACKEND}", "--benchmark",
            f"--benchmark_prefill_tokens={prompt_tokens}", f"--benchmark_decode_tokens={gen_tokens}", "--async=false",
            f"--num_iterations={iterations}", "--report_peak_memory_footprint"]
    if threads is not None:
        argv.append(f"--num_cpu_threads={threads}")
    return argv


def refusal(spec: RunSpec, device: Device, *, find_max_rate: bool = False) -> str | None:
    """The first thing of a generation spec this phone cannot do, as one line (None: it can)."""
    from ..generative.settings import settings_of

    phone = device.phone
    if phone is None or phone.litert_lm_main is None:
        return (f"device {device.name}: no {TOOL}: a phone measures generative models with LiteRT-LM's {TOOL}; "
                f"{HINT}")
    if spec.runtime != LITERT_LM:
        return (f"runtime {spec.runtime}: a phone runs generative models on LiteRT-LM ({TOOL}), from a .litertlm "
                "file (--runtime litert-lm)")
    if Path(spec.model).suffix.lower() != ".litertlm":
        return f"{spec.model}: a phone runs generative models from a .litertlm file (LiteRT-LM's format)"
    depth = settings_of(spec)["depth"]
    if depth > 0:
        return (f"--depth {depth}: {TOOL}'s benchmark mode cannot fill the KV cache before the timed prompt "
                "(leave --depth out)")
    for given, what in ((find_max_rate, "--find-max-rate"), (spec.cooldown_c is not None, "--cooldown"),
                        (spec.gpu is not None, "--gpu")):
        if given:
            return f"{what} is {NOT_ON_PHONES} for generative models"
    return None


def artifact_of(spec: RunSpec) -> Artifact:
    """The user's .litertlm as it is (detect() validated it: magic, version, header, sections), named by content."""
    from ..agentlink.push import sha256_file
    from ..generative.detect import detect

    info = detect(spec.model)
    p = Path(info.path)
    return Artifact(path=str(p), format="litertlm", sha256=sha256_file(p), size_bytes=p.stat().st_size, inputs=(),
                    outputs=(), model_name=p.stem, source=f"file:{p}", precision=spec.precision,
                    export_options=GenerativeBuild(kind="litertlm", weights=info.weights) if info.weights else None)


@dataclass
class LitertLmRun:
    """One litert_lm_main run: its argv, what it printed (parsed), and the tool run around it."""

    command: list[str]
    parsed: LitertLmOutput
    tool: ToolRun
    warmup: BenchmarkInfo
    timed: list[BenchmarkInfo]


def run(runner: PhoneRunner, remote_model: str, spec: RunSpec, *, timeout: float = TIMEOUT_S) -> LitertLmRun:
    """litert_lm_main on the phone (pushed by content to bin/litert_lm_main-<sha> unless devices.yaml gives a
    phone:/path), repetitions + 1 iterations, the first the warm-up."""
    from ..generative.settings import settings_of

    s = settings_of(spec)
    binary = runner.tool_binary(TOOL, runner.phone.litert_lm_main, HINT)
    argv = command(binary, remote_model, prompt_tokens=s["prompt_tokens"], gen_tokens=s["gen_tokens"],
                   iterations=s["repetitions"] + 1, threads=spec.threads)
    tool = runner.run_tool(argv, tool=TOOL, timeout=timeout, error_line=error_line)
    try:
        parsed = parse_output(tool.output)
    except LitertLmOutputError as e:
        raise MeasurementFailed(f"device {runner.device.name}: {TOOL}'s output is not a finished benchmark ({e})",
                                detail=tool.output[-4000:], device=runner.device.name, op="run") from None
    if len(parsed.infos) != s["repetitions"] + 1:
        raise MeasurementFailed(f"device {runner.device.name}: {TOOL} printed {len(parsed.infos)} BenchmarkInfo "
                                f"blocks for {s['repetitions'] + 1} iterations (an older build without "
                                "--num_iterations?)", detail=tool.output[-4000:], device=runner.device.name,
                                op="run")
    for info in parsed.infos:
        if info.prefill[0].tokens != s["prompt_tokens"] or info.decode[0].tokens != s["gen_tokens"]:
            raise MeasurementFailed(
                f"device {runner.device.name}: {TOOL} processed {info.prefill[0].tokens} prefill and "
                f"{info.decode[0].tokens} decode tokens, not the {s['prompt_tokens']} and {s['gen_tokens']} asked "
                "for", detail=tool.output[-4000:], device=runner.device.name, op="run")
    return LitertLmRun(command=argv, parsed=parsed, tool=tool, warmup=parsed.infos[0], timed=parsed.infos[1:])


def phase_figures(spec: RunSpec, lm: LitertLmRun) -> PhaseFigures:
    """Energy per phase over the timed iterations: the tool's durations (the warm-up's Init Total, then every
    iteration's turns) laid on the phone clock from the process's start (phone/phases.py)."""
    from ..generative.settings import settings_of

    s = settings_of(spec)
    t = lm.tool
    init_ms = lm.warmup.init_ms.get("Init Total")
    return phases.phase_figures(
        TOOL, t.power, t.power_reason, t.span_ns, round(init_ms * 1e6) if init_ms is not None else 0,
        [phases.Turns(i.prefill[0].ns, i.decode[0].ns, i.decode[0].tokens) for i in lm.parsed.infos], warmups=1,
        prompt_tokens=s["prompt_tokens"], gen_tokens=s["gen_tokens"])


def generation(spec: RunSpec, lm: LitertLmRun, figures: PhaseFigures) -> Generation:
    """The `generation` section from the tool's own figures (see the module's docstring), with the energy per phase
    where the tool's durations fit its process on the phone clock (else the reason)."""
    from ..generative.settings import settings_of
    from ..generative.stats import spread

    s = settings_of(spec)
    pre_ms = [i.prefill[0].ns / 1e6 for i in lm.timed]
    dec_ms = [i.decode[0].ns / 1e6 for i in lm.timed]
    pre_tok, dec_tok = lm.timed[0].prefill[0].tokens, lm.timed[0].decode[0].tokens
    peak = lm.parsed.peak_mb
    return Generation(
        runtime=LITERT_LM, prompt_tokens=pre_tok, tokens=dec_tok, depth=0, repetitions=len(lm.timed),
        prefill_ms=spread(pre_ms), prefill_tps=spread([pre_tok / (p / 1e3) for p in pre_ms]),
        ttft_ms=spread([p + d / dec_tok for p, d in zip(pre_ms, dec_ms, strict=True)]),
        tpot_ms=spread([d / dec_tok for d in dec_ms]), decode_tps=spread([dec_tok / (d / 1e3) for d in dec_ms]),
        e2e_ms=spread([p + d for p, d in zip(pre_ms, dec_ms, strict=True)]), itl_ms=None,
        prefill_ns=[i.prefill[0].ns for i in lm.timed], token_ns=[],
        load_ms=lm.warmup.init_ms.get("Init Total"),
        peak_rss_bytes=round(max(peak) * 2**20) if peak else None, kv_cache_bytes=None, energy=figures.energy,
        definitions=dict(DEFINITIONS), n_ctx=None, seed=None, windows_ns=figures.windows_ns,
        warmup_prefill_ns=lm.warmup.prefill[0].ns, warmup_token_ns=[],
        energy_reason=figures.reason,
        sampling=f"{TOOL}'s own sampler on dummy token ids (benchmark mode; {s['gen_tokens']} decode steps asked)",
        measured_by=TOOL, absent=dict(ABSENT))


def phone_result(spec: RunSpec, device: Device, art: Artifact, lm: LitertLmRun, facts: PhoneFacts | None,
                 period_s: float | None) -> Result:
    """The Result (status ok) of one litert_lm_main run: the generation section (the tool's figures, the energy per
    phase or why none), the power over the whole run, thermal before/after, the phone section (its thermal status),
    the phone's facts; a coarse phase's warning (phase_energy_coarse)."""
    from .result import _warning, environment, power_of, snapshot

    t = lm.tool
    pw = power_of(t.power, t.warnings, period_s, tool=TOOL)
    if pw is not None:
        pw = dataclasses.replace(pw, note=f"over the whole {TOOL} process (load, warm-up and every iteration); "
                                          f"{pw.note}")
    figures = phase_figures(spec, lm)
    gen = generation(spec, lm, figures)
    peak = lm.parsed.peak_mb
    b = t.battery
    section = PhoneBenchmark(
        tool=TOOL, binary=lm.command[0], command=list(lm.command), delegate=BACKEND, delegation=[],
        init_ms=gen.load_ms, first_inference_ms=None, warmup_runs=1,
        warmup_mean_ms=(lm.warmup.prefill[0].ns + lm.warmup.decode[0].ns) / 1e6,
        thermal_status_before=t.thermal_before.status, thermal_status_after=t.thermal_after.status,
        battery={"status": b.status, "capacity_pct": b.capacity_pct, "deviations": b.deviations()})
    memory = Memory(peak_rss=max(peak) if peak else None, artifact_size=art.size_bytes / 1e6,
                    peak_source=f"{TOOL}'s 'Peak system ram usage' (its periodic monitor, "
                                "--report_peak_memory_footprint; read as MiB), the largest over iterations"
                    if peak else None)
    runtime = RuntimeFacts(runtime=LITERT_LM, phone=PhoneTool(tool=TOOL, binary=lm.command[0], delegate=BACKEND))
    return Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device=device.name, model=spec.model,
        runtime=LITERT_LM, precision=spec.precision, batch=1, threads=spec.threads, latency_ms=None,
        throughput_ips=None, memory_mb=memory, power=pw,
        thermal=Thermal(before=snapshot(t.thermal_before), after=snapshot(t.thermal_after)), fidelity=None,
        environment=environment(facts, None, art, BACKEND, runtime=runtime),
        warnings=[*(_warning(w) for w in t.warnings if not w.startswith("power refused")),
                  *(RunWarning("phase_energy_coarse", w) for w in figures.warnings)],
        samples_ms=[], artifact=art,
        settings=Settings.of_run(spec, load_s=gen.load_ms / 1000 if gen.load_ms is not None else None,
                                 warmup={"iterations": 1, "prefill_ms": lm.warmup.prefill[0].ns / 1e6,
                                         "decode_ms": lm.warmup.decode[0].ns / 1e6}),
        null_reasons=NullReasons(power=None if pw is not None else (t.power_reason or "not measured"),
                                 fidelity=f"fidelity is {NOT_ON_PHONES} ({TOOL} returns no outputs to the host)"),
        phone=section, generation=gen)


def measure(spec: RunSpec, device: Device, transport: ADBTransport, *, say: Callable[[str], None] | None = None,
            facts: PhoneFacts | None = None, timeout_s: float = TIMEOUT_S,
            clock: PhaseClock | None = None) -> tuple[Result, PhoneFacts]:
    """Measure the .litertlm of `spec` on the phone behind `transport`, under the caller's lease: its facts (unless
    given), the push by content, litert_lm_main, the Result (not stored)."""
    from .facts import read_facts

    tell = say or (lambda s: None)
    clock = clock or PhaseClock()
    with clock.phase("export"):
        art = artifact_of(spec)
    if facts is None:
        tell(f"reading {device.name}'s facts")
        with clock.phase("facts"):
            facts = read_facts(transport, device)
    runner = PhoneRunner(transport, device)
    tell(f"pushing {Path(art.path).name}")
    with clock.phase("push"):
        remote, _ = runner.push_artifact(art.path, art.sha256, "litertlm")
    tell(f"generating with {TOOL}")
    with clock.phase("run"):
        lm = run(runner, remote, spec, timeout=timeout_s)
    result = phone_result(spec, device, art, lm, facts, runner.sampler_period_s)
    host = clock.phases(None)
    timed_s = sum((i.prefill[0].ns + i.decode[0].ns) for i in lm.timed) / 1e9
    load = result.generation.load_ms if result.generation is not None else None
    phases = dataclasses.replace(host, device_s=host.run_s, load_s=round(load / 1000, 4) if load else None,
                                 warmup_s=round((lm.warmup.prefill[0].ns + lm.warmup.decode[0].ns) / 1e9, 4),
                                 window_s=round(timed_s, 4), measure_s=round(timed_s, 4))
    return dataclasses.replace(result, phases=phases), facts


__all__ = ["TOOL", "refusal", "command", "parse_output", "parse_duration", "error_line", "measure"]
