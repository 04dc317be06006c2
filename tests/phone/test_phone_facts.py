"""A phone's facts for `devices check`, read over adb from the stand-in phone (each adb client)."""

from __future__ import annotations

import phone_tree as tree
from phone_adbd import serial

from edgeprof.phone.facts import parse_thermal, read_facts
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof.transport.adb import open_adb


def phone_device(d, adb_client: str, server_port: int, **phone) -> Device:  # type: ignore[no-untyped-def]
    return Device(name="pixel", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                  phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port, **phone))


def test_facts(adb_client, server_port, phone):
    dev = phone_device(phone, adb_client, server_port,
                       benchmark_model=BenchmarkModel(phone_path="/data/local/tmp/benchmark_model"))
    (phone.root / "data/local/tmp/benchmark_model").write_bytes(tree.benchmark_model_script().read_bytes())
    (phone.root / "data/local/tmp/benchmark_model").chmod(0o755)
    (phone.root / "vendor/lib64").mkdir(parents=True)
    (phone.root / "vendor/lib64/libOpenCL.so").write_bytes(b"")
    typed = read_facts(open_adb(dev), dev)
    assert typed.benchmark_model.ok and typed.battery.capacity_pct == 78 and typed.thermal.status_name == "none"
    facts = typed.to_dict()  # what `devices check --json` shows
    assert facts["model"] == "Google Pixel 6"
    assert (facts["soc"], facts["android"], facts["abi"]) == ("Google GS101", "14", "arm64-v8a")
    assert len(facts["cpus"]) == 8
    assert facts["cpus"][7] == {"cpu": 7, "part": "0xd44", "max_mhz": 2802, "cur_mhz": 1868}
    assert facts["battery"] == {"status": "Discharging", "capacity_pct": 78, "charging": False, "deviations": []}
    assert facts["power_source"] == "battery" and facts["rails"] == []
    assert facts["thermal"]["status"] == 0 and facts["thermal"]["temperatures_c"]["skin"] == 32.0
    assert facts["benchmark_model"]["state"] == "ok"
    assert "use_gpu" in facts["benchmark_model"]["delegate_flags"]
    assert facts["delegates"] == ["cpu", "xnnpack", "gpu", "nnapi"]


def test_charging_and_hot_phone(adb_client, server_port, phone):
    tree.set_battery(phone.root, charging=True, level=96)
    tree.set_thermal(phone.root, 3)
    dev = phone_device(phone, adb_client, server_port)
    facts = read_facts(open_adb(dev), dev).to_dict()
    assert facts["battery"]["charging"] is True
    assert facts["thermal"]["status_name"] == "severe"
    assert facts["benchmark_model"]["state"].startswith("not configured")


def test_thermal_dump_without_status() -> None:
    t = parse_thermal("IsStatusOverride: false\nHAL Ready: false\n")
    assert (t.status, t.status_name, t.temperatures_c) == (None, "unknown", {})
