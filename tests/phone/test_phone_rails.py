"""Pixel's on-device power rails (ODPM) on the stand-in phone: read before and after the window, energy per rail and
their sum, preferred over the battery (and measured while charging); a malformed rail line is named and left out."""

from __future__ import annotations

from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import StandInAdbd, serial

from edgeprof.cli.main import main
from edgeprof.phone.rails import parse_rails, rails_power
from edgeprof.phone.runner import PhoneRunner
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof.transport.adb import open_adb, sha256_file


def _read(t_ms: int, cpucl2: int, cpucl0: int, g3d: int) -> str:
    """What read_rails' shell loop prints for two meters (energy_value as the ODPM driver writes it)."""
    return (f"== /sys/bus/iio/devices/iio:device0\nt={t_ms}\nCH0(T={t_ms})[S2M_VDD_CPUCL2], {cpucl2}\n"
            f"CH1(T={t_ms})[S4M_VDD_CPUCL0], {cpucl0}\n== /sys/bus/iio/devices/iio:device1\nt={t_ms + 2}\n"
            f"CH5(T={t_ms + 2})[S2S_VDD_G3D], {g3d}\n")


READ_1, READ_2 = _read(1000, 5000000, 100000, 7000), _read(3000, 6240000, 290000, 19000)


def test_rails_energy_and_sum() -> None:
    a, b = parse_rails(READ_1), parse_rails(READ_2)
    assert a is not None and a.meters == {"iio:device0": 1000, "iio:device1": 1002} and a.problems == []
    p, reason, warnings = rails_power(a, b)
    assert reason is None and warnings == [] and p is not None
    by = {r.rail: r for r in p.rails}
    assert by["S2M_VDD_CPUCL2"].energy_j == pytest.approx(1.24) and by["S2M_VDD_CPUCL2"].mean_w == pytest.approx(0.62)
    assert by["S2S_VDD_G3D"].mean_w == pytest.approx(0.006)
    assert p.source == "rails" and p.energy_j == pytest.approx(1.24 + 0.19 + 0.012)
    assert p.mean_w == pytest.approx((1.24 + 0.19 + 0.012) / 2.0) and "3 ODPM rails" in p.covers


def test_malformed_and_reset_rails_are_named_and_left_out() -> None:
    bad = READ_2.replace("CH1(T=3000)[S4M_VDD_CPUCL0], 290000", "CH1(T=3000)[S4M_VDD_CPUCL0] 290000")
    a, b = parse_rails(READ_1), parse_rails(bad.replace("19000", "10"))
    assert b is not None and b.problems == [
        "iio:device0 energy_value line 3: 'CH1(T=3000)[S4M_VDD_CPUCL0] 290000' is not 'CHn(T=ms)[RAIL], µWs'"]
    p, _, warnings = rails_power(a, b)  # type: ignore[arg-type]
    assert p is not None and [r.rail for r in p.rails] == ["S2M_VDD_CPUCL2"]
    assert any("S4M_VDD_CPUCL0 was not in the second read" in w for w in warnings)
    assert any("S2S_VDD_G3D's counter went back" in w for w in warnings)
    assert parse_rails("== /sys/bus/iio/devices/iio:device0\n\x00\x01garbage\n") is None
    assert parse_rails("") is None


def pixel(d: StandInAdbd, adb_client: str, server_port: int) -> PhoneRunner:
    dev = Device(name="pixel", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                 phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port,
                                   benchmark_model=BenchmarkModel(host_path=str(tree.benchmark_model_script()))))
    return PhoneRunner(open_adb(dev), dev)


@pytest.fixture
def rails_phone(tmp_path: Path, phone_root: Path):
    tree.build(phone_root, rails=True)
    d = StandInAdbd(phone_root)
    yield d
    d.close()


def _measure(s: PhoneRunner, tmp_path: Path):  # type: ignore[no-untyped-def]
    m = tmp_path / "m.tflite"
    m.write_bytes(b"TFL3" + bytes(4000))
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    return s.measure(remote, num_runs=20, warmup_runs=1, min_secs=0.5)


@pytest.mark.parametrize("charging", [False, True], ids=["discharging", "charging"])
def test_rails_are_preferred_and_measured_while_charging(adb_client, server_port, rails_phone, tmp_path, charging):
    tree.set_battery(rails_phone.root, charging=charging)
    with tree.RailMeter(rails_phone.root) as meter:
        run = _measure(pixel(rails_phone, adb_client, server_port), tmp_path)
    p = run.power
    assert p is not None, run.power_reason
    assert p.source == "rails" and len(p.rails) == 16 and p.samples == 2
    assert p.mean_w == pytest.approx(sum(meter.watts().values()), rel=2e-3)  # the meter's own draw
    by = {r.rail: r for r in p.rails}
    assert by["S2M_VDD_CPUCL2"].mean_w == pytest.approx(0.620, rel=2e-3) and by["S2M_VDD_CPUCL2"].meter == "iio:device0"
    assert p.duration_s >= 0.5 and p.energy_per_inference_j > 0 and "rails power" in p.energy_note
    assert not [w for w in run.warnings if "power" in w]  # charging does not matter to the rails


def test_deploy_stores_the_rails_and_results_show_names_them(adb_client, server_port, rails_phone, tmp_path, capsys):
    """`deploy --device phone` on a Pixel with ODPM rails stores power source "rails": the sum (labelled a sum of
    rails, not the battery side), each rail's mean W and energy; `results show` says which rails and lists them."""
    import json

    from test_phone_cli import inventory

    from edgeprof.store import Store

    inv = inventory(tmp_path, rails_phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    db = tmp_path / "r.sqlite"
    with tree.RailMeter(rails_phone.root) as meter:
        assert main(["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--min-duration", "0.5",
                     "--min-queries", "20", "--warmup", "0", "--quiet", "--db", str(db), "--json",
                     str(tmp_path / "r.json")]) == 0
    capsys.readouterr()
    r = Store(str(db)).get(json.loads((tmp_path / "r.json").read_text())["run_id"])
    p = r.power
    assert p is not None and (p.source, p.total_kind, p.rail, p.method) == ("rails", "sum-of-rails",
                                                                           "sum of 16 ODPM rails", "counter")
    assert p.rails is not None and p.rails_energy_j is not None and set(p.rails) == set(p.rails_energy_j)
    assert len(p.rails) == 16 and p.rails["S2M_VDD_CPUCL2"] == pytest.approx(0.620, rel=2e-3)
    assert p.mean_w == pytest.approx(sum(meter.watts().values()), rel=2e-3)
    assert p.energy_j == pytest.approx(sum(p.rails_energy_j.values()))
    assert p.energy_mj_per_inference is not None and p.energy_mj_per_inference > 0 and p.warnings == []
    assert r.environment.fact("power_source") == "rails (16 ODPM rails on iio:device0, iio:device1)"
    assert main(["results", "show", r.run_id, "--db", str(db)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "power (rails: the sum of 16 ODPM rails (what their regulators feed" in text and "whole phone" not in text
    assert "rails (mean W): S2M_VDD_CPUCL2 0.620, VSYS_PWR_DISPLAY 0.255, S3M_VDD_CPUCL1 0.210" in text
    assert "power source: rails · total sum of 16 ODPM rails (sum of rails)" in text


def test_a_malformed_rail_line_is_a_warning(adb_client, server_port, rails_phone, tmp_path):
    with tree.RailMeter(rails_phone.root, garbage="CH8(T=12)[S6M_LLDO1] twelve"):
        run = _measure(pixel(rails_phone, adb_client, server_port), tmp_path)
    assert run.power is not None and len(run.power.rails) == 16
    assert [w for w in run.warnings if "power rails" in w] == [
        "power rails: iio:device0 energy_value line 10: 'CH8(T=12)[S6M_LLDO1] twelve' is not 'CHn(T=ms)[RAIL], µWs'"]


def test_devices_check_says_rails(adb_client, server_port, rails_phone, tmp_path, capsys):
    inv = tmp_path / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(rails_phone)}'\n"
                   f"    adb: {adb_client}\n    adb_server_port: {server_port}\n")
    assert main(["devices", "check", "--inventory", str(inv), "--no-store", "--json", "phone"]) == 0
    import json

    [row] = json.loads(capsys.readouterr().out)
    assert row["phone"]["power_source"] == "rails (16 ODPM rails on iio:device0, iio:device1)"
    assert "S2S_VDD_G3D" in row["phone"]["rails"]
