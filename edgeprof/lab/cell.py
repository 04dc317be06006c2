"""One sweep cell: the record a sweep file expands to, a queued job carries and the scheduler runs.

Owns: the Cell record (its identity `cell_id`, its settings with vocab.SWEEP_SETTINGS' defaults, the RunSpec it
measures, the SweepPolicy it is run by, its wall-clock limit (`wall_limit_s`: timeout_s, beyond a sustained cell's duration, plus a cool-down
wait's bound), its JSON form in the ledger and in queued jobs) and its export key (what makes two cells share one
exported model: `export_key`, used by the local sweep and the queue alike), its measurement kind (`kind`:
session.kinds.sweep_kind; a kind with axes puts their values in the cell's id).
Does not own: parsing the sweep file and expanding it (spec.py), running a cell (board.py, scheduler.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import vocab
from ..records import RunSpec
from ..session.kinds import FORWARD_PASS, MeasurementKind, sweep_kind

SETTINGS = vocab.SWEEP_SETTINGS  # the run settings and the sweep policy


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
    batch_given: bool = False  # the sweep file named the batch (`batch:`, an include rule): like deploy's --batch

    @property
    def kind(self) -> MeasurementKind:
        """The cell's measurement kind (session.kinds.sweep_kind: the first that owns its model and runtime)."""
        return sweep_kind(self.model, self.runtime)

    @property
    def forward_pass(self) -> bool:
        """A forward pass's cell (the lab exports its model ahead; another kind's method builds its own)."""
        return self.kind is FORWARD_PASS

    def axis_values(self) -> dict[str, int]:
        """The values of its kind's axes (MeasurementKind.axes): its own settings, else the kind's defaults; {} for
        a kind without axes."""
        return self._axis_values(self.kind)

    def _axis_values(self, kind: MeasurementKind) -> dict[str, int]:
        return {k: int(kind.axis_defaults[k] if self.setting(k) is None else self.setting(k)) for k in kind.axes}

    gen_settings = axis_values  # its name from before the kinds declared their axes (tests/unit/test_sweep_*)

    @property
    def cell_id(self) -> str:
        t = "auto" if self.threads is None else str(self.threads)
        cid = f"{self.device}/{self.model_label}/{self.runtime}/{self.precision}/b{self.batch}/t{t}"
        kind = self.kind  # its axes, as the kind names them (generation: llama-bench's pp512/tg128/d0)
        cid += "".join(f"/{kind.axis_ids.get(k, k)}{v}" for k, v in self._axis_values(kind).items())
        if self.scenario != vocab.SINGLE_STREAM:  # single-stream cells keep their ids (resume, history)
            cid += f"/{self.scenario}" + (f"@{self.rate:g}" if self.rate is not None else "")
        return cid

    def setting(self, name: str) -> Any:
        """One setting of this cell (a run setting or the sweep policy's): its own value, else the table's default
        (vocab.SWEEP_SETTINGS, the one home of defaults; a cell stored by an older sweep may lack a setting added
        since)."""
        return self.settings[name] if name in self.settings else SETTINGS[name].default

    def policy(self) -> vocab.SweepPolicy:
        """How the sweep runs this cell (timeout_s, retries, retry_backoff_s, lease_wait_s), typed by the table."""
        return vocab.SweepPolicy.from_values(self.settings)

    def wall_limit_s(self) -> float:
        """The cell's wall-clock bound (board.measure stops the agent past it): timeout_s; a sustained cell's
        timeout_s counts beyond its duration (a 30-minute run is never stopped at 900 s), and a cell with
        cooldown_c also gets its cool-down wait's bound (cooldown_timeout_s) before it measures."""
        limit = self.policy().timeout_s
        if self.scenario == "sustained":
            limit += float(self.setting("duration_s") or vocab.SCENARIO_DEFAULTS["duration_s"])
        if self.setting("cooldown_c") is not None:
            limit += float(self.setting("cooldown_timeout_s"))
        return limit

    def wall_limit_why(self) -> str:
        """How wall_limit_s was reached, for the row of a cell stopped at it ("the cell's timeout_s" when it is
        timeout_s alone)."""
        parts = [f"timeout_s {self.policy().timeout_s:g} s"]
        if self.scenario == "sustained":
            duration = float(self.setting("duration_s") or vocab.SCENARIO_DEFAULTS["duration_s"])
            parts.insert(0, f"duration {duration:g} s")
        if self.setting("cooldown_c") is not None:
            parts.append(f"cooldown_timeout_s {float(self.setting('cooldown_timeout_s')):g} s")
        return " + ".join(parts) if len(parts) > 1 else "the cell's timeout_s"

    def run_spec(self) -> RunSpec:
        """What this cell measures: its axes, and its settings typed by the table (vocab.settings_kwargs)."""
        return RunSpec(device=self.device, model=self.model, runtime=self.runtime, precision=self.precision,
                       batch=self.batch, threads=self.threads, input_shapes=dict(self.inputs), scenario=self.scenario,
                       rate=self.rate, **vocab.settings_kwargs(self.settings))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["inputs"] = {k: list(v) for k, v in self.inputs.items()}
        d["cell_id"] = self.cell_id
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Cell:
        names = {f.name for f in dataclasses.fields(cls)}
        cell = cls(**{k: v for k, v in d.items() if k in names})
        cell.inputs = {k: tuple(v) for k, v in (cell.inputs or {}).items()}  # JSON lists → shapes
        return cell


def export_key(cell: Cell) -> tuple[Any, ...]:
    """What one export of a cell's model depends on: two cells with the same key share one exported artifact
    (the local sweep exports it once per board target, the queue once per submit). The seed is the cell's
    effective one (its own, else vocab.SETTINGS' default), so a cell stored without a seed keys as one with it."""
    return (cell.model, cell.runtime, cell.precision, cell.batch, tuple(sorted(cell.inputs.items())),
            cell.setting("seed"))
