"""A sweep's matrix: the validated SweepSpec, its match rules, and its expansion into Cells.

Owns: the SweepSpec and Rule records (what spec.py reads a sweep file into), the names the matrix's axes take
(runtimes with their aliases, precisions; each measurement kind's too, session/kinds.py), the matrix expansion
models × devices × runtimes × precisions × batch × threads × scenarios (× rates for server and fixed-rate, and for
sustained when rates are given; × the axes of a cell's measurement kind, MeasurementKind.axes) with
include/exclude rules, per-cell settings (defaults, then `overrides` in order; a sustained cell's window must leave 3 windows in its duration), budgets
attached to the cells they match (one on a sustained figure refused for a cell of another scenario), resolving
the devices of a sweep in an inventory, and the static part of the capability check (runtime × format × precision: an
impossible cell becomes a skip row with its reason; what the device itself lacks is checked by the scheduler
with fresh facts).
Does not own: the sweep file's format and its validation (spec.py), the cell record (cell.py), the capability
decision itself (cell_decisions.cell_decision), the inventory (inventory/devices.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import vocab
from ..errors import ConfigError
from ..export.resolve import default_runtime
from ..records import Device
from ..session import refusal
from ..session.kinds import KINDS, MeasurementKind, extra_precisions, sweep_axes, sweep_kind, sweep_runtimes
from .cell import SETTINGS, Cell
from .cell_decisions import cell_decision

# the axes a match rule may name: the forward pass's, then each measurement kind's (MeasurementKind.axes)
BASE_AXES = ("model", "device", "runtime", "precision", "batch", "threads", "scenario", "rate")
# other names users write for a runtime → the runtime (LiteRT is TensorFlow Lite's new name)
RUNTIME_ALIASES = {"litert": "tflite"}
# precisions users may name that no runtime supports yet: accepted, their cells become skip rows with the reason
EXTRA_PRECISIONS = ("bf16",)


def axes() -> tuple[str, ...]:
    """The axes a match rule may name (the registry's kinds as they are now: a kind registered later counts)."""
    return (*BASE_AXES, *sweep_axes())


def known_runtimes() -> tuple[str, ...]:
    """The runtimes a sweep file may name: the forward pass's, each kind's (sweep_runtimes), the aliases."""
    return (*vocab.RUNTIMES, *sweep_runtimes(), *RUNTIME_ALIASES)


def known_precisions() -> tuple[str, ...]:
    """The precisions a sweep file may name: the forward pass's, each kind's, and EXTRA_PRECISIONS."""
    return (*vocab.PRECISIONS, *extra_precisions(), *EXTRA_PRECISIONS)


# a point of a cell's kind's axes: (axis, value) pairs; None: the cell's setting
Point = tuple[tuple[str, int | None], ...]


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
    precisions: list[str]  # as written under `precisions:`; empty: precisions_for's defaults
    batch: list[int]
    threads: list[int | None]
    settings: dict[str, Any]
    include: list[Rule]
    exclude: list[Rule]
    overrides: list[Rule]
    budgets: list[Rule]
    text: str = ""
    scenarios: list[str] = field(default_factory=lambda: [vocab.SINGLE_STREAM])
    rates: list[float] = field(default_factory=list)  # server, fixed-rate; sustained at a rate (rated_scenario)
    settings_where: dict[str, str] = field(default_factory=dict)  # a `settings:` key → "file:line path"
    batch_given: bool = False  # `batch:` written in the file (a static-batch model then refuses a batch other than N)
    # the kinds' axes (MeasurementKind.axes) as written; absent: the cell's setting (`settings:`, overrides), else
    # the kind's default (MeasurementKind.axis_defaults)
    axes: dict[str, list[int]] = field(default_factory=dict)

    def runtimes_for(self, model: ModelEntry) -> list[str]:
        """The runtime axis of `model`: `runtimes:` as written, else the runtime `deploy` defaults its format to
        (tflite for a .tflite file, onnxruntime for ONNX files, bundled and builder models; a model of another
        measurement kind: its kind's `default_runtime`, as deploy has it)."""
        if self.runtimes:
            return self.runtimes
        kind = sweep_kind(model.ref, None)
        if kind.default_runtime is not None:
            return [kind.default_runtime(model.ref)]
        return [default_runtime(model.ref)]

    def precisions_for(self, runtime: str, model: str) -> list[str]:
        """The precision axis of `model` (its ref) on `runtime`: `precisions:` as written, else the runtime's own
        default for that model as a kind has it (MeasurementKind.default_precision: LiteRT-LM's is wi8_afp32 for
        a model edgeprof builds, as-built for a .litertlm), else fp32."""
        own = (k.default_precision(runtime, model) for k in KINDS if k.default_precision is not None)
        return self.precisions or [next((p for p in own if p is not None), "fp32")]

    def points(self, model: str, runtime: str) -> list[Point]:
        """The points of a cell's axes (its kind's, MeasurementKind.axes): every combination of the axes given
        (None: the cell's setting); a cell of a kind without axes has one, empty, and so has a model of a kind
        on a runtime the kind does not sweep (one skip row, not one per point)."""
        kind = sweep_kind(model, None)
        if not kind.axes or runtime not in kind.sweep_runtimes:
            return [()]
        return _points(kind, lambda k: self.axes.get(k))

    def scenario_rates(self) -> list[tuple[str, float | None]]:
        """(scenario, rate) pairs of the matrix: each scheduled scenario at every rate, sustained at every rate
        when `rates:` has one (back to back without), the others once."""
        return scenario_pairs(self.scenarios, self.rates)


def _points(kind: MeasurementKind, values_of: Any) -> list[Point]:
    """Every combination of `kind`'s axes' values (`values_of(axis)`: a list, or None/[]: the cell's setting)."""
    points: list[Point] = [()]
    for k in kind.axes:
        values: list[int | None] = [*(values_of(k) or [])] or [None]
        points = [(*pt, (k, v)) for pt in points for v in values]
    return points


def _unset(points: list[Point]) -> bool:
    """Whether `points` is one point that sets nothing (no axis given, or none that applies)."""
    return len(points) == 1 and all(v is None for _, v in points[0])


def scenario_pairs(scenarios: list[str], rates: list[float]) -> list[tuple[str, float | None]]:
    """(scenario, rate) pairs: server and fixed-rate at every rate; sustained at every rate when there is one
    (deploy's --scenario sustained --rate QPS, the camera case), else back to back; the others once."""
    return [(sc, r) for sc in scenarios for r in (rates if rated_scenario(sc, rates) else [None])]


def rated_scenario(scenario: str, rates: list[float]) -> bool:
    """Whether `scenario`'s cells take the rates: the scheduled ones always, sustained when rates are given."""
    return scenario in vocab.SCHEDULED_SCENARIOS or (scenario == "sustained" and bool(rates))



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
                "scenario": cell.scenario, "rate": cell.rate}[k] if k in BASE_AXES else (
            cell.axis_values().get(k))  # a kind's axis: None in a cell of another kind
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


INPUT_FEEDS = tuple(name for name, s in vocab.SETTINGS.items() if s.feeds)  # what feeds the model (vocab.Setting)


def _no_input_feeds(cell: Cell, set_at: Mapping[str, str]) -> None:
    """A null-runtime cell fed model inputs is refused (as deploy refuses --input-* with --runtime null): the
    null runtime feeds none, and a setting silently dropped would be a mistake left unseen."""
    for k in INPUT_FEEDS:
        if cell.setting(k):
            raise ConfigError(f"{set_at.get(k, cell.model_label)}: {k} reaches the null runtime's cell "
                              f"{cell.cell_id}; the null runtime feeds no model inputs and computes nothing "
                              "to score",
                              hint="set it in an override that matches the other runtimes (match: {runtime: "
                                   "onnxruntime}), or drop the null runtime's cells")


def _sustained_windows(cell: Cell, set_at: Mapping[str, str]) -> None:
    """A sustained cell's window must leave MIN_WINDOWS windows in its duration (deploy's rule), said at the
    line that set the window or the duration, when the sweep loads (not when the cell's turn comes at 3 am)."""
    from ..run.validate import MIN_WINDOWS, longest_window

    duration = float(cell.setting("duration_s") or vocab.SCENARIO_DEFAULTS["duration_s"])
    window = float(cell.setting("sustained_window_s"))
    if window * MIN_WINDOWS > duration:
        where = set_at.get("sustained_window_s") or set_at.get("duration_s") or cell.model_label
        raise ConfigError(f"{where}: sustained cell {cell.cell_id}: a window of {vocab.fmt_duration(window)} "
                          f"leaves fewer than {MIN_WINDOWS} windows in its duration of {vocab.fmt_duration(duration)}",
                          hint=f"a sustained_window_s of at most {longest_window(duration)}, or "
                               "a longer duration_s")


def _budgets_apply(rule: Rule, cell: Cell) -> None:
    """A budget on a sustained figure (vocab.SUSTAINED_METRICS) matching a cell of another scenario is a mistake
    (it could never be measured there): refused at the budget's line. So is one on a kind's own figure
    (MeasurementKind.budget_metrics: generation's vocab.GENERATION_METRICS) matching a cell of another kind, and
    one on a forward pass's figure (p99_ms, ...) matching a cell of a kind whose results have other groups
    (MeasurementKind.budget_groups)."""
    kind = cell.kind
    for text in rule.limits:
        metric = text.split()[0]
        if kind.budget_groups:
            group = vocab.METRIC_BY_NAME[metric].group if metric in vocab.METRIC_BY_NAME else kind.budget_groups[0]
            if group not in kind.budget_groups:
                raise ConfigError(f"{rule.where}: budget {text!r} is on a forward pass's figure, and it matches "
                                  f"the {kind.name} cell {cell.cell_id}, which has none",
                                  hint=f"budget a {kind.name} cell on " + ", ".join(kind.check_metrics)
                                       + " (or add runtime: to the budget's match)")
            continue
        for other in KINDS:
            if other is not kind and metric in other.budget_metrics:
                raise ConfigError(f"{rule.where}: budget {text!r} is on a {other.name} figure, and it matches the "
                                  f"{kind.name} cell {cell.cell_id}, which has none", hint=other.budget_hint)
        if metric in vocab.SUSTAINED_METRICS and cell.scenario != "sustained":
            raise ConfigError(f"{rule.where}: budget {text!r} is on a sustained figure, and it matches the "
                              f"{cell.scenario} cell {cell.cell_id}, which has none",
                              hint="add scenario: sustained to the budget's match")


_Combo = tuple[str, str, str, str, int, int | None, str, float | None, Point]


def _included(rule: Rule, spec: SweepSpec, devices: list[Device]) -> list[_Combo]:
    """The cells an include rule adds: the rule's values on the axes it names, every value of the others (the
    runtimes: each model's, as the matrix has them)."""
    every: dict[str, Any] = {"model": [m.label for m in spec.models], "device": [d.name for d in devices],
                             "precision": None, "batch": spec.batch, "threads": spec.threads,
                             "scenario": spec.scenarios, "rate": spec.rates, "runtime": None}
    want = {**every, **rule.match}
    model_by_label = {m.label: m for m in spec.models}
    names = ([d.name for d in devices if _tag_ok(d, want["device"]["tags"])] if isinstance(want["device"], dict)
             else [str(v) for v in want["device"]])
    scenarios = [str(v) for v in want["scenario"]]
    for sc in scenarios:
        if sc not in vocab.SCENARIOS:
            raise ConfigError(f"{rule.where}: unknown scenario {sc!r}", hint=f"known: {', '.join(vocab.SCENARIOS)}")
    rates: list[float | None] = [None if r is None else float(r) for r in want["rate"]]
    if any(sc in vocab.SCHEDULED_SCENARIOS for sc in scenarios) and (not rates or None in rates):
        raise ConfigError(f"{rule.where}: a server or fixed-rate cell needs a rate", hint="add rate: to the rule")
    # sustained: at the rule's rates (rate: null is back to back), back to back without any
    pairs = [(sc, r) for sc in scenarios for r in (rates if sc in vocab.SCHEDULED_SCENARIOS
                                                    else rates or [None] if sc == "sustained" else [None])]
    for dn in names:
        if dn not in every["device"]:
            raise ConfigError(f"{rule.where}: device {dn!r} is not one of the sweep's devices",
                              hint="add it under `devices:` first")
    for rt in want["runtime"] or []:
        if str(rt) not in known_runtimes():
            raise ConfigError(f"{rule.where}: unknown runtime {rt!r}", hint=f"known: {', '.join(known_runtimes())}")
    for b in want["batch"]:
        if not isinstance(b, int) or isinstance(b, bool) or b < 1:
            raise ConfigError(f"{rule.where}: batch {b!r} must be an integer >= 1")
    for t in want["threads"]:
        if t is not None and (not isinstance(t, int) or isinstance(t, bool) or t < 1):
            raise ConfigError(f"{rule.where}: threads {t!r} must be an integer >= 1 or null")
    for k in sweep_axes():
        lo = SETTINGS[k].lo or 0
        for v in rule.match.get(k, []):
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ConfigError(f"{rule.where}: {k} {v!r} must be an integer >= {lo:g}")

    def points(ml: str, rt: str) -> list[Point]:  # the rule's values of the cell's kind's axes, else the sweep's
        ref = model_by_label[ml].ref
        sweep_points = spec.points(ref, rt)
        if _unset(sweep_points):
            return sweep_points
        return _points(sweep_kind(ref, None), lambda k: rule.match.get(k) or spec.axes.get(k))

    return [(ml, dn, rt, str(pr), int(b), t, sc, rate, gp)
            for ml in [str(v) for v in want["model"]]
            for dn in names
            for rt in ([str(v) for v in want["runtime"]] if want["runtime"] is not None
                       else spec.runtimes_for(model_by_label[ml]))
            for pr in (want["precision"] if want["precision"] is not None
                       else spec.precisions_for(rt, model_by_label[ml].ref))
            for b in want["batch"] for t in want["threads"] for sc, rate in pairs
            for gp in points(ml, rt)]


MAX_CELLS = 10_000  # cells of one sweep (before excludes); a larger matrix is a mistake, or several nights


def expand(spec: SweepSpec, devices: list[Device]) -> list[Cell]:
    """Every cell of the sweep, in a stable order; statically impossible ones carry `skip`."""
    by_name = {d.name: d for d in devices}
    model_by_label = {m.label: m for m in spec.models}
    combos: list[_Combo] = []
    pairs = spec.scenario_rates()
    axes_size = 1
    for k in sweep_axes():
        axes_size *= len(spec.axes.get(k) or [None])
    size = (len(devices) * sum(len(spec.precisions_for(rt, m.ref)) for m in spec.models for rt in spec.runtimes_for(m))
            * len(spec.batch) * len(spec.threads) * len(pairs) * axes_size)
    if size > MAX_CELLS:  # counted before a cell is built: 10^6 cells took 1.7 GB in --dry-run
        raise ConfigError(f"{spec.path}: the sweep's matrix has {size} cells, beyond the limit of {MAX_CELLS}",
                          hint="split it into several sweep files, or narrow its axes")
    for d in devices:
        for m in spec.models:
            for rt in spec.runtimes_for(m):
                for pr in spec.precisions_for(rt, m.ref):
                    for b in spec.batch:
                        for t in spec.threads:
                            for sc, rate in pairs:
                                for gp in spec.points(m.ref, rt):
                                    combos.append((m.label, d.name, rt, pr, b, t, sc, rate, gp))
    for rule in spec.include:
        combos.extend(_included(rule, spec, devices))
        if len(combos) > MAX_CELLS:
            raise ConfigError(f"{rule.where}: the sweep's matrix grows past the limit of {MAX_CELLS} cells",
                              hint="split it into several sweep files, or narrow the rule")
    cells: list[Cell] = []
    seen: set[str] = set()
    for ml, dn, rt, pr, b, t, sc, rate, gp in combos:
        m = model_by_label[ml]
        cell = Cell(model=m.ref, model_label=ml, device=dn, runtime=rt, precision=pr, batch=b, threads=t,
                    inputs=dict(m.inputs), settings=dict(spec.settings), scenario=sc, rate=rate)
        if cell.kind.axes:  # the point of its kind's axes (None: the cell's setting)
            cell.settings.update({k: v for k, v in gp if v is not None})
        if any(matches(r, cell, by_name) for r in spec.exclude):
            continue
        cell.batch_given = spec.batch_given or any("batch" in r.match and matches(r, cell, by_name)
                                                   for r in spec.include)
        set_at = dict(spec.settings_where)
        for r in spec.overrides:
            if matches(r, cell, by_name):
                cell.settings.update(r.settings)
                set_at.update({k: r.settings_where.get(k, r.where) for k in r.settings})
        if cell.cell_id in seen:  # after the overrides: one that sets an axis of the cell's kind changes its id
            continue
        seen.add(cell.cell_id)
        kind = cell.kind  # another kind's settings (generation's prompt, generated tokens, depth): none in its row
        cell.settings.update({k: None for other in KINDS if other is not kind for k in other.cleared})
        if cell.runtime == "null":
            _no_input_feeds(cell, set_at)
        if cell.scenario == "sustained":
            _sustained_windows(cell, set_at)
        decision = cell_decision(cell, None)  # static: what the device lacks is decided with its facts
        for r in spec.budgets:
            if matches(r, cell, by_name):
                if decision.ok:  # a skip row is never measured: no figure of it can be missing
                    _budgets_apply(r, cell)
                cell.budgets.extend(x for x in r.limits if x not in cell.budgets)
        if not decision.ok:
            cell.skip = decision.reason
        else:  # what the device's measurer cannot do (a phone: benchmark_model's limits), before connecting
            cell.skip = refusal(by_name[cell.device], cell.run_spec(), runtime_given=cell.runtime)
        cells.append(cell)
    # a device's cells run in this order; keep the matrix order but group by device
    order = {d.name: i for i, d in enumerate(devices)}
    cells.sort(key=lambda c: order.get(c.device, len(order)))
    return cells

