"""The phone's measurer: LiteRT's benchmark_model over adb (edgeprof/phone/, docs/phones.md), and the kinds' methods
on it: the forward pass (phone/measure.py) and generation (LiteRT-LM's litert_lm_main, phone/litertlm.py).

Owns: the phone's adb transport, its lease (phone/lease.PhoneLease: a lock directory on the phone; a one-off deploy
takes it too, refused at once when another controller holds the phone: the phone has no agent to refuse a run
itself), its facts (phone/facts.PhoneFacts), what a phone refuses of a spec (phone/measure.refusal), the
benchmark_model run bounded by the caller's wall clock (a cell's timeout_s: its adb shell is stopped), and telling a
timed-out run from a phone gone. Does not own: adb (transport/adb.py), benchmark_model's command line and output
(phone/benchmark.py), the phone's Result (phone/result.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import TransportError
from ..records import Device, Result, RunSpec
from .kinds import Job
from .measurer import Lease, Measurer

if TYPE_CHECKING:
    from ..phone.facts import PhoneFacts
    from ..run.timing import PhaseClock
    from ..transport.adb import ADBTransport
    from .session import DeviceSession

KIND = "adb"  # records.Device.kind of a phone (inventory/devices.py: transport: adb)


class PhoneMeasurer(Measurer):
    """A phone over adb; benchmark_model measures."""

    name: ClassVar[str] = "benchmark_model"
    what: ClassVar[str] = "phones (benchmark_model over adb)"
    connecting: ClassVar[str] = "connecting over adb"
    leasing: ClassVar[str] = "taking the phone's lease"
    reading_facts: ClassVar[str] = "reading the phone's facts"
    stopped_words: ClassVar[str] = "the adb shell running benchmark_model was stopped"
    overlaps: ClassVar[bool] = False
    check_group: ClassVar[str] = "phones"

    def __init__(self, device: Device, times: dict[str, float] | None = None, *, keep: bool = True) -> None:
        super().__init__(device, times, keep=keep)
        self.transport: ADBTransport | None = None

    @property
    def connecting_to(self) -> str:
        return f"connecting to {self.device.name} over adb"

    @property
    def connected(self) -> bool:
        return self.transport is not None

    def connected_via(self) -> ADBTransport | None:
        return self.transport

    def connect(self) -> None:
        from ..transport.adb import open_adb

        self.transport = open_adb(self.device)

    def lease(self, holder: dict[str, Any], ttl_s: float) -> Lease:
        from ..phone.lease import PhoneLease

        assert self.transport is not None
        return PhoneLease(self.transport, self.device.name, self.device.workdir, holder, ttl_s)

    def deploy_lease(self, holder: dict[str, Any], wait_s: float, on_wait: Callable[[str], None]) -> Lease:
        from ..agentlink.lease import DEPLOY_HINT
        from ..phone.lease import PhoneLease

        assert self.transport is not None
        lease = PhoneLease(self.transport, self.device.name, self.device.workdir, holder)
        hint = "a longer --lease-wait waits for it, or measure another phone" if wait_s > 0 else DEPLOY_HINT
        lease.acquire(wait_s, threading.Event(), on_wait=lambda who: on_wait(f"waiting for the lease: {who}"),
                      hint=hint)
        return lease

    def read_facts(self, lease: Lease | None, say: Callable[[str], None]) -> PhoneFacts:
        from ..phone.facts import read_facts

        assert self.transport is not None
        t0 = time.monotonic()
        facts = read_facts(self.transport, self.device)
        self.add_time("board_facts", time.monotonic() - t0)
        return facts

    def answers(self) -> bool:
        if self.transport is None:
            return False
        try:
            return self.transport.run(["true"], timeout=15).returncode == 0
        except TransportError:
            return False

    def timed_out(self, e: Exception) -> bool:
        """The adb shell stopped at the bound is a TransportError from a phone that still answers."""
        return isinstance(e, TransportError) and self.answers()

    def close(self) -> None:
        transport, self.transport = self.transport, None
        if transport is not None:
            try:
                transport.close()
            except Exception:
                pass

    @classmethod
    def inventory_row(cls, device: Device, power: str) -> list[str]:
        tags = " ".join(f"{k}={v}" for k, v in device.tags.items()) or "-"
        return [device.name, device.host or "(the only adb device)", "-", "-", device.workdir, tags, power, KIND]


class ForwardPass:
    """The forward-pass kind on a phone: single-stream through benchmark_model (phone/measure.py says what else a
    phone refuses)."""

    def __init__(self, measurer: PhoneMeasurer) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        from ..phone.measure import refusal

        return refusal(spec, runtime_given=runtime_given, find_max_rate=find_max_rate)

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        from ..phone.measure import TIMEOUT_S, measure

        assert self.m.transport is not None
        result, facts = measure(spec, session.device, self.m.transport, say=job.progress.stage,
                                cache_dir=job.cache_dir, facts=session.facts,
                                timeout_s=job.timeout_s if job.timeout_s is not None else TIMEOUT_S, clock=clock)
        session.facts = facts
        return result


class Generation:
    """The generation kind on a phone: a .litertlm measured by LiteRT-LM's litert_lm_main (phone/litertlm.py says
    what else a phone refuses)."""

    def __init__(self, measurer: PhoneMeasurer) -> None:
        self.m = measurer

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        from ..phone.litertlm import refusal

        return refusal(spec, self.m.device, find_max_rate=find_max_rate)

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        from ..phone.litertlm import measure
        from ..phone.runner import TIMEOUT_S
        from .generation import check

        if not job.checked:
            check(spec)
        assert self.m.transport is not None
        result, facts = measure(spec, session.device, self.m.transport, say=job.progress.stage,
                                facts=session.facts,
                                timeout_s=job.timeout_s if job.timeout_s is not None else TIMEOUT_S, clock=clock)
        session.facts = facts
        return result
