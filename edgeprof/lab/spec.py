"""Sweep files: SWEEP.yaml → validated SweepSpec → expanded Cells (one per measurement, or a skip row).

Owns: the sweep file format (below), its validation with errors that name the file, the line and the YAML path
(`nightly.yaml:12 models[2].inputs: ...`), the matrix expansion models × devices × runtimes × precisions ×
batch × threads × scenarios (× rates for server and fixed-rate) with include/exclude rules, per-cell settings (defaults, then `overrides` in order), budgets
attached to the cells they match, and the static part of the capability check (runtime × format × precision:
an impossible cell becomes a skip row with its reason; what the device itself lacks is checked by the
scheduler with fresh facts).
Does not own: reading YAML safely and validating nodes (config.py), the run settings' table (vocab.SETTINGS),
the capability decision itself (decide.cell_decision), the inventory (inventory.py), running cells
(scheduler.py), budget evaluation (regress.py).

Sweep file format history (keep next to the constant):
  1 — version, name, inventory, models, devices, runtimes, precisions, batch, threads, settings, include,
      exclude, overrides, budgets. Later added within version 1 (optional, a file without them means what it
      meant): scenarios and rates (load scenarios, docs/scenarios.md; match rules take scenario and rate).
      Without `runtimes:` each model runs on its format's runtime (tflite for a .tflite file; before, onnxruntime
      for all, which only made .tflite models skip rows); an input setting that reaches a null cell is refused.

    version: 1
    name: nightly
    inventory: ../devices.yaml        # optional; relative to this file; --inventory wins
    models:
      - ds_cnn                        # a bundled model, or
      - model: tiny.onnx              # a file (relative to this file) with optional input shapes
        inputs: {tokens: 1x4x32}
    devices:
      - jetson-nano                   # a device name from devices.yaml, or
      - {soc: orin}                   # a tag selector: every device whose tags match
    runtimes: [onnxruntime]           # default: each model's format's runtime (tflite for .tflite, else onnxruntime)
    precisions: [fp32]
    batch: [1, 8]
    threads: [null, 2]                # null: the runtime's default
    settings: {min_duration_s: 10, timeout_s: 600, retries: 2}
    exclude: [{model: bert_tiny, batch: 8}]
    include: [{model: ds_cnn, device: local, runtime: "null"}]
    overrides: [{match: {model: mobilenet_v2}, min_duration_s: 20},
                {match: {model: tiny.onnx}, input_values: {sr: 16000}, input_data: tiny-inputs.npz}]
    budgets: [{match: {model: ds_cnn, device: {soc: orin}}, limits: ["p99_ms < 50"]}]
    scenarios: [single-stream, fixed-rate]   # load scenarios (docs/scenarios.md); default single-stream
    rates: [10, 30, 60]               # queries/s of the server and fixed-rate cells (required with them)
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import vocab
from ..config import BATCH_MAX, THREADS_MAX, Doc, compose, did_you_mean, read_text, resolve_path
from ..errors import ConfigError, ModelError
from ..export.inputs import parse_input_range, parse_input_value
from ..export.resolve import default_runtime
from ..records import Device, RunSpec
from ..regress import parse_budget
from .decide import cell_decision

SWEEP_VERSION = 1

TOP_KEYS = ("version", "name", "inventory", "models", "devices", "runtimes", "precisions", "batch", "threads",
            "settings", "include", "exclude", "overrides", "budgets", "scenarios", "rates")
AXES = ("model", "device", "runtime", "precision", "batch", "threads", "scenario", "rate")
# other names users write for a runtime → the runtime (LiteRT is TensorFlow Lite's new name)
RUNTIME_ALIASES = {"litert": "tflite"}
KNOWN_RUNTIMES = (*vocab.RUNTIMES, *RUNTIME_ALIASES)
# precisions users may name that no runtime supports yet: accepted, their cells become skip rows with the reason
EXTRA_PRECISIONS = ("bf16",)
KNOWN_PRECISIONS = (*vocab.PRECISIONS, *EXTRA_PRECISIONS)

# per-cell settings: vocab.SETTINGS (kind, default, range; the deploy flags share them)
SETTINGS = vocab.SETTINGS
_INPUT_RE = re.compile(r"^\d+(?:x\d+)*$")


@dataclass(frozen=True)
class ModelEntry:
    ref: str  # what resolve_model gets (files made absolute)
    label: str  # as written in the sweep file
    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    """A match rule (exclude, include, overrides, budgets): axis → accepted values; device may be tags."""

    where: str  # "file:line path" for messages
    match: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    limits: tuple[str, ...] = ()
    settings_where: dict[str, str] = field(default_factory=dict)  # setting → "file:line path" of its key


@dataclass
class SweepSpec:
    path: str
    name: str
    inventory: str | None
    models: list[ModelEntry]
    devices: list[tuple[str, Any]]  # ("name", str) | ("tags", dict), with where
    device_where: list[str]
    runtimes: list[str]  # as written under `runtimes:`; empty: each model's format's runtime (runtimes_for)
    precisions: list[str]
    batch: list[int]
    threads: list[int | None]
    settings: dict[str, Any]
    include: list[Rule]
    exclude: list[Rule]
    overrides: list[Rule]
    budgets: list[Rule]
    text: str = ""
    scenarios: list[str] = field(default_factory=lambda: [vocab.SINGLE_STREAM])
    rates: list[float] = field(default_factory=list)  # for the scheduled scenarios (server, fixed-rate)
    settings_where: dict[str, str] = field(default_factory=dict)  # a `settings:` key → "file:line path"

    def runtimes_for(self, model: ModelEntry) -> list[str]:
        """The runtime axis of `model`: `runtimes:` as written, else the runtime `deploy` defaults its format to
        (tflite for a .tflite file, onnxruntime for ONNX files, bundled and builder models)."""
        return self.runtimes or [default_runtime(model.ref)]

    def scenario_rates(self) -> list[tuple[str, float | None]]:
        """(scenario, rate) pairs of the matrix: each scheduled scenario at every rate, the others once."""
        return [(sc, r) for sc in self.scenarios
                for r in (self.rates if sc in vocab.SCHEDULED_SCENARIOS else [None])]


@dataclass
class Cell:
    """One measurement of a sweep (or a skip row)."""

    model: str
    model_label: str
    device: str
    runtime: str
    precision: str
    batch: int
    threads: int | None
    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    budgets: list[str] = field(default_factory=list)
    skip: str | None = None  # static capability reason
    scenario: str = vocab.SINGLE_STREAM
    rate: float | None = None

    @property
    def cell_id(self) -> str:
        t = "auto" if self.threads is None else str(self.threads)
        cid = f"{self.device}/{self.model_label}/{self.runtime}/{self.precision}/b{self.batch}/t{t}"
        if self.scenario != vocab.SINGLE_STREAM:  # single-stream cells keep their ids (resume, history)
            cid += f"/{self.scenario}" + (f"@{self.rate:g}" if self.rate is not None else "")
        return cid

    def setting(self, name: str) -> Any:
        """One run setting of this cell: its own value, else vocab.SETTINGS' default (the one home of defaults;
        a cell stored by an older sweep may lack a setting added since)."""
        return self.settings[name] if name in self.settings else SETTINGS[name].default

    def run_spec(self) -> RunSpec:
        s = self.setting
        max_queries = s("max_queries")
        return RunSpec(device=self.device, model=self.model, runtime=self.runtime, precision=self.precision,
                       batch=self.batch, threads=self.threads, min_duration_s=float(s("min_duration_s")),
                       min_queries=int(s("min_queries")), max_queries=int(max_queries) if max_queries else None,
                       warmup_s=float(s("warmup_s")), input_shapes=dict(self.inputs),
                       runtime_options=dict(s("runtime_options") or {}), seed=int(s("seed")),
                       idle_s=float(s("idle_s")), cooldown_timeout_s=float(s("cooldown_timeout_s")),
                       input_data=s("input_data"), accuracy=s("accuracy"),
                       input_values=dict(s("input_values") or {}),
                       input_ranges={k: (float(v[0]), float(v[1])) for k, v in (s("input_ranges") or {}).items()},
                       scenario=self.scenario, rate=self.rate,
                       samples_per_query=int(s("samples_per_query")), streams=int(s("streams")),
                       latency_bound_ms=None if s("latency_bound_ms") is None else float(s("latency_bound_ms")),
                       battery_wh=None if s("battery_wh") is None else float(s("battery_wh")))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["inputs"] = {k: list(v) for k, v in self.inputs.items()}
        d["cell_id"] = self.cell_id
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Cell:
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        kw["inputs"] = {k: tuple(v) for k, v in (d.get("inputs") or {}).items()}
        return cls(**kw)


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
    for key, (knode, _) in top.items():
        if key not in TOP_KEYS:
            raise doc.err(knode, key, f"unknown key{did_you_mean(key, TOP_KEYS)}",
                          hint="top-level keys are " + ", ".join(TOP_KEYS))
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
    name = doc.string(n, "name") if (n := node("name")) is not None else \
        os.path.splitext(os.path.basename(path))[0]
    inventory = None
    if (n := node("inventory")) is not None:
        inventory = resolve_path(doc.string(n, "inventory", "a file path"), base)

    models = _models(doc, top["models"][1], base)
    devices, device_where = _devices(doc, top["devices"][1])
    runtimes = _choices(doc, node("runtimes"), "runtimes", KNOWN_RUNTIMES, [])  # []: by each model's format
    precisions = _choices(doc, node("precisions"), "precisions", KNOWN_PRECISIONS, ["fp32"])
    batch_node, threads_node = node("batch"), node("threads")
    batch = [_batch(doc, n, p) for p, n in doc.seq(batch_node, "batch")] if batch_node is not None else [1]
    threads: list[int | None] = [_threads(doc, n, p) for p, n in doc.seq(threads_node, "threads")] \
        if threads_node is not None else [None]
    settings = {k: s.default for k, s in SETTINGS.items()}
    settings_where: dict[str, str] = {}
    if (n := node("settings")) is not None:
        settings.update(_settings_items(doc, doc.mapping(n, "settings"), "settings", base, settings_where))
    scenarios = _choices(doc, node("scenarios"), "scenarios", vocab.SCENARIOS, [vocab.SINGLE_STREAM])
    rates_node = node("rates")
    rates = [_rate(doc, n, p) for p, n in doc.seq(rates_node, "rates")] if rates_node is not None else []
    scheduled = [sc for sc in scenarios if sc in vocab.SCHEDULED_SCENARIOS]
    if scheduled and not rates:
        raise doc.err(node("scenarios") or root, "scenarios", f"{scheduled[0]} issues queries at a rate: add "
                      "`rates:` (queries per second)", hint="e.g. rates: [10, 30, 60]")
    if rates and not scheduled:
        raise doc.err(rates_node or root, "rates", "rates apply to the server and fixed-rate scenarios, and "
                      "`scenarios:` has neither", hint="e.g. scenarios: [single-stream, fixed-rate]")
    if len(set(rates)) != len(rates):
        raise doc.err(rates_node or root, "rates", "a rate is listed twice")

    labels = [m.label for m in models]
    spec = SweepSpec(path=path, name=name, inventory=inventory, models=models, devices=devices,
                     device_where=device_where, runtimes=runtimes, precisions=precisions, batch=batch,
                     threads=threads, settings=settings, include=[], exclude=[], overrides=[], budgets=[], text=text,
                     scenarios=scenarios, rates=rates, settings_where=settings_where)
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
    is_file = file_part.endswith((".onnx", ".tflite", ".py")) or "/" in file_part
    if is_file:
        path = os.path.expanduser(file_part)
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(base, path))
        if not os.path.isfile(path):
            raise doc.err(node, ypath, f"model file {file_part} not found (looked at {path})",
                          hint="paths are relative to the sweep file")
        return path + label[len(file_part):]
    import edgeprof_models

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


def _batch(doc: Doc, node: Node, ypath: str) -> int:
    value = doc.integer(node, ypath, 1, cap=BATCH_MAX)
    assert value is not None  # allow_null is False
    return value


def _rate(doc: Doc, node: Node, ypath: str) -> float:
    value = doc.scalar(node, ypath)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100000 \
            or value != value:
        raise doc.err(node, ypath, f"a rate in queries per second (> 0, <= 100000), not {doc.kind(node)}")
    return float(value)


def _threads(doc: Doc, node: Node, ypath: str) -> int | None:
    return doc.integer(node, ypath, 1, cap=THREADS_MAX, allow_null=True)


def _settings_items(doc: Doc, items: list[tuple[str, Node, Node]], ypath: str, base: str,
                    where: dict[str, str] | None = None) -> dict[str, Any]:
    """Run settings by vocab.SETTINGS' rules (the same the deploy flags are checked with); `where` gets each
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
        if out[k] is not None and k in _INPUT_FEEDS:
            out[k] = _INPUT_FEEDS[k](doc, vn, p, out[k], base)
    return out


def _input_data(doc: Doc, node: Node, ypath: str, value: Any, base: str) -> str:
    """input_data: a path relative to the sweep file, made absolute (as model files are)."""
    return resolve_path(str(value), base)


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


_INPUT_FEEDS = {"input_data": _input_data, "input_values": _input_values, "input_ranges": _input_ranges,
                "accuracy": _input_data, "calibration": _input_data}


def _match(doc: Doc, node: Node, ypath: str, labels: list[str], *, allow_extra: bool) -> dict[str, Any]:
    """A match mapping: axis → value or list of values; device may be a name, names or a tag mapping."""
    out: dict[str, Any] = {}
    for k, kn, vn in doc.mapping(node, ypath):
        p = f"{ypath}.{k}"
        if k not in AXES:
            raise doc.err(kn, p, f"unknown key{did_you_mean(k, AXES)}", hint="match keys: " + ", ".join(AXES))
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
            elif k == "rate":
                values.append(_rate(doc, n, q))
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
        raise doc.err(node, ypath, "an empty match matches every cell; name at least one of " + ", ".join(AXES))
    return out


# -- expansion ------------------------------------------------------------------------------------------------


def _tag_ok(device: Device, tags: Mapping[str, Any]) -> bool:
    for k, want in tags.items():
        have = device.tags.get(k)
        wanted = [str(w).lower() if isinstance(w, bool) else str(w) for w in
                  (want if isinstance(want, list) else [want])]
        if have is None or have not in wanted:
            return False
    return True


def matches(rule: Rule, cell: Cell, devices: Mapping[str, Device]) -> bool:
    for k, want in rule.match.items():
        if k == "device" and isinstance(want, dict):
            dev = devices.get(cell.device)
            if dev is None or not _tag_ok(dev, want["tags"]):
                return False
            continue
        have = {"model": cell.model_label, "device": cell.device, "runtime": cell.runtime,
                "precision": cell.precision, "batch": cell.batch, "threads": cell.threads,
                "scenario": cell.scenario, "rate": cell.rate}[k]
        if have not in want and str(have) not in [str(w) for w in want]:
            return False
    return True


def resolve_devices(spec: SweepSpec, inventory: Any) -> list[Device]:
    """Devices of the sweep in file order (no duplicates). `inventory` is an inventory.Inventory."""
    out: dict[str, Device] = {}
    for (kind, value), where in zip(spec.devices, spec.device_where, strict=True):
        if kind == "name":
            try:
                dev = inventory.get(value)
            except Exception as e:
                msg = getattr(e, "message", str(e))
                raise ConfigError(f"{where}: {msg}", hint=getattr(e, "hint", None)) from None
            out.setdefault(dev.name, dev)
        else:
            selected = [d for d in inventory.devices if _tag_ok(d, value)]
            if not selected:
                sel = ", ".join(f"{k}: {v}" for k, v in value.items())
                raise ConfigError(f"{where}: the tag selector {{{sel}}} matches no device in "
                                  f"{inventory.path or 'the inventory (no devices.yaml found)'}",
                                  hint="edgeprof devices list shows the devices and their tags")
            for d in selected:
                out.setdefault(d.name, d)
    return list(out.values())


INPUT_FEEDS = ("input_data", "input_values", "input_ranges", "accuracy")


def _no_input_feeds(cell: Cell, set_at: Mapping[str, str]) -> None:
    """A null-runtime cell fed model inputs is refused (as deploy refuses --input-* with --runtime null): the
    null runtime feeds none, and a setting silently dropped would be a mistake left unseen."""
    for k in INPUT_FEEDS:
        if cell.settings.get(k):
            raise ConfigError(f"{set_at.get(k, cell.model_label)}: {k} reaches the null runtime's cell "
                              f"{cell.cell_id}; the null runtime feeds no model inputs and computes nothing "
                              "to score",
                              hint="set it in an override that matches the other runtimes (match: {runtime: "
                                   "onnxruntime}), or drop the null runtime's cells")


def expand(spec: SweepSpec, devices: list[Device]) -> list[Cell]:
    """Every cell of the sweep, in a stable order; statically impossible ones carry `skip`."""
    by_name = {d.name: d for d in devices}
    model_by_label = {m.label: m for m in spec.models}
    combos: list[tuple[str, str, str, str, int, int | None, str, float | None]] = []
    pairs = spec.scenario_rates()
    for d in devices:
        for m in spec.models:
            for rt in spec.runtimes_for(m):
                for pr in spec.precisions:
                    for b in spec.batch:
                        for t in spec.threads:
                            for sc, rate in pairs:
                                combos.append((m.label, d.name, rt, pr, b, t, sc, rate))
    for rule in spec.include:
        axes = {
            "model": [str(v) for v in rule.match.get("model", [m.label for m in spec.models])],
            "device": ([d.name for d in devices if _tag_ok(d, rule.match["device"]["tags"])]
                       if isinstance(rule.match.get("device"), dict)
                       else [str(v) for v in rule.match.get("device", list(by_name))]),
            "precision": [str(v) for v in rule.match.get("precision", spec.precisions)],
            "batch": rule.match.get("batch", spec.batch),
            "threads": rule.match.get("threads", spec.threads),
        }
        inc_scenarios = [str(v) for v in rule.match.get("scenario", spec.scenarios)]
        for sc in inc_scenarios:
            if sc not in vocab.SCENARIOS:
                raise ConfigError(f"{rule.where}: unknown scenario {sc!r}", hint=f"known: {', '.join(vocab.SCENARIOS)}")
        inc_rates = [float(r) for r in rule.match.get("rate", spec.rates)]
        if any(sc in vocab.SCHEDULED_SCENARIOS for sc in inc_scenarios) and not inc_rates:
            raise ConfigError(f"{rule.where}: a server or fixed-rate cell needs a rate", hint="add rate: to the rule")
        inc_pairs = [(sc, r) for sc in inc_scenarios
                     for r in (inc_rates if sc in vocab.SCHEDULED_SCENARIOS else [None])]
        for dn in axes["device"]:
            if dn not in by_name:
                raise ConfigError(f"{rule.where}: device {dn!r} is not one of the sweep's devices",
                                  hint="add it under `devices:` first")
        for rt in rule.match.get("runtime", []):
            if str(rt) not in KNOWN_RUNTIMES:
                raise ConfigError(f"{rule.where}: unknown runtime {rt!r}", hint=f"known: {', '.join(KNOWN_RUNTIMES)}")
        for b in axes["batch"]:
            if not isinstance(b, int) or isinstance(b, bool) or b < 1:
                raise ConfigError(f"{rule.where}: batch {b!r} must be an integer >= 1")
        for t in axes["threads"]:
            if t is not None and (not isinstance(t, int) or isinstance(t, bool) or t < 1):
                raise ConfigError(f"{rule.where}: threads {t!r} must be an integer >= 1 or null")
        for ml in axes["model"]:
            runtimes = [str(v) for v in rule.match["runtime"]] if "runtime" in rule.match \
                else spec.runtimes_for(model_by_label[ml])
            for dn in axes["device"]:
                for rt in runtimes:
                    for pr in axes["precision"]:
                        for b in axes["batch"]:
                            for t in axes["threads"]:
                                for sc, rate in inc_pairs:
                                    combos.append((ml, dn, rt, pr, int(b), t, sc, rate))
    cells: list[Cell] = []
    seen: set[str] = set()
    for ml, dn, rt, pr, b, t, sc, rate in combos:
        m = model_by_label[ml]
        cell = Cell(model=m.ref, model_label=ml, device=dn, runtime=rt, precision=pr, batch=b, threads=t,
                    inputs=dict(m.inputs), settings=dict(spec.settings), scenario=sc, rate=rate)
        if cell.cell_id in seen:
            continue
        if any(matches(r, cell, by_name) for r in spec.exclude):
            continue
        seen.add(cell.cell_id)
        set_at = dict(spec.settings_where)
        for r in spec.overrides:
            if matches(r, cell, by_name):
                cell.settings.update(r.settings)
                set_at.update({k: r.settings_where.get(k, r.where) for k in r.settings})
        if cell.runtime == "null":
            _no_input_feeds(cell, set_at)
        for r in spec.budgets:
            if matches(r, cell, by_name):
                cell.budgets.extend(x for x in r.limits if x not in cell.budgets)
        decision = cell_decision(cell, None)  # static: what the device lacks is decided with its facts
        if not decision.ok:
            cell.skip = decision.reason
        cells.append(cell)
    # a device's cells run in this order; keep the matrix order but group by device
    order = {d.name: i for i, d in enumerate(devices)}
    cells.sort(key=lambda c: order.get(c.device, len(order)))
    return cells
