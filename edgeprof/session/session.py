"""DeviceSession: one device, opened once and used by deploy, --find-max-rate's probes, a sweep's board and a queue
worker's cell alike: it owns the device's measurer (chosen here, once, by the device's kind: the only place that
asks), its connection, its lease and its facts.

Two ways to hold one:
- kept (`keep=True`, the default): for several measurements: connected, lease taken and facts read once (a sweep's
  board does that under its lease: `connect`, `take_lease`, `ensure_facts`), the agent kept between them. A
  measurement then times none of that.
- one-off (`keep=False`: `edgeprof deploy`, run.deploy(spec, device)): connected for one measurement, which times
  its connect, its agent start, its facts and its close in its phases (records/phases.py).

`measure(spec, job)` finds the spec's measurement kind (kinds.kind_of), the kind's method on the measurer (a
measurer that does not offer it: a CapabilityError in one line) and measures.

Owns: choosing the measurer, the session's state (connected, lease, facts), the static check of a spec on the
device (`check`). Does not own: how a measurer connects, leases or measures (agent.py, phone.py), a sweep's
retries and rows (lab/board.py), storing (the caller).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agentlink.lease import controller_name
from ..errors import CapabilityError, ConfigError
from ..records import Device, Result, RunSpec
from .kinds import Job, Method, kind_of
from .measurer import Lease, Measurer

if TYPE_CHECKING:
    from edgeprof_agent.messages import Facts

    from ..transport import Transport


def measurer_class(device: Device) -> type[Measurer]:
    """The measurer of a device's kind (records.Device.kind): the one place a device's kind is asked."""
    from . import phone

    if device.kind == phone.KIND:
        return phone.PhoneMeasurer
    from .agent import AgentMeasurer

    return AgentMeasurer


def measurer_for(device: Device, *, transport: Transport | None = None, keep: bool = True,
                 times: dict[str, float] | None = None) -> Measurer:
    """The device's measurer; `transport`: an open connection it uses and leaves open (the agent's only: a test
    or a tool that holds one)."""
    cls = measurer_class(device)
    if transport is not None:
        from .agent import AgentMeasurer

        if cls is not AgentMeasurer:
            raise ConfigError(f"device {device.name}: an open transport is given to a measurer that opens its own")
        return AgentMeasurer(device, times, transport=transport, keep=keep)
    return cls(device, times, keep=keep)


NOT_OFFERED = "not supported on"


def refusal(device: Device, spec: RunSpec, *, runtime_given: str | None = None) -> str | None:
    """What of `spec` `device` cannot measure, before connecting (a sweep's static skips): DeviceSession.refusal."""
    return DeviceSession(device).refusal(spec, runtime_given=runtime_given)


class DeviceSession:
    """One device's measurer, connection, lease and facts (see the module's docstring)."""

    def __init__(self, device: Device, *, keep: bool = True, facts: Any = None, transport: Transport | None = None,
                 times: dict[str, float] | None = None, purpose: str = "deploy", lease_wait_s: float = 0.0) -> None:
        self.device = device
        self.keep = keep
        self.purpose = purpose
        self.lease_wait_s = lease_wait_s  # a deploy's --lease-wait, for a device whose lease it takes itself
        self.measurer = measurer_for(device, transport=transport, keep=keep, times=times)
        self.facts: Any = facts  # the measurer's kind of facts (messages.Facts, phone/facts.PhoneFacts)
        self.lease: Lease | None = None
        self._deploy_lease: Lease | None = None

    # -- as a context manager: closed at the end -----------------------------------------------------------------

    def __enter__(self) -> DeviceSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def runtime_facts(self) -> Facts | None:
        """The facts as the agent's messages.Facts where the device has those (capability, exports, the store)."""
        return self.measurer.runtime_facts(self.facts) if self.facts is not None else None

    @property
    def lease_token(self) -> str | None:
        return self.lease.token if self.lease is not None else None

    # -- before measuring ----------------------------------------------------------------------------------------

    def _method(self, spec: RunSpec) -> tuple[Method | None, str]:
        kind = kind_of(spec)
        return kind.method_on(self.measurer), f"{kind.name} measurements are {NOT_OFFERED} {self.measurer.what} yet"

    def method(self, spec: RunSpec) -> Method:
        """The method of `spec`'s measurement kind on this device's measurer; a CapabilityError when it offers
        none."""
        method, refused = self._method(spec)
        if method is None:
            raise CapabilityError(f"device {self.device.name}: {refused}", device=self.device.name)
        return method

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        """What of `spec` this device cannot measure, as one line (None: it can); before connecting: a kind its
        measurer does not offer, or what the kind's method there refuses (a phone: benchmark_model's limits)."""
        method, refused = self._method(spec)
        if method is None:
            return refused
        return method.refusal(spec, runtime_given=runtime_given, find_max_rate=find_max_rate)

    def check(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> None:
        """refusal() as one line naming the device: a CapabilityError for a kind the measurer does not offer, a
        ConfigError for what its method refuses."""
        reason = self.method(spec).refusal(spec, runtime_given=runtime_given, find_max_rate=find_max_rate)
        if reason is not None:
            raise ConfigError(f"device {self.device.name}: {reason}")

    def connect(self) -> None:
        if not self.measurer.connected:
            self.measurer.connect()

    def take_lease(self, holder: dict[str, Any], ttl_s: float, wait_s: float, stop: threading.Event,
                   on_wait: Callable[[str], None] | None = None) -> None:
        """The sweep's lease on the device: made for `holder` and taken (waiting up to wait_s)."""
        self.lease = self.measurer.lease(holder, ttl_s)
        self.lease.acquire(wait_s, stop, on_wait=on_wait)

    def drop_lease(self) -> None:
        if self.lease is not None:
            self.lease.release()
            self.lease = None

    def _connect(self, say: Callable[[str], None]) -> None:
        """Connected, and the lease a device without an agent takes for a deploy taken (unless a sweep's is held)."""
        say(self.measurer.connecting_to)
        self.connect()
        if self._deploy_lease is None and self.lease is None:
            self._deploy_lease = self.measurer.deploy_lease(
                {"controller": controller_name(), "purpose": self.purpose}, self.lease_wait_s, say)

    def open(self, say: Callable[[str], None]) -> Any:
        """A kept session's set-up before its first measurement (what measure() does then), for a caller that needs
        the device's facts first (calibrate: what its onnxruntime loads): connected, lease taken, facts read."""
        if not self.measurer.connected:
            self._connect(say)
        return self.ensure_facts(say)

    def ensure_facts(self, say: Callable[[str], None]) -> Any:
        """The device's facts, read once (under the lease when one is held)."""
        if self.facts is None:
            self.facts = self.measurer.read_facts(self.lease, say)
        return self.facts

    # -- measuring -------------------------------------------------------------------------------------------

    def measure(self, spec: RunSpec, job: Job) -> Result:
        """One measurement of `spec` (its kind's method on this device's measurer) → the Result, not stored.
        A kept session connects (and reads the facts) first, untimed; a one-off one times its connect (and the
        lease a device without an agent takes for a deploy) in the measurement's phases."""
        from ..run.timing import PhaseClock

        method = self.method(spec)
        reason = method.refusal(spec)
        if reason is not None:
            raise ConfigError(f"device {self.device.name}: {reason}")
        clock = PhaseClock()
        if not self.measurer.connected:
            with clock.phase("connect") if not self.keep else contextlib.nullcontext():
                self._connect(job.progress.stage)
        if self.keep:
            if self.facts is None:
                self.ensure_facts(job.progress.stage)
            clock = PhaseClock()  # a kept session's set-up is not this measurement's
        try:
            return method.measure(spec, self, job, clock)
        except BaseException as e:
            self.measurer.after(e, stopped=not isinstance(e, Exception))
            raise

    def after(self, e: BaseException, *, stopped: bool = False) -> None:
        self.measurer.after(e, stopped=stopped)

    def abort(self) -> None:
        self.measurer.abort()

    def drop(self) -> None:
        """Everything closed, the lease released: a later use connects again."""
        self.measurer.reset()
        if self._deploy_lease is not None:
            self._deploy_lease.release()
            self._deploy_lease = None
        self.drop_lease()
        try:
            self.measurer.close()
        except Exception:
            pass

    def close(self) -> None:
        self.drop()
