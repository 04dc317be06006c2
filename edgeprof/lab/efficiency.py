"""How much of a sweep's wall time was inside timed windows, and where the rest went, per phase and per board.

Owns: a finished sweep's breakdown (`sweep_breakdown`): each row's phases (records/phases.py) summed per board,
with the board's own phases (connecting once, the lease, facts once, the sweep's exports, storing each row) and
the time between cells that no phase covers, against the sweep's wall time. Does not own: timing (run/timing.py,
board.py, the agent), the sums (analysis/breakdown.py) and their text (report/phases.py), printing (cli/sweep.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..analysis.breakdown import Breakdown, breakdown, merge_extra
from ..records import Result
from .board import Board


def sweep_breakdown(results: Sequence[Result], boards: Iterable[Board], wall_s: float | None) -> Breakdown:
    """The breakdown of a sweep's rows on its boards; each board's `between` is its wall time minus every phase
    counted for it (scheduling, the progress display, threads waiting for the export lock)."""
    bd = breakdown(results, wall_s)
    boards = list(boards)
    walls = {b.device.name: (b.ended or b.started) - b.started for b in boards if b.ended is not None}
    merge_extra(bd, {b.device.name: dict(b.times) for b in boards}, walls)
    for name, wall in walls.items():
        board = bd.board(name)
        board.add("between", max(0.0, wall - sum(board.seconds.values())))
    return bd
