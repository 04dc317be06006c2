"""`edgeprof devices check` for phones: connect over adb, read the phone's facts (device.read_facts), one line for
whatever failed. Never raises for a phone problem."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ..records import Device
from .facts import PhoneFacts


@dataclass
class PhoneCheck:
    device: str
    address: str
    ok: bool = False
    stage: str = "connect"  # connect | facts | ok
    phone: PhoneFacts | None = None
    error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"device": self.device, "address": self.address, "ok": self.ok, "stage": self.stage,
                "phone": self.phone.to_dict() if self.phone is not None else None, "error": self.error,
                "seconds": self.seconds}


def address(device: Device) -> str:
    return f"adb {device.host or '(the only device)'}"


def check_phone(device: Device) -> PhoneCheck:
    from ..transport.adb import open_adb
    from .facts import read_facts

    res = PhoneCheck(device=device.name, address=address(device))
    start = time.monotonic()
    try:
        t = open_adb(device)
        res.stage = "facts"
        res.phone = read_facts(t, device)
        res.stage, res.ok = "ok", True
    except UserError as e:
        res.error = e.one_line()
    finally:
        res.seconds = round(time.monotonic() - start, 3)
    return res


def check_phones(devices: Sequence[Device]) -> list[PhoneCheck]:
    if not devices:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(devices)), thread_name_prefix="edgeprof-phone") as pool:
        return list(pool.map(check_phone, devices))


def rows(r: PhoneCheck) -> list[str]:
    """One table row: device, adb, model, SoC, Android / ABI, CPU clocks, battery, thermal, benchmark_model,
    delegates."""
    p = r.phone
    if p is None:
        return [r.device, r.address, "[red]no[/red]", *["-"] * 7]
    clocks: dict[str, int] = {}
    for c in p.cpus:
        key = f"{c.get('part', '?')}@{c.get('max_mhz') or '?'}MHz"
        clocks[key] = clocks.get(key, 0) + 1
    cpu = " ".join(f"{n}×{k}" for k, n in clocks.items()) or "-"
    b = p.battery
    battery = f"{b.capacity_pct if b.capacity_pct is not None else '?'}% {b.status or '?'}\npower: {p.power_source}"
    th = p.thermal
    thermal = f"{th.status_name} ({th.status})" if th.status is not None else "unknown"
    bm = p.benchmark_model
    bm_text = f"ok ({bm.flags} flags)" if bm.ok else bm.state
    return [r.device, r.address, "[green]ok[/green]", p.model, p.soc or "-",
            f"Android {p.android} (SDK {p.sdk})\n{p.abi}", cpu, battery, thermal,
            f"{bm_text}\n{', '.join(p.delegates)}"]


COLUMNS = ("phone", "address", "adb", "model", "SoC", "Android / ABI", "CPU cores", "battery", "thermal",
           "benchmark_model / delegates")
