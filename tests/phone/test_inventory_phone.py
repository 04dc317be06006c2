"""devices.yaml phones (transport: adb): parsed into Device(kind="adb"), and every mistake a file:line error."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import load_inventory
from edgeprof.records.device import BenchmarkModel, PhoneConfig, PhonePower


def load(tmp_path: Path, body: str):  # type: ignore[no-untyped-def]
    p = tmp_path / "devices.yaml"
    p.write_text(textwrap.dedent(body))
    return load_inventory(str(p), ssh_config_path=str(tmp_path / "no-ssh-config"), environ={})


def test_phone_entry(tmp_path: Path) -> None:
    (tmp_path / "bm").write_text("x")
    inv = load(tmp_path, """\
        version: 1
        devices:
          pixel:
            transport: adb
            serial: 127.0.0.1:40123
            adb: /usr/bin/adb
            adb_server_port: 15037
            benchmark_model: bm
            tags: {class: phone}
            power: {source: battery, rate_hz: 5}
            thermal: {warn_status: 2}
          pixel2:
            transport: adb
            benchmark_model: phone:/data/local/tmp/benchmark_model
            litert_lm_main: phone:/data/local/tmp/litert_lm_main
        """)
    d = inv.get("pixel")
    assert (d.kind, d.workdir, d.tags, d.source) == ("adb", "/data/local/tmp/edgeprof", {"class": "phone"},
                                                     f"{tmp_path}/devices.yaml:3")
    assert d.phone == PhoneConfig(serial="127.0.0.1:40123", adb="/usr/bin/adb", adb_server_port=15037,
                                  benchmark_model=BenchmarkModel(host_path=str(tmp_path / "bm")),
                                  thermal_warn_status=2, power=PhonePower("battery", 5))
    assert d.phone.warn_status == 2 and d.phone.measures_power
    shown = d.to_dict()  # `devices list --json`: the shape it had before the record was typed
    assert shown["phone"] == {"serial": "127.0.0.1:40123", "adb": "/usr/bin/adb", "adb_server_port": 15037,
                              "benchmark_model": {"host_path": str(tmp_path / "bm")}, "thermal": {"warn_status": 2}}
    assert shown["power"] == {"source": "battery", "rate_hz": 5}
    d2 = inv.get("pixel2")
    assert d2.phone is not None and d2.phone.serial is None and d2.phone.warn_status == 1
    assert d2.phone.benchmark_model == BenchmarkModel(phone_path="/data/local/tmp/benchmark_model")
    assert d2.to_dict()["phone"]["thermal"] == {} and d2.to_dict()["power"] is None
    # LiteRT-LM's tool, written as benchmark_model is; shown only where written (pixel's shape above is unchanged)
    assert d2.phone.litert_lm_main == BenchmarkModel(phone_path="/data/local/tmp/litert_lm_main")
    assert d2.to_dict()["phone"]["litert_lm_main"] == {"phone_path": "/data/local/tmp/litert_lm_main"}


def test_board_record_has_no_phone_key(tmp_path: Path) -> None:
    inv = load(tmp_path, "version: 1\ndevices:\n  b: {host: 10.0.0.2}\n")
    assert "phone" not in inv.get("b").to_dict()


@pytest.mark.parametrize("body, expect", [
    ("  p: {transport: adb, host: x}\n", "devices.yaml:3 devices.p.host: does not apply to a phone"),
    ("  p: {transport: usb}\n", "devices.p.transport: unknown transport 'usb'"),
    ("  p: {host: h, serial: ABC}\n", "devices.yaml:3 devices.p.serial: applies only to a phone"),
    ("  p: {transport: adb, serial: 'a b'}\n", "devices.p.serial"),
    ("  p: {transport: adb, adb_server_port: 80}\n", "devices.p.adb_server_port"),
    ("  p: {transport: adb, benchmark_model: 'phone:rel/bm'}\n", "must be an absolute path on the phone"),
    ("  p: {transport: adb, litert_lm_main: 'phone:rel/lm'}\n", "devices.p.litert_lm_main: 'rel/lm' must be an "
                                                                 "absolute path on the phone"),
    ("  p: {host: h, litert_lm_main: lm}\n", "devices.yaml:3 devices.p.litert_lm_main: applies only to a phone"),
    ("  p: {transport: adb, power: {source: rapl}}\n", "a phone measures power from its battery"),
    ("  p: {transport: adb, workdir: ~/x}\n", "devices.p.workdir: must be an absolute path on the phone"),
    ("  p: {transport: adb, thermal: {warn: 2}}\n", "devices.p.thermal.warn: unknown key"),
    ("  p: {transport: adb, thermal: {warn_status: 9}}\n", "devices.p.thermal.warn_status"),
])
def test_phone_errors(tmp_path: Path, body: str, expect: str) -> None:
    with pytest.raises(ConfigError) as e:
        load(tmp_path, "version: 1\ndevices:\n" + body)
    assert expect in str(e.value)


def test_battery_power_is_for_phones_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"devices.yaml:3 devices.b.power.source: battery applies only to a phone"):
        load(tmp_path, "version: 1\ndevices:\n  b: {host: h, power: {source: battery}}\n")


def test_the_pipeline_refuses_what_a_phone_cannot_measure_in_one_line_before_connecting() -> None:
    from edgeprof.records import Device, RunSpec
    from edgeprof.session import deploy

    # no phone, and no adb server: a refusal reached the device would be a TransportError
    phone = Device(name="pixel", kind="adb", phone=PhoneConfig(adb_server_port=1))
    with pytest.raises(ConfigError, match="^device pixel: --scenario offline is not supported on phones yet$"):
        deploy(RunSpec(device="pixel", model="ds_cnn", scenario="offline"), phone)


def test_devices_list_shows_a_phone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.main import main

    p = tmp_path / "devices.yaml"
    p.write_text("version: 1\ndevices:\n  pixel: {transport: adb, serial: 1A2B3C, tags: {class: phone}}\n")
    assert main(["devices", "list", "--inventory", str(p)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "pixel" in ln)
    cells = [c.strip() for c in line.split("│")[1:-1]]
    assert cells == ["pixel", "1A2B3C", "-", "-", "/data/local/tmp/edgeprof", "class=phone", "battery", "adb"]


def test_devices_list_power_column_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from edgeprof.cli.main import main

    p = tmp_path / "devices.yaml"
    p.write_text(textwrap.dedent("""\
        version: 1
        devices:
          nano: {host: 10.0.0.5, power: {source: jetson-ina3221, rail: VDD_IN, rate_hz: 50}}
          pi: {host: 10.0.0.6}
          pixel: {transport: adb, power: {rate_hz: 2}}
          quiet: {transport: adb, power: {source: none}}
        """))
    assert main(["devices", "list", "--inventory", str(p)]) == 0
    power = {cells[0]: cells[6] for cells in ([c.strip() for c in ln.split("│")[1:-1]]
                                              for ln in capsys.readouterr().out.splitlines() if "│" in ln)}
    assert (power["nano"], power["pi"], power["pixel"], power["quiet"]) == (
        "jetson-ina3221 VDD_IN 50 Hz", "auto", "battery 2 Hz", "none")  # a phone measures its battery, never "auto"
    assert main(["devices", "list", "--inventory", str(p), "--json"]) == 0
    shown = {d["name"]: d for d in json.loads(capsys.readouterr().out)["devices"]}
    assert shown["nano"]["power"] == {"source": "jetson-ina3221", "rail": "VDD_IN", "rate_hz": 50}
    assert shown["pixel"]["power"] == {"rate_hz": 2} and shown["pi"]["power"] is None  # as written
    assert "phone" not in shown["nano"] and shown["quiet"]["phone"]["benchmark_model"] is None
