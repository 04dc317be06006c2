"""Environment.device (schema 10): the facts of the device a result was measured on, one typed record per kind.

Owns: PhoneDeviceFacts (a phone's facts as a result keeps them: what `devices check` read over adb, with the
keys compare's fingerprint and the report read under the same names a board's facts use), the DeviceFacts union
(BoardFacts — the agent's facts reply, rendered in wire_sections.py — or PhoneDeviceFacts, or None: no facts
were read, a failed or skipped sweep row) and device_facts_from_dict, which picks the record by `kind`.
Does not own: reading the facts (the agent's environment.py; phone/device.py read_facts), the migration of an
older result's facts (schema.py _migrate_9_to_10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .section import Section, by_kind
from .wire_sections import BoardFacts


@dataclass(frozen=True)
class PhoneDeviceFacts(Section):
    """A phone's facts (phone/device.py PhoneFacts) as a result keeps them. `board_model`, `cpu`, `arch`, `cores`
    and `os` are the board fact names compare's fingerprint and the report read (the phone's model, SoC, ABI, CPU
    count, "Android V (SDK N)"). Every field may be null: a phone run whose facts could not be read keeps only
    its kind. `cpus`, `battery`, `thermal` and `benchmark_model` keep phone/device.py's shapes
    ({cpu, part, max_mhz, cur_mhz}; {status, capacity_pct, charging, deviations}; {status, status_name,
    temperatures_c}; benchmark_model's self report)."""

    SECTION: ClassVar[str] = "environment.device"
    kind: Literal["phone"] = "phone"
    board_model: str | None = None
    cpu: str | None = None
    arch: str | None = None
    cores: int | None = None
    os: str | None = None
    model: str | None = None
    soc: str | None = None
    android: str | None = None
    sdk: str | None = None
    abi: str | None = None
    cpus: list[dict[str, Any]] | None = None
    battery: dict[str, Any] | None = None
    power_source: str | None = None
    rails: list[str] | None = None
    thermal: dict[str, Any] | None = None
    benchmark_model: dict[str, Any] | None = None
    delegates: list[str] | None = None


DeviceFacts = BoardFacts | PhoneDeviceFacts
DEVICE_KINDS: dict[str, type[BoardFacts] | type[PhoneDeviceFacts]] = {"board": BoardFacts, "phone": PhoneDeviceFacts}


def device_facts_from_dict(d: Any) -> DeviceFacts | None:
    """Environment.device from its JSON (schema 10): null, or an object whose `kind` names its record."""
    return by_kind(d, "environment.device", DEVICE_KINDS)
