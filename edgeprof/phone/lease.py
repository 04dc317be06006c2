"""The lease on a phone: a lock directory in the phone's workdir, so two controllers never measure it at once.

A phone has no agent to hold a lock with the kernel's help (edgeprof/agentlink/lease.py's board lease), so the lock is a
directory taken atomically with `mkdir` over adb (`<workdir>/lease.lock`), holding the holder (JSON, the board
lease's holder fields), a token and an expiry on the phone's own clock (`date +%s`, so the controllers' clocks do
not matter). The holder renews it from a keepalive thread well within its ttl and removes it on release; a
controller that dies leaves a lock that expires after ttl_s, and the next controller takes it over (one at a
time: the takeover itself is a second `mkdir`; a lock left without its expiry, by a controller killed between the
two, expires ttl_s after the directory was made, and a takeover left half-done is cleared after a minute). Same semantics and messages as the board lease: LeaseBusy names
the holder after lease_wait_s, LeaseLost when the lock is no longer ours.

Owns: the lock's shell lines (fixed text; the holder, token and paths are arguments, never parsed by the phone's
shell as code) and reading their answers. Does not own: the transport (transport/adb.py), what runs under the
lease (the phone's measurer takes it: edgeprof/session/phone.py).
"""

from __future__ import annotations

import json
import posixpath
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from edgeprof_agent.lease import describe as lease_holder_text

from ..agentlink.lease import BUSY_HINT, DEFAULT_TTL_S, KeptLease
from ..errors import TransportError
from ..transport.adb import ADBTransport

LOCK_DIR = "lease.lock"
# $1 lock dir, $2 holder JSON, $3 ttl s, $4 token. Prints "acquired", or "busy" and the holder's JSON.
_ACQUIRE = r'''d=$1; now=$(date +%s)
take() { printf '%s' "$2" > "$d/holder.json" && printf '%s' "$4" > "$d/token" && echo $((now + $3)) > "$d/expires" && echo acquired; }
if mkdir "$d" 2>/dev/null; then take "$@"; exit; fi
exp=$(cat "$d/expires" 2>/dev/null)
[ -n "$exp" ] || exp=$(( $(stat -c %Y "$d" 2>/dev/null || echo "$now") + $3 ))
t=$(stat -c %Y "$d.takeover" 2>/dev/null) && [ "$t" -lt $((now - 60)) ] && rmdir "$d.takeover" 2>/dev/null
if [ -n "$exp" ] && [ "$exp" -lt "$now" ] && mkdir "$d.takeover" 2>/dev/null; then
  rm -rf "$d"; if mkdir "$d" 2>/dev/null; then take "$@"; rmdir "$d.takeover"; exit; fi; rmdir "$d.takeover"
fi
echo busy; cat "$d/holder.json" 2>/dev/null; echo; echo "expires $exp now $now"'''
# $1 lock dir, $2 token, $3 ttl s. Prints "held", or "lost" and the holder's JSON.
_RENEW = r'''d=$1; now=$(date +%s)
if [ "$(cat "$d/token" 2>/dev/null)" = "$2" ]; then echo $((now + $3)) > "$d/expires" && echo held; exit; fi
echo lost; cat "$d/holder.json" 2>/dev/null'''
# $1 lock dir, $2 token: removed only when it is ours
_RELEASE = r'''d=$1; if [ "$(cat "$d/token" 2>/dev/null)" = "$2" ]; then rm -rf "$d"; fi; true'''


def describe(holder: dict[str, Any] | None) -> str:
    """The holder as the board lease names it: `<sweep or purpose> from <controller> since <time>`."""
    return lease_holder_text(holder) if holder else "another controller"


def _holder_of(lines: list[str]) -> dict[str, Any] | None:
    for line in lines:
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if isinstance(v, dict):
            return v
    return None


class PhoneLease(KeptLease):
    """The lease on one phone: the board lease's acquire / check / release and keepalive (edgeprof/agentlink/lease.KeptLease)
    over a lock directory."""

    unreachable = "phone unreachable for the lease"

    def __init__(self, transport: ADBTransport, device: str, workdir: str, holder: dict[str, Any],
                 ttl_s: float = DEFAULT_TTL_S) -> None:
        super().__init__(device, ttl_s)
        self.transport, self.device = transport, device
        self.path = posixpath.join(workdir.rstrip("/") or "/", LOCK_DIR)
        self.workdir = workdir
        self.holder = {**holder, "since": time.time(), "ttl_s": ttl_s}
        self._new_token = ""

    def _sh(self, script: str, *args: str, timeout: float = 60.0) -> list[str]:
        r = self.transport.run(["sh", "-c", script, "lease", *args], timeout=timeout)
        if r.returncode != 0:
            raise TransportError(f"device {self.device}: the lease lock in {self.workdir} failed "
                                 f"(exit {r.returncode}): {r.stderr.strip()[:200]}", device=self.device)
        return r.stdout.splitlines()

    def _ttl(self) -> str:
        return str(max(1, int(round(self.ttl_s))))

    def acquire(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None = None,
                hint: str = BUSY_HINT) -> str:
        """Take the lease, waiting up to wait_s while another controller holds it (LeaseBusy after that, with
        `hint`)."""
        self._sh('mkdir -p "$1"', self.workdir)
        self._new_token = uuid.uuid4().hex
        return self._wait_and_take(wait_s, stop, on_wait, hint)

    def _take(self) -> tuple[str | None, str]:
        token = self._new_token
        lines = self._sh(_ACQUIRE, self.path, json.dumps({**self.holder, "token": token}, sort_keys=True),
                         self._ttl(), token)
        if lines[:1] == ["acquired"]:
            return token, ""
        return None, describe(_holder_of(lines[1:]))

    def _renew_once(self, timeout: float) -> str | None:
        lines = self._sh(_RENEW, self.path, self.token or "", self._ttl(), timeout=timeout)
        if lines[:1] == ["held"]:
            return None
        holder = _holder_of(lines[1:])
        return f"lease taken over by {describe(holder)}" if holder else "lease not held (its lock is gone)"

    def release(self) -> None:
        self._closed.set()
        token, self.token = self.token, None
        if token is None:
            return
        try:
            self._sh(_RELEASE, self.path, token, timeout=15.0)
        except Exception:  # the phone is gone; the lock expires after ttl_s
            pass
