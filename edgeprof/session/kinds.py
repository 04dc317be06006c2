"""Measurement kinds: what a measurement measures, and which measurer offers it.

A kind (FORWARD_PASS: today's forward-pass scenarios, docs/scenarios.md; generation next) is a name, the specs it
takes (`wants`) and, per measurer (measurer.Measurer.name: "agent", "benchmark_model"), the class that measures it
there ("module:Class", imported only when used, as the agent's backends are chosen by name). A measurer that has no
class for a kind refuses it in one line (`method_on` → None: DeviceSession.check says so); one that has one can
still refuse a spec (the method's `refusal`: a phone refuses a scenario benchmark_model cannot run).

A kind also says what `edgeprof deploy` takes for it, so that the CLI names no kind: its flags (`place`: the group
of its settings in vocab.RunSettings, the record of its settings; `flags`: settings of its own that are not run
settings, folded into the spec by its hook), the precisions and runtimes it accepts beside the forward pass's
(`precisions`, `runtimes`: --precision accepts them without listing them in --help), the hook that turns parsed
flags into its RunSpec or declines (`from_args`: is this model or runtime mine?), the refusal of its flags for a
spec that is not its own (`refuse_args`), and its checks before connecting (`check`). cli/deploy.py iterates KINDS.

And a kind says what a sweep takes for it, so that lab/ names no kind: which cells are its own (`owns`: the model,
and the runtime when known), the model names of its own a sweep's `models:` accepts (`bundled`), a model's runtime
and a runtime's precision for a model when the sweep file names none (`default_runtime`, `default_precision`), the runtimes a
sweep file may name for it (`sweep_runtimes`), its axes (`axes`: run settings a sweep file may give as top-level
lists, each point a cell; `axis_ids`, `axis_defaults`: their part of a cell id), the settings its own that another
kind's cell row has none of (`cleared`), its static and on-facts decision for a cell (`decide`) and the budgets a
cell of it takes (`budget_groups`, `budget_metrics`, `budget_hint`), and the figures `check` follows on a result
holding its `section` (`check_metrics`). lab/ iterates KINDS (`sweep_kind`, `sweep_axes`, `sweep_runtimes`).

Adding a measurement kind: a MeasurementKind here (or in a module of its own, `register`ed), a method class per
measurer that offers it (its request for the agent or the tool, and its Result), the agent's backend op and the
record of its results. Nothing in cli/, lab/ or transport/ changes: they hand a RunSpec to a DeviceSession.

Owns: the kinds, choosing a spec's kind (`kind_of`, `from_args`) and a sweep cell's (`sweep_kind`), finding a
kind's method on a measurer, the precisions, runtimes and axes the kinds add (`extra_precisions`, `sweep_runtimes`,
`sweep_axes`). Does not own: how a kind measures (the method classes: agent.py,
phone.py), opening devices (session.py), the flags' parser (cli/deploy.py adds each kind's flags).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError
from ..vocab import PRECISIONS, RUNTIMES, SETTINGS

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from edgeprof_agent.messages import Facts

    from ..records import Result, RunSpec
    from ..run import Options, Progress
    from ..run.timing import PhaseClock
    from ..vocab import Setting
    from .session import DeviceSession

    # (parsed flags, the spec the forward pass's flags say, the flags given) → its RunSpec, or None: not its own
    FromArgs = Callable[[argparse.Namespace, RunSpec, frozenset[str]], RunSpec | None]


@dataclass
class Job:
    """What one measurement takes beside its RunSpec: how its progress is shown, the flags given (run.Options),
    whether run.check() ran on the spec already, the export cache, the caller's wall-clock bound (a sweep cell's;
    a tool run on the device is bounded by it), and a hook called once the measurement runs on the device (the
    sweep aborts it there when it was stopped meanwhile)."""

    progress: Progress
    options: Options | None = None
    checked: bool = False
    cache_dir: Path | None = None
    timeout_s: float | None = None
    on_start: Callable[[], None] | None = None


class Method(Protocol):
    """How one measurement kind measures on one measurer; constructed with the measurer."""

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        """What of `spec` this measurer cannot do for this kind, as one line, before connecting; None: it can."""
        ...

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        """One measurement on the session's device; the Result, not stored. `clock` already holds the phases the
        session timed for it (a one-off deploy's connect)."""
        ...


@dataclass(frozen=True)
class MeasurementKind:
    """One kind of measurement: its name, the specs it takes, its method class per measurer name, and what
    `edgeprof deploy` takes for it (the module's docstring)."""

    name: str
    wants: Callable[[RunSpec], bool]
    methods: Mapping[str, str] = field(default_factory=dict)  # measurer name → "module:Class"
    # deploy's flags: a group titled `group` (None: no group of its own) holding the run settings at `place`
    # (vocab.Setting.place) and its own `flags` (each parsed as a run setting's flag is, dest = the Setting's name)
    group: str | None = None
    place: str | None = None
    flags: tuple[Setting, ...] = ()
    precisions: tuple[str, ...] = ()  # what --precision accepts for it (FORWARD_PASS's are the ones --help lists)
    runtimes: tuple[str, ...] = ()  # the runtimes that are its own
    from_args: FromArgs | None = None  # None: the spec the flags say, as it is (the forward pass)
    refuse_args: Callable[[argparse.Namespace, MeasurementKind], None] | None = None  # None: refuse_flags_of
    check: Callable[[RunSpec], None] | None = None  # every problem before connecting (None: run.check's)
    # a sweep's cells (lab/): None or () everywhere is the forward pass's way
    owns: Callable[[str, str | None], bool] | None = None  # (model, runtime; None: the model alone) → a cell of its own
    bundled: Callable[[str], bool] | None = None  # a model name of its own (a `models:` entry that is not a file)
    default_runtime: Callable[[str], str] | None = None  # a model's runtime when `runtimes:` is absent
    # (runtime, model) → the runtime's precision for that model when `precisions:` is absent (None: not its own)
    default_precision: Callable[[str, str], str | None] | None = None
    sweep_runtimes: tuple[str, ...] = ()  # the runtimes of its own a sweep file may name; its axes expand on these
    axes: tuple[str, ...] = ()  # run settings a sweep file may give as top-level lists (vocab.SWEEP_SETTINGS)
    axis_ids: Mapping[str, str] = field(default_factory=dict)  # an axis's prefix in a cell id (default: its name)
    axis_defaults: Mapping[str, int] = field(default_factory=dict)  # an axis's value when its setting is None
    cleared: tuple[str, ...] = ()  # settings of its own: None in the row of another kind's cell
    # (the cell's RunSpec, its model's label in the sweep file, the device's facts or None: static) → why the cell
    # cannot run, or None (None: capability.decide, the forward pass's matrix)
    decide: Callable[[RunSpec, str, Facts | None], str | None] | None = None
    budget_groups: tuple[str, ...] = ()  # metric groups its results have (a figure not in vocab.METRICS: its own)
    budget_metrics: tuple[str, ...] = ()  # its own figures: refused in a budget matching another kind's cell
    budget_hint: str = ""  # the hint when a budget on its figure matches another kind's cell
    section: str | None = None  # the Result's field holding its figures (records.Result; None: the forward pass's)
    check_metrics: tuple[str, ...] = ()  # what `check` follows on a result with its section (a budget hint names them)

    def method_on(self, measurer: Any) -> Method | None:
        """This kind's method on `measurer` (bound to it), or None: the measurer does not offer this kind."""
        path = self.methods.get(measurer.name)
        if path is None:
            return None
        module, _, cls = path.partition(":")
        method: Method = getattr(importlib.import_module(module), cls)(measurer)
        return method

    def flag_names(self, args: argparse.Namespace | None = None) -> list[str]:
        """Its flags (its run settings' and its own), in deploy --help's order; with `args`, the ones given."""
        settings = [(name, s) for name, s in SETTINGS.items() if self.place is not None and s.place == self.place]
        both = [*settings, *((s.name, s) for s in self.flags)]
        return [s.flag for name, s in both if s.flag and (args is None or getattr(args, name, None) not in
                                                          (None, [], False))]

    def refuse(self, args: argparse.Namespace, claimed: MeasurementKind) -> None:
        """Its flags and precisions on a spec of another kind (`claimed`), refused in one line."""
        if self.refuse_args is not None:
            self.refuse_args(args, claimed)
        else:
            refuse_flags_of(self, args, claimed)


def refuse_flags_of(kind: MeasurementKind, args: argparse.Namespace, claimed: MeasurementKind) -> None:
    """The default refusal of `kind`'s precisions (those `claimed` does not take) and flags on a spec of the kind
    `claimed`."""
    if args.precision in kind.precisions and args.precision not in claimed.precisions:
        raise ConfigError(f"--precision {args.precision}: for {kind.name} measurements only, not {args.model}",
                          hint=f"--precision {' or '.join(claimed.precisions)}")
    for flag in kind.flag_names(args):
        raise ConfigError(f"{flag}: for {kind.name} measurements only, not {args.model}", hint="leave it out")


FORWARD_PASS = MeasurementKind(
    "forward-pass", wants=lambda spec: True,
    methods={"agent": "edgeprof.session.agent:ForwardPass", "benchmark_model": "edgeprof.session.phone:ForwardPass"},
    precisions=PRECISIONS, runtimes=RUNTIMES)

# tried in order: the first kind that wants a spec measures it; FORWARD_PASS, last, takes every other spec
KINDS: list[MeasurementKind] = [FORWARD_PASS]


def kind_of(spec: RunSpec) -> MeasurementKind:
    """The kind of measurement `spec` asks for."""
    return next(k for k in KINDS if k.wants(spec))


def sweep_kind(model: str, runtime: str | None) -> MeasurementKind:
    """The kind of a sweep cell of `model` on `runtime` (None: of the model alone): the first kind that owns it,
    else FORWARD_PASS."""
    return next((k for k in KINDS if k.owns is not None and k.owns(model, runtime)), FORWARD_PASS)


def sweep_axes() -> tuple[str, ...]:
    """Every kind's axes (a sweep file's top-level lists beside the forward pass's), in the registry's order."""
    return tuple(dict.fromkeys(a for k in KINDS for a in k.axes))


def sweep_runtimes() -> tuple[str, ...]:
    """The runtimes of the kinds a sweep file may name beside the forward pass's."""
    return tuple(dict.fromkeys(r for k in KINDS for r in k.sweep_runtimes if r not in FORWARD_PASS.runtimes))


def extra_precisions() -> tuple[str, ...]:
    """What --precision accepts beside the forward pass's (each kind's own, judged by the kind)."""
    return tuple(p for k in KINDS for p in k.precisions if p not in FORWARD_PASS.precisions)


def from_args(args: argparse.Namespace, spec: RunSpec, given: frozenset[str]) -> tuple[MeasurementKind, RunSpec]:
    """The kind parsed flags ask for and its RunSpec (`spec`: what the forward pass's flags say): the first kind
    whose hook takes them, else FORWARD_PASS with `spec`; every other kind's flags and precisions refused."""
    claimed, out = FORWARD_PASS, spec
    for kind in KINDS:
        made = kind.from_args(args, spec, given) if kind.from_args is not None else None
        if made is not None:
            claimed, out = kind, made
            break
    for kind in KINDS:
        if kind is not claimed:
            kind.refuse(args, claimed)
    return claimed, out


def register(kind: MeasurementKind) -> Callable[[], None]:
    """Add a kind ahead of FORWARD_PASS; returns the call that removes it again."""
    KINDS.insert(len(KINDS) - 1, kind)
    return lambda: KINDS.remove(kind)


def _register_builtin() -> None:
    from .generation import GENERATION  # its module imports this one's Job and MeasurementKind

    KINDS.insert(0, GENERATION)


_register_builtin()
