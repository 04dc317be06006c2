"""The host side of a device lease: one agent per device holds the board's lock file for a sweep.

Owns: starting the lease-holding agent over an open transport, asking for the lease and waiting (with the
holder named) while another controller has it, renewing it from a keepalive thread well within its ttl, checking
that it is still held, and releasing it. The lock itself lives on the device (agents/edgeprof_agent/lease.py):
it is released by the kernel when the holding agent dies, so a killed controller leaves nothing stale.
Does not own: what runs under the lease (scheduler.py, run/).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from edgeprof_agent.messages import (
    Facts,
    FactsRequest,
    LeaseReply,
    LeaseRequest,
    ReleaseRequest,
    RenewReply,
    RenewRequest,
)

from ..agentlink import AgentLink
from ..errors import Interrupted, LeaseBusy, LeaseLost
from ..records import Device
from ..transport import Transport

DEFAULT_TTL_S = 120.0


class DeviceLease:
    def __init__(self, transport: Transport, device: Device, holder: dict[str, Any],
                 ttl_s: float = DEFAULT_TTL_S) -> None:
        self.transport = transport
        self.device = device
        self.holder = holder
        self.ttl_s = ttl_s
        self.link: AgentLink | None = None
        self.token: str | None = None
        self.info: dict[str, Any] = {}
        self.lost: str | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._keepalive: threading.Thread | None = None

    def _request(self, req: Any, timeout: float = 60.0) -> Any:
        """A request on the lease agent (serialised: the keepalive thread shares the link)."""
        with self._lock:
            if self.link is None:
                raise LeaseLost(f"no lease agent on {self.device.name}")
            return self.link.request(req, timeout=timeout)

    def facts(self, timeout: float = 120.0) -> Facts:
        """The device's facts, read by the lease agent (runtimes included)."""
        reply: Facts = self._request(FactsRequest(runtimes=True), timeout=timeout)
        return reply

    def _renew(self, timeout: float) -> RenewReply:
        reply: RenewReply = self._request(RenewRequest(token=self.token), timeout=timeout)
        return reply

    def acquire(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None = None) -> str:
        """Start the lease agent and take the lease, waiting up to wait_s while someone else holds it."""
        if self.link is None:
            self.link = AgentLink.open(self.transport, self.device)
        deadline = time.monotonic() + wait_s
        poll = 1.0
        while True:
            r: LeaseReply = self._request(LeaseRequest(holder=self.holder, ttl_s=self.ttl_s))
            if r.acquired:
                self.token = str(r.token)
                self.info = dict(r.holder or {})
                self.lost = None
                if self._keepalive is None:
                    self._keepalive = threading.Thread(target=self._renew_loop, daemon=True,
                                                       name=f"lease-{self.device.name}")
                    self._keepalive.start()
                return self.token
            who = r.holder_text or "another controller"
            if time.monotonic() >= deadline:
                raise LeaseBusy(f"device {self.device.name} is leased by {who}; waited {wait_s:.0f} s",
                                hint="raise lease_wait_s in the sweep's settings, or run when that sweep is done")
            if on_wait is not None:
                on_wait(who)
            if stop.wait(min(poll, max(0.1, deadline - time.monotonic()))):
                raise Interrupted("stopped while waiting for the device lease")
            poll = min(poll * 1.5, 15.0)

    def check(self) -> None:
        """Raise LeaseLost unless the lease is still ours (also proves the device and connection are alive)."""
        if self.lost:
            raise LeaseLost(self.lost)
        r = self._renew(timeout=30.0)
        if not r.held:
            self.lost = r.reason or "lease not held"
            raise LeaseLost(self.lost)

    def _renew_loop(self) -> None:
        interval = max(0.2, self.ttl_s / 4.0)
        while not self._closed.wait(interval):
            try:
                r = self._renew(timeout=max(5.0, self.ttl_s / 2.0))
                if not r.held:
                    self.lost = r.reason or "lease not held"
            except Exception as e:  # the next check() reports it; the worker reconnects
                self.lost = f"lease agent unreachable: {getattr(e, 'message', e)}"
                return

    def release(self) -> None:
        self._closed.set()
        link, self.link = self.link, None
        if link is None:
            return
        try:
            with self._lock:
                if link.proc.poll() is None:
                    link.request(ReleaseRequest(), timeout=10.0)
        except Exception:  # the device is gone; its kernel released the lock with the agent
            pass
        finally:
            try:
                link.close()
            except Exception:
                pass
