"""Running a sweep: devices in parallel, one cell at a time per device, every cell ending as a row.

Owns: the order of a sweep (one worker thread per device: the board's lease and facts first, then per cell the
capability decision, the export of its model for that board, once per distinct export and one export at a time
across boards, then the measurement: what a board lacks is found before anything is exported), the device lease
for the whole time a worker measures on its board, retries with exponential backoff on transport errors only
(a connection refused or lost, a board rebooting; a failed measurement is not retried; a queued cell hands the
retry to the queue instead: `give_back_retries`), a row the database refuses said once (it is in a recovery file,
store.py), the per-cell wall-clock
timeout that stops the remote agent, turning every way a cell can end into a Result row (ok; skipped with the
capability reason; failed with a one-line reason and the agent's stderr tail), committing each row the moment
its cell ends, a clean stop on Ctrl-C (running agents are stopped, finished cells stay, the sweep is marked
interrupted so `--resume` picks up the rest), and the live status (current cell, done/total, ETA per device).
Does not own: what a failure means or whether a cell may run (decide.py: pure functions the scheduler obeys),
one measurement (runner.deploy), the lock on the device (lease.py + the agent), the sweep file (spec.py), the
database (ledger.py, store.py), drawing progress (cli/sweep.py).
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgeprof_agent.messages import Facts, LogEvent, ProgressEvent

from .. import runner as runner_mod
from ..agentlink import AgentLink
from ..errors import (
    AgentError,
    CapabilityError,
    Interrupted,
    LeaseLost,
    StoreError,
    TransportError,
    UserError,
)
from ..records import Device, Environment, Result, Scenario, Settings, SweepInfo, new_run_id, utc_now
from ..store import Store
from ..transport import Transport, open_transport
from . import ledger
from .decide import MEASURE, RETRY, SETUP, SKIP, STOP, Action, cell_decision, on_error
from .lease import DEFAULT_TTL_S, DeviceLease
from .spec import Cell

STDERR_TAIL_CHARS = 3000


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

    @property
    def ok(self) -> bool:
        """Every cell ended ok or skipped: none failed, none was left unrun, nothing went wrong inside."""
        return not (self.interrupted or self.counts.get("failed") or self.counts.get("not run") or self.errors)


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
                  environment=Environment(host=runner_mod.host_environment()), warnings=[], samples_ms=[],
                  settings=Settings.from_dict(cell.settings), reason=reason,
                  scenario=_cell_scenario(cell),
                  sweep=_sweep_extra(cell, sweep_id, attempts, started, time.time()),
                  stderr_tail=stderr_tail[-STDERR_TAIL_CHARS:] if stderr_tail else None)


def _sweep_extra(cell: Cell, sweep_id: str, attempts: int, started: float | None, ended: float,
                 measure_started: float | None = None) -> SweepInfo:
    return SweepInfo(sweep_id=sweep_id, cell_id=cell.cell_id, model_label=cell.model_label, attempts=attempts,
                     budgets=list(cell.budgets), started_at_unix=started, ended_at_unix=ended,
                     measure_started_at_unix=measure_started, controller=ledger.controller_name())


class SweepRunner:
    """Runs cells of one sweep on their devices. `run()` blocks; call `stop()` from another thread (Ctrl-C)."""

    def __init__(self, store: Store, sweep_id: str, cells: Sequence[Cell], devices: Sequence[Device], *,
                 on_change: Callable[[], None] | None = None, lease_ttl_s: float = DEFAULT_TTL_S,
                 cache_dir: Any = None, log: Callable[[str], None] | None = None,
                 first_attempt: int = 1, give_back_retries: bool = False) -> None:
        """`first_attempt` and `give_back_retries` are the lab queue's (lab/queue.py): a queued cell's attempt
        number is its job's, and a transport error that decide.on_error would retry is not waited out here but
        handed back (`given_back`: the Action) for the queue to retry the job after the action's backoff."""
        self.store = store
        self.sweep_id = sweep_id
        self.cells = list(cells)
        self.devices = {d.name: d for d in devices}
        self.on_change = on_change or (lambda: None)
        self.lease_ttl_s = lease_ttl_s
        self.cache_dir = cache_dir
        self.log = log or (lambda _m: None)
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self._db_lock = threading.Lock()
        self.status: dict[str, DeviceStatus] = {}
        self.results: list[Result] = []
        self.export_errors: dict[tuple[Any, ...], UserError] = {}
        self._exported: set[tuple[Any, ...]] = set()
        self._export_lock = threading.Lock()  # torch export is not a thing to run in parallel threads
        self.errors: list[str] = []
        self.first_attempt = first_attempt
        self.give_back_retries = give_back_retries
        self.given_back: Action | None = None
        self._workers: list[_DeviceWorker] = []
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

    def _set(self, device: str, **kw: Any) -> None:
        with self.lock:
            st = self.status[device]
            for k, v in kw.items():
                setattr(st, k, v)
        self.on_change()

    # -- running --------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop soon: no new cell starts, running agents are stopped, nothing half-done is stored."""
        self.stop_event.set()
        for w in self._workers:
            w.abort()

    def run(self) -> SweepOutcome:
        by_device: dict[str, list[Cell]] = {}
        for c in self.cells:
            by_device.setdefault(c.device, []).append(c)
        self._workers = [_DeviceWorker(self, self.devices[name], cells) for name, cells in by_device.items()]
        threads = [threading.Thread(target=w.run, name=f"sweep-{w.device.name}", daemon=True) for w in self._workers]
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
        counts = {"ok": 0, "failed": 0, "skipped": 0}
        for r in results:
            counts[r.status] = counts.get(r.status, 0) + 1
        counts["not run"] = len(self.cells) - len(results)
        return SweepOutcome(self.sweep_id, self.stop_event.is_set(), counts, results,
                            time.monotonic() - self.started, errors)

    def _export_key(self, c: Cell) -> tuple[Any, ...]:
        return (c.model, c.runtime, c.precision, c.batch, tuple(sorted(c.inputs.items())), c.setting("seed"))

    def export_for(self, cell: Cell, facts: Facts | None, device: str,
                   say: Callable[[str], None] | None = None) -> UserError | None:
        """Export the cell's model for a board with `facts` (at the ONNX IR / opset its onnxruntime loads), once
        per distinct export and one at a time across the boards' threads; returns the export's error (the cell
        fails with it, as every cell of the same export does) or None. Raises CapabilityError when the board
        cannot load what the cell asks (an --opset above its runtime's, a user's ONNX file too new for it): the
        cell is skipped with that reason, before anything is pushed."""
        if cell.runtime == "null":
            return None
        spec = cell.run_spec()
        target = runner_mod.export_target(spec, facts, device, cell.setting("opset"))
        key = (*self._export_key(cell), target.opset, target.max_ir)
        with self._export_lock:
            if key in self.export_errors:
                return self.export_errors[key]
            if key in self._exported:  # deploy prepares again (a cache hit) and checks the file for its board
                return None
            if say is not None:
                say(f"exporting {cell.model_label} ({cell.runtime} {cell.precision})")
            try:
                runner_mod.prepare(spec, self.cache_dir, None, target=target, facts=facts, device=device)
            except CapabilityError:
                raise
            except UserError as e:
                self.export_errors[key] = e
                return e
            self._exported.add(key)
        return None

    def unstored(self, cell: Cell, exc: StoreError) -> None:
        """A cell whose row could not be stored: said once in the sweep's errors (exit 1) and the log."""
        text = f"{cell.cell_id}: not stored: {exc.one_line()}"
        with self.lock:
            self.errors.append(text)
        self.log(text)

    def commit(self, cell: Cell, result: Result, attempts: int, duration_s: float | None) -> None:
        with self._db_lock:
            ledger.commit_cell(self.store, self.sweep_id, cell, result, attempts)
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


class _DeviceWorker:
    """One device: its connection, its lease, its cells one after another."""

    def __init__(self, sweep: SweepRunner, device: Device, cells: list[Cell]) -> None:
        self.sweep = sweep
        self.device = device
        self.cells = cells
        self.transport: Transport | None = None
        self.lease: DeviceLease | None = None
        self.facts: Facts | None = None
        self.unreachable: str | None = None
        self._link: AgentLink | None = None
        self._link_lock = threading.Lock()
        self._timed_out = False

    def say(self, text: str) -> None:
        self.sweep._set(self.device.name, state=text)

    # -- connection and lease ---------------------------------------------------------------------------------

    def ensure_ready(self, cell: Cell) -> None:
        if self.transport is None:
            self.say("connecting")
            self.transport = open_transport(self.device)
        if self.lease is not None:
            try:
                self.lease.check()
                return
            except LeaseLost as e:
                self.sweep.log(f"{self.device.name}: lease lost ({e}); taking it again")
                self.lease.release()
                self.lease = None
            except AgentError as e:
                raise TransportError(f"device {self.device.name}: lost the lease agent ({e.message})",
                                     detail=e.detail) from None
        holder = {"controller": ledger.controller_name(), "sweep_id": self.sweep.sweep_id, "purpose": "sweep"}
        self.say("taking the device lease")
        lease = DeviceLease(self.transport, self.device, holder, self.sweep.lease_ttl_s)
        self.lease = lease
        wait_s = float(cell.setting("lease_wait_s"))
        lease.acquire(wait_s, self.sweep.stop_event, on_wait=lambda who: self.say(f"waiting for lease: {who}"))
        if self.facts is None:
            self.say("reading device facts")
            self.facts = lease.facts(timeout=120.0)
            try:
                with self.sweep._db_lock:
                    self.sweep.store.save_facts(self.device.name, self.facts.to_dict())
            except Exception as e:  # facts history is a convenience
                self.sweep.log(f"{self.device.name}: could not store facts: {e}")

    def drop(self) -> None:
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
        """From another thread: stop the running agent (Ctrl-C or the cell timeout)."""
        with self._link_lock:
            link = self._link
        if link is not None:
            try:
                link.proc.terminate()
            except Exception:
                pass

    # -- cells ------------------------------------------------------------------------------------------------

    def run(self) -> None:
        name = self.device.name
        committed: set[str] = set()
        try:
            for cell in self.cells:
                if self.sweep.stop_event.is_set():
                    break
                started = time.time()
                t0 = time.monotonic()
                self.sweep._set(name, cell=cell.cell_id, cell_started=t0, state="starting")
                outcome = self.run_cell(cell, started)
                if outcome is None:
                    break  # interrupted: nothing stored for this cell
                result, attempts = outcome
                try:
                    self.sweep.commit(cell, result, attempts, time.monotonic() - t0)
                except StoreError as e:
                    # the database refused the row (down, locked, full): the result is in a recovery file the
                    # next successful save imports (store.py); the cell stays pending, the sweep is not ok
                    self.sweep.unstored(cell, e)
                    continue
                committed.add(cell.cell_id)
        except Exception as e:  # a bug: this board's remaining cells end as failed rows; other boards go on
            self.fail_rest([c for c in self.cells if c.cell_id not in committed], e, traceback.format_exc())
        finally:
            self.sweep._set(name, state="releasing", cell=None, cell_started=None)
            self.drop()
            self.sweep._set(name, state="interrupted" if self.sweep.stop_event.is_set() else "done",
                            finished=True)

    def fail_rest(self, cells: list[Cell], exc: Exception, tb: str) -> None:
        """After an internal error in this worker: every cell it has not stored becomes a failed row saying so
        (a cell whose row cannot be stored either stays pending, and the sweep counts it as not run)."""
        text = f"internal error in edgeprof on device {self.device.name}: {type(exc).__name__}: {exc}"
        with self.sweep.lock:
            self.sweep.errors.append(text)
        self.sweep.log(f"{text}\n{tb}")
        for cell in cells:
            row = cell_result(cell, "failed", f"not run: {text}", sweep_id=self.sweep.sweep_id, attempts=0,
                              stderr_tail=tb)
            try:
                self.sweep.commit(cell, row, 0, None)
            except Exception as again:
                self.sweep.log(f"{self.device.name}: {cell.cell_id}: could not store its failed row either: "
                               f"{type(again).__name__}: {again}")

    def run_cell(self, cell: Cell, started: float) -> tuple[Result, int] | None:
        """Attempts at one cell until it ends as a row (or the sweep stops: None). What each failure leads to is
        decide.on_error's; capability is decide.cell_decision's, with this device's facts."""
        sid = self.sweep.sweep_id
        if cell.skip:
            return cell_result(cell, "skipped", cell.skip, sweep_id=sid, attempts=0, started=started), 0
        if self.unreachable:
            return cell_result(cell, "failed", f"not attempted: {self.unreachable}", sweep_id=sid, attempts=0,
                               started=started), 0
        retries = int(cell.setting("retries"))
        backoff = float(cell.setting("retry_backoff_s"))
        attempt = self.sweep.first_attempt - 1
        while True:
            attempt += 1
            phase = SETUP
            try:
                self.ensure_ready(cell)
                decision = cell_decision(cell, self.facts)
                if not decision.ok:
                    return cell_result(cell, "skipped", decision.reason, sweep_id=sid, attempts=attempt,
                                       started=started), attempt
                export_error = self.sweep.export_for(cell, self.facts, self.device.name, self.say)
                if export_error is not None:
                    return cell_result(cell, "failed", f"export failed: {export_error.one_line()}", sweep_id=sid,
                                       attempts=attempt, stderr_tail=export_error.detail, started=started), attempt
                phase = MEASURE
                return self.measure(cell, attempt, started), attempt
            except Exception as e:
                action = on_error(e, attempt, retries, backoff, device=self.device.name, phase=phase)
                if action.kind == STOP:
                    return None
                if action.kind == RETRY:
                    if self.sweep.stop_event.is_set():
                        return None
                    self.drop()
                    if self.sweep.give_back_retries:  # the queue retries the job after the backoff
                        self.sweep.given_back = action
                        return None
                    self.say(f"retry {attempt}/{retries} in {action.wait_s:.0f} s: {action.reason[:80]}")
                    self.sweep.log(f"{self.device.name}: {cell.cell_id}: transport error, retrying in "
                                   f"{action.wait_s:.1f} s: {action.reason}")
                    if self.sweep.stop_event.wait(action.wait_s):
                        return None
                    continue
                if action.unusable:
                    self.drop()
                    self.unreachable = action.unusable
                status = "skipped" if action.kind == SKIP else "failed"
                return cell_result(cell, status, action.reason, sweep_id=sid, attempts=attempt,
                                   stderr_tail=action.detail, started=started), attempt

    def _on_link(self, link: AgentLink) -> None:
        with self._link_lock:
            self._link = link
        if self.sweep.stop_event.is_set() or self._timed_out:
            self.abort()

    def _on_timeout(self) -> None:
        self._timed_out = True
        self.abort()

    def measure(self, cell: Cell, attempt: int, started: float) -> Result:
        """One deploy under the lease, with the cell's timeout (a timeout ends the cell here). Anything else is
        raised for run_cell to hand to decide.on_error; an agent failure first proves the device and the lease
        alive, else it is raised as the transport trouble it is."""
        assert self.lease is not None and self.transport is not None
        sid = self.sweep.sweep_id
        timeout_s = float(cell.setting("timeout_s"))
        self._timed_out = False
        timer = threading.Timer(timeout_s, self._on_timeout)
        timer.daemon = True
        progress = _CellProgress(self)
        timer.start()
        measure_started = time.time()  # under the lease (the cell's start may include waiting for it)
        try:
            result = runner_mod.deploy(cell.run_spec(), self.device, progress=progress,
                                       cache_dir=self.sweep.cache_dir, facts=self.facts,
                                       lease_token=self.lease.token,
                                       transport=self.transport, on_link=self._on_link,
                                       opset=cell.setting("opset"), calibration=cell.setting("calibration"))
        except Exception as e:
            if self.sweep.stop_event.is_set():
                raise Interrupted("stopped") from None
            if self._timed_out:
                detail = e.detail if isinstance(e, UserError) else None
                return cell_result(cell, "failed", f"timed out after {timeout_s:g} s (the cell's timeout_s); "
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
        return dataclasses.replace(result, sweep=_sweep_extra(cell, sid, attempt, started, time.time(), measure_started))


class _CellProgress:
    """runner.Progress → the device's status line."""

    def __init__(self, worker: _DeviceWorker) -> None:
        self.worker = worker

    def stage(self, text: str) -> None:
        self.worker.say(text)

    def event(self, event: ProgressEvent | LogEvent) -> None:
        if isinstance(event, LogEvent):
            return
        phase = event.phase
        if phase in ("warmup", "measure"):
            self.worker.say(f"{phase} {event.elapsed_s or 0:.1f}/{event.total_s or 0:.0f} s, {event.n or 0} queries")
        elif phase:
            self.worker.say(phase)


def run_sweep(store: Store, sweep_id: str, cells: Sequence[Cell], devices: Sequence[Device], *,
              on_runner: Callable[[SweepRunner], None] | None = None, **kw: Any) -> SweepOutcome:
    """Run `cells` of sweep `sweep_id` (already in the ledger) and mark the sweep done or interrupted.

    `on_runner` sees the SweepRunner before it starts (the CLI wires its progress display and its signal
    handling to it). Ctrl-C during the export phase stops the sweep like Ctrl-C later: an interrupted outcome."""
    runner = SweepRunner(store, sweep_id, cells, devices, **kw)
    if on_runner is not None:
        on_runner(runner)
    ledger.set_status(store, sweep_id, "running")
    try:
        outcome = runner.run()
    except KeyboardInterrupt:
        runner.stop()
        outcome = runner.outcome()
    ledger.set_status(store, sweep_id, "interrupted" if outcome.interrupted else "done")
    return outcome
