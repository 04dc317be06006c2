"""Sweep files: SWEEP.yaml → validated SweepSpec → expanded Cells (one per measurement, or a skip row).

Owns: the sweep file format (below) and its validation with errors that name the file, the line and the YAML
path (`nightly.yaml:12 models[2].inputs: ...`): models (files made absolute and found, bundled names known),
device names and tag selectors, the axes, match rules, budgets, and settings by vocab.SWEEP_SETTINGS' rules (every
run setting `edgeprof deploy` takes and the sweep policy: timeout_s, retries, retry_backoff_s, lease_wait_s;
`settings:` and `overrides` alike; input feeds made relative to the file).
Does not own: reading YAML safely and validating nodes (files/config.py), the settings' tables (vocab.SETTINGS, POLICY),
the SweepSpec record and the matrix expansion (matrix.py), the Cell record (cell.py), running cells
(scheduler.py, board.py), budget evaluation (analysis/regress.py).

Sweep file format history (keep next to the constant):
  1 — version, name, inventory, models, devices, runtimes, precisions, batch, threads, settings, include,
      exclude, overrides, budgets. Later added within version 1 (optional, a file without them means what it
      meant): scenarios and rates (load scenarios, docs/scenarios.md; match rules take scenario and rate).
      Without `runtimes:` each model runs on its format's runtime (tflite for a .tflite file; before, onnxruntime
      for all, which only made .tflite models skip rows); an input setting that reaches a null cell is refused.
      The sustained scenario (scenarios: [sustained], back to back) with duration_s / sustained_window_s (and
      timeout_s) as seconds or with units (`30m`, `60s`), and budgets on its figures (`sustained_ratio >= 0.9`).
      Then sustained at a rate: with `rates:` a sustained cell runs at each rate (`rates:` with sustained alone
      was refused before; a file with fixed-rate or server cells too ran its sustained cells back to back, and
      now runs them at the rates: `rate: null` in an include rule adds a back-to-back one), `rate: null` in
      match rules. Then generative models (docs/generative.md): bundled names, .gguf files and model folders
      under `models:`, the runtimes llama.cpp and onnxruntime-genai and their precisions (f16, q8_0, q4_0; fp32,
      int4), then litert-lm (wi8_afp32 or fp32, built from the model; as-built for a .litertlm file), the axes prompt_tokens, gen_tokens and depth (top-level lists; match rules take them), budgets on
      the generation figures (decode_tps, ttft_ms, j_per_token, ...).

    version: 1
    name: nightly
    inventory: ../devices.yaml        # optional; relative to this file; --inventory wins
    models:
      - ds_cnn                        # a bundled model, or
      - model: tiny.onnx              # a file (relative to this file) with optional input shapes
        inputs: {tokens: 1x4x32}
      - llama_tiny                    # a generative model: bundled, a .gguf, a .litertlm, a Hugging Face or
                                      # onnxruntime-genai folder (docs/generative.md); its runtimes are llama.cpp,
                                      # onnxruntime-genai, litert-lm
    devices:
      - jetson-nano                   # a device name from devices.yaml, or
      - {soc: orin}                   # a tag selector: every device whose tags match
    runtimes: [onnxruntime]           # default: each model's format's runtime (tflite for .tflite, else onnxruntime)
    precisions: [fp32]               # default: fp32 (a generation runtime's own: q4_0, int4, wi8_afp32)
    batch: [1, 8]
    threads: [null, 2]                # null: the runtime's default
    settings: {min_duration_s: 10, timeout_s: 600, retries: 2}   # durations: seconds or 30m, 1h30m, 60s
    exclude: [{model: bert_tiny, batch: 8}]
    include: [{model: ds_cnn, device: local, runtime: "null"}]
    overrides: [{match: {model: mobilenet_v2}, min_duration_s: 20},
                {match: {model: tiny.onnx}, input_values: {sr: 16000}, input_data: tiny-inputs.npz}]
    budgets: [{match: {model: ds_cnn, device: {soc: orin}}, limits: ["p99_ms < 50"]}]
    scenarios: [single-stream, fixed-rate]   # load scenarios (docs/scenarios.md); default single-stream
    rates: [10, 30, 60]               # queries/s of the server and fixed-rate cells (required with them), and of
                                      # the sustained cells (without rates: back to back)
    prompt_tokens: [128, 512]         # a generative model's axes (llama-bench -p -n -d); absent: the setting, else
    gen_tokens: [128]                 # llama-bench's default (512 / 128 / 0); a forward-pass model ignores them
    depth: [0, 512, 2048]
"""

from __future__ import annotations

import os
import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import vocab
from ..analysis.regress import parse_budget
from ..errors import ConfigError, ModelError
from ..export.inputs import parse_input_range, parse_input_value
from ..files.config import BATCH_MAX, THREADS_MAX, Doc, compose, did_you_mean, read_text, resolve_path
from ..session.kinds import KINDS, sweep_axes
from ..vocab import MAX_RATE_QPS, schedule_problem
from .cell import Cell
from .matrix import (
    EXTRA_PRECISIONS,
    INPUT_FEEDS,
    RUNTIME_ALIASES,
    ModelEntry,
    Rule,
    SweepSpec,
    axes,
    expand,
    known_precisions,
    known_runtimes,
    matches,
    rated_scenario,
    resolve_devices,
)

# the sweep file reads into matrix.py's records, which expand to cell.py's Cells: named here for its readers
__all__ = ["SWEEP_VERSION", "BASE_KEYS", "top_keys", "SETTINGS", "axes", "EXTRA_PRECISIONS", "INPUT_FEEDS",
           "known_precisions", "known_runtimes", "RUNTIME_ALIASES", "Cell", "ModelEntry", "Rule", "SweepSpec", "expand", "matches",
           "resolve_devices", "load_sweep", "parse_sweep"]

SWEEP_VERSION = 1

BASE_KEYS = ("version", "name", "inventory", "models", "devices", "runtimes", "precisions", "batch", "threads",
             "settings", "include", "exclude", "overrides", "budgets", "scenarios", "rates")


def top_keys() -> tuple[str, ...]:
    """A sweep file's top-level keys: BASE_KEYS, then each measurement kind's axes (MeasurementKind.axes)."""
    return (*BASE_KEYS, *sweep_axes())

# per-cell settings: the run settings (vocab.SETTINGS: kind, default, range; the deploy flags share them) and the
# sweep policy (vocab.POLICY)
SETTINGS = vocab.SWEEP_SETTINGS
_INPUT_RE = re.compile(r"^\d+(?:x\d+)*$")


# -- parsing --------------------------------------------------------------------------------------------------


def load_sweep(path: str) -> SweepSpec:
    """Read and validate a sweep file (not yet expanded: devices need the inventory)."""
    try:
        text = read_text(path, "sweep file")
    except FileNotFoundError:
        raise ConfigError(f"sweep file {path} not found", hint="check the path (see sweeps/example.yaml)") from None
    return parse_sweep(text, path)


def parse_sweep(text: str, path: str = "sweep.yaml") -> SweepSpec:
    doc = Doc(path)
    root = compose(text, path)
    if root is None:
        raise ConfigError(f"{path}: the sweep file is empty", hint="see sweeps/example.yaml")
    base = os.path.dirname(os.path.abspath(path))
    top = {k: (kn, vn) for k, kn, vn in doc.mapping(root, "")}
    keys = top_keys()
    for key, (knode, _) in top.items():
        if key not in keys:
            raise doc.err(knode, key, f"unknown key{did_you_mean(key, keys)}",
                          hint="top-level keys are " + ", ".join(keys))
    for required in ("models", "devices"):
        if required not in top:
            raise doc.err(root, "", f"missing `{required}:`", hint="see sweeps/example.yaml")

    def node(key: str) -> Node | None:
        return top[key][1] if key in top else None

    if (n := node("version")) is not None:
        v = doc.scalar(n, "version")
        if v != SWEEP_VERSION:
            newer = isinstance(v, int) and v > SWEEP_VERSION
            raise doc.err(n, "version", f"sweep format version {v!r} is not supported (this edgeprof reads "
                          f"{SWEEP_VERSION})", hint="upgrade edgeprof" if newer else f"write version: {SWEEP_VERSION}")
    name = doc.string(n, "name", "a name without control characters", pattern=_NAME) \
        if (n := node("name")) is not None else \
        os.path.splitext(os.path.basename(path))[0]
    inventory = None
    if (n := node("inventory")) is not None:
        inventory = resolve_path(doc.string(n, "inventory", "a file path"), base)

    models = _models(doc, top["models"][1], base)
    devices, device_where = _devices(doc, top["devices"][1])
    runtimes = _choices(doc, node("runtimes"), "runtimes", known_runtimes(), [])  # []: by each model's format
    # []: fp32, or a runtime's own default as its kind has it (MeasurementKind.default_precision)
    precisions = _choices(doc, node("precisions"), "precisions", known_precisions(), [])
    batch_node, threads_node = node("batch"), node("threads")
    batch = [_batch(doc, n, p) for p, n in doc.seq(batch_node, "batch")] if batch_node is not None else [1]
    threads: list[int | None] = [_threads(doc, n, p) for p, n in doc.seq(threads_node, "threads")] \
        if threads_node is not None else [None]
    settings = {k: s.default for k, s in SETTINGS.items()}
    settings_where: dict[str, str] = {}
    if (n := node("settings")) is not None:
        settings.update(_settings_items(doc, doc.mapping(n, "settings"), "settings", base, settings_where))
    scenarios = _choices(doc, node("scenarios"), "scenarios", vocab.SCENARIOS, [vocab.SINGLE_STREAM])
    rates = _rates(doc, node("rates"), node("scenarios") or root, scenarios)
    kind_axes = _axes(doc, {k: n for k in sweep_axes() if (n := node(k)) is not None}, settings_where)

    labels = [m.label for m in models]
    spec = SweepSpec(path=path, name=name, inventory=inventory, models=models, devices=devices,
                     device_where=device_where, runtimes=runtimes, precisions=precisions, batch=batch,
                     threads=threads, settings=settings, include=[], exclude=[], overrides=[], budgets=[], text=text,
                     scenarios=scenarios, rates=rates, settings_where=settings_where, batch_given=batch_node is not None,
                     axes=kind_axes)
    for key in ("include", "exclude"):
        if (n := node(key)) is not None:
            for p, item in doc.seq(n, key, scalar_ok=False):
                getattr(spec, key).append(Rule(doc.where(item, p), _match(doc, item, p, labels, allow_extra=False)))
    if (n := node("overrides")) is not None:
        for p, item in doc.seq(n, "overrides", scalar_ok=False):
            items = doc.mapping(item, p)
            match = {}
            rest = []
            for k, kn, vn in items:
                if k == "match":
                    match = _match(doc, vn, f"{p}.match", labels, allow_extra=False)
                else:
                    rest.append((k, kn, vn))
            where: dict[str, str] = {}
            for k, kn, _vn in rest:
                if k in kind_axes:
                    raise doc.err(kn, f"{p}.{k}", f"{k} is an axis of this sweep (`{k}:` at the top); an override "
                                  "cannot set it", hint=f"use include/exclude rules with {k}: to shape the matrix")
            spec.overrides.append(Rule(doc.where(item, p), match, settings=_settings_items(doc, rest, p, base, where),
                                       settings_where=where))
    if (n := node("budgets")) is not None:
        for p, item in doc.seq(n, "budgets", scalar_ok=False):
            match = {}
            limits: list[str] = []
            for k, kn, vn in doc.mapping(item, p):
                if k == "match":
                    match = _match(doc, vn, f"{p}.match", labels, allow_extra=False)
                elif k in ("limits", "limit"):
                    for lp, ln in doc.seq(vn, f"{p}.{k}"):
                        text_ = doc.string(ln, lp, "a budget such as 'p99_ms < 50'")
                        try:
                            limits.append(parse_budget(text_).text)
                        except ValueError as e:
                            raise doc.err(ln, lp, str(e)) from None
                else:
                    raise doc.err(kn, f"{p}.{k}", f"unknown key{did_you_mean(k, ('match', 'limits'))}",
                                  hint="a budget is {match: {...}, limits: ['p99_ms < 50', ...]}")
            if not limits:
                raise doc.err(item, p, "a budget needs `limits:`", hint="e.g. limits: ['p99_ms < 50']")
            spec.budgets.append(Rule(doc.where(item, p), match, limits=tuple(limits)))
    return spec


def _axes(doc: Doc, nodes: dict[str, Node], settings_where: dict[str, str]) -> dict[str, list[int]]:
    """The measurement kinds' axes (MeasurementKind.axes; generation's prompt_tokens, gen_tokens, depth): lists of
    values, each by its setting's rule, each value once; an axis that is also a setting is refused at its line."""
    out: dict[str, list[int]] = {}
    for k, n in nodes.items():
        if k in settings_where:
            raise doc.err(n, k, f"{k} is both an axis here and a setting at {settings_where[k]}",
                          hint=f"keep one: `{k}: [...]` to sweep it, or `settings: {{{k}: N}}` for one value")
        values = [doc.setting(vn, p, SETTINGS[k]) for p, vn in doc.seq(n, k)]
        if None in values or len(set(values)) != len(values):
            raise doc.err(n, k, f"each {k} once, as a number (null is not a value of an axis)")
        out[k] = values
    return out


def _rates(doc: Doc, rates_node: Node | None, scenarios_node: Node, scenarios: list[str]) -> list[float]:
    """`rates:`: required by the server and fixed-rate scenarios, taken by sustained (its cells then run at each
    rate instead of back to back), refused without any of them, each rate once."""
    rates = [_rate(doc, n, p) for p, n in doc.seq(rates_node, "rates")] if rates_node is not None else []
    scheduled = [sc for sc in scenarios if sc in vocab.SCHEDULED_SCENARIOS]
    if scheduled and not rates:
        raise doc.err(scenarios_node, "scenarios", f"{scheduled[0]} issues queries at a rate: add "
                      "`rates:` (queries per second)", hint="e.g. rates: [10, 30, 60]")
    if rates and not any(rated_scenario(sc, rates) for sc in scenarios):
        raise doc.err(rates_node or scenarios_node, "rates", "rates apply to the server and fixed-rate scenarios "
                      "(and sustained), and `scenarios:` has none of them",
                      hint="e.g. scenarios: [single-stream, fixed-rate]")
    if len(set(rates)) != len(rates):
        raise doc.err(rates_node or scenarios_node, "rates", "a rate is listed twice")
    return rates


def _models(doc: Doc, node: Node, base: str) -> list[ModelEntry]:
    out: list[ModelEntry] = []
    seen: dict[str, str] = {}
    for p, item in doc.seq(node, "models"):
        inputs: dict[str, tuple[int, ...]] = {}
        if isinstance(item, MappingNode):
            fields = {k: (kn, vn) for k, kn, vn in doc.mapping(item, p)}
            for k, (kn, _) in fields.items():
                if k not in ("model", "inputs"):
                    raise doc.err(kn, f"{p}.{k}", f"unknown key{did_you_mean(k, ('model', 'inputs'))}",
                                  hint="a model entry is a name, or {model: ..., inputs: {NAME: 1x3x224x224}}")
            if "model" not in fields:
                raise doc.err(item, p, "missing `model:`")
            label = doc.string(fields["model"][1], f"{p}.model", "a model name or path")
            mnode = fields["model"][1]
            if "inputs" in fields:
                for k, _kn, vn in doc.mapping(fields["inputs"][1], f"{p}.inputs"):
                    shape = doc.string(vn, f"{p}.inputs.{k}", "a shape such as 1x3x224x224")
                    if not _INPUT_RE.match(shape) or any(int(d) < 1 for d in shape.split("x")):
                        raise doc.err(vn, f"{p}.inputs.{k}", f"{shape!r} is not a shape such as 1x3x224x224")
                    inputs[k] = tuple(int(d) for d in shape.split("x"))
        else:
            label = doc.string(item, p, "a model name or path")
            mnode = item
        ref = _model_ref(doc, mnode, p, label, base)
        if label in seen:
            raise doc.err(mnode, p, f"model {label!r} is listed twice (first at {seen[label]})")
        seen[label] = doc.where(mnode, p)
        out.append(ModelEntry(ref=ref, label=label, inputs=inputs))
    return out


def _model_ref(doc: Doc, node: Node, ypath: str, label: str, base: str) -> str:
    """Files are made absolute (relative to the sweep file) and must exist; bundled names must be known."""
    file_part = label.split(":", 1)[0] if ".py:" in label else label
    is_file = file_part.endswith((".onnx", ".tflite", ".py", ".gguf", ".litertlm")) or "/" in file_part
    if is_file:
        path = os.path.expanduser(file_part)
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(base, path))
        if os.path.isdir(path):  # a generative model's folder (Hugging Face, onnxruntime-genai): detect() judges it
            return path
        if not os.path.isfile(path):
            raise doc.err(node, ypath, f"model file {file_part} not found (looked at {path})",
                          hint="paths are relative to the sweep file")
        return path + label[len(file_part):]
    import edgeprof_models

    if any(k.bundled is not None and k.bundled(label) for k in KINDS):  # a kind's own (generation: llama_tiny, ...)
        return label
    try:
        edgeprof_models.get(label)
    except ModelError as e:
        raise doc.err(node, ypath, e.message, hint=(e.hint or "") + "; or give the path of a .onnx file") from None
    return label


def _devices(doc: Doc, node: Node) -> tuple[list[tuple[str, Any]], list[str]]:
    out: list[tuple[str, Any]] = []
    where: list[str] = []
    for p, item in doc.seq(node, "devices"):
        if isinstance(item, MappingNode):
            items = doc.mapping(item, p)
            if len(items) == 1 and items[0][0] == "tags":
                items = doc.mapping(items[0][2], f"{p}.tags")
            tags: dict[str, Any] = {}
            for k, _, vn in items:
                if isinstance(vn, SequenceNode):
                    tags[k] = [doc.string(n, q) for q, n in doc.seq(vn, f"{p}.{k}")]
                else:
                    v = doc.scalar(vn, f"{p}.{k}")
                    tags[k] = ("true" if v else "false") if isinstance(v, bool) else doc.string(vn, f"{p}.{k}")
            if not tags:
                raise doc.err(item, p, "an empty tag selector selects nothing")
            out.append(("tags", tags))
        else:
            out.append(("name", doc.string(item, p, "a device name or a tag selector such as {soc: orin}")))
        where.append(doc.where(item, p))
    return out, where


def _choices(doc: Doc, node: Node | None, key: str, known: tuple[str, ...], default: list[str]) -> list[str]:
    if node is None:
        return default
    out = []
    for p, n in doc.seq(node, key):
        v = doc.scalar(n, p)
        v = "null" if v is None and key == "runtimes" else v  # `null` unquoted is YAML's null
        if not isinstance(v, str) or v not in known:
            raise doc.err(n, p, f"unknown {key[:-1]} {v!r}{did_you_mean(str(v), known)}",
                          hint=f"known: {', '.join(known)}")
        v = RUNTIME_ALIASES.get(v, v) if key == "runtimes" else v
        if v in out:
            raise doc.err(n, p, f"{v!r} is listed twice")
        out.append(v)
    return out


_NAME = re.compile(r"^[^\x00-\x1f\x7f]+$")  # a sweep name is shown and stored: no NUL, no escape sequences


def _batch(doc: Doc, node: Node, ypath: str) -> int:
    value = doc.integer(node, ypath, 1, cap=BATCH_MAX)
    assert value is not None  # allow_null is False
    return value


def _rate(doc: Doc, node: Node, ypath: str) -> float:
    value = doc.scalar(node, ypath)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_RATE_QPS \
            or value != value:
        raise doc.err(node, ypath, f"a rate in queries per second (> 0, <= {MAX_RATE_QPS:g}), not {doc.kind(node)}")
    # the bound --rate has: a schedule of min_queries (the table's default) must end within a week
    problem = schedule_problem(float(value), SETTINGS["min_queries"].default)
    if problem is not None:
        raise doc.err(node, ypath, f"rate {value:g}: {problem}")
    return float(value)


def _threads(doc: Doc, node: Node, ypath: str) -> int | None:
    return doc.integer(node, ypath, 1, cap=THREADS_MAX, allow_null=True)


def _settings_items(doc: Doc, items: list[tuple[str, Node, Node]], ypath: str, base: str,
                    where: dict[str, str] | None = None) -> dict[str, Any]:
    """Run settings and policy by vocab.SWEEP_SETTINGS' rules (the deploy flags': the same); `where` gets each
    key's "file:line path"."""
    out: dict[str, Any] = {}
    for k, kn, vn in items:
        p = f"{ypath}.{k}"
        if k not in SETTINGS:
            raise doc.err(kn, p, f"unknown setting{did_you_mean(k, SETTINGS)}",
                          hint="settings: " + ", ".join(SETTINGS))
        out[k] = doc.setting(vn, p, SETTINGS[k])
        if where is not None:
            where[k] = doc.where(kn, p)
        read = _BY_KIND.get(SETTINGS[k].item or SETTINGS[k].kind)
        if out[k] is not None and read is not None:
            out[k] = read(doc, vn, p, out[k], base)
    return out


def _input_data(doc: Doc, node: Node, ypath: str, value: Any, base: str) -> str:
    """A path setting (input_data, accuracy, calibration): relative to the sweep file, made absolute (as model files are);
    one that points nowhere is refused at its line (as the deploy flags are)."""
    path = resolve_path(str(value), base)
    if not os.path.exists(path):
        raise doc.err(node, ypath, f"{value}: no such file or directory",
                      hint="paths are relative to the sweep file")
    return path


def _input_values(doc: Doc, node: Node, ypath: str, value: Any, base: str) -> dict[str, Any]:
    """input_values: {NAME: number}, by the rules of --input-value NAME=V."""
    out = {}
    for name, v in value.items():
        if isinstance(v, list | dict) or v is None:
            raise doc.err(node, f"{ypath}.{name}", "must be a number or true/false, e.g. sr: 16000")
        try:
            out[name] = parse_input_value(f"{name}={str(v).lower() if isinstance(v, bool) else v}",
                                          f"{ypath}.{name}")[1]
        except ConfigError as e:
            raise doc.err(node, f"{ypath}.{name}", str(e).split(": ", 1)[-1]) from None
    return out


def _input_ranges(doc: Doc, node: Node, ypath: str, value: Any, base: str) -> dict[str, list[float]]:
    """input_ranges: {NAME: 'LOW:HIGH'} or {NAME: [LOW, HIGH]}, by the rules of --input-range."""
    out = {}
    for name, v in value.items():
        text = f"{v[0]}:{v[1]}" if isinstance(v, list) and len(v) == 2 else str(v)
        try:
            out[name] = list(parse_input_range(f"{name}={text}", f"{ypath}.{name}")[1])
        except ConfigError:
            raise doc.err(node, f"{ypath}.{name}", f"{v!r} is not a range LOW:HIGH with LOW < HIGH",
                          hint="e.g. input_ranges: {input_ids: '0:30522'}") from None
    return out


# how a setting's value is read beyond its table check, by its item (vocab.Setting.item) or kind
_BY_KIND = {"path": _input_data, "value": _input_values, "range": _input_ranges}


def _match(doc: Doc, node: Node, ypath: str, labels: list[str], *, allow_extra: bool) -> dict[str, Any]:
    """A match mapping: axis → value or list of values; device may be a name, names or a tag mapping."""
    out: dict[str, Any] = {}
    for k, kn, vn in doc.mapping(node, ypath):
        p = f"{ypath}.{k}"
        if k not in axes():
            raise doc.err(kn, p, f"unknown key{did_you_mean(k, axes())}", hint="match keys: " + ", ".join(axes()))
        if k == "device" and isinstance(vn, MappingNode):
            out[k] = {"tags": {tk: doc.match_value(tv, f"{p}.{tk}") for tk, _, tv in doc.mapping(vn, p)}}
            continue
        if not isinstance(vn, SequenceNode | ScalarNode):
            raise doc.err(vn, p, f"must be a value or a list, not {doc.kind(vn)}")
        values: list[Any] = []
        for q, n in doc.seq(vn, p):
            if k == "batch":
                values.append(_batch(doc, n, q))
            elif k == "threads":
                values.append(_threads(doc, n, q))
            elif k == "rate":  # null: no rate (a sustained cell back to back)
                values.append(None if doc.scalar(n, q) is None else _rate(doc, n, q))
            else:
                if not isinstance(n, ScalarNode):
                    raise doc.err(n, q, f"must be a single value, not {doc.kind(n)}")
                values.append(doc.plain_scalar(n, q))
        if k == "runtime":
            values = ["null" if v is None else RUNTIME_ALIASES.get(str(v), v) for v in values]
        if k == "model":
            for v in values:
                if str(v) not in labels:
                    raise doc.err(vn, p, f"{v!r} is not one of the sweep's models{did_you_mean(str(v), labels)}",
                                  hint="write the model exactly as under `models:`")
        out[k] = values
    if not out:
        raise doc.err(node, ypath, "an empty match matches every cell; name at least one of " + ", ".join(axes()))
    return out


