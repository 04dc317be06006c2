"""Probes against board trees laid out like the real machines (tests/data/boards) and fake tools/libraries."""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import power  # noqa: E402
from edgeprof_agent.probes import (  # noqa: E402
    external,
    hwmon,
    is_nc_label,
    jetson,
    jtop,
    nvml,
    rapl,
    rpi,
)
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402
from edgeprof_agent.tools import ToolRunner  # noqa: E402

AGX_SUM = "sum(VDD_GPU_SOC,VDD_CPU_CV,VIN_SYS_5V0,VDDQ_VDD2_1V8AO)"


@pytest.fixture
def no_gpu_libs(monkeypatch):
    """Neither pynvml nor jtop importable, whatever the test machine has installed."""
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setitem(sys.modules, "jtop", None)


def tree(tmp_path, name):
    d = bk.board(tmp_path, name)
    return d, SysfsRoot(d)


# ------------------------------------------------------------------------------------------------ seams

def test_sysfs_root_maps_board_paths_and_sorts_naturally(tmp_path):
    d, root = tree(tmp_path, "agx-orin-jp6")
    assert root.path("/sys/class") == d + "/sys/class"
    assert root.read_text("/proc/meminfo").startswith("MemTotal:")
    assert root.read_int("/sys/class/thermal/thermal_zone0/temp") == 48000
    zones = root.glob("/sys/class/thermal/thermal_zone*")
    assert zones[:3] == ["/sys/class/thermal/thermal_zone0", "/sys/class/thermal/thermal_zone1",
                         "/sys/class/thermal/thermal_zone2"]
    assert root.listdir("/sys/devices/system/cpu/cpufreq") == ["policy0", "policy4", "policy8"]
    assert root.realpath("/sys/bus/i2c/devices/1-0041") == \
        "/sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0041"
    assert root.try_read_int("/sys/nothing", -1) == -1
    assert root.try_read_text("/sys/nothing") is None
    assert not root.exists("/sys/nothing")
    with pytest.raises(ValueError):
        root.path("relative/path")


def test_tool_runner_runs_fakes_and_reports_missing_and_timeouts(tmp_path, monkeypatch):
    d, _ = tree(tmp_path, "rpi5")
    tools = bk.fake_tools(tmp_path, d, monkeypatch)
    assert tools.which("vcgencmd").endswith("/vcgencmd")
    assert tools.which("nvpmodel") is None          # not a Jetson: not on the search path at all
    rc, out, err = tools.run(["vcgencmd", "get_throttled"])
    assert (rc, out) == (0, "throttled=0x0\n")
    rc, out, err = tools.run(["vcgencmd", "no_such_command"])
    assert rc == 2 and "no capture" in err
    rc, out, err = tools.run(["nvpmodel", "-q"])
    assert rc == 127 and "not found" in err
    slow = tmp_path / "slowbin"
    slow.mkdir()
    (slow / "sleeper").write_text("#!/bin/sh\nsleep 30\n")   # the grandchild `sleep` holds the pipes
    (slow / "sleeper").chmod(0o755)
    t = time.monotonic()
    rc, out, err = ToolRunner([str(slow)], search_path=False).run(["sleeper"], timeout=0.2)
    assert rc == 124 and "timed out" in err
    assert time.monotonic() - t < 20     # the whole process group was killed, not only sh


def test_nc_labels_are_tokens_not_substrings():
    assert is_nc_label("NC")
    assert is_nc_label(" NC\n")
    assert not is_nc_label("VDD_SYNC")
    assert not is_nc_label("VIN_SYS_5V0")


# ------------------------------------------------------------------------------------------------ Jetson

def test_nano_jp4_iio_uses_pom_5v_in_and_never_adds_sub_rails(tmp_path):
    d, root = tree(tmp_path, "jetson-nano-jp4")
    probe, reason = jetson.discover(root, None, {})
    assert reason is None
    assert probe.source == "jetson-ina3221"
    assert probe.rail == "POM_5V_IN" and probe.total_kind == "rail"
    assert probe.rails == ("POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU")
    assert probe.detail["layout"].startswith("iio")
    total, rails, inst = probe.read()
    assert total == pytest.approx(5080 * 486 // 1000 / 1000.0)   # in_power0_input, mW -> W
    assert rails[0] == total and total < sum(rails)               # sub-rails exist but are not added
    assert inst is None
    assert "not wall power" in probe.covers and "POM_5V_IN" in probe.covers


def test_jp4_without_in_power_uses_voltage_times_current(tmp_path):
    d, root = tree(tmp_path, "jetson-nano-jp4")
    iio = os.path.join(d, "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0")
    for k in range(3):
        os.remove(os.path.join(iio, f"in_power{k}_input"))
    probe, reason = jetson.discover(root, None, {})
    assert probe.read()[0] == pytest.approx(5080 * 486 / 1e6)


def test_jp4_found_through_driver_dir_only_once(tmp_path):
    d, root = tree(tmp_path, "jetson-nano-jp4")
    # both /sys/bus/i2c/devices/6-0040 and /sys/bus/i2c/drivers/ina3221x/6-0040 lead to the same device
    channels = jetson.find_channels(root)
    assert [c[0] for c in channels] == ["POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"]
    os.remove(os.path.join(d, "sys/bus/i2c/devices/6-0040"))
    assert [c[0] for c in jetson.find_channels(root)] == ["POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"]


def test_orin_nano_jp6_hwmon_vdd_in_skips_in7(tmp_path):
    d, root = tree(tmp_path, "orin-nano-jp6")
    probe, reason = jetson.discover(root, None, None)
    assert reason is None
    assert probe.rail == "VDD_IN" and probe.total_kind == "rail"
    assert probe.rails == ("VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC")
    assert probe.detail["layout"].startswith("hwmon")
    total, rails, _ = probe.read()
    assert total == pytest.approx(5056 * 1176 / 1e6)
    assert rails[1] == pytest.approx(5064 * 296 / 1e6)


def test_agx_orin_without_vdd_in_uses_labelled_sum_and_skips_nc(tmp_path):
    d, root = tree(tmp_path, "agx-orin-jp6")
    probe, reason = jetson.discover(root, None, {})
    assert reason is None
    assert probe.rails == ("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO")
    assert probe.rail == AGX_SUM and probe.total_kind == "sum-of-rails"
    total, rails, _ = probe.read()
    assert total == pytest.approx(sum(rails))
    assert "estimate" in probe.covers


def test_configured_rail_and_unknown_rail(tmp_path):
    d, root = tree(tmp_path, "orin-nano-jp6")
    probe, reason = jetson.discover(root, None, {"rail": "VDD_SOC"})
    assert probe.rail == "VDD_SOC"
    assert probe.read()[0] == pytest.approx(5064 * 624 / 1e6)
    probe, reason = jetson.discover(root, None, {"rail": "VDD_GPU"})
    assert probe is None
    assert "VDD_GPU" in reason and "VDD_IN, VDD_CPU_GPU_CV, VDD_SOC" in reason


def test_no_ina3221_reason(tmp_path):
    d, root = tree(tmp_path, "rpi5")
    probe, reason = jetson.discover(root, None, {})
    assert probe is None and "INA3221" in reason


# ------------------------------------------------------------------------------------------------ hwmon

def test_hwmon_ina219_power_in_microwatts(tmp_path):
    d, root = tree(tmp_path, "rpi4-ina219")
    probe, reason = hwmon.discover(root, None, {})
    assert reason is None
    assert probe.rail == "ina219@hwmon2"
    assert probe.read()[0] == pytest.approx(3.2768)
    os.remove(os.path.join(d, "sys/class/hwmon/hwmon2/power1_input"))
    probe, reason = hwmon.discover(root, None, {"rail": "5V_IN", "covers": "Pi 4 USB-C input"})
    assert probe.read()[0] == pytest.approx(5120 * 640 / 1e6)
    assert probe.rail == "5V_IN" and probe.covers == "Pi 4 USB-C input"


def test_hwmon_ignores_jetson_ina3221_and_other_chips(tmp_path):
    for name in ("orin-nano-jp6", "rpi5"):
        d, root = tree(tmp_path, name)
        probe, reason = hwmon.discover(root, None, {})
        assert probe is None and "ina219" in reason


# ------------------------------------------------------------------------------------------------ Pi 5

def test_parse_pmic_read_adc_golden():
    with open(os.path.join(bk.BOARDS, "rpi5", "tools", "vcgencmd", "pmic_read_adc.txt")) as f:
        parsed = dict(rpi.parse_pmic_read_adc(f.read()))
    assert parsed["VDD_CORE"] == {"a": pytest.approx(0.756316), "v": pytest.approx(0.885712)}
    assert parsed["EXT5V"] == {"v": pytest.approx(5.138)}       # a voltage without a current
    assert len([n for n, v in parsed.items() if "a" in v and "v" in v]) == 12


def test_rpi5_pmic_is_pmic_side_sum_at_10_hz(tmp_path, monkeypatch):
    d, root = tree(tmp_path, "rpi5")
    tools = bk.fake_tools(tmp_path, d, monkeypatch)
    probe, reason = rpi.discover(root, tools, {})
    assert reason is None
    assert probe.source == "rpi5-pmic" and probe.total_kind == "sum-of-rails"
    assert probe.max_rate_hz == 10.0
    assert "EXT5V" not in probe.rails and "VDD_CORE" in probe.rails
    assert "PMIC-side" in probe.covers and "not board or wall power" in probe.covers
    assert probe.detail["ext5v_v"] == pytest.approx(5.138)
    total, rails, _ = probe.read()
    assert total == pytest.approx(sum(rails))
    assert 1.0 < total < 2.0


def test_rpi4_has_no_pmic_and_no_vcgencmd_reasons(tmp_path, monkeypatch):
    d, root = tree(tmp_path, "rpi4-ina219")
    probe, reason = rpi.discover(root, bk.fake_tools(tmp_path, d, monkeypatch), {})
    assert probe is None and "only a Pi 5" in reason
    probe, reason = rpi.discover(root, bk.no_tools(tmp_path), {})
    assert probe is None and "vcgencmd not found" in reason


# ------------------------------------------------------------------------------------------------ RAPL

class DeniedRoot(SysfsRoot):
    """Linux >= 5.10 without root: energy_uj is 0400 (a test running as root cannot get this from chmod)."""

    def read_int(self, board_path):
        if board_path.endswith("/energy_uj"):
            raise PermissionError(13, "Permission denied", self.path(board_path))
        return SysfsRoot.read_int(self, board_path)


def test_rapl_package_counter_with_wraparound(tmp_path):
    d, root = tree(tmp_path, "x86-rapl")
    probe, reason = rapl.discover(root, None, {})
    assert reason is None
    assert probe.method == "counter" and probe.rail == "package-0" and probe.total_kind == "package"
    assert probe.rails == ("package-0", "package-0:core", "package-0:uncore", "package-0:dram")
    assert "not the whole system" in probe.covers
    e0, _, _ = probe.read()
    pkg = os.path.join(d, "sys/class/powercap/intel-rapl:0/energy_uj")
    with open(pkg, "w") as f:            # 3 J left before the wrap; +5 J wraps to 2 J past zero
        f.write("2000000\n")
    e1, rails, _ = probe.read()
    assert e1 - e0 == pytest.approx(5.0)
    assert rails[1] == 0.0                # core did not move


def test_rapl_root_only_is_a_reason_not_a_crash(tmp_path):
    d, _ = tree(tmp_path, "x86-rapl")
    probe, reason = rapl.discover(DeniedRoot(d), None, {})
    assert probe is None
    assert "root" in reason and "5.10" in reason and "CVE-2020-8694" in reason


# ------------------------------------------------------------------------------------------------ NVML

def test_nvml_counter_probe_with_double(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu("Tesla T4", power_fn=lambda t: 31.25)])
    probe, reason = nvml.discover(None, None, {})
    assert reason is None
    assert probe.method == "counter" and probe.rail == "gpu0" and probe.total_kind == "device"
    assert "Tesla T4" in probe.covers
    j, rails, w = probe.read()
    assert w == pytest.approx(31.25) and j >= 0
    probe.close()
    st = nv.fake_state()
    assert st.init_depth == 0


def test_nvml_without_energy_counter_integrates_power(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu("Tesla P4", has_energy=False)])
    probe, reason = nvml.discover(None, None, {})
    assert probe.method == "trapezoid" and probe.counter_update_s == 0
    assert probe.read() == (27.5, (27.5,), None)
    probe.close()


def test_nvml_reasons(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset(driver_loaded=False)
    probe, reason = nvml.discover(None, None, {})
    assert probe is None and "nvmlInit failed" in reason and "Driver Not Loaded" in reason
    nv.fake_reset([nv.FakeGpu(power_supported=False)])
    probe, reason = nvml.discover(None, None, {})
    assert probe is None and "does not report power" in reason
    assert nv.fake_state().init_depth == 0
    nv.fake_reset()
    probe, reason = nvml.discover(None, None, {"device": 3})
    assert probe is None and "asked for device 3" in reason


def test_nvml_missing_module(no_gpu_libs):
    probe, reason = nvml.discover(None, None, {})
    assert probe is None and "pynvml" in reason and "not installed" in reason


def test_clock_reason_bits_decode():
    assert nvml.decode_clock_reasons(0x1 | 0x8 | 0x20) == ["GpuIdle", "HwSlowdown", "SwThermalSlowdown"]
    assert nvml.decode_clock_reasons(0) == []


@pytest.mark.parametrize("module_version, driver_version", [
    ("11.495.46", "470.256.02"),   # old module: no ...ClocksEventReasons attribute at all
    ("12.575.51", "470.256.02"),   # new module, old driver: ...ClocksEventReasons raises FunctionNotFound
    ("12.575.51", "535.183.01"),   # both new
])
def test_clock_reasons_fall_back_to_throttle_reasons(monkeypatch, module_version, driver_version):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu(reasons=0x1 | 0x20)], module_version=module_version, driver_version=driver_version)
    nv.nvmlInit()
    try:
        assert hasattr(nv, "nvmlDeviceGetCurrentClocksEventReasons") == module_version.startswith("12.")
        assert nvml.clock_reasons(nv, nv.nvmlDeviceGetHandleByIndex(0)) == 0x21
        state = nvml.device_state(nv)[0]
        assert state["clock_reasons"] == ["GpuIdle", "SwThermalSlowdown"]
    finally:
        nv.nvmlShutdown()


# ------------------------------------------------------------------------------------------------ jtop

def test_jtop_missing_or_service_down(monkeypatch, no_gpu_libs):
    probe, reason = jtop.discover(None, None, {})
    assert probe is None and "not installed" in reason
    fake = bk.use_fake_module(monkeypatch, "jtop")
    fake.fake_reset(service_active=False)
    probe, reason = jtop.discover(None, None, {})
    assert probe is None and "jtop.service is not active" in reason and "\n" not in reason


def test_jtop_reads_power_not_avg(monkeypatch):
    fake = bk.use_fake_module(monkeypatch, "jtop")
    seq = iter([4000, 8000, 8000, 8000])
    fake.fake_reset(service_active=True, rails={"VDD_IN": 0, "VDD_CPU_GPU_CV": 900, "VDD_SOC": 1400},
                    power_fn=lambda name: next(seq) if name == "VDD_IN" else 1000)
    probe, reason = jtop.discover(None, None, {})
    assert reason is None
    assert probe.rail == "VDD_IN" and probe.total_kind == "rail"
    assert probe.max_rate_hz == 2.0
    assert probe.read()[0] == pytest.approx(8.0)   # jtop's avg would say 6.0 here
    probe.close()
    assert not fake.fake_state().clients[0].ok()


NANO_RAILS = {"POM_5V_IN": 3000, "POM_5V_GPU": 500, "POM_5V_CPU": 800}
XAVIER_RAILS = {"VDD_IN": 6000, "VDD_CPU_GPU_CV": 1500, "VDD_SOC": 1200}
AGX_ORIN_RAILS = {"VDD_GPU_SOC": 2390, "VDD_CPU_CV": 796, "VIN_SYS_5V0": 3522, "NC": 0, "VDDQ_VDD2_1V8AO": 500}


# jetson-stats releases whose `.power` shapes differ: 3.1.4 and 4.0.0 (tuple; total = first renamed name with
# 'IN'), 4.1.5 (tuple; total only for POM_5V_IN), 4.2.0 and 4.3.1 (dict; total moved from 'rail' to 'tot').
@pytest.mark.parametrize("version", ["3.1.4", "4.0.0", "4.1.5", "4.2.0", "4.3.1"])
@pytest.mark.parametrize("rails, total_rail, total_w, kind", [
    (NANO_RAILS, "POM_5V_IN", 3.0, "rail"),
    (XAVIER_RAILS, "VDD_IN", 6.0, "rail"),
    (AGX_ORIN_RAILS, None, (2390 + 796 + 3522 + 500) / 1000.0, "sum-of-rails"),
], ids=["nano", "xavier-nx", "agx-orin"])
def test_jtop_total_is_the_input_rail_in_every_release(monkeypatch, version, rails, total_rail, total_w, kind):
    fake = bk.use_fake_module(monkeypatch, "jtop")
    fake.fake_reset(service_active=True, rails=rails, version=version)
    probe, reason = jtop.discover(None, None, {})
    assert reason is None
    assert probe.total_kind == kind
    if total_rail:
        assert probe.rail == total_rail
    else:
        assert probe.rail.startswith("sum(") and "NC" not in probe.rail
    total, vals, _ = probe.read()
    assert total == pytest.approx(total_w)  # never the sub-rails alone, never sub-rails added onto the input
    assert len(vals) == len(probe.rails) and "NC" not in probe.rails
    probe.close()


# ------------------------------------------------------------------------------------------------ command

def test_command_probe_units_and_no_shell(tmp_path, monkeypatch):
    d, root = tree(tmp_path, "rpi4-ina219")
    os.makedirs(os.path.join(d, "tools", "powermeter"))
    with open(os.path.join(d, "tools", "powermeter", "read.txt"), "w") as f:
        f.write("4730.5 mW\n")
    tools = bk.fake_tools(tmp_path, d, monkeypatch)
    probe, reason = external.discover(root, tools, {"command": "powermeter read", "unit": "mW",
                                                    "covers": "wall power (USB meter)"})
    assert reason is None
    assert probe.read()[0] == pytest.approx(4.7305)
    assert probe.covers == "wall power (USB meter)" and probe.max_rate_hz == 10.0
    probe, reason = external.discover(root, tools, {"command": "powermeter read", "unit": "hp"})
    assert probe is None and "unit" in reason
    # shlex.split, no shell: '; echo 5' is two literal arguments, so the fake has no capture for them
    probe, reason = external.discover(root, tools, {"command": "powermeter read '; echo 5'", "unit": "W"})
    assert probe is None and "failed" in reason
    probe, reason = external.discover(root, tools, {"command": "missing-meter"})
    assert probe is None and "missing-meter" in reason


def test_command_number_parsing():
    assert external.parse_number("power: 5.25 W") == 5.25
    assert external.parse_number("1e1") == 10.0
    with pytest.raises(external.ProbeError):
        external.parse_number("n/a")


# ------------------------------------------------------------------------------------------------ choice

@pytest.mark.parametrize("board,source,rail", [
    ("jetson-nano-jp4", "jetson-ina3221", "POM_5V_IN"),
    ("orin-nano-jp6", "jetson-ina3221", "VDD_IN"),
    ("agx-orin-jp6", "jetson-ina3221", AGX_SUM),
    ("rpi4-ina219", "hwmon", "ina219@hwmon2"),
    ("rpi5", "rpi5-pmic", None),
    ("x86-rapl", "rapl", "package-0"),
])
def test_auto_picks_the_boards_sensor(tmp_path, monkeypatch, no_gpu_libs, board, source, rail):
    d, root = tree(tmp_path, board)
    mon = power.PowerMonitor.create(None, root, bk.fake_tools(tmp_path, d, monkeypatch))
    assert mon.available, mon.reason
    desc = mon.describe()
    assert desc["source"] == source
    if rail:
        assert desc["rail"] == rail
    assert desc["covers"]


def test_auto_on_a_machine_without_sensors_names_what_it_looked_for(tmp_path, no_gpu_libs):
    empty = tmp_path / "empty"
    (empty / "sys").mkdir(parents=True)
    mon = power.PowerMonitor.create({"source": "auto"}, SysfsRoot(str(empty)), bk.no_tools(tmp_path))
    assert not mon.available
    assert mon.reason.startswith("no power sensor found: looked for INA3221 (i2c)")
    for what in ("hwmon ina2xx", "Pi 5 PMIC (vcgencmd)", "NVML", "RAPL", "source: command"):
        assert what in mon.reason
    assert mon.summary(1, 2, 10, 1.0)["available"] is False
    mon.start()   # harmless when unavailable
    mon.stop()


def test_source_none_unknown_and_bad_rate(tmp_path, no_gpu_libs):
    d, root = tree(tmp_path, "orin-nano-jp6")
    assert "off" in power.PowerMonitor.create({"source": "none"}, root, None).reason
    assert "off" in power.PowerMonitor.create("none", root, None).reason
    mon = power.PowerMonitor.create({"source": "ina"}, root, None)
    assert not mon.available and "jetson-ina3221" in mon.reason
    mon = power.PowerMonitor.create({"source": "jetson-ina3221", "rate_hz": "fast"}, root, None)
    assert not mon.available and "rate_hz" in mon.reason
    mon = power.PowerMonitor.create({"source": "rapl"}, root, None)
    assert not mon.available and mon.reason.startswith("power source rapl not usable: RAPL")


def test_explicit_source_skips_auto_order(tmp_path, monkeypatch, no_gpu_libs):
    d, root = tree(tmp_path, "rpi4-ina219")
    os.makedirs(os.path.join(d, "tools", "powermeter"))
    with open(os.path.join(d, "tools", "powermeter", "read.txt"), "w") as f:
        f.write("6.1\n")
    tools = bk.fake_tools(tmp_path, d, monkeypatch)
    logs = []
    mon = power.PowerMonitor.create({"source": "command", "command": "powermeter read", "unit": "W",
                                     "rate_hz": 50}, root, tools, log=logs.append)
    assert mon.available and mon.describe()["source"] == "command"
    assert mon.rate_hz == 10.0
    assert any("capped to 10.0 Hz" in m for m in logs)


def test_discover_all_lists_every_auto_source(tmp_path, monkeypatch, no_gpu_libs):
    d, root = tree(tmp_path, "rpi5")
    found = power.discover_all(root, bk.fake_tools(tmp_path, d, monkeypatch))
    assert [f["source"] for f in found] == list(power.AUTO_ORDER)
    by = dict((f["source"], f) for f in found)
    assert by["rpi5-pmic"]["available"] is True
    assert by["jetson-ina3221"]["available"] is False and by["jetson-ina3221"]["reason"]
