"""Device: one board in the lab (from devices.yaml), or the built-in `local` device.

Owns: the Device record and local_device(). Does not own: reading devices.yaml (inventory.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Device:
    """One board in the lab (from devices.yaml), or the built-in `local` device (this machine)."""

    name: str
    kind: str = "ssh"  # "local" | "ssh" | "adb" (a phone: edgeprof/phone/)
    host: str | None = None
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    python: str = "python3"
    workdir: str = "~/.cache/edgeprof"
    env: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    power: dict[str, Any] | None = None
    sysfs_root: str = "/"
    connect_timeout: float = 10.0
    known_hosts: str | None = None  # extra lab known_hosts file
    source: str | None = None  # "devices.yaml:14" where it was defined
    controller: str | None = None  # lab queue: the controller host whose worker drives it (queue lab.<controller>)
    phone: dict[str, Any] | None = None  # kind "adb": serial, adb, benchmark_model, ... (inventory.PHONE_KEYS)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if d["phone"] is None:  # a board's record stays as it was before phones
            del d["phone"]
        return d


def local_device(python: str | None = None) -> Device:
    """The built-in device `local`: this machine, agent run as a subprocess with this interpreter."""
    import sys

    return Device(name="local", kind="local", python=python or sys.executable, workdir="~/.cache/edgeprof")
