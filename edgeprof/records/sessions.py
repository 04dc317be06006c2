"""Sessions: one measurement timed in several fresh runtime sessions (deploy --sessions N; the agent's sessions.py).

Owns: the `sessions` section of a Result — additive within schema 12, written only when a run had more than one
session (absent in every other result, and in older ones): one SessionRun row per session, the first the
measurement's own (its raw samples are the result's samples_ms, not written twice), each other one with its raw
samples; and the figures across them: each session's p50 in order, the fastest and the median of them, and the
spread (the slowest session's p50 over the fastest's). Does not own: computing them
(edgeprof/evaluation/sessions.py), showing them (cli/ui.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .samples import NS_PER_MS, Samples
from .section import Section


@dataclass(frozen=True)
class SessionRun(Section):
    """One session: its query count and latency figures (ms, from its raw samples: linear-interpolation
    percentiles, as the result's), the model's load in it (s), its warm-up, its timed window (s) and its raw
    samples (None for session 1: the result's samples_ms)."""

    SECTION: ClassVar[str] = "sessions.runs[]"
    index: int
    n: int
    p50_ms: float
    p90_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float
    load_s: float | None = None
    window_s: float | None = None
    warmup_iterations: int | None = None
    warmup_steady: bool | None = None
    samples_ms: Samples | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SessionRun:
        flat = super().from_dict(d)
        raw = flat.samples_ms
        return flat if raw is None else dataclasses.replace(
            flat, samples_ms=Samples.from_json(raw, f"sessions.runs[{flat.index}].samples_ms"))


@dataclass(frozen=True)
class Sessions(Section):
    """Across the sessions: `p50_ms` each session's p50 in order, the fastest and the median of them, `spread`
    the slowest over the fastest (1.0: all alike), `differ` whether the spread is past what the sessions' own
    noise explains (evaluation/sessions.py; a run warning says so), and `runs`, one SessionRun a session."""

    SECTION: ClassVar[str] = "sessions"
    n: int
    p50_ms: list[float]
    fastest_p50_ms: float
    median_p50_ms: float
    spread: float
    differ: bool
    runs: list[SessionRun] = field(default_factory=list)

    def written(self, samples: Callable[[Samples], Any]) -> dict[str, Any]:
        """to_dict with each session's raw samples written as `samples` gives them (no list of them made first)."""
        d = dataclasses.replace(self, runs=[]).to_dict()
        d["runs"] = [{**dataclasses.replace(r, samples_ms=None).to_dict(),
                      "samples_ms": None if r.samples_ms is None else samples(r.samples_ms)} for r in self.runs]
        return d

    def stored(self) -> dict[str, Any]:
        """to_dict as the store holds it: each session's raw samples packed (Samples.packed), as samples_ms is."""
        return self.written(lambda s: s.packed(NS_PER_MS))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Sessions:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, runs=[SessionRun.from_dict(r) for r in flat.runs])  # type: ignore[arg-type]
