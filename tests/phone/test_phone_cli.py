"""`edgeprof devices check` with a phone in devices.yaml, against the stand-in phone."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.cli.main import main


def inventory(tmp_path: Path, d, adb_client: str, server_port: int, bm: str = "") -> str:  # type: ignore[no-untyped-def]
    p = tmp_path / "devices.yaml"
    p.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(d)}'\n"
                 f"    adb: {adb_client}\n    adb_server_port: {server_port}\n{bm}")
    return str(p)


def test_devices_check_shows_the_phone(adb_client, server_port, phone, tmp_path, capsys):
    bm = "    benchmark_model: 'phone:/data/local/tmp/bm'\n"
    (phone.root / "data/local/tmp/bm").write_bytes(tree.benchmark_model_script().read_bytes())
    (phone.root / "data/local/tmp/bm").chmod(0o755)
    inv = inventory(tmp_path, phone, adb_client, server_port, bm)
    assert main(["devices", "check", "--inventory", inv, "--no-store", "phone"]) == 0
    text = capsys.readouterr().out
    for want in ("Pixel 6", "GS101", "Android 14", "arm64-v8a", "78% Discharging", "none (0)", "xnnpack"):
        assert want in text
    assert main(["devices", "check", "--inventory", inv, "--no-store", "--json", "phone"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["ok"] and row["phone"]["benchmark_model"]["state"] == "ok"


def test_devices_check_unauthorized_phone_is_one_line(adb_client, server_port, phone_root, tmp_path, capsys):
    import phone_adbd as adbd

    d = adbd.StandInAdbd(phone_root, mode="unauthorized")
    try:
        inv = inventory(tmp_path, d, adb_client, server_port)
        assert main(["devices", "check", "--inventory", inv, "--no-store", "phone"]) == 3
        text = capsys.readouterr().out
        assert "phone: device 'phone'" in text and "unauthorized" in text
    finally:
        d.close()


def test_deploy_to_the_phone(adb_client, server_port, phone, tmp_path, capsys):
    """`edgeprof deploy --device phone --model ds_cnn`: the bundled model exported to TFLite (cached), measured by
    the replay benchmark_model; a charging phone gets one line refusing power and latency is still measured."""
    bm = f"    benchmark_model: '{tree.benchmark_model_script()}'\n    thermal: {{warn_status: 3}}\n"
    inv = inventory(tmp_path, phone, adb_client, server_port, bm)
    argv = ["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--min-duration", "0.8",
            "--min-queries", "20", "--warmup", "0", "--quiet", "--no-store", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "benchmark_model's own statistics" in text and "not measured: samples, p90, p97, p99" in text
    assert "power · battery" in text
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["latency_ms"]["n"] == 20 and r["memory_mb"]["peak_rss"] > 0 and r["power"]["n_samples"] >= 2
    assert r["power"]["mean_w"] == pytest.approx(1.612, abs=5e-4) and r["phone"]["thermal_status_before"] == 0
    tree.set_battery(phone.root, charging=True)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert [ln for ln in text.replace("\n ", " ").splitlines() if "charging" in ln] == [
        "power: none (the phone is charging: battery power is not measured while charging (unplug it, or use adb "
        "over Wi-Fi); latency is still measured)"]
    assert "benchmark_model's own statistics" in text


def test_deploy_refuses_what_phones_cannot_do(adb_client, server_port, phone, tmp_path, capsys):
    inv = inventory(tmp_path, phone, adb_client, server_port)
    assert main(["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--scenario", "offline",
                 "--no-store"]) == 2
    assert "--scenario offline is not supported on phones yet" in capsys.readouterr().err
