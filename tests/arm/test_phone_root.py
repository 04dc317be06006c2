"""The stand-in phone on the aarch64 lane's arm64 root: the phone's user space is the root's real aarch64 mksh
(Android's shell, as /system/bin/sh) and toybox (Android's coreutils, one link per applet in /system/bin), run under
qemu-user, so the sampler loop and every command the phone session sends run in an Android-like shell on Arm
binaries; the phone's files are the Pixel tree of tests/phone/phone_tree.py. Uses the root of
tests/lanes/arm_recipes.py as cached (scripts/build-arm-roots.py, `make arm-roots`): skipped, with the reason, when
it is not there or has no mksh/toybox; never builds it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PHONE = REPO / "tests" / "phone"
sys.path.insert(0, str(PHONE))
_spec = importlib.util.spec_from_file_location("phone_fixtures", PHONE / "conftest.py")
assert _spec is not None and _spec.loader is not None
_phone = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_phone)
adb_client, server_port = _phone.adb_client, _phone.server_port

import phone_adbd as adbd  # noqa: E402
import phone_tree as tree  # noqa: E402
from arm_recipes import ROOT_BY_NAME  # noqa: E402
from armlab import CACHE  # noqa: E402
from roots import BINFMT, RootPaths  # noqa: E402

from edgeprof.phone.facts import read_facts  # noqa: E402
from edgeprof.phone.runner import PhoneRunner  # noqa: E402
from edgeprof.records import Device  # noqa: E402
from edgeprof.records.device import BenchmarkModel, PhoneConfig  # noqa: E402
from edgeprof.transport.adb import open_adb, sha256_file  # noqa: E402

pytestmark = pytest.mark.arm
ROOT = ROOT_BY_NAME["pi-bookworm-arm64"]  # the root whose recipe adds mksh and toybox


def arm_usr() -> Path:
    """The cached root's /usr, or skip saying why it cannot be used."""
    paths = RootPaths(CACHE, ROOT)
    usr = paths.tree / "usr"
    if not (usr / "bin" / "mksh").exists() or not (usr / "bin" / "toybox").exists():
        pytest.skip(f"the aarch64 root {paths.key} (with mksh and toybox) is not in {CACHE}: build it with "
                    "`make arm-roots` (as root)")
    entry = BINFMT / "qemu-aarch64"
    if not entry.exists() or not entry.read_text().startswith("enabled"):
        pytest.skip("binfmt_misc's qemu-aarch64 is not enabled (scripts/build-arm-roots.py enables it)")
    reason = adbd.can_run()
    if reason is not None:
        pytest.skip(reason)
    return usr


@pytest.fixture
def arm_phone(tmp_path: Path):
    usr = arm_usr()
    root = tree.build(tmp_path / "phone", rails=True)
    listed = subprocess.run(adbd.shell_argv(root, "toybox", str(usr)), capture_output=True, text=True, timeout=120)
    applets = listed.stdout.split()
    assert "cat" in applets and "date" in applets, listed.stderr
    tree.android_bin(root, applets)
    d = adbd.StandInAdbd(root, usr=str(usr))
    yield d
    d.close()


def device(d: adbd.StandInAdbd, adb_client: str, server_port: int) -> Device:
    return Device(name="pixel-arm", kind="adb", host=adbd.serial(d), python="", workdir="/data/local/tmp/edgeprof",
                  connect_timeout=60,
                  phone=PhoneConfig(serial=adbd.serial(d), adb=adb_client, adb_server_port=server_port,
                                    benchmark_model=BenchmarkModel(host_path=str(tree.benchmark_model_script()))))


def test_the_shell_is_aarch64_mksh_and_toybox(adb_client, server_port, arm_phone):
    t = open_adb(device(arm_phone, adb_client, server_port))
    r = t.run(["sh", "-c", 'uname -m; echo "$KSH_VERSION"; readlink /system/bin/cat; date +%s%N'])
    arch, ksh, cat, now = r.stdout.split("\n")[:4]
    assert r.returncode == 0 and arch == "aarch64", r.stderr
    assert "MIRBSD KSH" in ksh and cat == "/usr/bin/toybox"
    assert now.isdigit() and len(now) >= 19, f"toybox date +%s%N gave {now!r}"  # the sampler's ns clock
    elf = (Path(arm_phone.usr) / "bin" / "mksh").read_bytes()[:20]
    assert elf[:4] == b"\x7fELF" and int.from_bytes(elf[18:20], "little") == 183  # EM_AARCH64


def test_facts_and_a_measurement_through_the_arm_shell(adb_client, server_port, arm_phone, tmp_path):
    dev = device(arm_phone, adb_client, server_port)
    t = open_adb(dev)
    f = read_facts(t, dev)
    assert (f.model, f.soc, len(f.cpus), f.battery.capacity_pct) == ("Google Pixel 6", "Google GS101", 8, 78)
    assert f.power_source.startswith("rails (16 ODPM rails")
    s = PhoneRunner(t, dev)
    m = tmp_path / "m.tflite"
    m.write_bytes(b"TFL3" + bytes(4000))
    remote, moved = s.push_artifact(str(m), sha256_file(str(m)), "tflite")  # verified by toybox sha256sum
    assert moved == m.stat().st_size
    with tree.RailMeter(arm_phone.root) as meter:
        run = s.measure(remote, num_runs=10, warmup_runs=1, min_secs=0.5, timeout=300)
    assert run.latency_ms.count == 10 and run.power is not None, run.power_reason
    assert run.power.source == "rails"
    assert run.power.mean_w == pytest.approx(sum(meter.watts().values()), rel=5e-3)


def test_the_battery_sampler_loop_runs_in_mksh(adb_client, server_port, arm_phone, tmp_path):
    for d in (arm_phone.root / "sys/bus/iio/devices").iterdir():  # no rails: the battery loop is the source
        (d / "energy_value").unlink()
    dev = device(arm_phone, adb_client, server_port)
    s = PhoneRunner(open_adb(dev), dev)
    m = tmp_path / "m.tflite"
    m.write_bytes(b"TFL3" + bytes(4000))
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    run = s.measure(remote, num_runs=10, warmup_runs=1, min_secs=1.0, timeout=300)
    assert run.power is not None, run.power_reason
    assert run.power.source == "battery" and run.power.samples >= 2
    assert run.power.mean_w == pytest.approx(0.412 * 3.912, rel=1e-6)
    assert run.power.clock == "phone (date +%s%N)" and os.path.exists(arm_phone.usr)
    # the phone clock read around the tool in the same line (toybox date, aarch64 mksh): inside the trace, which a
    # sample before the loop and one after the tool make cover the whole process (phone/phases.py cuts it)
    tool = s.run_tool(["sleep", "1"], tool="sleep")
    assert tool.span_ns is not None and tool.power is not None, tool.power_reason
    t0, t1 = tool.span_ns
    assert tool.power.trace_ns[0] <= t0 and t0 + 1_000_000_000 <= t1 <= tool.power.trace_ns[-1]


def test_deploy_int8_on_the_arm_phone(adb_client, server_port, arm_phone, tmp_path, capsys, artifact_cache,
                                      monkeypatch):
    """`edgeprof deploy --device phone --model ds_cnn --precision int8` end to end with the phone's shell on Arm
    binaries (the export cached with the lane's others)."""
    import json

    from edgeprof.cli.main import main

    monkeypatch.setenv("EDGEPROF_CACHE", str(artifact_cache))
    inv = tmp_path / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{adbd.serial(arm_phone)}'\n"
                   f"    adb: {adb_client}\n    adb_server_port: {server_port}\n    connect_timeout: 60\n"
                   f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    out = tmp_path / "r.json"
    with tree.RailMeter(arm_phone.root):
        assert main(["deploy", "--device", "phone", "--inventory", str(inv), "--model", "ds_cnn", "--precision",
                     "int8", "--min-duration", "0.5", "--min-queries", "10", "--warmup", "0", "--quiet",
                     "--no-store", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["precision"] == "int8" and r["latency_ms"]["n"] == 10 and r["power"]["source"] == "rails"
    assert len(r["power"]["rails"]) == len(r["power"]["rails_energy_j"]) == 16
    [d] = r["phone"]["delegation"]
    assert d["delegate"] == "XNNPACK" and d["ops_total"] == d["ops_on_delegate"] + 1 > 1
    assert "power (rails: the sum of 16 ODPM rails" in capsys.readouterr().out.replace("\n", " ")
