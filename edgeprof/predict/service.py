"""Predicting one model on the boards named by their tables: what `edgeprof predict` calls.

Owns: `find_table` (a device name → its table in tables_dir(), by runtime, precision and threads; a table file
given directly), `table_for` (the same, None when there is none: a sweep asks it per cell), `model_kernels` and
`model_graph` (a model as deploy reads it: bundled name or file, batch, --input shapes and --input-value by deploy's
own rules, export/prepare and export/inputs, without any device; an ONNX model as onnxruntime runs it, at int8 as
deploy quantises it (or a user's quantised file as it is), a .tflite
file or a model for a LiteRT table as LiteRT with XNNPACK runs it; the graph also names the artifact's source and
content, the model's identity as a measured run of it has it, and for a float ONNX model the warning when its
weights or its activations on deploy's own inputs hold denormal floats, from one host run that also gives kernels()
the shapes inference does not reach and the Ifs those inputs decide: hostpass.host_trace) and `predict` (one model × one table →
fit.Prediction, with a warning when this host's onnxruntime — or LiteRT, for a LiteRT table — differs from the one
that read the table's graphs).
Never connects to a device and never runs the model.
Does not own: the method (fit.py), the table file (table.py), printing (cli/predict.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, UserError
from ..records import RunSpec
from .fit import Prediction, Predictor, fit
from .graph import Kernel, host_ort_version, kernels
from .hostpass import Trace, host_trace
from .reread import reading_note
from .table import CalibrationTable, check_key, default_table_path, load_table, tables_dir
from .tflite import GRAPH_LEVEL, fp16_weights_note, host_litert_version, tflite_kernels

__all__ = ["ModelGraph", "check_given_precision", "find_table", "lender_for", "lender_note", "model_graph",
           "model_kernels", "predict", "predict_lent", "predictor", "table_for"]

_FITTED: dict[int, Predictor] = {}


def find_table(device: str, *, runtime: str = "onnxruntime", precision: str = "fp32",
               threads: int | None = None) -> Path:
    """The table of `device` in tables_dir() for the configuration (threads None: the one there is)."""
    if threads is not None:
        p = default_table_path(device, runtime, precision, threads)
        if p.exists():
            return p
        others = sorted(default_table_path(device, runtime, precision, 0).parent.glob(
            default_table_path(device, runtime, precision, 0).name.replace("-t0.json", "-t*.json")))
        if others:
            have = ", ".join(sorted(str(load_table(o).key.threads) for o in others))
            raise ConfigError(f"device {device}: its {runtime} {precision} table was measured with threads {have}, "
                              f"not {threads}: a table is only valid for the thread count it was measured with",
                              hint=f"edgeprof calibrate --device {device} --threads {threads}")
    else:
        pattern = default_table_path(device, runtime, precision, 0).name.replace("-t0.json", "-t*.json")
        found = sorted(tables_dir().glob(pattern))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ConfigError(f"device {device} has {len(found)} {runtime} {precision} tables (several thread "
                              f"counts)", hint="say which with --threads N")
    raise ConfigError(f"device {device} has no {runtime} {precision} calibration table in {tables_dir()}",
                      hint=f"edgeprof calibrate --device {device} measures one, or pass a colleague's with "
                           f"--table FILE")


def table_for(device: str, *, runtime: str = "onnxruntime", precision: str = "fp32",
              threads: int | None) -> Path | None:
    """The table of `device` for exactly this configuration in tables_dir(), or None (threads None: the
    runtime's default thread count, which no table is measured with)."""
    if threads is None:
        return None
    p = default_table_path(device, runtime, precision, threads)
    return p if p.exists() else None


@dataclass(frozen=True)
class ModelGraph:
    """A model as predict reads it: its kernels, the shapes fed, and the artifact's source and content (what
    vocab.ConfigIdentity keys a measured run of it by; records/result.py Result.identity builds the same)."""

    kernels: list[Kernel]
    shapes: dict[str, tuple[int, ...]]
    source: str
    content: str
    precision: str = "fp32"  # the artifact's: "int8" for a model quantised as deploy would, or a user's int8 file
    # a float model whose weights, or activations on deploy's inputs, hold denormal floats: the warning's line
    denormals: str | None = None


def model_graph(model: str, *, batch: int = 1, input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                level: str = "all", precision: str = "fp32", input_values: Mapping[str, Any] | None = None,
                threads: int | None = None, calibration: str | None = None,
                input_ranges: Mapping[str, tuple[float, float]] | None = None,
                input_data: str | None = None) -> ModelGraph:
    """The kernels of `model` (a bundled name, an ONNX or a .tflite file) with deploy's input rules, and its
    identity. `input_values` (deploy's --input-value) are constants fed, so that an If on them keeps the branch
    taken; `input_ranges` (--input-range) and `input_data` (--input-data) feed the host run what deploy feeds the
    device (an index input out of its range makes that run fail, and with it the shapes and counts it gives).
    precision "int8" (onnxruntime): the model as deploy --precision int8 makes it (run.prepare: export/quantize.py's
    static QDQ with the calibration inputs deploy's input plan feeds, cached), its kernels from onnxruntime's graph
    of the quantised file; a file already quantised is read as it is (its precision says so). level
    tflite.GRAPH_LEVEL (a LiteRT table's): the model as deploy --runtime tflite makes it (a .tflite file, or a
    bundled model exported to TFLite) and its kernels as LiteRT with XNNPACK runs them."""
    from ..run.prepare import input_plan, prepare

    runtime = "tflite" if level == GRAPH_LEVEL or str(model).endswith(".tflite") else "onnxruntime"
    if runtime == "tflite" and level != GRAPH_LEVEL:
        raise ConfigError(f"{model} is a TFLite model: it is predicted from LiteRT tables",
                          hint="predict it with --runtime tflite (edgeprof calibrate --runtime tflite measures one)")
    spec = RunSpec(device="predict", model=model, runtime=runtime, precision=precision, batch=batch,
                   input_shapes=dict(input_shapes or {}), input_values=dict(input_values or {}),
                   input_ranges=dict(input_ranges or {}), input_data=input_data, calibration=calibration)
    a = prepare(spec, calibration=calibration).artifact  # int8: deploy --calibration DIR's samples, else seeded
    plan = input_plan(a.inputs, spec)
    content = a.content  # as a measured run's identity says it
    if runtime == "tflite":
        return ModelGraph(tflite_kernels(a.path, threads or 1), dict(plan.shapes), a.source, content, a.precision)
    # the host run, fed deploy's own inputs: of a float model for its shapes, If conditions, Loop counts and
    # denormals; of an int8 one (the quantised file, as deploy runs it) for its shapes, conditions and counts (a
    # decoder's end token is the file's own). Until round 22 an int8 file ran only when it had a Loop, and the shapes
    # inference does not reach were read from a run on other inputs (graph.run_shapes, fed the constants alone): a
    # Piper voice's audio, whose length its phoneme ids set, came out half as long as deploy's (-30 %)
    trace = _trace(a.path, plan)
    fp32 = trace if a.precision == "fp32" else None
    ks = kernels(a.path, plan.shapes, level, values=plan.fixed(), traced=trace.shapes if trace else None,
                 observed=trace.conditions if trace else None, iterations=trace.iterations if trace else None)
    return ModelGraph(ks, dict(plan.shapes), a.source, content, a.precision, _denormal_line(fp32))


def _trace(path: str | Path, plan: Any) -> Trace | None:
    """One run of an ONNX model (float, or int8 as deploy quantised it) on this host fed deploy's own inputs (the same
    seeded arrays the agent builds: export/inputs.make_inputs): hostpass.host_trace."""
    from ..export.inputs import make_inputs

    return host_trace(path, make_inputs([p.spec for p in plan.inputs], plan.shapes, plan.seed, plan.fixed()))


def _denormal_line(trace: Trace | None) -> str | None:
    """The warning for a model whose weights, or whose activations on deploy's inputs, hold denormal floats; None
    otherwise."""
    if trace is None or (trace.denormals is None and trace.weights is None):
        return None
    said = []
    if trace.weights is not None:
        n, share, name, overall = trace.weights
        said.append(f"{_pct(overall)} of the model's float weights are denormal floats ({n} tensor(s), up to "
                    f"{_pct(share)} of {name})")
    if trace.denormals is not None:
        n, share, name = trace.denormals
        said.append(f"on deploy's inputs {n} of the model's activations hold denormal floats (up to {_pct(share)} of "
                    f"{name})")
    return ("; ".join(said) + ": x86 CPUs compute on them many times slower, which no table shows — the measured "
            "time may be far above this prediction" + (", and depends on the input values" if trace.weights is None
                                                       else "") + " (docs/predict.md)")


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %" if share >= 0.01 else f"{100 * share:.2g} %"


def model_kernels(model: str, *, batch: int = 1, input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                  level: str = "all", precision: str = "fp32", input_values: Mapping[str, Any] | None = None,
                  threads: int | None = None) -> tuple[list[Kernel], dict[str, tuple[int, ...]]]:
    """The kernels of `model` with deploy's input rules, and the shapes fed (model_graph without the identity)."""
    g = model_graph(model, batch=batch, input_shapes=input_shapes, level=level, precision=precision,
                    input_values=input_values, threads=threads)
    return g.kernels, g.shapes


def check_given_precision(model: str, given: str, precision: str, runtime: str) -> str | None:
    """A model file that is already quantised (or fp16) runs as it is (deploy): it is predicted from tables of its own
    precision, so asking another is refused in one line; a .tflite file that only stores float16 weights is
    predicted from the fp32 LiteRT table, and the warning that says so is returned. None: nothing to say."""
    note = fp16_weights_note(given, precision, runtime)
    if given == precision or note is not None:
        return note
    if runtime == "tflite":
        raise ConfigError(f"{model} is already {given}: deploy runs it as it is, and LiteRT tables are built for "
                          f"fp32 only", hint="LiteRT int8 tables are not built yet: predict a float32 version of the "
                                             "model, or its ONNX form with onnxruntime int8 tables")
    raise ConfigError(f"{model} is already {given}: deploy runs it as it is, so it is predicted from {given} tables, "
                      f"not {precision} ones",
                      hint=f"predict it with --precision {given}" if given in ("fp32", "int8")
                      else f"{given} tables are not built: predict a float32 version of the model")


def predictor(table: CalibrationTable) -> Predictor:
    key = id(table)
    if key not in _FITTED:
        _FITTED[key] = fit(table)
    return _FITTED[key]


def lender_for(table: CalibrationTable, path: str | Path | None,
               passed: list[str] | None = None) -> CalibrationTable | None:
    """The fp32 table an int8 table borrows its missing float kernels from (fit.Predictor.lend): the same board's,
    runtime's and thread count's fp32 table beside it — the file whose name says fp32 where the int8 one's says
    int8 (as calibrate names them), else the device's in tables_dir() — or None. Each fp32 file found there but
    not lent (unreadable, or measured on another runtime version, thread count or graph level) gets a line in
    `passed`, which lender_note words for the prediction's warnings."""
    k = table.key
    if k.precision != "int8" or k.runtime != "onnxruntime":
        return None
    near = [Path(path).with_name(Path(path).name.replace("-int8-", "-fp32-"))] if path and "-int8-" in \
        Path(path).name else []
    for p in dict.fromkeys([*near, default_table_path(k.device_name, k.runtime, "fp32", k.threads)]):
        if p.exists():
            try:
                other = load_table(p)
            except (UserError, OSError, ValueError) as e:
                if passed is not None:
                    passed.append(f"{p}: not readable ({str(e).splitlines()[0] if str(e) else type(e).__name__})")
                continue
            o = other.key
            mine = ("fp32", k.runtime, k.runtime_version, k.threads, k.device_name, k.graph_level)
            theirs = (o.precision, o.runtime, o.runtime_version, o.threads, o.device_name, o.graph_level)
            if theirs == mine:
                return other
            if passed is not None:
                names = ("precision", "runtime", "runtime version", "threads", "device", "graph level")
                passed.append(f"{p}: " + ", ".join(f"{n} {a}, the int8 table's {b}" for n, a, b in
                                                   zip(names, theirs, mine, strict=True) if a != b))
    return None


def lender_note(passed: list[str]) -> str | None:
    """The warning for an int8 prediction whose board's fp32 table(s) were found but not lent (lender_for)."""
    if not passed:
        return None
    return ("the board's fp32 table was found but not lent, so float kernels this int8 table lacks are priced by "
            "the roofline: " + "; ".join(passed) + " — calibrate fp32 on the same onnxruntime and threads "
            "(edgeprof calibrate --precision fp32) or replace the file")


def predict(ks: list[Kernel], table: CalibrationTable, *, batch: int = 1, threads: int | None = None,
            runtime_version: str | None = None, where: str = "table", runtime: str | None = None,
            precision: str | None = None, lender: CalibrationTable | None = None) -> Prediction:
    """The table's prediction for kernels `ks`; an int8 table's float kernels it has no model for are priced from
    `lender` (lender_for: the board's fp32 table) where one is given."""
    check_key(table, runtime=runtime, threads=threads, runtime_version=runtime_version, precision=precision,
              where=where)
    fitted = predictor(table)
    fitted.lend(predictor(lender) if lender is not None else None)
    p = fitted.predict(ks, batch=batch)
    stale = reading_note(table, where.removeprefix("table ") if where.startswith("table ") else "FILE")
    if stale:
        p.warnings.append(stale)
    if table.key.runtime == "tflite":
        host_rt = host_litert_version()
        if table.key.host_litert_version and table.key.host_litert_version != host_rt:
            p.warnings.append(f"this host's {host_rt or 'LiteRT'} reads the model's operators and XNNPACK "
                              f"partitions; the table's were read by {table.key.host_litert_version}: they may "
                              f"differ")
        return p
    given = sum(k.key.endswith("/winput") or "/winput@" in k.key for k in ks)
    if given:
        p.warnings.append(f"{given} convolution(s) or matmul(s) read weights the model also lists as graph inputs (an "
                          f"older exporter's keep_initializers_as_inputs): onnxruntime does not fold, pre-pack or "
                          f"block them, and they run many times slower; re-export without it, or strip them with "
                          f"onnxruntime's tools/python/remove_initializer_from_input.py")
    host = host_ort_version()
    if table.key.host_ort_version and table.key.host_ort_version != host:
        p.warnings.append(f"this host's onnxruntime {host} reads the fused graph; the table's graphs were read by "
                          f"{table.key.host_ort_version}: fusions may differ")
    if table.key.runtime_version != host:
        p.warnings.append(f"the table was measured on onnxruntime {table.key.runtime_version}; this host reads the "
                          f"graph with {host}: fusions may differ on the board")
    return p


def predict_lent(ks: list[Kernel], table: CalibrationTable, path: str | Path | None, **kw: Any) -> Prediction:
    """predict() with the fp32 table an int8 table at `path` borrows from (lender_for), and a warning naming the fp32
    table(s) found beside it but not lent when its float kernels fell to the roofline."""
    passed: list[str] = []
    lender = lender_for(table, path, passed)
    p = predict(ks, table, lender=lender, **kw)
    unlent = lender_note(passed) if lender is None and p.uncovered else None
    if unlent:
        p.warnings.append(unlent)
    return p
