"""The adb transport against the stand-in phone, with each real adb client (Debian's 29, adbutils' 36)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import phone_adbd as adbd
import pytest
from phone_adbd import serial

from edgeprof.errors import TransportError
from edgeprof.transport.adb import ADBTransport


def transport(adb_client: str, server_port: int, d: adbd.StandInAdbd) -> ADBTransport:
    t = ADBTransport("phone", serial(d), adb=adb_client, server_port=server_port)
    t.connect()
    return t


def test_exit_code_and_separate_stderr(adb_client, server_port, phone):
    t = transport(adb_client, server_port, phone)
    assert "shell_v2" in t.features
    r = t.run(["sh", "-c", "echo out; echo err >&2; exit 7"])
    assert (r.returncode, r.stdout, r.stderr) == (7, "out\n", "err\n")


def test_arguments_quoted_once(adb_client, server_port, phone):
    t = transport(adb_client, server_port, phone)
    odd = "a b;$(touch /data/local/tmp/pwned)'\"*`x`"
    r = t.run(["printf", "%s|", odd, "two words"])
    assert r.stdout == f"{odd}|two words|"
    assert not (phone.root / "data/local/tmp/pwned").exists()


def test_reads_the_phones_tree(adb_client, server_port, phone):
    t = transport(adb_client, server_port, phone)
    assert t.run(["getprop", "ro.product.model"]).stdout.strip() == "Pixel 6"
    assert t.run(["cat", "/sys/class/power_supply/battery/status"]).stdout.strip() == "Discharging"


def test_push_and_pull_verified(adb_client, server_port, phone, tmp_path: Path):
    t = transport(adb_client, server_port, phone)
    blob = tmp_path / "blob"
    blob.write_bytes(os.urandom(3_000_000))
    assert t.put_file(str(blob), "/data/local/tmp/edgeprof/x/blob") == 3_000_000
    on_phone = phone.root / "data/local/tmp/edgeprof/x/blob"
    assert hashlib.sha256(on_phone.read_bytes()).digest() == hashlib.sha256(blob.read_bytes()).digest()
    back = tmp_path / "back"
    assert t.get_file("/data/local/tmp/edgeprof/x/blob", str(back)) == 3_000_000
    assert back.read_bytes() == blob.read_bytes()


def test_time_limit(adb_client, server_port, phone):
    t = transport(adb_client, server_port, phone)
    with pytest.raises(TransportError, match="did not finish within 1 s"):
        t.run(["sleep", "30"], timeout=1)


def test_legacy_adbd_without_shell_v2(adb_client, server_port, phone_root):
    d = adbd.StandInAdbd(phone_root, mode="legacy")
    try:
        t = transport(adb_client, server_port, d)
        assert "shell_v2" not in t.features
        r = t.run(["sh", "-c", "echo out; exit 5"])
        assert (r.returncode, r.stdout) == (5, "out\n")
    finally:
        d.close()


def test_unauthorized_device(adb_client, server_port, phone_root):
    d = adbd.StandInAdbd(phone_root, mode="unauthorized")
    try:
        with pytest.raises(TransportError, match="unauthorized") as e:
            transport(adb_client, server_port, d)
        assert e.value.reason == "unauthorized"
    finally:
        d.close()


def test_phone_that_vanishes(adb_client, server_port, phone):
    t = transport(adb_client, server_port, phone)
    phone.vanish()
    with pytest.raises(TransportError) as e:
        t.run(["true"], timeout=15)
    assert e.value.reason in ("not-found", "offline", "lost")


def test_unknown_serial(adb_client, server_port, phone):
    transport(adb_client, server_port, phone)
    t = ADBTransport("phone", "NOSUCHSERIAL", adb=adb_client, server_port=server_port)
    with pytest.raises(TransportError, match="not found") as e:
        t.connect()
    assert e.value.reason == "not-found"


def test_two_devices_without_a_serial(adb_client, server_port, phone, phone_root):
    other = adbd.StandInAdbd(phone_root)
    try:
        transport(adb_client, server_port, phone)
        transport(adb_client, server_port, other)
        t = ADBTransport("phone", None, adb=adb_client, server_port=server_port)
        with pytest.raises(TransportError, match="more than one device") as e:
            t.connect()
        assert e.value.reason == "ambiguous"
    finally:
        other.close()


def _faulting_client(tmp_path: Path, adb_client: str, faults: int) -> str:
    """The real client behind a wrapper whose first `faults` `adb connect` calls print the real client's
    out-of-step reply error (adb_client.cpp adb_status: "protocol fault (status %02x %02x %02x %02x?!)") and fail."""
    count = tmp_path / "connects"
    count.write_text("0")
    wrapper = tmp_path / "adb"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = connect ]; then
  n=$(cat {count}); echo $((n + 1)) > {count}
  if [ "$n" -lt {faults} ]; then echo 'error: protocol fault (status 30 30 30 63?!)' >&2; exit 1; fi
fi
exec {adb_client} "$@"
""")
    wrapper.chmod(0o755)
    return str(wrapper)


def test_a_protocol_fault_on_connect_is_retried_once(adb_client, server_port, phone, tmp_path: Path):
    t = ADBTransport("phone", serial(phone), adb=_faulting_client(tmp_path, adb_client, 1), server_port=server_port)
    t.connect()
    assert t.run(["getprop", "ro.product.model"]).stdout.strip() == "Pixel 6"
    assert (tmp_path / "connects").read_text().strip() == "2"


def test_a_protocol_fault_twice_is_one_line(adb_client, server_port, phone, tmp_path: Path):
    t = ADBTransport("phone", serial(phone), adb=_faulting_client(tmp_path, adb_client, 2), server_port=server_port)
    with pytest.raises(TransportError, match=r"adb connect failed: error: protocol fault") as e:
        t.connect()
    assert "\n" not in str(e.value) and (tmp_path / "connects").read_text().strip() == "2"
