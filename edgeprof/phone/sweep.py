"""A phone under a sweep: the phone side of lab/board.run_cell (its `_attempts` hands a phone's cells here).

Owns: per board, the phone's adb connection, its lease (lease.py: taken before the first cell, checked before each,
taken again when lost) and its facts (read once under the lease); per cell: what a phone refuses (a skip row with
the one-line reason: another runtime, accuracy, scenarios, ...), the cell's TFLite export through the sweep (once
per distinct export), and the measurement (measure.py) with the cell's timeout_s as its time limit.
Does not own: what an error means for the cell (lab/decide.py: a phone gone mid-run is a TransportError,
retried and then a failed row, the sweep goes on), the rows' shape (lab/rows.py), storing (the sweep).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import TransportError
from ..records import Result
from ..transport.adb import ADBTransport
from .device import PhoneFacts
from .lease import PhoneLease

if TYPE_CHECKING:
    from ..lab.board import Board
    from ..lab.cell import Cell


@dataclass
class PhoneOnBoard:
    """A phone's state under a sweep, held by its lab Board (Board.phone); closed by Board.drop."""

    transport: ADBTransport
    lease: PhoneLease
    facts: PhoneFacts | None = None

    def close(self) -> None:
        self.lease.release()
        try:
            self.transport.close()
        except Exception:
            pass


def refused(cell: Cell) -> str | None:
    """Why a phone cannot measure this cell (the skip row's reason), or None."""
    from .measure import refusal

    return refusal(cell.run_spec(), runtime_given=cell.runtime)


def ready(board: Board, cell: Cell, stop: threading.Event) -> None:
    """Set-up before a phone's cell: connected, the lease ours (taken, or checked and taken again when lost),
    the facts read once. Raises what decide.on_error judges (TransportError, LeaseBusy, Interrupted, ...)."""
    from ..lab import ledger
    from .device import open_adb, read_facts

    state: PhoneOnBoard | None = board.phone
    if state is not None:
        if board.lease_held(state.lease):
            return
        lease = state.lease = _lease(board, state.transport, ledger.controller_name())
    else:
        board.say("connecting over adb")
        t0 = time.monotonic()
        transport = open_adb(board.device)
        board.timed("board_connect", t0)
        lease = _lease(board, transport, ledger.controller_name())
        state = board.phone = PhoneOnBoard(transport, lease)
    board.say("taking the phone's lease")
    t0 = time.monotonic()
    lease.acquire(float(cell.setting("lease_wait_s")), stop, on_wait=lambda who: board.say(f"waiting for lease: {who}"))
    board.timed("lease", t0)
    if state.facts is None:
        board.say("reading the phone's facts")
        t0 = time.monotonic()
        state.facts = read_facts(state.transport, board.device)
        board.timed("board_facts", t0)


def _lease(board: Board, transport: ADBTransport, controller: str) -> PhoneLease:
    holder = {"controller": controller, "sweep_id": board.sweep.sweep_id, "purpose": "sweep"}
    return PhoneLease(transport, board.device.name, board.device.workdir, holder, board.sweep.lease_ttl_s)


def _answers(transport: ADBTransport) -> bool:
    try:
        return transport.run(["true"], timeout=15).returncode == 0
    except TransportError:
        return False


def measure_cell(board: Board, cell: Cell, attempt: int, started: float) -> Result:
    """One phone cell under the lease: its export (through the sweep), benchmark_model, the row with its sweep
    section. An export failure is the cell's failed row; anything else is raised for decide.on_error."""
    from ..lab.rows import cell_result, sweep_info
    from .measure import measure

    state: PhoneOnBoard = board.phone
    sid = board.sweep.sweep_id
    exporting = time.monotonic()
    export_error = board.sweep.export_for(cell, None, board.device.name, board.say)
    board.timed("sweep_export", exporting)
    if export_error is not None:
        return cell_result(cell, "failed", f"export failed: {export_error.one_line()}", sweep_id=sid,
                           attempts=attempt, stderr_tail=export_error.detail, started=started)
    measure_started = time.time()
    timeout_s = float(cell.setting("timeout_s"))
    t0 = time.monotonic()
    try:
        result, _ = measure(cell.run_spec(), board.device, state.transport, say=board.say,
                            cache_dir=board.sweep.cache_dir, facts=state.facts, timeout_s=timeout_s)
    except TransportError:
        if time.monotonic() - t0 < timeout_s or not _answers(state.transport):
            raise  # the phone is gone: decide.on_error retries it
        return cell_result(cell, "failed", f"timed out after {timeout_s:g} s (the cell's timeout_s); the adb shell "
                           "running benchmark_model was stopped", sweep_id=sid, attempts=attempt, started=started)
    return dataclasses.replace(result, sweep=sweep_info(cell, sid, attempt, started, time.time(), measure_started))
