"""Phones other than the Pixel, from the captures of tests/data/phones (sources in each SOURCES.md): a Samsung Galaxy
(current_now in mA, Samsung's thermal HAL names) and a Qualcomm reference device (current positive while
discharging, QTI thermal names); `devices check` shows their facts, the power reader states each deviation. Hostile:
a phone whose dumpsys prints garbage."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import StandInAdbd, serial

from edgeprof.cli.main import main
from edgeprof.phone.facts import read_facts
from edgeprof.phone.runner import PhoneRunner
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof.transport.adb import open_adb, sha256_file

SAMSUNG, QUALCOMM = "samsung-galaxy-a52-5g", "qualcomm-sm8250-qrd"


def test_the_captures_cite_their_sources() -> None:
    assert set(tree.captures()) >= {SAMSUNG, QUALCOMM}
    for name in tree.captures():
        text = (tree.CAPTURES / name / "SOURCES.md").read_text()
        assert "made up" in text and "getprop" in text


@pytest.fixture
def captured(request: pytest.FixtureRequest, phone_root: Path):
    tree.build(phone_root, capture=request.param)
    d = StandInAdbd(phone_root)
    yield d
    d.close()


def device(d: StandInAdbd, adb_client: str, server_port: int) -> Device:
    return Device(name="phone", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                  phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port,
                                    benchmark_model=BenchmarkModel(host_path=str(tree.benchmark_model_script()))))


@pytest.mark.parametrize("captured", [SAMSUNG], indirect=True)
def test_samsung_facts(adb_client, server_port, captured):
    dev = device(captured, adb_client, server_port)
    f = read_facts(open_adb(dev), dev)
    assert (f.model, f.soc, f.android, f.sdk) == ("samsung SM-A526B", "lito", "12", "31")  # no ro.soc.* (Android 11 launch)
    assert [c["part"] for c in f.cpus] == ["0xd05"] * 6 + ["0xd0d"] * 2 and f.cpus[7]["max_mhz"] == 2208
    assert f.battery.current_ua == -318 and f.battery.deviations() == ["current_now in mA, not µA"]
    assert f.power_source == "battery (current_now in mA, not µA)" and f.rails is None
    t = f.thermal
    assert t.status_name == "none" and t.temperatures_c["AP"] == 25.6 and t.temperatures_c["BAT"] == 23.8
    assert f.delegates == ["cpu", "xnnpack", "gpu", "nnapi"]


@pytest.mark.parametrize("captured", [QUALCOMM], indirect=True)
def test_qualcomm_devices_check(adb_client, server_port, captured, tmp_path, capsys):
    inv = tmp_path / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(captured)}'\n"
                   f"    adb: {adb_client}\n    adb_server_port: {server_port}\n")
    assert main(["devices", "check", "--inventory", str(inv), "--no-store", "--json", "phone"]) == 0
    p = json.loads(capsys.readouterr().out)[0]["phone"]
    assert (p["model"], p["soc"], p["android"]) == ("QUALCOMM Kona for arm64", "QTI SM8250", "12")
    assert [c["max_mhz"] for c in p["cpus"]] == [1804] * 4 + [2419] * 3 + [2841]
    assert p["battery"]["deviations"] == ["current_now positive while discharging (the ABI's sign is negative)"]
    assert p["thermal"]["status_name"] == "light" and p["thermal"]["temperatures_c"]["skin-msm-therm"] == 36.0
    assert p["delegates"] == ["cpu", "xnnpack", "gpu", "nnapi", "qnn (external delegate)"]
    assert main(["devices", "check", "--inventory", str(inv), "--no-store", "phone"]) == 0
    text = capsys.readouterr().out
    for want in ("Kona", "SM8250", "71%", "light (1)", "qnn"):  # the table wraps its cells
        assert want in text


@pytest.mark.parametrize("captured, watts, warning, sign", [  # the reader states each deviation
    (SAMSUNG, 0.318 * 3.874, "current_now looks like mA", "negative"),
    (QUALCOMM, 0.463 * 3.951, "positive while discharging", "positive")], indirect=["captured"],
    ids=["samsung", "qualcomm"])
def test_battery_power_on_each(adb_client, server_port, captured, tmp_path, watts, warning, sign):
    s = PhoneRunner(open_adb(dev := device(captured, adb_client, server_port)), dev)
    m = tmp_path / "m.tflite"
    m.write_bytes(b"TFL3" + bytes(4000))
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    run = s.measure(remote, num_runs=10, warmup_runs=1, min_secs=0.5)
    assert run.power is not None, run.power_reason
    assert run.power.source == "battery" and run.power.mean_w == pytest.approx(watts, rel=1e-6)
    assert run.power.discharge_sign == sign
    assert [w for w in run.warnings if warning in w], run.warnings
    # stored: the deviation in the phone section, the power's warnings, and results show's phone lines
    from edgeprof.cli.ui import phone_lines
    from edgeprof.phone.result import phone_result
    from edgeprof.records import RunSpec

    r = phone_result(RunSpec(model="m.tflite", runtime="tflite", device=dev.name), dev, None, run, None,
                     delegate="xnnpack")
    assert r.phone is not None and r.phone.battery is not None and r.power is not None
    deviations = r.phone.battery["deviations"]
    assert deviations and r.power.source == "battery" and [w for w in r.power.warnings if warning in w]
    assert f"battery: deviates from the kernel ABI: {'; '.join(deviations)}" in phone_lines(r)


@pytest.mark.parametrize("captured", [SAMSUNG], indirect=True)
def test_dumpsys_garbage_falls_back_to_thermal_zones(adb_client, server_port, captured):
    (captured.root / "vendor/replay/dumpsys/thermalservice.txt").write_bytes(b"\x00\xff\x1b[2J Thermal Status: x\n" * 3)
    (captured.root / "vendor/replay/dumpsys/battery.txt").write_bytes(b"\xde\xad\xbe\xef")
    dev = device(captured, adb_client, server_port)
    f = read_facts(open_adb(dev), dev)
    assert f.thermal.status is None and f.thermal.status_name == "unknown"
    assert f.thermal.temperatures_c == {"ap_therm": 25.6, "battery": 23.8, "pa_therm0": 25.7, "cpu-0-0-usr": 27.1,
                                        "cpu-1-0-usr": 28.3, "gpuss-0-usr": 26.4}
    assert f.model == "samsung SM-A526B"  # the rest of the facts are unaffected
