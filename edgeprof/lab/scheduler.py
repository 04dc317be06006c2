"""Running a sweep: devices in parallel, one cell at a time per device, every cell ending as a row.

Owns: the order of a sweep (one thread per device, running its cells one after another through the one
per-cell path, board.run_cell, which the lab queue's worker uses too), the export of a cell's model for a
board, once per distinct export (cell.export_key and the board's ONNX target) and one export at a time across
boards (what a board lacks is found before anything is exported), a row the database refuses said once (it is
in a recovery file, store/), internal errors of a board counted for the exit code, committing each row the
moment its cell ends (ledger.commit_cell), a clean stop on Ctrl-C (running agents are stopped, finished cells
stay, the sweep is marked interrupted so `--resume` picks up the rest), and the live status (current cell,
done/total, ETA per device).
Does not own: one cell on its board (board.py: lease, facts, attempts and retries, timeout), what a failure
means or whether a cell may run (cell_decisions.py: pure functions the board obeys), one measurement (run.deploy),
the lock on the device (lease.py + the agent), the sweep file (spec.py), the database (sweep_state.py, store/),
drawing progress (cli/sweep.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgeprof_agent.messages import Facts

from .. import run as measurement
from ..agentlink.lease import DEFAULT_TTL_S
from ..analysis.breakdown import Breakdown
from ..errors import CapabilityError, StoreError, UserError
from ..records import Device, Result
from ..store import Store
from . import sweep_state as ledger
from .board import Board, CellEnd, StoreBehind, run_cell
from .cell import Cell, export_key
from .cell_decisions import cell_decision
from .export_ahead import Ahead, ExportAhead, HostUse
from .rows import STDERR_TAIL_CHARS, cell_result

__all__ = ["DeviceStatus", "SweepOutcome", "SweepScheduler", "run_sweep", "run_cell", "Board", "CellEnd",
           "cell_result", "STDERR_TAIL_CHARS"]


@dataclass
class DeviceStatus:
    """What one device's worker is doing; read by the progress display (copied under the sweep's lock)."""

    device: str
    total: int
    done: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    state: str = "waiting"
    cell: str | None = None
    cell_started: float | None = None
    durations: list[float] = field(default_factory=list)
    finished: bool = False

    def eta_s(self, fallback: float | None) -> float | None:
        """Seconds left: remaining cells × mean cell time here (or across devices), minus the current cell's age."""
        if self.finished:
            return 0.0
        mean = sum(self.durations) / len(self.durations) if self.durations else fallback
        if mean is None:
            return None
        left = (self.total - self.done) * mean
        if self.cell_started is not None:
            left -= min(mean, time.monotonic() - self.cell_started)
        return max(0.0, left)


@dataclass
class SweepOutcome:
    sweep_id: str
    interrupted: bool
    counts: dict[str, int]
    results: list[Result]
    wall_s: float
    errors: list[str] = field(default_factory=list)  # internal errors of board workers (each also in the log)
    boards: list[Board] = field(default_factory=list)  # with their own phase times (efficiency.sweep_breakdown)
    ahead: list[Ahead] = field(default_factory=list)  # exports prepared while another cell measured

    def breakdown(self) -> Breakdown:
        """Σ timed windows against the wall time, per phase and per board (lab/efficiency.py)."""
        from .efficiency import sweep_breakdown

        return sweep_breakdown(self.results, self.boards, self.wall_s)

    @property
    def ok(self) -> bool:
        """Every cell ended ok or skipped: none failed, none was left unrun, nothing went wrong inside."""
        return not (self.interrupted or self.counts["failed"] or self.counts["not run"] or self.errors)


class SweepScheduler:
    """Runs cells of one sweep on their devices. `run()` blocks; call `stop()` from another thread (Ctrl-C)."""

    def __init__(self, store: Store, sweep_id: str, cells: Sequence[Cell], devices: Sequence[Device], *,
                 on_change: Callable[[], None] | None = None, lease_ttl_s: float = DEFAULT_TTL_S,
                 cache_dir: Any = None, log: Callable[[str], None] | None = None,
                 give_back_retries: bool = False, after_run_ids: dict[str, str | None] | None = None) -> None:
        """`give_back_retries` and `after_run_ids` are the lab queue's (lab/queue/jobs.py): a transport error that
        decide.on_error would retry is not waited out here but handed back (CellEnd.retry) for the queue to retry
        the job after the action's backoff; a cell in `after_run_ids` takes its row only while it still has the
        run given there (ledger.commit_cell's `after`)."""
        self.store = store
        self.sweep_id = sweep_id
        self.cells = list(cells)
        self.devices = {d.name: d for d in devices}
        self.on_change = on_change or (lambda: None)
        self.lease_ttl_s = lease_ttl_s
        self.cache_dir = cache_dir
        self.log = log or (lambda _m: None)
        self.after_run_ids = after_run_ids or {}
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self._db_lock = threading.Lock()
        self.status: dict[str, DeviceStatus] = {}
        self.results: list[Result] = []
        self.export_errors: dict[tuple[Any, ...], UserError] = {}
        self._exported: set[tuple[Any, ...]] = set()
        self._export_lock = threading.Lock()  # torch export is not a thing to run in parallel threads
        self.errors: list[str] = []
        self.give_back_retries = give_back_retries
        self._boards: list[Board] = []
        self.host = HostUse()  # local cells measuring vs exports ahead (lab/export_ahead.py)
        self.ahead: list[Ahead] = []  # the exports prepared ahead, for the summary
        self.started = time.monotonic()
        for c in self.cells:
            if c.device not in self.devices:
                raise UserError(f"sweep cell {c.cell_id} names device {c.device!r}, which is not in the inventory",
                                hint="pass --inventory with the devices.yaml the sweep was made with")
            self.status.setdefault(c.device, DeviceStatus(c.device, 0)).total += 1

    # -- status ---------------------------------------------------------------------------------------------

    def snapshot(self) -> list[DeviceStatus]:
        with self.lock:
            return [DeviceStatus(**{**s.__dict__, "durations": list(s.durations)}) for s in self.status.values()]

    def mean_cell_s(self) -> float | None:
        with self.lock:
            d = [x for s in self.status.values() for x in s.durations]
        return sum(d) / len(d) if d else None

    def set_state(self, device: str, **kw: Any) -> None:
        """Update one device's status (state, cell, ...) and tell the display."""
        with self.lock:
            st = self.status[device]
            for k, v in kw.items():
                setattr(st, k, v)
        self.on_change()

    # -- running --------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop soon: no new cell starts, running agents are stopped, nothing half-done is stored."""
        self.stop_event.set()
        with self.lock:
            boards = list(self._boards)
        for b in boards:
            b.abort()

    def board(self, device: Device) -> Board:
        """A board of this sweep (stopping the sweep stops its running agent); `run_cell` runs cells on it."""
        b = Board(self, device)
        with self.lock:
            self._boards.append(b)
        if self.stop_event.is_set():
            b.abort()
        return b

    def _run_board(self, board: Board, cells: list[Cell]) -> None:
        """A device's cells one after another, each through run_cell; then its lease and connection go. While a
        cell measures on another machine, the next cell's export is prepared (lab/export_ahead.py); a cell measuring on
        this one (`local`) keeps exports ahead off the CPUs meanwhile."""
        measurer = board.session.measurer
        local = measurer.on_this_host
        if local:
            board.on_measuring, board.after_measuring = self.host.local_begins, self.host.local_ends
        elif measurer.overlaps:
            board.behind = StoreBehind(board)  # its rows stored while its next cell measures
        try:
            for i, cell in enumerate(cells):
                if self.stop_event.is_set():
                    break
                ahead = None
                if measurer.overlaps and i + 1 < len(cells):
                    ahead = ExportAhead(cells[i + 1], lambda c: self._export_ahead(board, c), self.host,
                                        self.stop_event, self.ahead, self.lock)
                    board.on_measuring = ahead.measuring
                try:
                    stopped = run_cell(board, cell, 1, self.stop_event).stopped
                finally:
                    if ahead is not None:
                        board.on_measuring = None
                        ahead.join()
                if stopped:
                    break  # interrupted: nothing stored for this cell
        finally:
            board.close()

    def _export_ahead(self, board: Board, cell: Cell) -> bool:
        """The export of `cell` for `board`, ahead of its turn; True when it exported (not found done)."""
        if cell.skip or cell.runtime == "null" or not cell.forward_pass or board.facts is None or board.unreachable or board.broken:
            return False
        if not cell_decision(cell, board.facts).ok:
            return False
        with self._export_lock:
            before = len(self._exported)
        return self.export_for(cell, board.facts, board.device.name) is None and len(self._exported) > before

    def run(self) -> SweepOutcome:
        by_device: dict[str, list[Cell]] = {}
        for c in self.cells:
            by_device.setdefault(c.device, []).append(c)
        work = [(self.board(self.devices[name]), cells) for name, cells in by_device.items()]
        threads = [threading.Thread(target=self._run_board, args=(b, cells), name=f"sweep-{b.device.name}",
                                    daemon=True) for b, cells in work]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt:
            self.stop()
            for t in threads:
                t.join(30)
        return self.outcome()

    def outcome(self) -> SweepOutcome:
        """The sweep as it stands: counts by status, cells not run, internal errors."""
        with self.lock:
            results = list(self.results)
            errors = list(self.errors)
            boards = list(self._boards)
            ahead = list(self.ahead)
        counts = {"ok": 0, "failed": 0, "skipped": 0}
        for r in results:
            counts[r.status] += 1
        counts["not run"] = len(self.cells) - len(results)
        return SweepOutcome(self.sweep_id, self.stop_event.is_set(), counts, results,
                            time.monotonic() - self.started, errors, boards, ahead)

    def export_for(self, cell: Cell, facts: Facts | None, device: str,
                   say: Callable[[str], None] | None = None) -> UserError | None:
        """Export the cell's model for a board with `facts` (at the ONNX IR / opset its onnxruntime loads), once
        per distinct export and one at a time across the boards' threads; returns the export's error (the cell
        fails with it, as every cell of the same export does) or None. Raises CapabilityError when the board
        cannot load what the cell asks (an --opset above its runtime's, a user's ONNX file too new for it): the
        cell is skipped with that reason, before anything is pushed. A generation cell has no export here: its
        kind builds its GGUF or onnxruntime-genai folder (cached, generative/build.py) when it measures."""
        if cell.runtime == "null" or not cell.forward_pass:
            return None
        spec = cell.run_spec()
        target = measurement.export_target(spec, facts, device, cell.setting("opset"))
        key = (*export_key(cell), target.opset, target.max_ir)
        with self._export_lock:
            if key in self.export_errors:
                return self.export_errors[key]
            if key in self._exported:  # deploy prepares again (a cache hit) and checks the file for its board
                return None
            if say is not None:
                say(f"exporting {cell.model_label} ({cell.runtime} {cell.precision})")
            try:
                measurement.prepare(spec, self.cache_dir, None, target=target, facts=facts, device=device)
            except CapabilityError:
                raise
            except UserError as e:
                self.export_errors[key] = e
                return e
            self._exported.add(key)
        return None

    def save_facts(self, device: str, facts: Facts) -> None:
        """A board's facts into the facts history (a convenience: a failure is only logged)."""
        try:
            with self._db_lock:
                self.store.save_facts(device, facts)
        except Exception as e:
            self.log(f"{device}: could not store facts: {e}")

    def internal_error(self, logged: str, text: str) -> None:
        """An internal error of a board: `text` in the sweep's errors (exit 1), `logged` (with its traceback) in
        the log."""
        with self.lock:
            self.errors.append(text)
        self.log(logged)

    def unstored(self, cell: Cell, exc: StoreError) -> None:
        """A cell whose row could not be stored: said once in the sweep's errors (exit 1) and the log."""
        text = f"{cell.cell_id}: not stored: {exc.one_line()}"
        with self.lock:
            self.errors.append(text)
        self.log(text)

    def commit(self, cell: Cell, result: Result, attempts: int, duration_s: float | None) -> None:
        with self._db_lock:
            took = ledger.commit_cell(self.store, self.sweep_id, cell, result, attempts,
                                      self.after_run_ids.get(cell.cell_id, ledger.ANY_RUN))
        if not took:
            self.log(f"{cell.cell_id}: another run of it was stored meanwhile (its job ran twice): run "
                     f"{result.run_id} is stored alone, outside the sweep")
        with self.lock:
            self.results.append(result)
            st = self.status[cell.device]
            st.done += 1
            if result.status == "ok":
                st.ok += 1
            elif result.status == "failed":
                st.failed += 1
            else:
                st.skipped += 1
            if duration_s is not None and result.status == "ok":
                st.durations.append(duration_s)
        self.on_change()


def run_sweep(store: Store, sweep_id: str, cells: Sequence[Cell], devices: Sequence[Device], *,
              on_start: Callable[[SweepScheduler], None] | None = None, **kw: Any) -> SweepOutcome:
    """Run `cells` of sweep `sweep_id` (already in the ledger) and mark the sweep done or interrupted.

    `on_start` sees the SweepScheduler before it starts (the CLI wires its progress display and its signal
    handling to it). Ctrl-C during the export phase stops the sweep like Ctrl-C later: an interrupted outcome."""
    sched = SweepScheduler(store, sweep_id, cells, devices, **kw)
    if on_start is not None:
        on_start(sched)
    ledger.set_status(store, sweep_id, "running")
    try:
        outcome = sched.run()
    except KeyboardInterrupt:
        sched.stop()
        outcome = sched.outcome()
    ledger.set_status(store, sweep_id, "interrupted" if outcome.interrupted else "done")
    return outcome
