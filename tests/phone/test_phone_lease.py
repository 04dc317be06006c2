"""The lease on a phone, with two controllers against the stand-in phone and both adb clients: exclusive (the
second waits, then LeaseBusy names the holder), released on exit, a dead controller's lock taken over once it
expires (and the old holder then learns it lost it), and a deploy refused in one line while a sweep holds it."""

from __future__ import annotations

import re
import threading
import time

import phone_tree as tree
import pytest
from phone_adbd import serial
from test_phone_cli import inventory

from edgeprof.cli.main import main
from edgeprof.errors import LeaseBusy, LeaseLost
from edgeprof.phone.lease import LOCK_DIR, PhoneLease
from edgeprof.records import Device
from edgeprof.records.device import PhoneConfig
from edgeprof.transport.adb import open_adb

WORKDIR = "/data/local/tmp/edgeprof"


def controller(d, adb_client: str, server_port: int, name: str, ttl_s: float = 60.0) -> PhoneLease:  # type: ignore[no-untyped-def]
    dev = Device(name="phone", kind="adb", host=serial(d), python="", workdir=WORKDIR,
                 phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port))
    return PhoneLease(open_adb(dev), "phone", WORKDIR, {"controller": name, "sweep_id": f"sw-{name}",
                                                         "purpose": "sweep"}, ttl_s)


def test_two_controllers_never_hold_the_phone_at_once(adb_client, server_port, phone):
    a = controller(phone, adb_client, server_port, "ctl-a")
    b = controller(phone, adb_client, server_port, "ctl-b")
    stop = threading.Event()
    a.acquire(0, stop)
    lock = phone.root / WORKDIR.lstrip("/") / LOCK_DIR
    assert lock.is_dir() and '"controller": "ctl-a"' in (lock / "holder.json").read_text()
    waits: list[str] = []
    t0 = time.monotonic()
    with pytest.raises(LeaseBusy) as e:
        b.acquire(1.0, stop, on_wait=waits.append)
    assert re.fullmatch(r"device phone is leased by sw-ctl-a from ctl-a since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; "
                        r"waited 1 s", e.value.message), e.value.message
    assert time.monotonic() - t0 >= 1.0 and waits and waits[0].startswith("sw-ctl-a from ctl-a")
    assert "lease_wait_s" in (e.value.hint or "")
    a.check()  # still ours
    a.release()
    assert not lock.exists()
    b.acquire(0, stop)
    b.check()
    with pytest.raises(LeaseBusy):
        a.acquire(0, stop)
    b.release()


def test_a_dead_controllers_lock_expires_and_is_taken_over(adb_client, server_port, phone):
    a = controller(phone, adb_client, server_port, "ctl-a", ttl_s=2.0)
    b = controller(phone, adb_client, server_port, "ctl-b")
    stop = threading.Event()
    a.acquire(0, stop)
    a._closed.set()  # the controller dies: no keepalive, no release
    b.acquire(15.0, stop)  # waits until the lock expires on the phone's clock, then takes it over
    lock = phone.root / WORKDIR.lstrip("/") / LOCK_DIR
    assert '"controller": "ctl-b"' in (lock / "holder.json").read_text()
    assert not (lock.parent / f"{LOCK_DIR}.takeover").exists()
    with pytest.raises(LeaseLost, match="lease taken over by sw-ctl-b from ctl-b"):
        a.check()
    a.release()  # not ours any more: the new holder's lock stays
    assert lock.is_dir()
    b.release()
    assert not lock.exists()


def test_a_deploy_is_refused_in_one_line_while_a_sweep_holds_the_phone(adb_client, server_port, phone, tmp_path,
                                                                        capsys):
    held = controller(phone, adb_client, server_port, "ctl-a")
    held.acquire(0, threading.Event())
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    try:
        code = main(["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--quiet",
                     "--no-store"])
    finally:
        held.release()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert re.fullmatch(r"edgeprof: error: device phone is leased by sw-ctl-a from ctl-a since [\d: -]+ "
                        r"— edgeprof deploy --lease-wait TIME \(e\.g\. 30m\) waits for it", err[0]), err


def test_deploy_lease_wait_waits_for_the_sweep_then_measures(adb_client, server_port, phone, tmp_path, capsys):
    held = controller(phone, adb_client, server_port, "ctl-a")
    held.acquire(0, threading.Event())
    inv = inventory(tmp_path, phone, adb_client, server_port,
                    f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    releaser = threading.Timer(2.0, held.release)
    releaser.start()
    t0 = time.monotonic()
    try:
        code = main(["deploy", "--device", "phone", "--inventory", inv, "--model", "ds_cnn", "--no-store",
                     "--lease-wait", "60"])
    finally:
        releaser.cancel()
        held.release()
    err = capsys.readouterr().err
    assert code == 0, err
    assert time.monotonic() - t0 >= 2.0
    assert "waiting for the lease: sw-ctl-a from ctl-a since" in err, err


def test_a_lock_left_without_its_expiry_expires_after_the_ttl(adb_client, server_port, phone):
    """A controller killed between `mkdir` and writing the expiry: the lock counts from the directory's time."""
    import os

    lock = phone.root / WORKDIR.lstrip("/") / LOCK_DIR
    lock.mkdir(parents=True)
    (lock / "holder.json").write_text('{"controller": "ctl-dead", "purpose": "sweep"}')
    b = controller(phone, adb_client, server_port, "ctl-b", ttl_s=30.0)
    with pytest.raises(LeaseBusy, match="leased by sweep from ctl-dead"):
        b.acquire(0, threading.Event())
    old = time.time() - 120
    os.utime(lock, (old, old))
    b.acquire(0, threading.Event())
    assert '"controller": "ctl-b"' in (lock / "holder.json").read_text()
    b.release()
