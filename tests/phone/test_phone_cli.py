"""`edgeprof devices check` with a phone in devices.yaml, against the stand-in phone."""

from __future__ import annotations

import json
from pathlib import Path

import tree
from conftest import serial

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
    import adbd

    d = adbd.StandInAdbd(phone_root, mode="unauthorized")
    try:
        inv = inventory(tmp_path, d, adb_client, server_port)
        assert main(["devices", "check", "--inventory", inv, "--no-store", "phone"]) == 3
        text = capsys.readouterr().out
        assert "phone: device 'phone'" in text and "unauthorized" in text
    finally:
        d.close()
