"""Calibrating a device: measuring the generated calibration models (and optional whole reference models) on it.

Owns: `calibrate(device, ...)`: each calibration model (kernels.py) is written as an ONNX file named by its content
and measured through the ordinary measurement path, run.deploy with profile_ops (a short timed loop gives the
p50 without the profiler; the separate --profile-ops pass gives each node's time in the graph the device's
runtime really runs). Every profiled node is matched to a kernel of this host's copy of that graph (graph.py);
nodes with no match (NCHWc reorders, memcpy) are kept as the model's unmatched time. The loop stops starting
models when the next one would not finish inside `budget_s` (the mean time per model so far is the estimate).
Reference models are measured first, since they are the ones real models look like.
One kept session (session.DeviceSession) serves the whole calibration: connected once, the board held, its facts
read before anything is written, so that the generated models are written at the opset its onnxruntime loads
(`board_opset`: 17, or 15 for JetPack 4.6's onnxruntime 1.10, LayerNormalization then written out; the table's
notes say so).
The speed probe: one fixed model (`probe`: by default kernels.probe_model's network, ≈ 1 ms here, as ONNX or as
the .tflite file tflite.probe_file converts; or a bundled model or file the user names) is timed without the profiler before
the first model, every `probe_every_s` and after the last, so that the table says how the board's own speed moved
while it was measured (a VM's neighbours, a board warming into throttling, a governor); each model records when it
was measured (at_s) and fit.py divides its times by the probe's speed then. A probe that fails is a note, not an
end: the table is then built without one.
onnxruntime int8: each generated fp32 file goes through the same deploy path with precision int8, so
export/quantize.py quantises it as it would a user's model (cached by content; the time it takes is inside the
model's time, so the budget counts it), and the kernels are read from the quantised file the run names.
LiteRT (runtime "tflite", XNNPACK, fp32): the calibration models are tflite.py's one-operator files, measured by
the same deploy path without --profile-ops (LiteRT's Python interpreter has no per-op profiler); each model's
kernels are read from the file by this host's LiteRT (tflite.tflite_kernels) with no per-kernel time, and fit.py
takes the model's p50 as its kernel's time less the per-run overhead. LiteRT int8 and fp16 (either runtime) are
refused in one line (PRECISIONS).
Sessions: at more than one thread each model is timed in 2 fresh runtime sessions by default (deploy --sessions;
`sessions` to choose), its p50 the fastest session's, each session's kept (CalibrationModel.session_p50s): a
session's speed there is a draw (docs/runtimes.md, "Sessions"). The profile pass is the first session's; fit.py
scales its kernel times to the model's p50.
Does not own: the measurement (run/, the agent), the table's file (table.py), fitting (fit.py).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import logging
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ConfigError, UserError
from ..records import Device, Result, RunSpec
from ..session import DeviceSession
from ..vocab import MAX_SESSIONS
from .graph import Kernel, host_ort_version, kernels, stands_for
from .kernels import MIN_OPSET, OPSET, PROBE_NAME, calibration_models, probe_model
from .table import CalibrationModel, CalibrationTable, MeasuredKernel, SpeedProbe, TableKey
from .tflite import GRAPH_LEVEL, calibration_files, host_litert_version, probe_file, tflite_kernels

__all__ = ["calibrate", "measure_model", "model_from_result", "SHORT_RUN", "RUNTIMES", "PRECISIONS", "PROBE",
           "PROBE_EVERY_S", "probe_path"]

RUNTIMES = ("onnxruntime", "tflite")
# the precisions each runtime's tables are built for
PRECISIONS = {"onnxruntime": ("fp32", "int8"), "tflite": ("fp32",)}

# the timed loop of a calibration run: short, since the kernel times come from the profile pass
SHORT_RUN = {"warmup_s": 0.3, "min_duration_s": 0.6, "min_queries": 10, "idle_s": 0.0, "profile_ops": True}

# the speed probe (kernels.probe_model): timed (no profiler) this often during a calibration, and at its start and
# end; any other name is a model deploy accepts (a bundled name or a file)
PROBE = PROBE_NAME
PROBE_EVERY_S = 30.0


def probe_path(probe: str, runtime: str, cache_dir: Path, opset: int = OPSET) -> str:
    """What deploy is given for the speed probe `probe`: the generated probe's file for the runtime (written once
    under cache_dir, at `opset` for onnxruntime), or the user's model as it is."""
    if probe != PROBE_NAME:
        return probe
    if runtime == "tflite":
        return str(probe_file(cache_dir / "tflite"))
    return str(model_file(cache_dir, PROBE_NAME, probe_model(opset)))


def model_file(cache_dir: Path, name: str, proto: Any) -> Path:
    """A generated model's file under cache_dir, named by its content (`<name>-<sha256[:12]>.onnx`), written once;
    reread.py finds a table's models by these names."""
    data = proto.SerializeToString()
    path = cache_dir / f"{name}-{hashlib.sha256(data).hexdigest()[:12]}.onnx"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    return path


_OPSET_NOTE = "calibration models written at opset {}"


def noted_opset(notes: Sequence[str]) -> int:
    """The opset a table's generated models were written at, as its notes say (_measure_all), else OPSET."""
    said = [int(m.group(1)) for n in notes for m in [re.match(_OPSET_NOTE.format(r"(\d+)"), n)] if m]
    return said[0] if said and MIN_OPSET <= said[0] <= OPSET else OPSET


Progress = Callable[[float, float, int, int, str], None]  # (spent_s, budget_s, models, kernel samples, label)


def _input_shapes(result: Result) -> dict[str, tuple[int, ...]]:
    inputs = result.settings.inputs if result.settings is not None else None
    return {str(i["name"]): tuple(int(d) for d in i["shape"]) for i in inputs or []}


def model_from_result(result: Result, name: str, role: str, path: str | Path | None = None,
                      level: str = "all") -> CalibrationModel:
    """A measured run with an op profile → a CalibrationModel (its profile matched to this host's graph); a LiteRT
    run (level tflite.GRAPH_LEVEL) → its p50 and the file's kernels, without per-kernel times."""
    if result.status != "ok" or result.latency_ms is None or result.latency_ms.p50 is None:
        raise UserError(f"calibration model {name}: the run did not end ok ({result.status})")
    if level == GRAPH_LEVEL:
        model_path = path or (result.artifact.path if result.artifact else None)
        if model_path is None:
            raise UserError(f"calibration model {name}: the run names no model file")
        ks = tflite_kernels(model_path, int(result.threads or 1))
        p50, sessions = _p50(result)
        return CalibrationModel(name=name, role=role, p50_ms=p50, profiled_run_ms=None, unmatched_us=0.0,
                                kernels=tuple(MeasuredKernel(kernel=k, us=None) for k in ks), run_id=result.run_id,
                                session_p50s=sessions)
    ops = result.ops
    if ops is None or not ops.available:
        reason = ops.reason if ops is not None else "no op profile in the result"
        raise UserError(f"calibration model {name}: no per-op profile ({reason})",
                        hint="calibration needs a runtime with a per-op profiler (onnxruntime)")
    model_path = path or (result.artifact.path if result.artifact else None)
    if model_path is None:
        raise UserError(f"calibration model {name}: the run names no model file")
    ks = kernels(model_path, _input_shapes(result), level)
    by_name = {k.name: k for k in ks}
    by_output = {o: k for k in ks for o in k.outputs}
    times: dict[str, float] = {}
    unmatched = 0.0
    left: list[dict[str, Any]] = []
    for n in ops.nodes:
        ms = n.get("ms_per_run") or 0.0
        k = stands_for(str(n.get("name") or ""), by_name, by_output)
        if k is None:
            left.append(n)
            continue
        times[k.name] = times.get(k.name, 0.0) + ms * 1e3
    paired = pair_unnamed(left, ks)
    for n in left:
        ms = (n.get("ms_per_run") or 0.0) * 1e3
        if id(n) in paired:
            times[paired[id(n)]] = times.get(paired[id(n)], 0.0) + ms
        else:
            unmatched += ms
    measured = tuple(MeasuredKernel(kernel=k, us=times.get(k.name)) for k in ks)
    p50, sessions = _p50(result)
    return CalibrationModel(name=name, role=role, p50_ms=p50, profiled_run_ms=ops.run_ms_per_run,
                            unmatched_us=unmatched, kernels=measured, run_id=result.run_id, session_p50s=sessions)


def _p50(result: Result) -> tuple[float, tuple[float, ...] | None]:
    """A calibration run's p50 and, timed in several sessions (deploy --sessions), each one's: the fastest
    session's p50 is the model's (docs/runtimes.md, "Sessions": at threads > 1 a session's speed is a draw)."""
    s = result.sessions
    if s is None:
        lat = result.latency_ms
        assert lat is not None and lat.p50 is not None  # model_from_result refused a run without one
        return float(lat.p50), None
    return float(s.fastest_p50_ms), tuple(float(p) for p in s.p50_ms)


_UNNAMED = re.compile(r"^(?P<op>[A-Za-z][\w.]*)_(?P<index>\d+)$")


def pair_unnamed(nodes: Sequence[Mapping[str, Any]], ks: Sequence[Kernel]) -> dict[int, str]:
    """Profile nodes no name matched → the unnamed kernels they are (id(node) → kernel name). onnxruntime's profile
    names a node without a name "<op type>_<node index>" (a function it inlined: HardSwish → HardSigmoid and Mul,
    as torch and paddle2onnx write them at opset 14 and later), an index this host cannot know; per op type, those
    nodes in index order are paired with the graph's unnamed kernels of that op in graph order (less those this
    host's "all" level fused: layout.py), only when the two count the same (else none is paired and their time
    stays unmatched, as before)."""
    by_op: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for n in nodes:
        m = _UNNAMED.match(str(n.get("name") or ""))
        if m and m.group("op") == str(n.get("op_type") or ""):
            by_op.setdefault(m.group("op"), []).append((int(m.group("index")), n))
    out: dict[int, str] = {}
    for op, found in by_op.items():
        unnamed = [k.name for k in ks if not k.named and k.op == op and not k.branch and k.layout != "fused"]
        if len(unnamed) != len(found):
            continue
        for (_, n), name in zip(sorted(found, key=lambda t: t[0]), unnamed, strict=True):
            out[id(n)] = name
    return out


def measure_model(device: Device | DeviceSession, model: str, *, threads: int, level: str, precision: str = "fp32",
                  input_shapes: dict[str, tuple[int, ...]] | None = None, settings: dict[str, Any] | None = None,
                  runtime: str = "onnxruntime") -> Result:
    from .. import session as seam

    values: dict[str, Any] = dict(SHORT_RUN)
    values.update(settings or {})
    if runtime == "tflite":
        values["profile_ops"] = False  # LiteRT's Python interpreter has none (the module docstring)
        values["runtime_options"] = {}
    else:
        values["runtime_options"] = {"graph_optimization_level": level} if level != "all" else {}
    name = device.device.name if isinstance(device, DeviceSession) else device.name
    spec = RunSpec(device=name, model=model, runtime=runtime, precision=precision, threads=threads,
                   input_shapes=dict(input_shapes or {}), **values)
    return seam.deploy(spec, device)


def _key_from(result: Result, device: Device, threads: int, precision: str, level: str,
              runtime: str = "onnxruntime") -> TableKey:
    facts = {k: result.environment.fact(k) for k in ("hostname", "arch", "cpu", "cores", "memory_mb", "os", "board_model")}
    if runtime == "tflite":
        return TableKey(device_name=device.name, device=facts, runtime="tflite",
                        runtime_version=str(result.environment.runtime_version or "?"), precision=precision,
                        threads=threads,
                        graph_level=GRAPH_LEVEL, host_litert_version=host_litert_version())
    return TableKey(device_name=device.name, device=facts, runtime="onnxruntime",
                    runtime_version=str(result.environment.runtime_version or "?"), precision=precision, threads=threads,
                    graph_level=level, host_ort_version=host_ort_version())


class _ProbeTimer:
    """The speed probe through one calibration: timed when `every_s` has passed since the last (and at the end);
    a probe that fails is a note and the table then has none."""

    def __init__(self, probe: str | None, every_s: float, start: float, notes: list[str],
                 run: Callable[[str], Result]) -> None:
        self.probe, self.every_s, self.start, self.notes, self.run = probe, every_s, start, notes, run
        self.samples: list[tuple[float, float]] = []
        self.cost: list[float] = []  # seconds each probe took: the last is kept in the budget for the closing one
        self.last = -math.inf

    def closing_s(self) -> float:
        return self.cost[-1] if self.probe is not None and self.cost else 0.0

    def maybe(self, tick: Callable[[str], None], last: bool = False) -> None:
        if self.probe is None or (not last and time.monotonic() - self.last < self.every_s):
            return
        t0 = time.monotonic()
        tick(f"speed probe ({self.probe})")
        try:
            r = self.run(self.probe)
            if r.status != "ok" or r.latency_ms is None or r.latency_ms.p50 is None:
                raise UserError(f"the run did not end ok ({r.status})")
        except UserError as e:
            self.notes.append(f"speed probe {self.probe}: {e.one_line()}; the table has no speed probe")
            self.samples.clear()
            self.probe = None
            return
        finally:
            self.cost.append(time.monotonic() - t0)
        self.samples.append(((t0 + time.monotonic()) / 2 - self.start, float(r.latency_ms.p50)))
        self.last = time.monotonic()

    def result(self) -> SpeedProbe | None:
        return SpeedProbe(model=self.probe, samples=tuple(self.samples)) if self.probe and self.samples else None


def calibrate(device: Device, *, threads: int, budget_s: float, cache_dir: Path, level: str = "all",
              precision: str = "fp32", references: Sequence[str] = (), seed: int = 0,
              progress: Progress | None = None, max_models: int | None = None,
              runtime: str = "onnxruntime", probe: str | None = PROBE,
              probe_every_s: float = PROBE_EVERY_S, sessions: int | None = None) -> CalibrationTable:
    """Measure calibration models on `device` for at most `budget_s` and return the table (not saved). `probe`
    (None: no speed probe) is timed at the start, every `probe_every_s` and at the end (the module docstring).
    `sessions`: fresh runtime sessions each model is timed in, its p50 the fastest one's (None: default_sessions)."""
    sessions = check_sessions(sessions, threads)
    if runtime not in RUNTIMES:
        raise ConfigError(f"calibrate --runtime {runtime}: tables are built for {' and '.join(RUNTIMES)} only",
                          hint="calibrate with --runtime onnxruntime or --runtime tflite (LiteRT with XNNPACK)")
    if precision not in PRECISIONS[runtime]:
        raise ConfigError(f"calibrate --runtime {runtime} --precision {precision}: {runtime} tables are built for "
                          f"{' and '.join(PRECISIONS[runtime])} only",
                          hint="calibrate with --precision fp32" + (
                              " (LiteRT int8 is not built: its Python interpreter gives no per-op times to "
                              "separate the quantise ops)" if runtime == "tflite" else
                              " or int8 (fp16 tables are not built)"))
    if runtime == "tflite":
        level = GRAPH_LEVEL
    # one session for the whole calibration: connected once, the board held, its facts read before anything is
    # written (the generated models are written at the opset its onnxruntime loads)
    with DeviceSession(device, purpose="calibrate") as session:
        opset = board_opset(session, runtime, lambda label: progress(0.0, budget_s, 0, 0, label) if progress else None)
        return _measure_all(session, threads=threads, budget_s=budget_s, cache_dir=cache_dir, level=level,
                            precision=precision, references=references, seed=seed, progress=progress,
                            max_models=max_models, runtime=runtime, probe=probe, probe_every_s=probe_every_s,
                            opset=opset, sessions=sessions)


def check_sessions(sessions: int | None, threads: int) -> int:
    """calibrate --sessions as given (None: default_sessions), or a one-line ConfigError."""
    sessions = default_sessions(threads) if sessions is None else sessions
    if not 1 <= sessions <= MAX_SESSIONS:
        raise ConfigError(f"calibrate --sessions {sessions}: must be between 1 and {MAX_SESSIONS}",
                          hint="2 or 3 shows a board whose speed changes from one session to the next")
    return sessions


def default_sessions(threads: int) -> int:
    """Sessions each calibration model is timed in by default: 2 at more than one thread, where a session's speed
    is a draw (docs/runtimes.md, "Sessions": 37 % of calibration models 10 % apart between two sessions at 2
    threads on a 2-core VM, 9 % at 1 thread), else 1."""
    return 2 if threads > 1 else 1


def board_opset(session: DeviceSession, runtime: str, say: Callable[[str], None]) -> int:
    """The default-domain opset the calibration models are written at: OPSET, or lower where the board's
    onnxruntime loads no more (capability.ORT_ONNX_MAX, from its facts: JetPack 4's onnxruntime 1.10 loads 15)."""
    from .. import capability

    session.open(say)
    limit = capability.device_onnx_limit(session.runtime_facts) if runtime == "onnxruntime" else None
    if limit is None or limit.opset >= OPSET:
        return OPSET
    if limit.opset < MIN_OPSET:
        raise ConfigError(f"calibrating {session.device.name}: its onnxruntime {limit.runtime_version} loads opset "
                          f"{limit.opset} at most; the calibration models need {MIN_OPSET}",
                          hint="upgrade onnxruntime on the board")
    return limit.opset


def _measure_all(session: DeviceSession, *, threads: int, budget_s: float, cache_dir: Path, level: str,
                 precision: str, references: Sequence[str], seed: int, progress: Progress | None,
                 max_models: int | None, runtime: str, probe: str | None, probe_every_s: float,
                 opset: int, sessions: int = 1) -> CalibrationTable:
    """calibrate()'s loop on an open session (the module docstring)."""

    device = session.device
    start = time.monotonic()
    notes: list[str] = []
    if opset != OPSET:
        notes.append(_OPSET_NOTE.format(opset) + ": the board's onnxruntime loads no newer "
                     "(LayerNormalization written out, as exporters write it below opset 17)")
    if sessions > 1:
        notes.append(f"each model timed in {sessions} fresh runtime sessions; its p50 is the fastest one's (at "
                     "more than one thread a session's speed is a draw: docs/runtimes.md, Sessions)")
    timer = _ProbeTimer(probe, probe_every_s, start, notes, lambda p: measure_model(
        session, probe_path(p, runtime, cache_dir, opset), threads=threads, level=level, precision=precision,
        runtime=runtime, settings={"profile_ops": False}))
    models: list[CalibrationModel] = []
    key: TableKey | None = None
    samples = 0
    per_model: list[float] = []

    def tick(label: str) -> None:
        if progress is not None:
            progress(time.monotonic() - start, budget_s, len(models), samples, label)

    def room() -> bool:
        spent = time.monotonic() - start
        est = (sum(per_model) / len(per_model)) if per_model else 0.0
        return spent + est + timer.closing_s() <= budget_s

    def one(model: str, name: str, role: str, path: Path | None = None) -> None:
        nonlocal key, samples
        timer.maybe(tick)
        t0 = time.monotonic()
        tick(name)
        try:
            r = measure_model(session, model, threads=threads, level=level, precision=precision, runtime=runtime,
                              settings={"sessions": sessions})
            cm = model_from_result(r, name, role, path, level)
        except UserError as e:
            if role == "reference" or not models:
                raise
            notes.append(f"{name}: {e.one_line()}")  # one generated model failing does not end calibration
            return
        finally:
            per_model.append(time.monotonic() - t0)
        if key is None:
            key = _key_from(r, device, threads, precision, level, runtime)
        models.append(dataclasses.replace(cm, at_s=(t0 + time.monotonic()) / 2 - start))
        # a LiteRT model is timed whole: its one operator is the sample
        samples += sum(1 for k in cm.kernels if k.us is not None) if level != GRAPH_LEVEL else 1
        tick(name)

    for ref in references:
        if not room():
            notes.append(f"reference {ref} skipped: the budget was spent")
            continue
        one(ref, ref, "reference")
    cache_dir.mkdir(parents=True, exist_ok=True)
    if runtime == "tflite":
        for i, (name, path) in enumerate(calibration_files(seed, cache_dir / "tflite")):
            if (max_models is not None and i >= max_models) or not room():
                break
            one(str(path), name, "kernels", path)
    for i, (name, proto) in enumerate(calibration_models(seed, opset=opset) if runtime == "onnxruntime" else ()):
        if max_models is not None and i >= max_models:
            break
        if not room():
            break
        path = model_file(cache_dir, name, proto)
        # int8: deploy quantises the fp32 file as it would a user's (export/quantize.py, cached by content; the
        # time it takes is inside this model's time, so the budget counts it) and its kernels are read from the
        # quantised file the run names
        one(str(path), name, "kernels", path if precision == "fp32" else None)
        transformer = name.endswith("-transformer")
        dyn = _dynamic_copy(path, proto, transformer, u8=transformer and i % 3 == 0) \
            if precision == "int8" and _ships_dynamic(name, i) and room() else None
        if dyn is not None:  # deploy runs it as given: its DynamicQuantizeLSTM, ConvInteger, integer matmuls
            one(str(dyn), f"{name}-dyn", "kernels", dyn)
    if key is None:
        raise UserError(f"calibrating {device.name}: the budget ended before any model was measured",
                        hint="give a longer --budget")
    timer.maybe(tick, last=True)
    spent = time.monotonic() - start
    tick("done")
    return CalibrationTable(key=key, models=tuple(models),
                            created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                            budget_s=budget_s, spent_s=spent, edgeprof_version=__version__, notes=tuple(notes),
                            probe=timer.result(), sessions=sessions)


def _ships_dynamic(name: str, i: int) -> bool:
    """Whether an int8 calibration also measures generated model `name` (the i-th) dynamically quantised: every
    recurrent network (round 13), every 1-D CNN and one 2-D CNN chain in three (round 14), every transformer (round
    22: the integer matmuls of the other kinds are heads of at most 8 MFLOP, and a law fitted on them stays flat
    past them: hibari-tts's 77 DynamicQuantizeMatMuls of ~100 MFLOP, shipped int8, were priced 29 µs each, a
    quarter of their time)."""
    return name.endswith(("-rnn", "-cnn1d", "-transformer")) or (name.endswith("-cnn") and i % 3 == 0)


def _dynamic_copy(path: Path, proto: Any, matmuls: bool = False, u8: bool = False) -> Path | None:
    """A generated model with LSTMs or convolutions (or matmuls), dynamically quantised as files are shipped int8
    (onnxruntime's quantize_dynamic: DynamicQuantizeLSTM, ConvInteger behind DynamicQuantizeLinear, integer
    matmuls; int8 weights, activations quantised at run time), beside it; None for one with none of them
    (onnxruntime's dynamic quantiser leaves a GRU float). Static quantisation, which deploy's int8 applies, leaves
    recurrent layers float and writes QLinearConv, so no int8 table had measured either: dksplit's three LSTMs were
    priced by the float LSTMs' model at 3.4× their time (round 13), khmercut's five ConvInteger by QLinearConv's
    family at a quarter of theirs (round 14). `proto`: the model at `path`, as generated; `matmuls`: one whose
    matmuls alone are reason enough (a transformer's: _ships_dynamic); `u8`: its weights uint8, quantize_dynamic's
    old default, which onnxruntime multiplies with a slower kernel than int8 ones (variants.py; one transformer in
    three)."""
    ops = [op for op in ("LSTM", "Conv") if any(n.op_type == op for n in proto.graph.node)]
    if not ops and not (matmuls and any(n.op_type == "MatMul" for n in proto.graph.node)):
        return None
    out = path.with_name(path.stem + ("-dynu8.onnx" if u8 else "-dyn.onnx"))
    if not out.exists():
        from onnxruntime.quantization import QuantType, quantize_dynamic

        tmp = out.with_name(out.name + ".part")
        logging.disable(logging.WARNING)  # its advice to pre-process, on the root logger, would cut the progress bar
        try:
            quantize_dynamic(str(path), str(tmp), op_types_to_quantize=[*ops, "MatMul"],
                             weight_type=QuantType.QUInt8 if u8 else QuantType.QInt8)
        finally:
            logging.disable(logging.NOTSET)
        tmp.replace(out)
    return out


def kernel_samples(table: CalibrationTable) -> list[tuple[Kernel, float]]:
    return [(mk.kernel, mk.us) for m in table.models for mk in m.kernels if mk.us is not None]
