"""`edgeprof deploy`: profile one model on one device."""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..export.inputs import parse_input_range, parse_input_value
from ..files.output import write_output
from ..records import Result, RunSpec
from ..session.kinds import FORWARD_PASS, KINDS, MeasurementKind, extra_precisions, from_args
from ..vocab import (
    POLICY,
    SCENARIOS,
    SERVER_MIN_QUERIES,
    SETTINGS,
    SINGLE_STREAM,
    Setting,
    fmt_value,
    settings_kwargs,
)
from .common import add_db_args, add_inventory_args, check_writable, open_store, resolve_device
from .ui import DeployProgress, err, render_result, shown

if TYPE_CHECKING:
    from ..records import Device
    from ..run import Options
    from ..session import DeviceSession
    from ..store import Store

FIND_START_QPS = 10.0

_SHAPE = re.compile(r"^([^=]+)=(\d+(?:x\d+)*)$")


def parse_input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    m = _SHAPE.match(text.strip())
    if not m:
        raise ConfigError(f"--input {text!r}: expected NAME=DxDx... such as input=1x3x224x224")
    dims = tuple(int(d) for d in m.group(2).split("x"))
    if any(d < 1 for d in dims):
        raise ConfigError(f"--input {text!r}: every dimension must be >= 1")
    from ..files.datafiles import MAX_ARRAY_BYTES

    if math.prod(dims) > MAX_ARRAY_BYTES:  # more elements than bytes allowed, whatever the dtype
        raise ConfigError(f"--input {text!r}: {math.prod(dims):.3g} elements, beyond "
                          f"{MAX_ARRAY_BYTES / 2**30:g} GiB per input whatever its dtype",
                          hint="give the shape the model takes, e.g. input=1x3x224x224")
    return m.group(1), dims


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "deploy", help="profile one model on one device",
        description="Export (if needed) and push a model to a device, measure single-stream latency, "
                    "throughput and memory (and power where the board has a sensor), store and print the result.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof deploy --device local --model mobilenet_v2\n"
               "  edgeprof deploy --device local --model bert_tiny --threads 2 --min-duration 5\n"
               "  edgeprof deploy --device local --model my.onnx --input images=1x3x640x640\n"
               "  edgeprof deploy --device local --model vad.onnx --input-value sr=16000 --input-data audio.npz\n"
               "  edgeprof deploy --device local --model builders.py:build --json result.json\n"
               "  edgeprof deploy --device jetson-nano --model resnet18       (a board from devices.yaml)\n"
               "  edgeprof deploy --device jetson-nano --model resnet18 --opset 15   (the ONNX opset to export at)\n"
               "  edgeprof deploy --device local --model mobilenet_v2 --runtime tflite --precision int8\n"
               "  edgeprof deploy --device local --model llama_tiny --runtime llama.cpp --precision q4_0 --depth 512 "
               "--mmap off   (a generative model: docs/generative.md)\n"
               "  edgeprof deploy --device orin --model llama_tiny --runtime onnxruntime-genai --providers cuda\n"
               "  edgeprof deploy --device local --model mobilenet_v2 --precision int8 --calibration samples/\n"
               "  edgeprof deploy --device local --model net.onnx --precision int8 --accuracy val.npz  "
               "(top-1/top-5 next to latency)\n"
               "  edgeprof deploy --device local --model ds_cnn --runtime tflite --profile-ops\n"
               "  edgeprof deploy --device orin --model resnet18 --runtime tensorrt --precision fp16\n"
               "  edgeprof deploy --device jetson-nano --model ds_cnn --cooldown 45 --idle 5 --power-rate 100\n"
               "  edgeprof deploy --device local --model mobilenet_v2 --scenario fixed-rate --rate 30\n"
               "  edgeprof deploy --device local --model mobilenet_v2 --scenario server --rate 40 --latency-bound 50\n"
               "  edgeprof deploy --device local --model mobilenet_v2 --scenario server --latency-bound 50 "
               "--find-max-rate\n"
               "  edgeprof deploy --device jetson-nano --model mobilenet_v2 --scenario sustained --duration 30m "
               "--window 60s --rate 30   (after 30 minutes of a camera)\n",
    )
    p.add_argument("--device", required=True, help="device name from devices.yaml, or 'local' for this machine")
    p.add_argument("--model", required=True,
                   help="bundled model name (see `edgeprof models`), path/to/model.onnx, or path/to/file.py:function")
    p.add_argument("--runtime", default=None,
                   help="onnxruntime (default; tflite for a .tflite file), tflite (LiteRT), tensorrt (NVIDIA GPUs), "
                        "or null (the harness)")
    p.add_argument("--precision", default=None, choices=_Choices(FORWARD_PASS.precisions),
                   help="fp32 (default); fp16 (onnxruntime, tensorrt; tflite: float16 weights); int8 (static, calibrated; all three)")
    add_setting_flags(p, "model")
    p.add_argument("--xnnpack", choices=["on", "off"], default=None,
                   help="tflite: use the XNNPACK CPU delegate (default on)")
    p.add_argument("--mmap", choices=["on", "off"], default=None,
                   help="llama.cpp (generative models): map the GGUF into memory (on) or read it in (off); default "
                        "the runtime's (on); recorded in the result's runtime options")
    p.add_argument("--extra-buffers", choices=["on", "off"], default=None,
                   help="llama.cpp: repack weights into its extra CPU buffers (AMX, CPU_REPACK); default off for "
                        "quantised weights on x86-64, llama.cpp's (on) elsewhere; recorded")
    p.add_argument("--delegate", metavar="PATH", default=None,
                   help="tflite: external delegate library on the device (e.g. a GPU delegate .so)")
    p.add_argument("--delegate-option", action="append", default=[], metavar="KEY=VALUE",
                   help="tflite: option passed to the external delegate (repeatable)")
    p.add_argument("--batch", type=int, default=None,
                   help="batch size: fills a dynamic first dimension (default 1; a static batch N > 1 is N)")
    p.add_argument("--threads", type=int, default=None, help="runtime intra-op threads (default: runtime's choice)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=DxD...",
                   help="concrete shape for an input with dynamic dims, e.g. input=1x3x224x224 (repeatable)")
    add_setting_flags(p, "inputs")  # what feeds the inputs (checked against the model before any push), the loop
    p.add_argument("--graph-opt", default=None, choices=["disable", "basic", "extended", "all"],
                   help="onnxruntime graph optimisation level (default all)")
    p.add_argument("--providers", default=None,
                   help="onnxruntime execution providers, comma-separated (default CPUExecutionProvider); "
                        "onnxruntime-genai (generative models): cuda or CUDAExecutionProvider, or cpu (default: "
                        "the model folder's genai_config.json, the CPU), recorded; CUDA there is untested "
                        "(docs/generative.md)")
    add_setting_flags(p, "measure")  # the export's opset, the seed, telemetry (idle baseline, cool-down, power rate)
    _add_scenario(p)
    for kind in KINDS:  # each measurement kind's own flags (session/kinds.py), in the registry's order
        _add_kind_flags(p, kind)
    p.add_argument("--json", metavar="PATH", help="also write the result JSON to PATH ('-' for stdout)")
    add_inventory_args(p)
    add_db_args(p)
    p.add_argument("--no-store", action="store_true", help="do not store the result in the database")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--lease-wait", metavar="TIME", default=None,
                   help="while a sweep holds the device, wait up to TIME (seconds, or 30m) for it, then measure "
                        "(default: refused at once, naming the sweep)")
    p.set_defaults(func=run)


def add_setting_flags(p: argparse._ActionsContainer, place: str) -> None:
    """The flags of the run settings vocab.RunSettings lists at `place`, in its order: the type by the setting's kind
    (a mapping's flag is repeated, NAME=... each), its help and metavar. Each defaults to None, "not given": the
    table's default applies (_spec), and check() judges what applies on the flags given."""
    for name, s in SETTINGS.items():
        if s.flag is not None and s.place == place:
            _add_setting_flag(p, s.flag, name, s)


def _add_setting_flag(p: argparse._ActionsContainer, flag: str, name: str, s: Setting) -> None:
    kw: dict[str, Any] = {"dest": name, "default": None, "help": s.flag_help or s.help}
    if s.metavar:
        kw["metavar"] = s.metavar
    if s.kind == "bool":
        kw["action"] = "store_true"
    elif s.kind == "mapping":
        kw["action"] = "append"
    else:
        kw["type"] = {"number": float, "int": int, "duration": str, "path": str}[s.kind]  # duration: typed()
    p.add_argument(flag, **kw)


def _add_scenario(p: argparse.ArgumentParser) -> None:
    """The load scenario's group: the scenario and its rate (identity axes), its settings, --find-max-rate."""
    g = p.add_argument_group("load scenario (docs/scenarios.md)")
    g.add_argument("--scenario", default=SINGLE_STREAM, choices=list(SCENARIOS),
                   help="single-stream (default: back to back), multi-stream (N samples a query), offline "
                        "(max throughput, --streams), server (Poisson arrivals at --rate), fixed-rate (a camera), "
                        "sustained (--duration TIME cut into --window TIME windows: the curve after minutes of load)")
    g.add_argument("--rate", type=float, default=None, metavar="QPS",
                   help="server: mean arrivals per second; fixed-rate: one query every 1/QPS s")
    add_setting_flags(g, "scenario")
    g.add_argument("--find-max-rate", action="store_true",
                   help="server / fixed-rate: search for the highest VALID rate (from --rate, default 10); "
                        "every probe run is stored")


class _Choices(list):
    """argparse's choices: `shown` in --help and its errors (the forward pass's precisions), and accepted beside
    them what the registered measurement kinds take (kinds.extra_precisions, read when a flag is parsed; each kind
    judges its own)."""

    def __contains__(self, item: object) -> bool:
        return list.__contains__(self, item) or item in extra_precisions()


def _add_kind_flags(p: argparse.ArgumentParser, kind: MeasurementKind) -> None:
    """A measurement kind's flags: its run settings (vocab.RunSettings at kind.place) and its own settings, in a
    group titled kind.group (docs/architecture.md "Adding a measurement kind")."""
    g: argparse._ActionsContainer = p.add_argument_group(kind.group) if kind.group else p
    if kind.place is not None:
        add_setting_flags(g, kind.place)
    for s in kind.flags:
        if s.flag:
            _add_setting_flag(g, s.flag, s.name, s)


def check_args(args: argparse.Namespace) -> RunSpec:
    """The RunSpec the flags say, after every problem of the spec and the flags (one line each) is found, before
    anything connects."""
    return _checked(args)[0]


def _checked(args: argparse.Namespace) -> tuple[RunSpec, Options]:
    """check_args, with the deploy's options (the flags given: deploy judges --batch 1 on a static batch by them)."""
    from .. import run as pipeline

    kind, spec = from_args(args, _spec(args), _given(args))  # a measurement kind's spec, or the forward pass's
    if kind.check is not None:
        kind.check(spec)
        return spec, pipeline.Options.of(spec, find_max_rate=args.find_max_rate, given=_given(args))
    options = pipeline.Options.of(spec, find_max_rate=args.find_max_rate, given=_given(args))
    pipeline.check(spec, options)
    return spec, options


def run(args: argparse.Namespace) -> int:
    spec, options = _checked(args)
    if args.find_max_rate:
        return _find_max_rate(args, spec)
    if args.json and args.json != "-":
        check_writable(args.json, "--json", args.db)  # found now, not after measuring; never the database
    lease_wait = lease_wait_s(args)
    device = resolve_device(args.device, args.inventory)
    store = None if args.no_store else open_store(args.db)
    from .. import session as seam
    from ..session import DeviceSession

    with DeviceSession(device, keep=False, lease_wait_s=lease_wait) as session:
        session.check(spec, runtime_given=args.runtime)  # what this device cannot measure: before connecting
        with DeployProgress(enabled=not args.quiet) as progress:
            result = _deploy_when_free(lambda: seam.deploy(spec, session, progress=progress, checked=True,
                                                           options=options), device, lease_wait, progress)
    json_error: ConfigError | None = None
    if args.json == "-":
        sys.stdout.write(result.to_json(indent=2) + "\n")
    elif args.json:
        try:  # written before storing: if the database then fails, the measurement is in this file
            write_output(args.json, result.to_json(indent=2), "--json")  # whole or not at all
        except ConfigError as e:
            json_error = e  # the run is still stored below; the error comes after
    if store is not None:  # the one saving path: deploy returns the Result, its caller stores it
        store.save(result)
    if json_error is not None:
        stored = f"the run is stored as {result.run_id}" if store is not None else "the run was not stored"
        raise ConfigError(f"{json_error.message}; {stored}",
                          hint=f"edgeprof results show {result.run_id} --json > FILE writes it again"
                          if store is not None else "rerun with a writable --json path")
    if args.json != "-":
        render_result(result)
        if args.json:
            err.print(f"result written to {shown(args.json)}")
        if store is not None:
            err.print(f"stored as run {result.run_id} in {shown(store.display_url)}")
            line = versus_fp32(store, result)
            if line:
                from .ui import out

                out.print(line, markup=False)
    return 0


def lease_wait_s(args: argparse.Namespace) -> float:
    """--lease-wait in seconds (0 when not given: a leased device is refused at once), checked as the sweep's
    lease_wait_s setting is."""
    text = getattr(args, "lease_wait", None)
    if text is None:
        return 0.0
    setting = POLICY["lease_wait_s"]  # the sweep policy's bound and units
    problem = setting.check(text)
    if problem is not None:
        raise ConfigError(f"--lease-wait {text!r}: {problem}", hint="e.g. --lease-wait 30m")
    return float(setting.typed(text))


def _deploy_when_free(deploy: Any, device: Device, wait_s: float, progress: Any) -> Result:
    """deploy(), tried again while a sweep's lease refuses it (the agent's `leased` error) for up to wait_s;
    then LeaseBusy: who holds the device, since when, and --lease-wait (one line)."""
    import time

    from ..agentlink.lease import DEPLOY_HINT
    from ..errors import LeaseBusy, LeasedError
    from ..vocab import fmt_duration

    deadline = time.monotonic() + wait_s
    poll = 1.0
    while True:
        try:
            return deploy()
        except LeasedError as e:
            who = e.holder or "another controller"
            left = deadline - time.monotonic()
            if left <= 0:
                waited = f"; waited {fmt_duration(wait_s)}" if wait_s > 0 else ""
                hint = ("a longer --lease-wait waits for it, or run when that sweep is done" if wait_s > 0
                        else DEPLOY_HINT)
                raise LeaseBusy(f"device {device.name} is leased by {who}{waited}", hint=hint) from None
            progress.stage(f"waiting for the lease ({fmt_duration(left)} left): {who}")
            time.sleep(min(poll, left))  # a Ctrl-C here is the CLI's one line, exit 130
            poll = min(poll * 1.5, 15.0)


# runtime flags (not run settings: they compose runtime_options) whose presence decides whether they apply
_PRESENCE = {"--xnnpack": "xnnpack", "--delegate": "delegate", "--delegate-option": "delegate_option",
             "--graph-opt": "graph_opt", "--providers": "providers", "--mmap": "mmap",
             "--extra-buffers": "extra_buffers"}
# how one item of a repeated mapping flag reads (vocab.Setting.item)
_ITEMS = {"value": parse_input_value, "range": parse_input_range}


def _given(args: argparse.Namespace) -> frozenset[str]:
    """The flags on the command line that check() judges: the run settings' and _PRESENCE's (a default of None,
    [] or False is "not given")."""
    dests = {**_PRESENCE, "--batch": "batch", **{s.flag: name for name, s in SETTINGS.items() if s.flag}}
    return frozenset(f for f, a in dests.items() if getattr(args, a, None) not in (None, [], False))


def _spec(args: argparse.Namespace) -> RunSpec:
    """The RunSpec the flags say (parsing only: check() finds every problem). A setting not given takes the table's
    default (a server's min_queries: what its early-stopping p99 needs)."""
    values: dict[str, Any] = {}
    for name, s in SETTINGS.items():
        v = getattr(args, name, None) if s.flag else None
        if v is not None:
            values[name] = dict(_ITEMS[s.item](t) for t in v) if s.kind == "mapping" and s.item else v
    options: dict[str, object] = {}
    if args.graph_opt:
        options["graph_optimization_level"] = args.graph_opt
    if args.providers:
        options["providers"] = [p.strip() for p in args.providers.split(",") if p.strip()]
    if args.xnnpack is not None:
        options["xnnpack"] = args.xnnpack == "on"
    if args.mmap is not None:
        options["use_mmap"] = args.mmap == "on"
    if args.extra_buffers is not None:
        options["extra_buffers"] = args.extra_buffers == "on"
    if args.delegate:
        options["delegate"] = args.delegate
    if args.delegate_option:
        pairs = [o.split("=", 1) for o in args.delegate_option]
        if any(len(kv) != 2 or not kv[0] for kv in pairs):
            raise ConfigError("--delegate-option: expected KEY=VALUE")
        options["delegate_options"] = dict((k, v) for k, v in pairs)
    values["runtime_options"] = options
    if "min_queries" not in values and args.scenario == "server":
        values["min_queries"] = SERVER_MIN_QUERIES
    from ..export.resolve import default_runtime

    return RunSpec(
        device=args.device, model=args.model, runtime=args.runtime or default_runtime(args.model),
        precision=args.precision or "fp32", batch=1 if args.batch is None else args.batch, threads=args.threads,
        input_shapes=dict(parse_input_shape(s) for s in args.input), scenario=args.scenario,
        rate=(args.rate or FIND_START_QPS) if args.find_max_rate else args.rate, **settings_kwargs(values))


def versus_fp32(store: Store, result: Result) -> str | None:
    """For a scored fp16 / int8 run: its accuracy against the newest stored fp32 run of the same configuration
    scored on the same data (one line), so the cost of the precision is seen at once."""
    import dataclasses

    acc = result.accuracy
    if acc is None or result.precision == "fp32":
        return None
    key = dataclasses.replace(result.identity, precision="fp32").key()
    for row in store.list(config=key, status="ok", limit=20):
        base = store.get(row.run_id).accuracy
        if base is None or base.sha256 != acc.sha256:
            continue
        if acc.top1 is not None and base.top1 is not None:
            return (f"vs fp32 (run {row.run_id}, same data): top-1 {fmt_value(base.top1, '%')} → "
                    f"{fmt_value(acc.top1, '%')} ({acc.top1 - base.top1:+.1f} points)")
        if acc.errors and base.errors:
            a, b = acc.errors[0], base.errors[0]
            return (f"vs fp32 (run {row.run_id}, same data): {a.output} MAE {fmt_value(b.mean_abs_error)} → "
                    f"{fmt_value(a.mean_abs_error)}, cosine {fmt_value(b.cosine_similarity)} → "
                    f"{fmt_value(a.cosine_similarity)}")
    return None


def _find_max_rate(args: argparse.Namespace, spec: RunSpec) -> int:
    """--find-max-rate: probe runs (each stored and summarised), then the highest VALID rate."""
    if args.json:
        raise ConfigError("--json with --find-max-rate: every probe is stored; show one with "
                          "edgeprof results show RUN_ID --json")
    device = resolve_device(args.device, args.inventory)
    store = None if args.no_store else open_store(args.db)
    from ..session import DeviceSession

    # the probes share one connection, one agent (each probe is a child process of it; started again after one
    # that died or misbehaved) and one read of the device's facts
    with DeviceSession(device) as session:
        session.check(spec, runtime_given=args.runtime, find_max_rate=True)
        return _probe_rates(args, spec, store, session)


def _probe_rates(args: argparse.Namespace, spec: RunSpec, store: Any, session: DeviceSession) -> int:
    import dataclasses

    from rich.markup import escape

    from .. import session as seam
    from ..analysis.maxrate import find_max_rate
    from .ui import out

    def probe(rate: float) -> Result:
        with DeployProgress(enabled=not args.quiet) as progress:
            r = seam.deploy(dataclasses.replace(spec, rate=rate), session, progress=progress)
        if store is not None:
            store.save(r)
        sc = r.scenario
        verdict = "VALID" if sc.valid else "INVALID"
        p99 = r.latency_ms.p99 if r.latency_ms else None
        out.print(escape(f"probe {rate:g}/s: {verdict} · p99 {fmt_value(p99, 'ms')} · {sc.valid_reason} · "
                         f"run {r.run_id}"))
        return r

    search = find_max_rate(probe, start=spec.rate or FIND_START_QPS)
    if search.best is None or search.best_rate is None:
        raise ConfigError(f"--find-max-rate: no VALID {spec.scenario} rate found ({search.stopped_by}; "
                          f"{len(search.probes)} probes stored)",
                          hint="raise --latency-bound, or check the probes with edgeprof results list")
    best = search.best
    render_result(best)
    lo, hi = search.bracket
    j = best.scenario.j_per_frame
    out.print(escape(f"max rate: {search.best_rate:g}/s VALID ({spec.scenario}), p99 "
              f"{fmt_value(best.latency_ms.p99 if best.latency_ms else None, 'ms')}, energy per frame "
              f"{fmt_value(j * 1000 if j is not None else None, 'mJ')}; "
              f"{'first INVALID at ' + format(hi, 'g') + '/s; ' if hi else ''}{len(search.probes)} probes "
              f"({search.stopped_by}), best run {best.run_id}"))
    return 0
