"""An agent kept for several measurements on one device (KeptAgent): a sweep's board keeps one for all its cells,
`deploy --find-max-rate` one for all its probes. The agent runs each measurement in a child process of its own
(agents/edgeprof_agent/children.py), so a kept agent holds no earlier run's runtime.

Owns: starting it when there is none or it died (timed: `started_s`), handing it out for the next measurement
with its byte count reset, deciding after a failure whether it can serve the next (`after`: kept only when the
agent answered with an error or the host refused before the run), closing it (timed: `closed_s`).
Does not own: the agent itself (link.py), what a failure means for a cell (lab/cell_decisions.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import AgentError, LeasedError, MeasurementFailed, TransportError, UserError
from ..records import Device
from ..transport.base import Transport
from .link import AgentLink


def answered(e: BaseException) -> bool:
    """Whether `e` leaves the agent as it was: it answered with an error (the measurement failed, the lease is
    gone) or the host refused before the run; not a dead, silent, crashed or misbehaving agent."""
    if isinstance(e, (MeasurementFailed, LeasedError)):
        return True
    return isinstance(e, UserError) and not isinstance(e, (AgentError, TransportError))


class KeptAgent:
    """The agent of one device over `transport`, started on first use and again whenever it is gone."""

    def __init__(self, transport: Transport, device: Device, say: Callable[[str], None] | None = None) -> None:
        self.transport = transport
        self.device = device
        self.say = say or (lambda _m: None)
        self.link: AgentLink | None = None
        self.started_s = 0.0
        self.closed_s = 0.0
        self.starts = 0

    def alive(self) -> bool:
        return self.link is not None and self.link.proc.poll() is None

    def get(self) -> AgentLink:
        """The kept agent, alive, its `bytes_moved` counting from now; one started now when there is none."""
        if self.alive():
            assert self.link is not None
            self.link.bytes_moved = 0  # what the next measurement moves (the agent was pushed for an earlier one)
            return self.link
        self.close()
        t0 = time.monotonic()
        self.say("starting agent")
        self.link = AgentLink.open(self.transport, self.device, progress=self.say)
        self.starts += 1
        self.started_s += time.monotonic() - t0
        return self.link

    def after(self, e: BaseException, *, stopped: bool = False) -> None:
        """After a measurement raised `e`: the agent is closed unless it answered and nothing stopped it."""
        if stopped or not answered(e):
            self.close()

    def close(self) -> None:
        link, self.link = self.link, None
        if link is None:
            return
        t0 = time.monotonic()
        try:
            link.close()
        except Exception:
            pass
        self.closed_s += time.monotonic() - t0
