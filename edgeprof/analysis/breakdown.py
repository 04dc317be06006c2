"""Where the time went, as figures: a set of results' phases summed per phase and per board (`Breakdown`: Σ
seconds per phase and per board, the share of the wall time inside timed windows), with a sweep's own per-board
phases added (`merge_extra`, EXTRA_LABELS) and stored sweep rows' spans (`stored_breakdown`).

Owns: the sums. Does not own: measuring the phases (run/timing.py, the agent), the section (records/phases.py),
their text, Markdown and HTML (report/phases.py), a finished sweep's board times (lab/efficiency.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..records import Result
from ..records.phases import LABELS, PHASE_LABELS


@dataclass
class BoardTime:
    """One board's time: Σ seconds per phase over its rows (PHASE_LABELS keys, plus `extra` keys a sweep adds:
    connecting once, the lease, facts once, storing rows, the time between cells), and its wall time."""

    device: str
    cells: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    wall_s: float | None = None

    def add(self, key: str, v: float) -> None:
        self.seconds[key] = self.seconds.get(key, 0.0) + v

    @property
    def window_s(self) -> float:
        return self.seconds.get("window", 0.0)


# phases a sweep times per board (lab/efficiency.py), after the measurement's own
EXTRA_LABELS: dict[str, str] = {"board_connect": "connect (board)", "lease": "lease", "board_facts": "facts (board)",
                                "board_agent": "agent start (board)", "board_agent_close": "agent close (board)",
                                "sweep_export": "export (sweep)", "store": "store",
                                "between": "not in a phase"}


@dataclass
class Breakdown:
    """Σ phase seconds per board and in all, over results with phases; `wall_s` the wall time they took (a
    sweep's; None: unknown, the share is then of Σ totals)."""

    boards: dict[str, BoardTime] = field(default_factory=dict)
    wall_s: float | None = None
    without_phases: int = 0  # rows with no phases (failed, skipped, or stored before schema 6)

    def board(self, device: str) -> BoardTime:
        return self.boards.setdefault(device, BoardTime(device))

    def totals(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for b in self.boards.values():
            for k, v in b.seconds.items():
                out[k] = out.get(k, 0.0) + v
        return out

    @property
    def window_s(self) -> float:
        return sum(b.window_s for b in self.boards.values())

    def accounted_s(self) -> float:
        return sum(self.totals().values())

    def share(self) -> float | None:
        """Σ timed windows ÷ the wall time (of Σ phase times without a wall time)."""
        whole = self.wall_s if self.wall_s is not None else self.accounted_s()
        return self.window_s / whole if whole else None

    def keys(self) -> list[str]:
        """Phase keys present, in run order then the sweep's extras."""
        present = {k for k, v in self.totals().items() if v >= 0.005 or k == "window"}
        return [k for k, _ in PHASE_LABELS if k in present] + [k for k in EXTRA_LABELS if k in present]


def label(key: str) -> str:
    return LABELS.get(key) or EXTRA_LABELS.get(key, key)


def breakdown(results: Iterable[Result], wall_s: float | None = None) -> Breakdown:
    """Σ phase seconds per board over `results` (each row's Phases.parts)."""
    bd = Breakdown(wall_s=wall_s)
    for r in results:
        if r.phases is None or r.phases.total_s is None:
            bd.without_phases += 1
            continue
        b = bd.board(r.device)
        b.cells += 1
        for k, v in r.phases.parts():
            b.add(k, v)
    return bd


def merge_extra(bd: Breakdown, extra: Mapping[str, Mapping[str, float]],
                walls: Mapping[str, float] | None = None) -> Breakdown:
    """Add a sweep's per-board extras (EXTRA_LABELS keys → seconds) and board wall times to `bd`."""
    for device, seconds in extra.items():
        b = bd.board(device)
        for k, v in seconds.items():
            b.add(k, v)
    for device, w in (walls or {}).items():
        bd.board(device).wall_s = w
    return bd


def stored_breakdown(results: Iterable[Result]) -> Breakdown | None:
    """The breakdown of stored rows (a report): Σ phases per board; for sweep rows, each board's span (its first
    cell's start to its last cell's end) is its wall time and what its rows' phases do not cover is
    `between` (connecting, the lease, facts, the sweep's exports, storing, failed cells); the sweep's wall time is
    the longest board span. None when no row has phases."""
    rows = list(results)
    bd = breakdown(rows)
    if not bd.boards:
        return None
    spans: dict[str, list[float]] = {}
    for r in rows:
        sw = r.sweep
        if sw is not None and sw.started_at_unix is not None and sw.ended_at_unix is not None:
            span = spans.setdefault(r.device, [sw.started_at_unix, sw.ended_at_unix])
            span[0], span[1] = min(span[0], sw.started_at_unix), max(span[1], sw.ended_at_unix)
    for device, (start, end) in spans.items():
        b = bd.board(device)
        b.wall_s = end - start
        b.add("between", max(0.0, b.wall_s - sum(b.seconds.values())))
    if spans:
        bd.wall_s = max(end for _, end in spans.values()) - min(start for start, _ in spans.values())
    return bd
