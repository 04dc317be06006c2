"""The lease on a phone: a lock directory in the phone's workdir, so two controllers never measure it at once.

A phone has no agent to hold a lock with the kernel's help (lab/lease.py's board lease), so the lock is a
directory taken atomically with `mkdir` over adb (`<workdir>/lease.lock`), holding the holder (JSON, the board
lease's holder fields), a token and an expiry on the phone's own clock (`date +%s`, so the controllers' clocks do
not matter). The holder renews it from a keepalive thread well within its ttl and removes it on release; a
controller that dies leaves a lock that expires after ttl_s, and the next controller takes it over (one at a
time: the takeover itself is a second `mkdir`; a lock left without its expiry, by a controller killed between the
two, expires ttl_s after the directory was made, and a takeover left half-done is cleared after a minute). Same semantics and messages as the board lease: LeaseBusy names
the holder after lease_wait_s, LeaseLost when the lock is no longer ours.

Owns: the lock's shell lines (fixed text; the holder, token and paths are arguments, never parsed by the phone's
shell as code) and reading their answers. Does not own: the transport (transport/adb.py), what runs under the
lease (phone/sweep.py, phone/cli.py).
"""

from __future__ import annotations

import json
import posixpath
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from ..errors import Interrupted, LeaseBusy, LeaseLost, TransportError
from ..lab.lease import DEFAULT_TTL_S
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
    if not holder:
        return "another controller"
    since = holder.get("since")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since)) if isinstance(since, int | float) else "?"
    what = holder.get("sweep_id") or holder.get("purpose") or "a controller"
    return f"{what} from {holder.get('controller') or '?'} since {when}"


def _holder_of(lines: list[str]) -> dict[str, Any] | None:
    for line in lines:
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if isinstance(v, dict):
            return v
    return None


class PhoneLease:
    """The lease on one phone (the board lease's acquire / check / release, and its keepalive)."""

    def __init__(self, transport: ADBTransport, device: str, workdir: str, holder: dict[str, Any],
                 ttl_s: float = DEFAULT_TTL_S) -> None:
        self.transport, self.device = transport, device
        self.path = posixpath.join(workdir.rstrip("/") or "/", LOCK_DIR)
        self.workdir = workdir
        self.holder = {**holder, "since": time.time(), "ttl_s": ttl_s}
        self.ttl_s = ttl_s
        self.token: str | None = None
        self.lost: str | None = None
        self._closed = threading.Event()
        self._keepalive: threading.Thread | None = None

    def _sh(self, script: str, *args: str, timeout: float = 60.0) -> list[str]:
        r = self.transport.run(["sh", "-c", script, "lease", *args], timeout=timeout)
        if r.returncode != 0:
            raise TransportError(f"device {self.device}: the lease lock in {self.workdir} failed "
                                 f"(exit {r.returncode}): {r.stderr.strip()[:200]}", device=self.device)
        return r.stdout.splitlines()

    def _ttl(self) -> str:
        return str(max(1, int(round(self.ttl_s))))

    def acquire(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None = None,
                hint: str = "raise lease_wait_s in the sweep's settings, or run when that sweep is done") -> str:
        """Take the lease, waiting up to wait_s while another controller holds it (LeaseBusy after that, with
        `hint`)."""
        self._sh('mkdir -p "$1"', self.workdir)
        token = uuid.uuid4().hex
        deadline = time.monotonic() + wait_s
        poll = 1.0
        while True:
            lines = self._sh(_ACQUIRE, self.path, json.dumps({**self.holder, "token": token}, sort_keys=True),
                             self._ttl(), token)
            if lines[:1] == ["acquired"]:
                self.token, self.lost = token, None
                if self._keepalive is None:
                    self._keepalive = threading.Thread(target=self._renew_loop, daemon=True,
                                                       name=f"lease-{self.device}")
                    self._keepalive.start()
                return token
            who = describe(_holder_of(lines[1:]))
            if time.monotonic() >= deadline:
                raise LeaseBusy(f"device {self.device} is leased by {who}; waited {wait_s:.0f} s", hint=hint)
            if on_wait is not None:
                on_wait(who)
            if stop.wait(min(poll, max(0.1, deadline - time.monotonic()))):
                raise Interrupted("stopped while waiting for the device lease")
            poll = min(poll * 1.5, 15.0)

    def _renew(self, timeout: float) -> None:
        lines = self._sh(_RENEW, self.path, self.token or "", self._ttl(), timeout=timeout)
        if lines[:1] != ["held"]:
            holder = _holder_of(lines[1:])
            self.lost = f"lease taken over by {describe(holder)}" if holder else "lease not held (its lock is gone)"

    def check(self) -> None:
        """Raise LeaseLost unless the lease is still ours (also proves the phone is still there)."""
        if self.lost:
            raise LeaseLost(self.lost)
        self._renew(timeout=30.0)
        if self.lost:
            raise LeaseLost(self.lost)

    def _renew_loop(self) -> None:
        interval = max(0.2, self.ttl_s / 4.0)
        while not self._closed.wait(interval):
            try:
                self._renew(timeout=max(5.0, self.ttl_s / 2.0))
            except Exception as e:  # the next check() reports it
                self.lost = f"phone unreachable for the lease: {getattr(e, 'message', e)}"
                return

    def release(self) -> None:
        self._closed.set()
        token, self.token = self.token, None
        if token is None:
            return
        try:
            self._sh(_RELEASE, self.path, token, timeout=15.0)
        except Exception:  # the phone is gone; the lock expires after ttl_s
            pass
