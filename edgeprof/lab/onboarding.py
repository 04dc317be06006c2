"""Bringing a device into the lab: the operations behind `edgeprof devices check` and `edgeprof devices trust`.

Owns: checking one device step by step (reachable → authenticated → remote Python new enough → agent facts), doing
that for many devices in parallel threads, storing the facts, and the trust workflow (fetch the host key, show its
fingerprint, record it after a person confirms; never silently, never over a changed key without `replace`).
Does not own: the inventory (inventory/), connections (transport), the agent protocol (agentlink), the results
database (store) or printing (cli.devices).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from edgeprof_agent.messages import Facts

from ..errors import DeviceError, HostKeyError, TransportError, UserError
from ..inventory.known_hosts import DEFAULT_USER_KNOWN_HOSTS, KnownKey, Recorded, record_host_key
from ..records import Device
from ..transport import Transport, open_transport

MIN_PYTHON = (3, 6)
PYTHON_PROBE = "import sys; print('%d.%d.%d' % tuple(sys.version_info[:3]))"  # valid Python 2 and 3

TransportFactory = Callable[[Device], Transport]


@dataclass
class CheckResult:
    """What `devices check` learned about one device. `stage` is where it stopped ("ok" when it did not)."""

    device: str
    address: str
    ok: bool = False
    stage: str = "connect"  # connect | hostkey | auth | python | agent | ok
    reachable: bool | None = None
    authenticated: bool | None = None
    python: str | None = None
    facts: Facts | None = None  # the agent's typed facts answer
    error: str | None = None
    detail: str | None = None
    seconds: float = 0.0
    facts_saved_at: str | None = None
    agent_bytes_moved: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["facts"] = self.facts.to_dict() if self.facts is not None else None
        return d


def address(device: Device) -> str:
    if device.kind == "local":
        return "this machine"
    return f"{device.host}:{device.port or 22}"


def remote_python_version(transport: Transport, device: Device, timeout: float = 60.0) -> str:
    """The device interpreter's version ("3.6.9"), checked before any agent is started.

    Raises DeviceError when the interpreter is missing, broken, or older than MIN_PYTHON.
    """
    where = f" ({device.source})" if device.source else ""
    r = transport.run([device.python, "-c", PYTHON_PROBE], timeout=timeout)
    if r.returncode == 127 or (r.returncode != 0 and "not found" in r.stderr):
        raise DeviceError(f"device {device.name}: {device.python!r} not found",
                          hint=f"install Python >= {'.'.join(map(str, MIN_PYTHON))} on the board, or set python: "
                               f"for it in devices.yaml{where}")
    m = re.search(r"^(\d+)\.(\d+)\.(\d+)\s*$", r.stdout, re.MULTILINE)
    if r.returncode != 0 or not m:
        tail = (r.stderr or r.stdout).strip().splitlines()
        raise DeviceError(f"device {device.name}: {device.python!r} did not report a version (exit "
                          f"{r.returncode}{': ' + tail[-1] if tail else ''})",
                          hint=f"check python: in devices.yaml{where}")
    version = tuple(int(x) for x in m.groups())
    text = ".".join(m.groups())
    if version[:2] < MIN_PYTHON:
        raise DeviceError(f"device {device.name}: {device.python} is Python {text}; the agent needs Python >= "
                          f"{'.'.join(map(str, MIN_PYTHON))}",
                          hint=f"set python: to a newer interpreter in devices.yaml{where} (JetPack 4 ships "
                               "python3.6)")
    return text


def check_device(device: Device, *, transport_factory: TransportFactory | None = None,
                 agent_timeout: float = 120.0) -> CheckResult:
    """Check one device; never raises for a device problem (it becomes the result's error)."""
    from ..agentlink import AgentLink

    factory = transport_factory or open_transport
    res = CheckResult(device=device.name, address=address(device))
    start = time.monotonic()
    transport: Transport | None = None
    try:
        transport = factory(device)
        connect = getattr(transport, "connect", None)
        if callable(connect):
            connect()
        res.reachable = bool(getattr(transport, "reached", True))
        res.authenticated = True
        res.stage = "python"
        res.python = remote_python_version(transport, device)
        res.stage = "agent"
        link = AgentLink.open(transport, device)
        try:
            res.agent_bytes_moved = link.bytes_moved
            res.facts = link.facts(timeout=agent_timeout)
        finally:
            link.close()
        res.stage = "ok"
        res.ok = True
    except UserError as e:
        res.error = e.one_line()
        res.detail = e.detail
        if res.stage == "connect":
            if isinstance(e, HostKeyError):
                res.stage, res.reachable = "hostkey", True
            elif transport is not None and getattr(transport, "reached", False):
                res.stage, res.reachable, res.authenticated = "auth", True, False
            else:
                res.reachable = False
    finally:
        if transport is not None:
            try:
                transport.close()
            except (UserError, OSError):
                pass
        res.seconds = round(time.monotonic() - start, 3)
    return res


def check_devices(devices: Sequence[Device], *, transport_factory: TransportFactory | None = None,
                  max_workers: int = 16, save_facts: Callable[[str, Facts], str] | None = None
                  ) -> list[CheckResult]:
    """Check all devices in parallel threads (results in the order given); facts saved from this thread."""
    if not devices:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(devices))),
                            thread_name_prefix="edgeprof-check") as pool:
        results = list(pool.map(lambda d: check_device(d, transport_factory=transport_factory), devices))
    if save_facts is not None:
        for r in results:
            if r.facts is not None:
                r.facts_saved_at = save_facts(r.device, r.facts)
    return results


# -- trust ------------------------------------------------------------------------------------------------------


@dataclass
class HostKeyOffer:
    """The key a device presents, and where `trust` would record it."""

    device: str
    host_id: str
    keytype: str
    blob: bytes
    fingerprint: str
    status: str  # trusted | unknown | changed | revoked
    target: str  # known_hosts file to write
    recorded: list[KnownKey] = field(default_factory=list)
    matched: KnownKey | None = None


def known_hosts_target(device: Device, user_known_hosts: str | None = None) -> str:
    """Where `trust` writes: the device's lab known_hosts file if it names one, else ~/.ssh/known_hosts."""
    import os

    return os.path.expanduser(device.known_hosts or user_known_hosts or DEFAULT_USER_KNOWN_HOSTS)


def fetch_host_key(device: Device, *, user_known_hosts: str | None = None,
                   ssh_config: str | None = None) -> HostKeyOffer:
    """Connect (no authentication to the device itself) and report the host key it presents."""
    if device.kind != "ssh":
        raise DeviceError(f"device {device.name} is not reached over SSH; there is no host key to trust")
    from ..transport.ssh import SSHTransport

    t = SSHTransport(device, user_known_hosts=user_known_hosts, ssh_config=ssh_config)
    hid, keytype, blob, verdict = t.host_key()
    return HostKeyOffer(device.name, hid, keytype, blob, verdict.fingerprint, verdict.status,
                        known_hosts_target(device, user_known_hosts), list(verdict.recorded), verdict.matched)


def record_trust(device: Device, offer: HostKeyOffer, *, replace: bool = False,
                 user_known_hosts: str | None = None) -> Recorded:
    """Record the offered key. A changed key needs `replace`; a revoked key is never recorded."""
    from ..transport.ssh import host_key_error

    if offer.status == "revoked":
        raise HostKeyError(f"device {device.name}: host key {offer.fingerprint} is revoked "
                           f"({offer.matched.where if offer.matched else 'known_hosts'})",
                           hint="do not trust it; find out why it was revoked")
    files = [user_known_hosts or DEFAULT_USER_KNOWN_HOSTS] + ([device.known_hosts] if device.known_hosts else [])
    if offer.status == "changed" and not replace:
        from ..inventory.known_hosts import Verdict

        raise host_key_error(f"device {device.name} ({address(device)})", offer.host_id,
                             Verdict("changed", offer.keytype, offer.fingerprint, recorded=offer.recorded),
                             device.name, files)
    try:
        return record_host_key(offer.target, offer.host_id, offer.keytype, offer.blob, replace=replace,
                               also_read=files)
    except HostKeyError:
        raise
    except OSError as e:
        raise TransportError(f"cannot write {offer.target}: {e}") from None
