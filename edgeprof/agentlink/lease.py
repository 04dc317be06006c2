"""The host side of a device lease: one agent per device holds the board's lock file for a sweep; and what a
board's lease and a phone's (phone/lease.py) share (KeptLease). Below lab/, session/ and phone/, which all take it; imported by name (not re-exported by
agentlink/__init__.py).

Owns: starting the lease-holding agent over an open transport, asking for the lease and waiting (with the
holder named) while another controller has it, renewing it from a keepalive thread well within its ttl, checking
that it is still held, and releasing it. The lock itself lives on the device (agents/edgeprof_agent/lease.py):
it is released by the kernel when the holding agent dies, so a killed controller leaves nothing stale.
Does not own: when a lease is taken (lab/board.py, the device's measurer in session/), what runs under it.
"""

from __future__ import annotations

import os
import socket
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

from ..errors import Interrupted, LeaseBusy, LeaseLost
from ..records import Device
from ..transport import Transport
from ..vocab import LEASE_TTL_S
from .link import CALL_TIMEOUT_S, AgentLink

DEFAULT_TTL_S = LEASE_TTL_S  # the agent's own default is the same (edgeprof_agent.vocab)
BUSY_HINT = "raise lease_wait_s in the sweep's settings, or run when that sweep is done"
DEPLOY_HINT = "edgeprof deploy --lease-wait TIME (e.g. 30m) waits for it"  # a deploy refused at once


def controller_name() -> str:
    """This controller as a lease holder and a ledger row name it: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


class KeptLease:
    """What a board's lease and a phone's (phone/lease.py) share: waiting to take it with the holder named, the
    keepalive thread that renews it well within its ttl, and check(). A subclass says how to take it once
    (`_take`), renew it once (`_renew_once`) and what an unreachable holder is called (`unreachable`)."""

    unreachable = "lease agent unreachable"

    def __init__(self, name: str, ttl_s: float) -> None:
        self.name, self.ttl_s = name, ttl_s
        self.token: str | None = None
        self.lost: str | None = None
        self._closed = threading.Event()
        self._keepalive: threading.Thread | None = None

    def _take(self) -> tuple[str | None, str]:
        """One try: (token, "") when taken, else (None, who holds it)."""
        raise NotImplementedError

    def _renew_once(self, timeout: float) -> str | None:
        """Renew it: None while it is ours, else why it is lost."""
        raise NotImplementedError

    def _wait_and_take(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None,
                       hint: str) -> str:
        deadline = time.monotonic() + wait_s
        poll = 1.0
        while True:
            token, who = self._take()
            if token is not None:
                self.token, self.lost = token, None
                if self._keepalive is None:
                    self._keepalive = threading.Thread(target=self._renew_loop, daemon=True,
                                                       name=f"lease-{self.name}")
                    self._keepalive.start()
                return token
            if time.monotonic() >= deadline:
                waited = f"; waited {wait_s:.0f} s" if wait_s > 0 else ""
                raise LeaseBusy(f"device {self.name} is leased by {who}{waited}", hint=hint)
            if on_wait is not None:
                on_wait(who)
            if stop.wait(min(poll, max(0.1, deadline - time.monotonic()))):
                raise Interrupted("stopped while waiting for the device lease")
            poll = min(poll * 1.5, 15.0)

    def check(self) -> None:
        """Raise LeaseLost unless the lease is still ours (also proves the device and connection are alive)."""
        if self.lost:
            raise LeaseLost(self.lost)
        reason = self._renew_once(timeout=30.0)
        if reason:
            self.lost = reason
            raise LeaseLost(reason)

    def _renew_loop(self) -> None:
        interval = max(0.2, self.ttl_s / 4.0)
        while not self._closed.wait(interval):
            try:
                reason = self._renew_once(timeout=max(5.0, self.ttl_s / 2.0))
                if reason:
                    self.lost = reason
            except Exception as e:  # the next check() reports it; the worker reconnects
                self.lost = f"{self.unreachable}: {getattr(e, 'message', e)}"
                return


class DeviceLease(KeptLease):
    def __init__(self, transport: Transport, device: Device, holder: dict[str, Any],
                 ttl_s: float = DEFAULT_TTL_S) -> None:
        super().__init__(device.name, ttl_s)
        self.transport = transport
        self.device = device
        self.holder = holder
        self.link: AgentLink | None = None
        self.info: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _request(self, req: Any, timeout: float = 60.0) -> Any:
        """A request on the lease agent (serialised: the keepalive thread shares the link)."""
        with self._lock:
            if self.link is None:
                raise LeaseLost(f"no lease agent on {self.device.name}")
            return self.link.request(req, timeout=timeout)

    def facts(self, timeout: float = CALL_TIMEOUT_S) -> Facts:
        """The device's facts, read by the lease agent (runtimes included)."""
        reply: Facts = self._request(FactsRequest(runtimes=True), timeout=timeout)
        return reply

    def _renew_once(self, timeout: float) -> str | None:
        reply: RenewReply = self._request(RenewRequest(token=self.token), timeout=timeout)
        return None if reply.held else (reply.reason or "lease not held")

    def acquire(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None = None) -> str:
        """Start the lease agent and take the lease, waiting up to wait_s while someone else holds it."""
        if self.link is None:
            self.link = AgentLink.open(self.transport, self.device)
        return self._wait_and_take(wait_s, stop, on_wait, BUSY_HINT)

    def _take(self) -> tuple[str | None, str]:
        r: LeaseReply = self._request(LeaseRequest(holder=self.holder, ttl_s=self.ttl_s))
        if not r.acquired:
            return None, r.holder_text or "another controller"
        self.info = dict(r.holder or {})
        return str(r.token), ""

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
