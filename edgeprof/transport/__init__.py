"""Transports: how the host reaches a device. `open_transport(device)` picks the mechanism by device kind."""

from __future__ import annotations

from ..errors import DeviceError
from ..records import Device
from .base import AgentProcess, CommandResult, Transport, quote_argv

__all__ = ["AgentProcess", "CommandResult", "Transport", "open_transport", "quote_argv"]


def open_transport(device: Device, on_stderr=None) -> Transport:
    if device.kind == "local":
        from .local import LocalTransport

        return LocalTransport(device.name, on_stderr=on_stderr)
    if device.kind == "ssh":
        from .ssh import SSHTransport

        return SSHTransport(device, on_stderr=on_stderr)
    if device.kind == "adb":
        from .adb import open_adb

        return open_adb(device)
    raise DeviceError(f"device {device.name!r} has unknown kind {device.kind!r}", hint="use 'ssh' or 'local'")
