"""A stand-in phone user space: a directory tree laid out like a Pixel's, for the stand-in adbd to chroot into.

Captures are replayed, not measured:
- getprop: property names from AOSP (build/make/tools/buildinfo.sh: ro.product.model, ro.build.version.release,
  ro.product.cpu.abi; ro.soc.manufacturer / ro.soc.model since Android 12, build/make/core/sysprop.mk), values as
  on a Pixel 6 (oriole, Google Tensor "GS101").
- /sys/class/power_supply/battery/*: the kernel power_supply ABI (Documentation/ABI/testing/sysfs-class-power):
  current_now in µA, voltage_now in µV, status one of Charging / Discharging / Not charging / Full / Unknown,
  capacity in percent. Pixel kernels report current_now negative while discharging (a vendor deviation from the
  ABI's "positive when discharging" reading used by some; the host detects the sign from status).
- dumpsys thermalservice: the layout of frameworks/base/services/core/java/com/android/server/power/
  ThermalManagerService.java dump() ("IsStatusOverride", "Thermal Status: N", "Cached temperatures:" with
  Temperature{mValue=..., mType=..., mName=..., mStatus=...}).
- dumpsys battery: BatteryService.dump() ("Current Battery Service state:", "AC powered:", "USB powered:", "level:").
- /proc/cpuinfo of an Arm SoC (arm64 kernel's c_show: processor / BogoMIPS / Features / CPU implementer / part).
- /sys/devices/system/cpu/cpu*/cpufreq/{scaling_cur_freq,cpuinfo_max_freq} in kHz (cpufreq sysfs ABI).
"""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROPS = {
    "ro.product.model": "Pixel 6",
    "ro.product.manufacturer": "Google",
    "ro.product.device": "oriole",
    "ro.soc.manufacturer": "Google",
    "ro.soc.model": "GS101",
    "ro.build.version.release": "14",
    "ro.build.version.sdk": "34",
    "ro.product.cpu.abi": "arm64-v8a",
    "ro.product.cpu.abilist": "arm64-v8a,armeabi-v7a,armeabi",
    "ro.hardware.egl": "mali",
    "ro.board.platform": "gs101",
}

# Pixel 6: 2x Cortex-X1 (0xd44), 2x Cortex-A76 (0xd0b), 4x Cortex-A55 (0xd05); max clocks in kHz
CORES = [(0xd05, 1803000)] * 4 + [(0xd0b, 2253000)] * 2 + [(0xd44, 2802000)] * 2

THERMAL = """\
IsStatusOverride: false
ThermalEventListeners:
\tcallbacks: 1
Thermal Status: {status}
Cached temperatures:
\tTemperature{{mValue=34.2, mType=0, mName=BIG, mStatus=0}}
\tTemperature{{mValue=33.1, mType=0, mName=LITTLE, mStatus=0}}
\tTemperature{{mValue=31.5, mType=2, mName=battery, mStatus=0}}
\tTemperature{{mValue=32.0, mType=3, mName=skin, mStatus=0}}
HAL Ready: true
"""

BATTERY = """\
Current Battery Service state:
  AC powered: false
  USB powered: {usb}
  Wireless powered: false
  Max charging current: 0
  status: {status_code}
  health: 2
  present: true
  level: {level}
  scale: 100
  voltage: {voltage_mv}
  temperature: 315
  technology: Li-ion
"""


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)


def build(root: Path, *, charging: bool = False, level: int = 78, thermal_status: int = 0) -> Path:
    """Lay out the phone under `root` and return it."""
    root = Path(root)
    for d in ("usr", "dev", "data/local/tmp", "tmp", "proc", "system/bin", "vendor"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for link, target in (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"), ("sbin", "usr/sbin")):
        if not (root / link).is_symlink():
            os.symlink(target, root / link)
    cases = "".join(f"  {k}) echo '{v}' ;;\n" for k, v in PROPS.items())
    listing = "".join(f"echo '[{k}]: [{v}]'\n" for k, v in PROPS.items())
    write(root / "system/bin/getprop",
          f"#!/usr/bin/mksh\nif [ $# -eq 0 ]; then\n{listing}exit 0\nfi\ncase \"$1\" in\n{cases}  *) echo '' ;;\nesac\n",
          0o755)
    write(root / "system/bin/dumpsys",
          '#!/usr/bin/mksh\nf=/vendor/replay/dumpsys/"$1".txt\nif [ -f "$f" ]; then cat "$f"; exit 0; fi\n'
          'echo "Can\'t find service: $1" >&2\nexit 0\n', 0o755)
    set_thermal(root, thermal_status)
    set_battery(root, charging=charging, level=level)
    cpuinfo = ""
    for i, (part, khz) in enumerate(CORES):
        cpuinfo += (f"processor\t: {i}\nBogoMIPS\t: 49.15\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 "
                    f"atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\n"
                    f"CPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: {part:#x}\nCPU revision\t: 0\n\n")
        cf = root / f"sys/devices/system/cpu/cpu{i}/cpufreq"
        write(cf / "cpuinfo_max_freq", f"{khz}\n")
        write(cf / "scaling_cur_freq", f"{khz * 2 // 3}\n")
    write(root / "proc/cpuinfo", cpuinfo)
    write(root / "sys/devices/system/cpu/online", f"0-{len(CORES) - 1}\n")
    return root


def set_battery(root: Path, *, charging: bool, level: int = 78, current_ua: int = -412000,
                voltage_uv: int = 3912000) -> None:
    bat = Path(root) / "sys/class/power_supply/battery"
    write(bat / "status", "Charging\n" if charging else "Discharging\n")
    write(bat / "current_now", f"{abs(current_ua) if charging else current_ua}\n")
    write(bat / "voltage_now", f"{voltage_uv}\n")
    write(bat / "capacity", f"{level}\n")
    write(Path(root) / "vendor/replay/dumpsys/battery.txt",
          BATTERY.format(usb="true" if charging else "false", status_code=2 if charging else 3, level=level,
                         voltage_mv=voltage_uv // 1000))


def set_thermal(root: Path, status: int) -> None:
    write(Path(root) / "vendor/replay/dumpsys/thermalservice.txt", THERMAL.format(status=status))


def benchmark_model_script() -> Path:
    """The host-side file a test gives as `benchmark_model:` (pushed to the phone like the user's binary)."""
    return HERE / "benchmark_model"
