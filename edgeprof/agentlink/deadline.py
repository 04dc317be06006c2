"""RunDeadline: a watchdog on how long one request may take in all, whatever the agent sends meanwhile.

Owns: the deadline's bookkeeping (total, per phase, settle once the agent's own progress says a phase's end is
reached). Does not own: the numbers (run/limits.py) or the read loop that checks it (link.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from edgeprof_agent.messages import (
    ProgressEvent,
)

# while warming up and measuring the agent sends a progress line every PROGRESS_S between queries: a silence this long
# means it froze (or one query takes longer than this, which no board we target does); run/limits.py sizes phases by it
QUERY_SILENCE_S = 120.0


class RunDeadline:
    """A watchdog on how long a request may take in all, whatever arrives meanwhile (progress events do not
    postpone it): the silence timeout finds an agent that says nothing, this one an agent that keeps talking.

    - `total_s`: the whole request, from when it is sent.
    - `phase_s`: the longest a phase may last, from its first progress event (warm-up: its time plus a query).
    - `settle_s`: once the agent's own progress says a phase's end is reached (warm-up: elapsed >= its time;
      measure: elapsed >= min_duration_s with min_queries done, or max_queries done), the phase must end
      within this (one more query and the reply).
    The numbers are the run's (run/limits.run_deadline); `why` names where the total came from."""

    def __init__(self, total_s: float, *, phase_s: Mapping[str, float] | None = None, settle_s: float = QUERY_SILENCE_S,
                 min_duration_s: float = 0.0, min_queries: int = 0, max_queries: int | None = None,
                 warmup_s: float = 0.0, why: str = "", label: str = "the run's deadline",
                 hint: str | None = None) -> None:
        self.total_s = total_s
        self.label = label
        self.phase_s = dict(phase_s or {})
        self.settle_s = settle_s
        self.min_duration_s, self.min_queries, self.max_queries = min_duration_s, min_queries, max_queries
        self.warmup_s = warmup_s
        self.why = why
        self.hint = hint  # what to do when it is passed (None: the link's general advice)
        self.last: ProgressEvent | None = None  # the agent's last progress: how far the request got
        self.started = 0.0
        self.phase: str | None = None
        self._due: list[tuple[float, str]] = []

    def start(self, now: float) -> None:
        self.started = now
        self.phase = None
        self._due = [(now + self.total_s, f"{self.label} of {self.total_s:g} s"
                      + (f" ({self.why})" if self.why else ""))]

    def see(self, event: ProgressEvent, now: float) -> None:
        self.last = event
        phase = event.phase
        if phase and phase != self.phase:
            self.phase = phase
            self._due = self._due[:1]  # a new phase: the previous phase's limits end with it
            if phase in self.phase_s:
                self._due.append((now + self.phase_s[phase], f"the longest its '{phase}' phase may take "
                                  f"({self.phase_s[phase]:.0f} s)"))
        elapsed, n = event.elapsed_s or 0.0, event.n or 0
        done = ((phase == "warmup" and self.warmup_s > 0 and elapsed >= self.warmup_s)
                or (phase == "measure" and ((elapsed >= self.min_duration_s and n >= self.min_queries)
                                            or (self.max_queries is not None and n >= self.max_queries))))
        if done and not any(w.startswith("the end its own progress") for _, w in self._due):
            self._due.append((now + self.settle_s, f"the end its own progress reported in '{phase}' "
                              f"(elapsed {elapsed:.1f} s, {n} queries) plus {self.settle_s:.0f} s"))

    def reached(self) -> str:
        """How far the request got by the agent's last progress event ("" before any): its phase, and the count
        done of the total where the event has them (a generation's repetitions, a server's requests)."""
        ev = self.last
        if ev is None:
            return ""
        total = ev.total if ev.total is not None else ev.min_queries
        done = f" {ev.n} of {total} done" if ev.n is not None and total else (
            f" {ev.n} done" if ev.n is not None else "")
        return f"its last progress: '{ev.phase}'{done}"

    def due(self) -> tuple[float, str]:
        """The earliest deadline now, and what it is."""
        return min(self._due)
