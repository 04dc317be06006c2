"""One board under a sweep, and the one path a cell takes on it: `run_cell(board, cell, attempt, stop)`.

Owns: a board's device session (edgeprof/session/: its connection, measurer and facts; the measurer keeps the
agent for the board's later cells), when the device lease is taken (before the first cell, checked before each,
taken again when lost) and the facts read (once, under the lease); per cell: what the device refuses of it before
connecting and the capability decision with its facts, the
export for that board (through the sweep: once per distinct export), the measurement under the lease with the
cell's wall-clock limit (Cell.wall_limit_s; the measurement is stopped when it passes), the board's state line (the
phase, a sustained cell's window k/N, the cool-down wait), the attempts a transport error allows (waited
out here, or handed back to the lab queue: `give_back_retries`), committing the row the moment the cell ends,
and an internal error turning this cell and the board's later ones into failed rows. The local sweep
(scheduler.py) runs a board's cells through `run_cell` one after another; the lab queue's worker
(lab/queue/jobs.py) runs one queued cell through it.
Does not own: what a failure means (cell_decisions.py), the order of a sweep, its status and its export cache
(scheduler.py), one measurement (the session's measurer), the lease protocol (lease.py, phone/lease.py), the rows'
shape (rows.py).
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from edgeprof_agent.messages import Facts, LogEvent, ProgressEvent

from .. import run as measurement
from ..errors import AgentError, Interrupted, LeaseLost, StoreError, TransportError, UserError
from ..evaluation.sustained import window_line
from ..records import Device, Result
from ..session import DeviceSession, Job
from . import sweep_state as ledger
from .cell import Cell
from .cell_decisions import MEASURE, RETRY, SETUP, SKIP, STOP, Action, cell_decision, on_error
from .rows import cell_result, sweep_info


class Sweep(Protocol):
    """What a board needs of the sweep it runs for (scheduler.SweepScheduler is one)."""

    sweep_id: str
    stop_event: threading.Event
    lease_ttl_s: float
    cache_dir: Any
    give_back_retries: bool
    log: Callable[[str], None]

    def set_state(self, device: str, **kw: Any) -> None: ...
    def save_facts(self, device: str, facts: Facts) -> None: ...
    def export_for(self, cell: Cell, facts: Facts | None, device: str,
                   say: Callable[[str], None] | None = None) -> UserError | None: ...
    def commit(self, cell: Cell, result: Result, attempts: int, duration_s: float | None) -> None: ...
    def unstored(self, cell: Cell, exc: StoreError) -> None: ...
    def internal_error(self, logged: str, text: str) -> None: ...


@dataclass(frozen=True)
class CellEnd:
    """How `run_cell` left a cell: `row` is the row stored for it (None: nothing stored: the sweep stopped, the
    database refused the row, or a transport error was handed back); `stopped`: the sweep stopped before the
    cell ended; `retry`: the transport error handed back to the lab queue (with the backoff to wait)."""

    row: Result | None
    stopped: bool = False
    retry: Action | None = None


class Board:
    """One device of a sweep: its session (edgeprof/session/: connection, measurer, lease and facts), shared by its
    cells one after another."""

    def __init__(self, sweep: Sweep, device: Device) -> None:
        self.sweep = sweep
        self.device = device
        # seconds of the board's own phases (analysis/breakdown.EXTRA_LABELS keys), its wall time from first to last
        self.times: dict[str, float] = {}
        self.session = DeviceSession(device, times=self.times, purpose="sweep")
        self.unreachable: str | None = None  # the device proved unusable: its later cells are not attempted
        self.broken: tuple[str, str] | None = None  # an internal error (text, traceback): later cells fail
        self._timed_out = False
        # the sweep's hooks around a measurement on the board: when the cell starts measuring (its export and
        # pushes are done) and when that measurement ended (lab/export_ahead.py: exports ahead, local cells)
        self.on_measuring: Callable[[], None] | None = None
        self.after_measuring: Callable[[], None] | None = None
        self._measuring = False
        # rows stored behind (the local sweep's boards on another machine: a row is committed while the board's
        # next cell measures; close() waits for the last); None: each row is committed before run_cell returns
        self.behind: StoreBehind | None = None
        self.started = time.monotonic()
        self.ended: float | None = None

    @property
    def facts(self) -> Facts | None:
        """The board's facts as the agent's messages.Facts (capability, exports); None before they are read, or
        where the device has other facts (a phone's)."""
        return self.session.runtime_facts

    def timed(self, key: str, since: float) -> None:
        """Add the seconds since `since` (time.monotonic) to the board's phase `key`."""
        self.times[key] = self.times.get(key, 0.0) + time.monotonic() - since

    def say(self, text: str) -> None:
        self.sweep.set_state(self.device.name, state=text)

    # -- connection and lease ---------------------------------------------------------------------------------

    def ensure_ready(self, cell: Cell, stop: threading.Event) -> None:
        """Connected, the lease ours (taken, or checked and taken again when lost), the facts read once under it."""
        session, m = self.session, self.session.measurer
        if not m.connected:
            self.say(m.connecting)
            t0 = time.monotonic()
            session.connect()
            self.timed("board_connect", t0)
        if session.lease is not None:
            try:
                if self.lease_held(session.lease):
                    return
                session.lease = None
            except AgentError as e:
                raise TransportError(f"device {self.device.name}: lost the lease agent ({e.message})",
                                     detail=e.detail) from None
        holder = {"controller": ledger.controller_name(), "sweep_id": self.sweep.sweep_id, "purpose": "sweep"}
        self.say(m.leasing)
        t0 = time.monotonic()
        session.take_lease(holder, self.sweep.lease_ttl_s, float(cell.setting("lease_wait_s")), stop,
                           on_wait=lambda who: self.say(f"waiting for lease: {who}"))
        self.timed("lease", t0)
        if session.facts is None:
            self.say(m.reading_facts)
            session.ensure_facts(self.say)  # timed by the measurer: board_facts (and board_agent beside it)
            facts = session.runtime_facts
            if facts is not None:
                self.sweep.save_facts(self.device.name, facts)

    def lease_held(self, lease: Any) -> bool:
        """Whether `lease` is still ours; a lost one is logged and released, for the caller to take again."""
        try:
            lease.check()
            return True
        except LeaseLost as e:
            self.sweep.log(f"{self.device.name}: lease lost ({e}); taking it again")
            lease.release()
            return False

    def drop(self) -> None:
        self.session.drop()

    def abort(self) -> None:
        """From another thread: stop the running measurement (Ctrl-C, a cancelled job or the cell timeout)."""
        self.session.abort()

    def close(self) -> None:
        """After the board's last cell: its rows stored, lease released, connection closed, the status line says
        so."""
        name = self.device.name
        self.sweep.set_state(name, state="releasing", cell=None, cell_started=None)
        if self.behind is not None:
            self.behind.finish()
        self.drop()
        self.ended = time.monotonic()
        self.sweep.set_state(name, state="interrupted" if self.sweep.stop_event.is_set() else "done",
                             finished=True)

    # -- one attempt's measurement ------------------------------------------------------------------------------

    def _on_start(self) -> None:
        if self.sweep.stop_event.is_set() or self._timed_out:
            self.abort()

    def _on_timeout(self) -> None:
        self._timed_out = True
        self.abort()

    def measure(self, cell: Cell, attempt: int, started: float, stop: threading.Event) -> Result:
        """One measurement under the lease, with the cell's wall-clock limit (passing it ends the cell here).
        Anything else is raised for run_cell to hand to cell_decisions.on_error; an agent failure first proves the device
        and the lease alive, else it is raised as the transport trouble it is."""
        session = self.session
        assert session.lease is not None
        sid = self.sweep.sweep_id
        timeout_s = cell.wall_limit_s()
        self._timed_out = False
        timer = threading.Timer(timeout_s, self._on_timeout)
        timer.daemon = True
        progress = _CellProgress(self)
        timer.start()
        measure_started = time.time()  # under the lease (the cell's start may include waiting for it)
        try:
            spec = cell.run_spec()
            given = frozenset({"--batch"}) if cell.batch_given else frozenset()  # a static batch refuses another
            result = session.measure(spec, Job(progress, options=measurement.Options.of(spec, given=given),
                                               cache_dir=self.sweep.cache_dir, timeout_s=timeout_s,
                                               on_start=self._on_start))
        except Exception as e:
            session.after(e, stopped=self._timed_out or stop.is_set())
            if stop.is_set():
                raise Interrupted("stopped") from None
            if self._timed_out and session.measurer.timed_out(e):
                detail = e.detail if isinstance(e, UserError) else None
                return cell_result(cell, "failed", f"timed out after {timeout_s:g} s ({cell.wall_limit_why()}); "
                                   f"{session.measurer.stopped_words}", sweep_id=sid, attempts=attempt,
                                   stderr_tail=detail, started=started)
            if isinstance(e, AgentError):
                # the agent died or fell silent: is the device still there, and is the lease still ours?
                try:
                    session.lease.check()
                except (AgentError, TransportError) as health:
                    raise TransportError(f"lost device {self.device.name} during the cell: {e.message}",
                                         detail=e.detail or getattr(health, "detail", None)) from None
                except LeaseLost as lost:
                    raise LeaseLost(f"lease lost during the cell: {lost}") from None
            raise  # cell_decisions.on_error says what it means for the cell
        finally:
            timer.cancel()
            if self._measuring:
                self._measuring = False
                if self.after_measuring is not None:
                    self.after_measuring()
        return dataclasses.replace(result, sweep=sweep_info(cell, sid, attempt, started, time.time(),
                                                            measure_started))


class _CellProgress:
    """run.Progress → the device's status line."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def stage(self, text: str) -> None:
        if text == "measuring" and not self.board._measuring:  # run.execute: the request goes now
            self.board._measuring = True
            if self.board.on_measuring is not None:
                self.board.on_measuring()
        self.board.say(text)

    def event(self, event: ProgressEvent | LogEvent) -> None:
        if isinstance(event, LogEvent):
            return
        phase = event.phase
        if phase == "measure" and event.window is not None:  # a sustained run's window closed
            self.board.say(window_line(event))
        elif phase in ("warmup", "measure"):
            self.board.say(f"{phase} {event.elapsed_s or 0:.1f}/{event.total_s or 0:.0f} s, {event.n or 0} queries")
        elif phase == "cooldown" and event.below_c is not None:  # the cell's cooldown_c: before it measures
            self.board.say(f"cooling down: waiting for < {event.below_c:g} °C")
        elif phase == "cooled" and event.below_c is not None:
            self.board.say(f"cooled below {event.below_c:g} °C after {event.waited_s or 0:.0f} s"
                           if event.end_c is not None and event.end_c < event.below_c
                           else f"not below {event.below_c:g} °C after {event.waited_s or 0:.0f} s; measuring")
        elif phase:
            self.board.say(phase)


def run_cell(board: Board, cell: Cell, attempt: int, stop: threading.Event) -> CellEnd:
    """Run one cell on `board` until it ends as a row, and commit that row (ledger.commit_cell).

    `attempt` is the first attempt's number (1; a queued cell's job counts its own). What each failure leads
    to is cell_decisions.on_error's; capability is cell_decisions.cell_decision's, with the board's facts. An internal error
    (a bug) fails this cell and every later cell of the board with it; the sweep's errors say it once."""
    sweep = board.sweep
    t0 = time.monotonic()
    try:
        sweep.set_state(board.device.name, cell=cell.cell_id, cell_started=t0, state="starting")
        if board.broken is not None:
            ended: tuple[Result, int] | CellEnd = _not_run_row(board, cell)
        else:
            ended = _attempts(board, cell, attempt, stop, time.time())
        if isinstance(ended, CellEnd):
            return ended
        result, attempts = ended
        if board.behind is not None:  # stored while the board's next cell measures
            board.behind.put(cell, result, attempts, time.monotonic() - t0)
            return CellEnd(result)
        storing = time.monotonic()
        stored = store_row(sweep, cell, result, attempts, storing - t0)
        board.timed("store", storing)
        return CellEnd(result if stored else None)
    except Exception as e:  # a bug: this cell and the board's later ones end as failed rows; other boards go on
        text = f"internal error in edgeprof on device {board.device.name}: {type(e).__name__}: {e}"
        tb = traceback.format_exc()
        board.broken = (text, tb)
        sweep.internal_error(f"{text}\n{tb}", text)
        row, _ = _not_run_row(board, cell)
        try:
            sweep.commit(cell, row, 0, None)
        except Exception as again:
            sweep.log(f"{board.device.name}: {cell.cell_id}: could not store its failed row either: "
                      f"{type(again).__name__}: {again}")
            return CellEnd(None)
        return CellEnd(row)


def store_row(sweep: Sweep, cell: Cell, result: Result, attempts: int, duration_s: float | None) -> bool:
    """Commit one cell's row; False when the database refused it (down, locked, full): the result is then in a
    recovery file the next successful save imports (store/db.py), the cell stays pending, the sweep is not ok."""
    try:
        sweep.commit(cell, result, attempts, duration_s)
    except StoreError as e:
        sweep.unstored(cell, e)
        return False
    return True


class StoreBehind:
    """A board's rows committed in order by one thread of their own, while the board goes on with its next cell
    (its measurement is on another machine: the database's work does not share its CPUs). `finish()` waits for
    every row put; a row whose commit raised a bug is said as an internal error of the board, as before."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._rows: queue.Queue[tuple[Cell, Result, int, float] | None] = queue.Queue()
        self.stored = 0  # rows committed, and the seconds that took (overlapping the board's measurements)
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name=f"store-{board.device.name}", daemon=True)
        self._thread.start()

    def put(self, cell: Cell, result: Result, attempts: int, duration_s: float) -> None:
        self._rows.put((cell, result, attempts, duration_s))

    def finish(self) -> None:
        self._rows.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._rows.get()
            if item is None:
                return
            cell, result, attempts, duration_s = item
            t0 = time.monotonic()
            try:
                if store_row(self.board.sweep, cell, result, attempts, duration_s):  # a refused row is said
                    self.stored += 1
                self.seconds += time.monotonic() - t0
            except Exception as e:  # a bug: said once, like any internal error of the board
                text = f"internal error in edgeprof on device {self.board.device.name}: {type(e).__name__}: {e}"
                self.board.sweep.internal_error(f"{text}\n{traceback.format_exc()}", text)


def _not_run_row(board: Board, cell: Cell) -> tuple[Result, int]:
    """The failed row of a cell on a board an internal error broke."""
    assert board.broken is not None
    text, tb = board.broken
    return cell_result(cell, "failed", f"not run: {text}", sweep_id=board.sweep.sweep_id, attempts=0,
                       stderr_tail=tb), 0


def _attempts(board: Board, cell: Cell, first: int, stop: threading.Event,
              started: float) -> tuple[Result, int] | CellEnd:
    """Attempts at one cell until it ends as a row (with its attempts), or a CellEnd with no row (stopped, or
    a transport error handed back to the queue)."""
    sweep = board.sweep
    sid = sweep.sweep_id
    name = board.device.name
    if cell.skip:
        return cell_result(cell, "skipped", cell.skip, sweep_id=sid, attempts=0, started=started), 0
    if board.unreachable:
        return cell_result(cell, "failed", f"not attempted: {board.unreachable}", sweep_id=sid, attempts=0,
                           started=started), 0
    retries = int(cell.setting("retries"))
    backoff = float(cell.setting("retry_backoff_s"))
    attempt = first - 1
    while True:
        attempt += 1
        phase = SETUP
        try:
            skip = board.session.refusal(cell.run_spec(), runtime_given=cell.runtime)  # before connecting
            if skip is not None:
                return cell_result(cell, "skipped", skip, sweep_id=sid, attempts=attempt, started=started), attempt
            board.ensure_ready(cell, stop)
            decision = cell_decision(cell, board.facts)
            if not decision.ok:
                return cell_result(cell, "skipped", decision.reason, sweep_id=sid, attempts=attempt,
                                   started=started), attempt
            exporting = time.monotonic()
            export_error = sweep.export_for(cell, board.facts, name, board.say)
            board.timed("sweep_export", exporting)
            if export_error is not None:
                return cell_result(cell, "failed", f"export failed: {export_error.one_line()}", sweep_id=sid,
                                   attempts=attempt, stderr_tail=export_error.detail, started=started), attempt
            phase = MEASURE
            return board.measure(cell, attempt, started, stop), attempt
        except Exception as e:
            action = on_error(e, attempt, retries, backoff, device=name, phase=phase)
            if action.kind == STOP:
                return CellEnd(None, stopped=True)
            if action.kind == RETRY:
                if stop.is_set():
                    return CellEnd(None, stopped=True)
                board.drop()
                if sweep.give_back_retries:  # the queue retries the job after the backoff
                    return CellEnd(None, retry=action)
                board.say(f"retry {attempt}/{retries} in {action.wait_s:.0f} s: {action.reason[:80]}")
                sweep.log(f"{name}: {cell.cell_id}: transport error, retrying in {action.wait_s:.1f} s: "
                          f"{action.reason}")
                if stop.wait(action.wait_s):
                    return CellEnd(None, stopped=True)
                continue
            if action.unusable:
                board.drop()
                board.unreachable = action.unusable
            status = "skipped" if action.kind == SKIP else "failed"
            return cell_result(cell, status, action.reason, sweep_id=sid, attempts=attempt,
                               stderr_tail=action.detail, started=started), attempt
