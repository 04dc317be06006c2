"""The agent's CPU fact on Arm boards: an Arm /proc/cpuinfo names its cores only by number (CPU implementer /
CPU part), so the fact is read from those (issue 23: on the aarch64 lane a Pi 5 said "BCM2835", its SoC family
line, and a Jetson Orin said just "aarch64")."""

import shutil
from pathlib import Path

from edgeprof_agent.environment import _arm_cores, facts
from edgeprof_agent.sysfs import SysfsRoot

ARM = Path(__file__).resolve().parents[1] / "data" / "arm"


def _tree(tmp_path, cpuinfo_text=None, cpuinfo_file=None):
    (tmp_path / "proc").mkdir()
    target = tmp_path / "proc" / "cpuinfo"
    if cpuinfo_file is not None:
        shutil.copyfile(ARM / cpuinfo_file, target)
    else:
        target.write_text(cpuinfo_text)
    return SysfsRoot(str(tmp_path))


def test_a_raspberry_pi_5_is_its_cortex_a76_not_the_bcm2835_line(tmp_path):
    text = (ARM / "cpuinfo-raspberry-pi-5").read_text()
    assert "Hardware\t: BCM2835" in text  # what the Pi kernel writes on every Pi, the 5 included
    f = facts(None, with_runtimes=False, root=_tree(tmp_path, cpuinfo_file="cpuinfo-raspberry-pi-5"))
    assert f.cpu == "ARM Cortex-A76"


def test_a_jetson_orin_is_its_cortex_a78ae_not_the_machine_name(tmp_path):
    f = facts(None, with_runtimes=False, root=_tree(tmp_path, cpuinfo_file="cpuinfo-jetson-agx-orin"))
    assert f.cpu == "ARM Cortex-A78AE"


def test_mixed_cores_are_each_named_once_and_an_unknown_part_by_its_number():
    tx2 = "".join(f"processor\t: {n}\nCPU implementer\t: {impl}\nCPU part\t: {part}\n\n"
                  for n, (impl, part) in enumerate([("0x41", "0xd07"), ("0x4e", "0x003"), ("0x4e", "0x003"),
                                                    ("0x41", "0xd07")]))
    assert _arm_cores(tx2) == ["ARM Cortex-A57", "NVIDIA Denver 2"]
    assert _arm_cores("CPU implementer\t: 0x41\nCPU part\t: 0xfff\n") == ["ARM part 0xfff"]
    assert _arm_cores("CPU implementer\t: 0x99\nCPU part\t: 0x001\n") == ["implementer 0x99 part 0x001"]


def test_a_cpuinfo_without_arm_fields_keeps_its_model_name(tmp_path):
    f = facts(None, with_runtimes=False,
              root=_tree(tmp_path, "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n"))
    assert f.cpu == "AMD EPYC 7B13"
    assert _arm_cores("processor\t: 0\nmodel name\t: ARMv8 Processor rev 1 (v8l)\n") == []
