"""Device: one board in the lab (from devices.yaml), or the built-in `local` device; a phone's own settings.

Owns: the Device record, the typed phone settings of a `transport: adb` entry (PhoneConfig, BenchmarkModel,
PhonePower) and local_device(). Every default of a phone setting is declared once, here.
Does not own: reading devices.yaml (inventory.py), the agent's power configuration record (edgeprof_agent
messages.PowerConfig, which `power_config` builds).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from edgeprof_agent.messages import PowerConfig

DEFAULT_THERMAL_WARN_STATUS = 1  # PowerManager THERMAL_STATUS_LIGHT: warn from "light" throttling up


@dataclass(frozen=True)
class BenchmarkModel:
    """Where a phone tool (LiteRT's benchmark_model, LiteRT-LM's litert_lm_main) comes from: a host file pushed by
    content, or a path already on the phone."""

    host_path: str | None = None
    phone_path: str | None = None

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in (("host_path", self.host_path), ("phone_path", self.phone_path)) if v is not None}


@dataclass(frozen=True)
class PhonePower:
    """A phone's `power:` block as written: its battery or none (None: not written, the battery), and the battery
    sampler's rate."""

    source: str | None = None  # battery | none
    rate_hz: float | None = None

    @property
    def measured(self) -> str:
        """What is measured: "battery" or "none"."""
        return self.source or "battery"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in (("source", self.source), ("rate_hz", self.rate_hz)) if v is not None}


@dataclass(frozen=True)
class PhoneConfig:
    """The settings of a `transport: adb` entry (docs/phones.md); None: adb's own choice (the only device, the
    adb on PATH, its default server port) or not configured."""

    serial: str | None = None
    adb: str | None = None
    adb_server_port: int | None = None
    benchmark_model: BenchmarkModel | None = None
    thermal_warn_status: int | None = None  # thermal.warn_status in devices.yaml
    power: PhonePower | None = None  # the power: block as written (None: not written; the battery is measured)
    litert_lm_main: BenchmarkModel | None = None  # LiteRT-LM's benchmark tool (generative .litertlm models)

    @property
    def warn_status(self) -> int:
        """The thermal status from which a run warns that the phone may have throttled."""
        return DEFAULT_THERMAL_WARN_STATUS if self.thermal_warn_status is None else self.thermal_warn_status

    @property
    def measures_power(self) -> bool:
        return self.power is None or self.power.measured != "none"

    def to_dict(self) -> dict[str, Any]:
        """The shape `devices list --json` has always shown (power is the Device's key): the connection settings
        under their devices.yaml keys (the fields' own names: serial, the adb client, its server port), then
        benchmark_model and thermal as written."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                               if f.name not in ("benchmark_model", "thermal_warn_status", "power", "litert_lm_main")}
        out["benchmark_model"] = self.benchmark_model.to_dict() if self.benchmark_model is not None else None
        out["thermal"] = {} if self.thermal_warn_status is None else {"warn_status": self.thermal_warn_status}
        if self.litert_lm_main is not None:  # shown only where written (the shape above is unchanged otherwise)
            out["litert_lm_main"] = self.litert_lm_main.to_dict()
        return out


@dataclass
class Device:
    """One board in the lab (from devices.yaml), or the built-in `local` device (this machine)."""

    name: str
    kind: str = "ssh"  # "local" | "ssh" | a phone's (edgeprof/session/phone.KIND; its measurer: session/phone.py)
    host: str | None = None
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    python: str = "python3"
    workdir: str = "~/.cache/edgeprof"
    env: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    # a board's devices.yaml `power:` block, validated by the inventory (run/execute.py adds --power-rate and
    # sends it as the agent's PowerConfig); a phone's is phone.power
    power: dict[str, Any] | None = None
    sysfs_root: str = "/"
    connect_timeout: float = 10.0
    known_hosts: str | None = None  # extra lab known_hosts file
    source: str | None = None  # "devices.yaml:14" where it was defined
    controller: str | None = None  # lab queue: the controller host whose worker drives it (queue lab.<controller>)
    phone: PhoneConfig | None = None  # a phone's: serial, adb, benchmark_model, ... (inventory.PHONE_KEYS)
    gpu: int | None = None  # devices.yaml gpu: the GPU runs use (NVML's index); a deploy's --gpu overrides it

    def power_config(self) -> PowerConfig | None:
        """A board's power block as the agent's record (None: not written, i.e. auto)."""
        return PowerConfig.from_dict(self.power) if self.power is not None else None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["env"], d["tags"] = dict(self.env), dict(self.tags)
        d["power"] = dict(self.power) if self.power is not None else None
        if self.gpu is None:  # a record stays as it was before gpu: unless it names one
            del d["gpu"]
        if self.phone is None:  # a board's record stays as it was before phones
            del d["phone"]
        else:
            d["phone"] = self.phone.to_dict()
            if self.phone.power is not None:
                d["power"] = self.phone.power.to_dict()
        return d


def local_device(python: str | None = None) -> Device:
    """The built-in device `local`: this machine, agent run as a subprocess with this interpreter."""
    import sys

    return Device(name="local", kind="local", python=python or sys.executable, workdir="~/.cache/edgeprof")
