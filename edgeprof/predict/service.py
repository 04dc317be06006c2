"""Predicting one model on the boards named by their tables: what `edgeprof predict` calls.

Owns: `find_table` (a device name → its table in tables_dir(), by runtime, precision and threads; a table file
given directly), `model_kernels` (a model as deploy reads it: bundled name or file, batch and --input shapes by
deploy's own rules, export/prepare and export/inputs, without any device) and `predict` (one model × one table →
fit.Prediction, with a warning when this host's onnxruntime — or LiteRT, for a LiteRT table — differs from the one
that read the table's graphs).
Never connects to a device and never runs the model.
Does not own: the method (fit.py), the table file (table.py), printing (cli/predict.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..records import RunSpec
from .fit import Prediction, Predictor, fit
from .graph import Kernel, host_ort_version, kernels
from .table import CalibrationTable, check_key, default_table_path, load_table, tables_dir
from .tflite import GRAPH_LEVEL, host_litert_version, tflite_kernels

__all__ = ["find_table", "model_kernels", "predict", "predictor"]

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


def model_kernels(model: str, *, batch: int = 1, input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                  level: str = "all", precision: str = "fp32", input_values: Mapping[str, Any] | None = None,
                  threads: int | None = None) -> tuple[list[Kernel], dict[str, tuple[int, ...]]]:
    """The kernels of `model` (a bundled name or an ONNX file) with deploy's input rules, and the shapes fed;
    `input_values` (deploy's --input-value) are constants fed, so that an If on them keeps the branch taken.
    level tflite.GRAPH_LEVEL (a LiteRT table's): the model as deploy --runtime tflite makes it (a .tflite file, or
    a bundled model exported to TFLite) and its kernels as LiteRT with XNNPACK runs them."""
    from ..run.prepare import input_plan, prepare

    runtime = "tflite" if level == GRAPH_LEVEL or str(model).endswith(".tflite") else "onnxruntime"
    if runtime == "tflite" and level != GRAPH_LEVEL:
        raise ConfigError(f"{model} is a TFLite model: it is predicted from LiteRT tables",
                          hint="predict it with --runtime tflite (edgeprof calibrate --runtime tflite measures one)")
    spec = RunSpec(device="predict", model=model, runtime=runtime, precision=precision, batch=batch,
                   input_shapes=dict(input_shapes or {}), input_values=dict(input_values or {}))
    prepared = prepare(spec)
    plan = input_plan(prepared.artifact.inputs, spec)
    if runtime == "tflite":
        return tflite_kernels(prepared.artifact.path, threads or 1), dict(plan.shapes)
    return kernels(prepared.artifact.path, plan.shapes, level, values=plan.fixed()), dict(plan.shapes)


def predictor(table: CalibrationTable) -> Predictor:
    key = id(table)
    if key not in _FITTED:
        _FITTED[key] = fit(table)
    return _FITTED[key]


def predict(ks: list[Kernel], table: CalibrationTable, *, batch: int = 1, threads: int | None = None,
            runtime_version: str | None = None, where: str = "table", runtime: str | None = None) -> Prediction:
    check_key(table, runtime=runtime, threads=threads, runtime_version=runtime_version, where=where)
    p = predictor(table).predict(ks, batch=batch)
    if table.key.runtime == "tflite":
        host_rt = host_litert_version()
        if table.key.host_litert_version and table.key.host_litert_version != host_rt:
            p.warnings.append(f"this host's {host_rt or 'LiteRT'} reads the model's operators and XNNPACK "
                              f"partitions; the table's were read by {table.key.host_litert_version}: they may "
                              f"differ")
        return p
    host = host_ort_version()
    if table.key.host_ort_version and table.key.host_ort_version != host:
        p.warnings.append(f"this host's onnxruntime {host} reads the fused graph; the table's graphs were read by "
                          f"{table.key.host_ort_version}: fusions may differ")
    if table.key.runtime_version != host:
        p.warnings.append(f"the table was measured on onnxruntime {table.key.runtime_version}; this host reads the "
                          f"graph with {host}: fusions may differ on the board")
    return p
