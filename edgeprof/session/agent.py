"""The agent's measurer: the edgeprof agent over a Transport (this machine, an SSH board), and the forward-pass
kind's method on it (run/: plan → execute → assemble).

Owns: the device's transport (opened here unless given), the agent a kept session keeps for all its measurements
(agentlink.KeptAgent: started once, again after one that died or misbehaved; timed as the board's "agent start"
and "agent close"), the agent a one-off measurement starts and closes (timed in its phases), starting the agent
beside the lease's facts read, the board lease (edgeprof/agentlink/lease.DeviceLease: the agent holds the lock), the running
agent a sweep stops from another thread. Does not own: the agent's protocol (agentlink/), the pipeline's steps
(run/), the sweep (lab/).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from edgeprof_agent.messages import Facts

from ..agentlink import AgentLink, KeptAgent
from ..agentlink.kept_agent import answered
from ..agentlink.lease import DeviceLease
from ..records import Device, Result, RunSpec
from ..transport import Transport, open_transport
from .kinds import Job
from .measurer import Lease, Measurer

if TYPE_CHECKING:
    from ..run.timing import PhaseClock
    from .session import DeviceSession


class AgentMeasurer(Measurer):
    """The agent over a Transport: `keep` keeps one agent for the session's measurements."""

    name: ClassVar[str] = "agent"
    what: ClassVar[str] = "the edgeprof agent"
    stopped_words: ClassVar[str] = "the agent on the device was stopped"

    def __init__(self, device: Device, times: dict[str, float] | None = None, *,
                 transport: Transport | None = None, keep: bool = True) -> None:
        super().__init__(device, times, keep=keep)
        self.transport = transport
        self._own_transport = transport is None
        self.kept: KeptAgent | None = None
        self._running: AgentLink | None = None  # the agent of the measurement running now (abort() stops it)
        self._lock = threading.Lock()
        self.say: Callable[[str], None] = lambda _m: None

    @property
    def on_this_host(self) -> bool:  # type: ignore[override]
        return self.device.kind == "local"

    @property
    def overlaps(self) -> bool:  # type: ignore[override]
        return not self.on_this_host

    @property
    def connected(self) -> bool:
        return self.transport is not None

    def connected_via(self) -> Transport | None:
        return self.transport

    def connect(self) -> None:
        transport = open_transport(self.device)
        try:
            transport.connect()
        except BaseException:
            transport.close()
            raise
        self.transport = transport
        self._own_transport = True

    def lease(self, holder: dict[str, Any], ttl_s: float) -> Lease:
        assert self.transport is not None
        return DeviceLease(self.transport, self.device, holder, ttl_s)

    # -- the kept agent ------------------------------------------------------------------------------------------

    def _kept(self) -> KeptAgent:
        assert self.transport is not None
        if self.kept is None or self.kept.transport is not self.transport:
            self.kept = KeptAgent(self.transport, self.device, say=self.say)
        return self.kept

    def _start_beside(self) -> threading.Thread | None:
        """Start the kept agent in a thread of its own (nothing measures yet); a failure leaves no agent, and the
        first measurement starts one and meets the error there."""
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

    def read_facts(self, lease: Lease | None, say: Callable[[str], None]) -> Facts:
        """Under a lease: read by the lease's agent while the kept agent starts beside it (the wait beyond the
        facts is the board's "agent start"); without one, by the kept agent."""
        if lease is None:
            self.say = say
            return self._kept().get().facts(runtimes=True)
        assert isinstance(lease, DeviceLease)
        t0 = time.monotonic()
        starting = self._start_beside() if self.transport is not None else None
        facts = lease.facts()
        self.add_time("board_facts", time.monotonic() - t0)
        if starting is not None:
            waited = time.monotonic()
            starting.join()
            self.add_time("board_agent", time.monotonic() - waited)
        return facts

    def runtime_facts(self, facts: Any) -> Facts | None:
        return facts if isinstance(facts, Facts) else None

    @classmethod
    def inventory_row(cls, device: Device, power: str) -> list[str]:
        if device.kind == "local":
            return [device.name, "this machine", "-", "(this interpreter)", device.workdir, "-", "auto", "built in"]
        return super().inventory_row(device, power)

    def agent(self, say: Callable[[str], None], facts: Facts | None) -> AgentLink:
        """The kept agent, alive: the one kept, or one started now (timed as the board's "agent start")."""
        self.say = say
        kept = self._kept()
        kept.say = say
        before = kept.started_s
        link = kept.get()
        if kept.started_s > before:
            self.add_time("board_agent", kept.started_s - before)
        if facts is not None:
            link.known_facts = facts
        return link

    def running(self, link: AgentLink | None) -> None:
        with self._lock:
            self._running = link

    @contextlib.contextmanager
    def measuring(self, session: DeviceSession, job: Job, clock: PhaseClock) -> Iterator[tuple[AgentLink, Facts]]:
        """The agent one measurement runs on, whatever its kind, and the device's facts with its runtimes: the
        kept agent (a sweep, --find-max-rate) or one started for it and closed after (timed "agent", "close"),
        known to abort() while it runs; the facts read once (timed "facts") unless the session holds them."""
        device, progress = session.device, job.progress
        if self.keep:
            progress.stage(f"connecting to {device.name}")
            link = self.agent(progress.stage, session.runtime_facts)
        else:
            assert self.transport is not None
            with clock.phase("agent"):
                link = AgentLink.open(self.transport, device, progress=progress.stage)
        self.running(link)
        if job.on_start is not None:
            job.on_start()
        try:
            facts = session.runtime_facts
            if facts is None:
                with clock.phase("facts"):
                    facts = link.facts(runtimes=True)
                session.facts = facts
            if link.known_facts is None or facts.runtimes:
                link.known_facts = facts  # names the runtime's version should the agent crash in it
            yield link, facts
        finally:
            self.running(None)
            if not self.keep:
                with clock.phase("close"):
                    link.close()

    def abort(self) -> None:
        with self._lock:
            link = self._running
        if link is not None:
            try:
                link.proc.terminate()
            except Exception:
                pass

    def after(self, e: BaseException, *, stopped: bool = False) -> None:
        if self.keep and (stopped or not answered(e)):
            self.reset()  # stopped, dead, silent or misbehaving: the next measurement starts another

    def reset(self) -> None:
        if self.kept is not None:
            before = self.kept.closed_s
            self.kept.close()
            if self.kept.closed_s > before:
                self.add_time("board_agent_close", self.kept.closed_s - before)

    def close(self) -> None:
        self.reset()
        transport, self.transport = self.transport, None
        if transport is not None and self._own_transport:
            try:
                transport.close()
            except Exception:
                pass


class ForwardPass:
    """The forward-pass kind on the agent: run/'s pipeline — plan (after the facts: capability, export, inputs),
    execute (push, one RunRequest), assemble (the frozen Result)."""

    def __init__(self, measurer: AgentMeasurer) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        return None  # the agent's capability is decided with its facts, in plan()

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        from ..run import Options, assemble, execute, plan, validate_spec

        device, progress = session.device, job.progress
        if not job.checked:
            validate_spec(spec)
        options = job.options or Options.of(spec)
        with self.m.measuring(session, job, clock) as (link, facts):
            planned = plan(spec, device, facts, options=options, cache_dir=job.cache_dir, say=progress.stage,
                           clock=clock)
            executed = execute(planned, link, progress=progress, lease_token=session.lease_token)
        return assemble(planned, executed, facts, say=progress.stage)
