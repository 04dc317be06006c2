"""Measurement kinds: what a measurement measures, and which measurer offers it.

A kind (FORWARD_PASS: today's forward-pass scenarios, docs/scenarios.md; generation next) is a name, the specs it
takes (`wants`) and, per measurer (measurer.Measurer.name: "agent", "benchmark_model"), the class that measures it
there ("module:Class", imported only when used, as the agent's backends are chosen by name). A measurer that has no
class for a kind refuses it in one line (`method_on` → None: DeviceSession.check says so); one that has one can
still refuse a spec (the method's `refusal`: a phone refuses a scenario benchmark_model cannot run).

Adding a measurement kind: a MeasurementKind here (or in a module of its own, `register`ed), a method class per
measurer that offers it (its request for the agent or the tool, and its Result), the agent's backend op and the
record of its results. Nothing in cli/, lab/ or transport/ changes: they hand a RunSpec to a DeviceSession.

Owns: the kinds, choosing a spec's kind (`kind_of`), finding a kind's method on a measurer. Does not own: how a
kind measures (the method classes: agent.py, phone.py), opening devices (session.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from ..records import Result, RunSpec
    from ..run import Options, Progress
    from ..run.timing import PhaseClock
    from .session import DeviceSession


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
    """One kind of measurement: its name, the specs it takes, and its method class per measurer name."""

    name: str
    wants: Callable[[RunSpec], bool]
    methods: Mapping[str, str] = field(default_factory=dict)  # measurer name → "module:Class"

    def method_on(self, measurer: Any) -> Method | None:
        """This kind's method on `measurer` (bound to it), or None: the measurer does not offer this kind."""
        path = self.methods.get(measurer.name)
        if path is None:
            return None
        module, _, cls = path.partition(":")
        method: Method = getattr(importlib.import_module(module), cls)(measurer)
        return method


FORWARD_PASS = MeasurementKind(
    "forward-pass", wants=lambda spec: True,
    methods={"agent": "edgeprof.session.agent:ForwardPass", "benchmark_model": "edgeprof.session.phone:ForwardPass"})

# tried in order: the first kind that wants a spec measures it; FORWARD_PASS, last, takes every other spec
KINDS: list[MeasurementKind] = [FORWARD_PASS]


def kind_of(spec: RunSpec) -> MeasurementKind:
    """The kind of measurement `spec` asks for."""
    return next(k for k in KINDS if k.wants(spec))


def register(kind: MeasurementKind) -> Callable[[], None]:
    """Add a kind ahead of FORWARD_PASS; returns the call that removes it again."""
    KINDS.insert(len(KINDS) - 1, kind)
    return lambda: KINDS.remove(kind)


def _register_builtin() -> None:
    from .generation import GENERATION  # its module imports this one's Job and MeasurementKind

    KINDS.insert(0, GENERATION)


_register_builtin()
