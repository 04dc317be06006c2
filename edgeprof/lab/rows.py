"""The rows of sweep cells that end without a measurement, and the sweep section of every cell's row.

Owns: a skipped or failed cell as a Result (`cell_result`: no numbers, its reason, the agent's stderr tail, the
configuration identity the cell asked for) and the `sweep` section a cell's row carries (`sweep_info`: sweep,
cell, attempts, times, controller). Does not own: deciding how a cell ends (cell_decisions.py, board.py), storing rows
(sweep_state.py).
"""

from __future__ import annotations

import time

from .. import run as measurement
from ..records import Environment, Result, Scenario, Settings, SweepInfo, new_run_id, utc_now
from . import sweep_state as ledger
from .cell import Cell

STDERR_TAIL_CHARS = 3000


def _cell_scenario(cell: Cell) -> Scenario:
    """The scenario a cell asked for (a failed or skipped row has the same configuration identity as a run)."""
    return Scenario(name=cell.scenario, rate_qps=cell.rate,
                    samples_per_query=int(cell.setting("samples_per_query"))
                    if cell.scenario == "multi-stream" else None,
                    streams=int(cell.setting("streams")) if cell.scenario == "offline" else None)


def cell_result(cell: Cell, status: str, reason: str | None, *, sweep_id: str, attempts: int,
                stderr_tail: str | None = None, started: float | None = None) -> Result:
    """A skipped or failed cell as a Result row: no numbers, a reason, the stderr tail when there is one."""
    return Result(run_id=new_run_id(), status=status, created_at=utc_now(), device=cell.device, model=cell.model,
                  runtime=cell.runtime, precision=cell.precision, batch=cell.batch, threads=cell.threads,
                  latency_ms=None, throughput_ips=None, memory_mb=None, power=None, thermal=None, fidelity=None,
                  environment=Environment(host=measurement.host_environment()), warnings=[], samples_ms=[],
                  settings=Settings.from_dict(cell.settings), reason=reason,
                  scenario=_cell_scenario(cell),
                  sweep=sweep_info(cell, sweep_id, attempts, started, time.time()),
                  stderr_tail=keep_tail(stderr_tail) if stderr_tail else None)


def keep_tail(text: str, limit: int = STDERR_TAIL_CHARS) -> str:
    """The end of a device's stderr for a row, at most about `limit` characters; a native crash's header line
    (`Fatal Python error: Segmentation fault`) is kept in front when the stacks of many threads push it out."""
    if len(text) <= limit:
        return text
    at = text.rfind("Fatal Python error", 0, len(text) - limit)
    if at == -1 or "Fatal Python error" in text[-limit:]:
        return text[-limit:]
    head = text[at:].split("\n", 1)[0][:200]
    return head + "\n…\n" + text[-(limit - len(head) - 3):]


def sweep_info(cell: Cell, sweep_id: str, attempts: int, started: float | None, ended: float,
               measure_started: float | None = None) -> SweepInfo:
    """The `sweep` section of a cell's row."""
    return SweepInfo(sweep_id=sweep_id, cell_id=cell.cell_id, model_label=cell.model_label, attempts=attempts,
                     budgets=list(cell.budgets), started_at_unix=started, ended_at_unix=ended,
                     measure_started_at_unix=measure_started, controller=ledger.controller_name())
