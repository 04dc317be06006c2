"""One board under a sweep, and the one path a cell takes on it: `run_cell(board, cell, attempt, stop)`.

Owns: a board's connection, its device lease (taken before the first cell, checked before each, taken again
when lost), its facts (read once under the lease) and its agent (started before the first measurement and kept
for the board's later cells: the agent runs each measurement in a child process of its own, so a kept agent
holds no earlier cell's runtime; started again when it died, was stopped, or misbehaved); per cell: the capability decision with those facts, the
export for that board (through the sweep: once per distinct export), the measurement under the lease with the
cell's wall-clock limit (Cell.wall_limit_s; the agent is stopped when it passes), the board's state line (the
phase, a sustained cell's window k/N, the cool-down wait), the attempts a transport error allows (waited
out here, or handed back to the lab queue: `give_back_retries`), committing the row the moment the cell ends,
and an internal error turning this cell and the board's later ones into failed rows. The local sweep
(scheduler.py) runs a board's cells through `run_cell` one after another; the lab queue's worker
(lab/queue/jobs.py) runs one queued cell through it.
Does not own: what a failure means (decide.py), the order of a sweep, its status and its export cache
(scheduler.py), one measurement (run.deploy), the lease protocol (lease.py), the rows' shape (rows.py).
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
from ..agentlink import AgentLink, KeptAgent
from ..agentlink.kept import answered
from ..errors import AgentError, Interrupted, LeaseLost, StoreError, TransportError, UserError
from ..records import Device, Result
from ..sustained import window_line
from ..transport import Transport, open_transport
from . import ledger
from .cell import Cell
from .decide import MEASURE, RETRY, SETUP, SKIP, STOP, Action, cell_decision, on_error
from .lease import DeviceLease
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
    """One device of a sweep: its connection, its lease and facts, shared by its cells one after another."""

    def __init__(self, sweep: Sweep, device: Device) -> None:
        self.sweep = sweep
        self.device = device
        self.transport: Transport | None = None
        self.lease: DeviceLease | None = None
        self.facts: Facts | None = None
        self.unreachable: str | None = None  # the device proved unusable: its later cells are not attempted
        self.broken: tuple[str, str] | None = None  # an internal error (text, traceback): later cells fail
        self._link: AgentLink | None = None  # the agent of the measurement running now (abort() stops it)
        self.kept: KeptAgent | None = None  # the board's agent, kept from one cell to the next (with the transport)
        self.phone: Any = None  # a phone's adb connection, lease and facts (phone/sweep.PhoneOnBoard)
        self._link_lock = threading.Lock()
        self._timed_out = False
        # the sweep's hooks around a measurement on the board: when the cell starts measuring (its export and
        # pushes are done) and when that measurement ended (lab/ahead.py: exports ahead, local cells)
        self.on_measuring: Callable[[], None] | None = None
        self.after_measuring: Callable[[], None] | None = None
        self._measuring = False
        # rows stored behind (the local sweep's boards on another machine: a row is committed while the board's
        # next cell measures; close() waits for the last); None: each row is committed before run_cell returns
        self.behind: StoreBehind | None = None
        # seconds of the board's own phases (report/phases.EXTRA_LABELS keys), its wall time from first to last
        self.times: dict[str, float] = {}
        self.started = time.monotonic()
        self.ended: float | None = None

    def timed(self, key: str, since: float) -> None:
        """Add the seconds since `since` (time.monotonic) to the board's phase `key`."""
        self.times[key] = self.times.get(key, 0.0) + time.monotonic() - since

    def say(self, text: str) -> None:
        self.sweep.set_state(self.device.name, state=text)

    # -- connection and lease ---------------------------------------------------------------------------------

    def ensure_ready(self, cell: Cell, stop: threading.Event) -> None:
        if self.transport is None:
            self.say("connecting")
            t0 = time.monotonic()
            self.transport = open_transport(self.device)
            self.transport.connect()
            self.timed("board_connect", t0)
        if self.lease is not None:
            try:
                if self.lease_held(self.lease):
                    return
                self.lease = None
            except AgentError as e:
                raise TransportError(f"device {self.device.name}: lost the lease agent ({e.message})",
                                     detail=e.detail) from None
        holder = {"controller": ledger.controller_name(), "sweep_id": self.sweep.sweep_id, "purpose": "sweep"}
        self.say("taking the device lease")
        t0 = time.monotonic()
        lease = DeviceLease(self.transport, self.device, holder, self.sweep.lease_ttl_s)
        self.lease = lease
        wait_s = float(cell.setting("lease_wait_s"))
        lease.acquire(wait_s, stop, on_wait=lambda who: self.say(f"waiting for lease: {who}"))
        self.timed("lease", t0)
        if self.facts is None:
            self.say("reading device facts")
            t0 = time.monotonic()
            starting = self._start_agent_beside()
            self.facts = lease.facts(timeout=120.0)
            self.timed("board_facts", t0)
            if starting is not None:  # the board's agent started while the lease's agent read the facts
                waited = time.monotonic()
                starting.join()
                self.timed("board_agent", waited)  # only the wait beyond the facts is the board's time
            self.sweep.save_facts(self.device.name, self.facts)

    def _kept(self) -> KeptAgent:
        assert self.transport is not None
        if self.kept is None or self.kept.transport is not self.transport:
            self.kept = KeptAgent(self.transport, self.device, say=self.say)
        return self.kept

    def _start_agent_beside(self) -> threading.Thread | None:
        """Start the board's agent in a thread of its own (nothing measures yet: the lease is ours and no cell
        has begun); a failure leaves no agent, and the first cell starts one and meets the error there."""
        if self.transport is None:
            return None
        kept = self._kept()
        if kept.alive():
            return None
        kept.say = lambda _m: None  # the status line says "reading device facts" meanwhile

        def start() -> None:
            try:
                kept.get()
            except Exception:
                kept.close()
            finally:
                kept.say = self.say

        t = threading.Thread(target=start, name=f"agent-{self.device.name}", daemon=True)
        t.start()
        return t

    def lease_held(self, lease: Any) -> bool:
        """Whether `lease` (a board's DeviceLease or a phone's PhoneLease) is still ours; a lost one is logged and
        released, for the caller to take again."""
        try:
            lease.check()
            return True
        except LeaseLost as e:
            self.sweep.log(f"{self.device.name}: lease lost ({e}); taking it again")
            lease.release()
            return False

    def agent_for_cell(self) -> AgentLink:
        """The board's agent, alive: the kept one, or one started now (timed as the board's "agent start")."""
        kept = self._kept()
        before = kept.started_s
        link = kept.get()
        if kept.started_s > before:
            self.times["board_agent"] = self.times.get("board_agent", 0.0) + kept.started_s - before
        if self.facts is not None:
            link.known_facts = self.facts
        return link

    def close_agent(self) -> None:
        if self.kept is not None:
            before = self.kept.closed_s
            self.kept.close()
            if self.kept.closed_s > before:
                self.times["board_agent_close"] = self.times.get("board_agent_close", 0.0) + self.kept.closed_s - before

    def drop(self) -> None:
        self.close_agent()
        if self.phone is not None:
            self.phone.close()
            self.phone = None
        if self.lease is not None:
            self.lease.release()
            self.lease = None
        if self.transport is not None:
            try:
                self.transport.close()
            except Exception:
                pass
            self.transport = None

    def abort(self) -> None:
        """From another thread: stop the running agent (Ctrl-C, a cancelled job or the cell timeout)."""
        with self._link_lock:
            link = self._link
        if link is not None:
            try:
                link.proc.terminate()
            except Exception:
                pass

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

    def _on_link(self, link: AgentLink) -> None:
        with self._link_lock:
            self._link = link
        if self.sweep.stop_event.is_set() or self._timed_out:
            self.abort()

    def _on_timeout(self) -> None:
        self._timed_out = True
        self.abort()

    def measure(self, cell: Cell, attempt: int, started: float, stop: threading.Event) -> Result:
        """One deploy under the lease, with the cell's timeout (a timeout ends the cell here). Anything else is
        raised for run_cell to hand to decide.on_error; an agent failure first proves the device and the lease
        alive, else it is raised as the transport trouble it is."""
        assert self.lease is not None and self.transport is not None
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
            agent = self.agent_for_cell()
            result = measurement.deploy(spec, self.device, progress=progress,
                                       options=measurement.Options.of(spec, given=given),
                                       cache_dir=self.sweep.cache_dir, facts=self.facts,
                                       lease_token=self.lease.token,
                                       transport=self.transport, on_link=self._on_link, link=agent)
        except Exception as e:
            if not answered(e) or self._timed_out or stop.is_set():
                self.close_agent()  # stopped, dead, silent or misbehaving: the next cell starts another

            if stop.is_set():
                raise Interrupted("stopped") from None
            if self._timed_out:
                detail = e.detail if isinstance(e, UserError) else None
                return cell_result(cell, "failed", f"timed out after {timeout_s:g} s ({cell.wall_limit_why()}); "
                                   "the agent on the device was stopped", sweep_id=sid, attempts=attempt,
                                   stderr_tail=detail, started=started)
            if isinstance(e, AgentError):
                # the agent died or fell silent: is the device still there, and is the lease still ours?
                try:
                    self.lease.check()
                except (AgentError, TransportError) as health:
                    raise TransportError(f"lost device {self.device.name} during the cell: {e.message}",
                                         detail=e.detail or getattr(health, "detail", None)) from None
                except LeaseLost as lost:
                    raise LeaseLost(f"lease lost during the cell: {lost}") from None
            raise  # decide.on_error says what it means for the cell
        finally:
            timer.cancel()
            with self._link_lock:
                self._link = None
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
    to is decide.on_error's; capability is decide.cell_decision's, with the board's facts. An internal error
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
            if board.device.kind == "adb":  # a phone: benchmark_model over adb (phone/sweep.py)
                from ..phone import sweep as phone

                skip = phone.refused(cell)
                if skip is not None:
                    return cell_result(cell, "skipped", skip, sweep_id=sid, attempts=attempt, started=started), attempt
                phone.ready(board, cell, stop)
                phase = MEASURE
                return phone.measure_cell(board, cell, attempt, started), attempt
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
