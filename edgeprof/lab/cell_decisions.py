"""The lab's decisions, as pure functions: may a cell run here, and what to do when an attempt at it fails.

Owns: `cell_decision` (the capability of one sweep cell: the static matrix when no facts are known, the device's
facts when they are — the one place a cell's capability is decided; a cell of a kind with a `decide` hook by the
kind's own checks, session/kinds.py), and `on_error` (retry after a backoff, fail
with a reason, skip with a reason, and whether the device is unusable for the rest of the sweep) as a function of
the exception's class, the attempt number and the cell's retry settings. No I/O, no threads, no clocks: the
scheduler does what these say (tests/unit/test_decide.py is the table).
Does not own: the capability matrix itself (capability.py), running or timing cells (scheduler.py), the
exception classes (errors.py).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from edgeprof_agent.messages import Facts

from .. import capability
from ..errors import (
    CapabilityError,
    Interrupted,
    LeaseBusy,
    LeaseLost,
    MeasurementError,
    MeasurementFailed,
    RuntimeMissingError,
    TransportError,
    UserError,
)
from ..vocab import (  # one wait between retries, however many (100 doublings overflow a timer)
    MAX_BACKOFF_S,
)
from .cell import Cell

# what an attempt was doing when it failed: connecting, taking the lease and reading facts ("setup"), or
# measuring the cell under the lease with the device proven alive afterwards ("measure")
SETUP = "setup"
MEASURE = "measure"

RETRY = "retry"
FAIL = "fail"
SKIP = "skip"
STOP = "stop"  # the sweep is stopping (Ctrl-C): nothing is stored for this cell


@dataclass(frozen=True)
class Action:
    """What to do after an attempt failed.

    kind: retry (after `wait_s`) | fail | skip | stop. `reason` is the row's one line; `detail` its stderr tail
    (or a traceback for a bug in edgeprof). `unusable`, when set, is why the device's remaining cells are not
    attempted (they become failed rows saying so)."""

    kind: str
    reason: str = ""
    wait_s: float = 0.0
    detail: str | None = None
    unusable: str | None = None


def cell_decision(cell: Cell, facts: Facts | None) -> capability.Decision:
    """Run or skip(reason) for one cell: with facts=None only what is statically impossible is skipped."""
    decide = cell.kind.decide
    if decide is not None:  # the kind's own checks (static, then on the facts)
        reason = decide(cell.run_spec(), cell.model_label, facts)
        return capability.Decision(reason is None, reason)
    return capability.decide(cell.model, cell.runtime, cell.precision, facts, cell.device,
                             cell.setting("runtime_options") or {})


def _one_line(exc: BaseException) -> str:
    return exc.one_line() if isinstance(exc, UserError) else str(exc)


def _detail(exc: BaseException) -> str | None:
    return exc.detail if isinstance(exc, UserError) else None


def on_error(exc: BaseException, attempt: int, retries: int, backoff_s: float, *, device: str = "device",
             phase: str = MEASURE) -> Action:
    """The action for an attempt (1-based) that raised `exc`, decided by the exception's class and the phase it
    came from — never by its message.

    - Interrupted → stop.
    - LeaseBusy → fail; the device is unusable (another controller holds it past lease_wait_s).
    - TransportError, LeaseLost → retry after backoff_s × 2^(attempt-1) (at most MAX_BACKOFF_S) while
      attempt <= retries; then fail and the device is unusable (unreachable).
    - RuntimeMissingError, CapabilityError → skip with the reason.
    - MeasurementError, MeasurementFailed (the runtime on the device refused or failed the model) → fail this
      cell, never retried.
    - any other UserError while measuring → fail, never retried: this cell's problem (the agent refused or failed
      the model, a bad input shape...; for an AgentError the scheduler has proven the device and the lease alive
      before handing it here), the device's next cells still run.
    - any other UserError during setup → fail; the device is unusable (the agent cannot start or answer there:
      bad python:, no disk, ...; every cell would fail the same way).
    - anything else → fail as an internal error with the traceback; during setup the device is unusable.
    """
    if isinstance(exc, Interrupted):
        return Action(STOP)
    if isinstance(exc, LeaseBusy):
        return Action(FAIL, exc.one_line(), detail=exc.detail, unusable=exc.one_line())
    if isinstance(exc, TransportError | LeaseLost):
        msg = _one_line(exc)
        if attempt <= retries:
            wait = MAX_BACKOFF_S if attempt > 64 else min(MAX_BACKOFF_S, backoff_s * (2 ** (attempt - 1)))
            return Action(RETRY, msg, wait_s=wait, detail=_detail(exc))
        plural = "s" if attempt > 1 else ""
        return Action(FAIL, f"{msg} (gave up after {attempt} attempt{plural})", detail=_detail(exc),
                      unusable=f"device {device} unreachable: {msg}")
    if isinstance(exc, RuntimeMissingError | CapabilityError):
        return Action(SKIP, exc.one_line())
    if isinstance(exc, MeasurementError):
        return Action(FAIL, f"measurement failed: {exc}")
    if isinstance(exc, MeasurementFailed):  # the model or runtime on the device: this cell only, never retried
        return Action(FAIL, exc.one_line(), detail=exc.detail)
    if isinstance(exc, UserError) and phase == MEASURE:
        return Action(FAIL, exc.one_line(), detail=exc.detail)
    if isinstance(exc, UserError):
        return Action(FAIL, exc.one_line(), detail=exc.detail,
                      unusable=f"device {device} unusable: {exc.one_line()}")
    text = f"internal error in edgeprof: {type(exc).__name__}: {exc}"
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return Action(FAIL, text, detail=tb, unusable=f"device {device} unusable: {text}" if phase == SETUP else None)
