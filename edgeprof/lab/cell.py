"""One sweep cell: the record a sweep file expands to, a queued job carries and the scheduler runs.

Owns: the Cell record (its identity `cell_id`, its settings with vocab.SWEEP_SETTINGS' defaults, the RunSpec it
measures, the SweepPolicy it is run by, its wall-clock limit (`wall_limit_s`: timeout_s, beyond a sustained cell's duration, plus a cool-down
wait's bound), its JSON form in the ledger and in queued jobs) and its export key (what makes two cells share one
exported model: `export_key`, used by the local sweep and the queue alike), whether it is a generation cell (its
id then carries its prompt tokens, generated tokens and depth, llama-bench's pp/tg/d).
Does not own: parsing the sweep file and expanding it (spec.py), running a cell (board.py, scheduler.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import vocab
from ..records import RunSpec

SETTINGS = vocab.SWEEP_SETTINGS  # the run settings and the sweep policy
# a generative model's axes (run settings, vocab.RunSettings place="generation"): part of a generation cell's id
GEN_AXES = ("prompt_tokens", "gen_tokens", "depth")


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
    def generative(self) -> bool:
        """A generation cell (session/generation.py: a generative model, or a generation runtime)."""
        from ..session.generation import is_generative

        return is_generative(self.model, self.runtime)

    def gen_settings(self) -> dict[str, int]:
        """A generation cell's prompt tokens, generated tokens and depth: its own, else llama-bench's defaults
        (the agent's GEN_DEFAULTS)."""
        from edgeprof_agent.vocab import GEN_DEFAULTS

        return {k: int(GEN_DEFAULTS[k] if self.setting(k) is None else self.setting(k)) for k in GEN_AXES}

    @property
    def cell_id(self) -> str:
        t = "auto" if self.threads is None else str(self.threads)
        cid = f"{self.device}/{self.model_label}/{self.runtime}/{self.precision}/b{self.batch}/t{t}"
        if self.generative:  # llama-bench's names: pp512/tg128/d0
            g = self.gen_settings()
            cid += f"/pp{g['prompt_tokens']}/tg{g['gen_tokens']}/d{g['depth']}"
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
