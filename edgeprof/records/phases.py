"""Phases: where the wall time of one measurement went, measured (schema 6).

Owns: the `phases` section of a Result — seconds per phase, timed on the host (run/timing.PhaseClock around
connect, agent start, facts, export, pushes, the run request, fidelity, accuracy, close) and on the device (the
agent's RunPhases: cooldown, idle baseline, load, warm-up, the measure phase and its timed window, outputs, op
profile, accuracy pass) — and its split into exclusive parts that add up to the total (`parts`). Does not own:
timing (run/timing.py, the agent's worker), showing it (report/phases.py), a sweep's time between cells
(lab/efficiency.py). The time to store a row is not in it (it is known only after the row is written): a sweep
times it per board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .sections import Section

# (field, label) in the order a measurement runs them; the exclusive parts `Phases.parts` returns
PHASE_LABELS: tuple[tuple[str, str], ...] = (
    ("connect", "connect"), ("agent", "agent push/start"), ("facts", "facts"), ("export", "export"),
    ("push", "artifact push"), ("cooldown", "thermal snapshot/cooldown"), ("idle", "idle baseline"),
    ("load", "load"), ("warmup", "warm-up"), ("window", "timed window"), ("around_window", "around the window"),
    ("outputs", "outputs"), ("profile", "op profile"), ("accuracy", "accuracy"), ("sessions", "more sessions"),
    ("fidelity", "fidelity"),
    ("reply", "agent setup/reply"), ("wire", "request/reply transfer"), ("close", "close"), ("other", "other"),
)
LABELS = dict(PHASE_LABELS)


@dataclass(frozen=True)
class Phases(Section):
    """Seconds each phase of one measurement took. None: the phase was not made in this measurement (a sweep
    reuses its board's connection and facts: connect_s and facts_s are None there and the sweep's summary has
    them per board; an agent before protocol 6 reports no device phases). `export_cached`: the artifact came
    from the export cache. Device phases (cooldown … accuracy_device_s, device_s) come from the agent;
    `window_s` is the timed window itself (first query's start to last query's end), `measure_s` the agent's
    measure phase around it; `device_s` the agent's whole time for the run request (from protocol 9 from the
    request read to the reply built, its setup included); `run_s` the run request's round trip on the host;
    `total_s` from the start of the measurement to its Result."""

    SECTION = "phases"
    connect_s: float | None = None
    agent_s: float | None = None
    facts_s: float | None = None
    export_s: float | None = None
    export_cached: bool | None = None
    push_s: float | None = None
    cooldown_s: float | None = None
    idle_s: float | None = None
    load_s: float | None = None
    warmup_s: float | None = None
    window_s: float | None = None
    measure_s: float | None = None
    outputs_s: float | None = None
    profile_s: float | None = None
    accuracy_s: float | None = None  # host (reading and scoring the data) and device (the pass) together
    accuracy_device_s: float | None = None
    fidelity_s: float | None = None
    device_s: float | None = None
    run_s: float | None = None
    close_s: float | None = None
    total_s: float | None = None
    sessions_s: float | None = None  # --sessions N: the more sessions (within schema 12: written only when made)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d.get("sessions_s") is None:
            d.pop("sessions_s", None)
        return d

    def parts(self) -> list[tuple[str, float]]:
        """Exclusive parts (PHASE_LABELS keys, seconds) that add up to total_s: the device's phases inside the
        run request, the agent's time outside its listed phases ("reply": from protocol 9 its setup for the run
        — the request parsed, its measuring code imported, a child started — and always the power and thermal
        summaries and the reply built), the request's own overhead ("wire": the round trip minus the agent's
        whole time: sending, encoding and parsing JSON), the host's phases, and what no phase covers ("other":
        assembling the result, the stats, deciding)."""
        z = _z
        device_accuracy = z(self.accuracy_device_s)
        out = [("connect", z(self.connect_s)), ("agent", z(self.agent_s)), ("facts", z(self.facts_s)),
               ("export", z(self.export_s)), ("push", z(self.push_s)), ("cooldown", z(self.cooldown_s)),
               ("idle", z(self.idle_s)), ("load", z(self.load_s)), ("warmup", z(self.warmup_s)),
               ("window", z(self.window_s)), ("around_window", max(0.0, z(self.measure_s) - z(self.window_s))),
               ("outputs", z(self.outputs_s)), ("profile", z(self.profile_s)), ("accuracy", z(self.accuracy_s)),
               ("sessions", z(self.sessions_s)), ("fidelity", z(self.fidelity_s))]
        if self.device_s is not None and self.run_s is not None:
            listed = sum(z(v) for v in (self.cooldown_s, self.idle_s, self.load_s, self.warmup_s, self.measure_s,
                                        self.outputs_s, self.profile_s, self.sessions_s)) + device_accuracy
            out.append(("reply", max(0.0, self.device_s - listed)))
            out.append(("wire", max(0.0, self.run_s - max(listed, self.device_s))))
        out.append(("close", z(self.close_s)))
        if self.total_s is not None:
            out.append(("other", max(0.0, self.total_s - sum(s for _, s in out))))
        return out


def _z(v: float | None) -> float:
    return float(v) if v is not None else 0.0
