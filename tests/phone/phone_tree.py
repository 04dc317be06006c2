"""A stand-in phone user space: a directory tree laid out like a Pixel's, for the stand-in adbd to chroot into.

Captures are replayed, not measured:
- getprop: property names from AOSP (build/make/tools/buildinfo.sh: ro.product.model, ro.build.version.release,
  ro.product.cpu.abi; ro.soc.manufacturer / ro.soc.model since Android 12, build/make/core/sysprop.mk), values as
  on a Pixel 6 (oriole, Google Tensor "GS101").
- /sys/class/power_supply/battery/*: the kernel power_supply ABI (Documentation/ABI/testing/sysfs-class-power):
  current_now in µA, negative while discharging, voltage_now in µV, status one of Charging / Discharging /
  Not charging / Full / Unknown, capacity in percent. Pixel kernels follow it.
- /sys/bus/iio/devices/iio:device{0,1}: Pixel 6's two ODPM energy meters (s2mpg10-odpm, s2mpg11-odpm), `energy_value`
  as the kernel driver prints it ("t=<ms>", then "CH<n>(T=<ms>)[<rail>], <µW·s>"; read by AOSP
  hardware/google/pixel powerstats' IioEnergyMeterDataProvider), `enabled_rails` and `name`; the rail names are
  gs101's (S2M_VDD_CPUCL2 = the big cores, S3M_VDD_CPUCL1 mid, S4M_VDD_CPUCL0 little, S2S_VDD_G3D the GPU, ...),
  the energies made up and advanced live by `RailMeter` (with `rails=True`).
Other phones are captures under tests/data/phones/<name>/ (getprop.txt and a root/ copied as-is; each cites its
sources in SOURCES.md): `build(root, capture=NAME)`.
- dumpsys thermalservice: the layout of frameworks/base/services/core/java/com/android/server/power/
  ThermalManagerService.java dump() ("IsStatusOverride", "Thermal Status: N", "Cached temperatures:" with
  Temperature{mValue=..., mType=..., mName=..., mStatus=...}).
- dumpsys battery: BatteryService.dump() ("Current Battery Service state:", "AC powered:", "USB powered:", "level:").
- /proc/cpuinfo of an Arm SoC (arm64 kernel's c_show: processor / BogoMIPS / Features / CPU implementer / part).
- /sys/devices/system/cpu/cpu*/cpufreq/{scaling_cur_freq,cpuinfo_max_freq} in kHz (cpufreq sysfs ABI).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CAPTURES = HERE.parent / "data" / "phones"
IIO = "sys/bus/iio/devices"
# gs101 (Pixel 6) ODPM channels: (meter, its name file, rails in channel order, with the watts RailMeter draws)
PIXEL6_RAILS = {
    "iio:device0": ("s2mpg10-odpm", [("S10M_VDD_TPU", 0.012), ("VSYS_PWR_MODEM", 0.041), ("VSYS_PWR_RFFE", 0.003),
                                     ("S2M_VDD_CPUCL2", 0.620), ("S3M_VDD_CPUCL1", 0.210), ("S4M_VDD_CPUCL0", 0.095),
                                     ("S5M_VDD_INT", 0.130), ("S1M_VDD_MIF", 0.160)]),
    "iio:device1": ("s2mpg11-odpm", [("L2S_VDD_AOC_RET", 0.002), ("S9S_VDD_AOC", 0.018), ("S5S_VDDQ_MEM", 0.044),
                                     ("S10S_VDD2L", 0.027), ("S4S_VDD2H_MEM", 0.052), ("S2S_VDD_G3D", 0.006),
                                     ("L9S_GNSS_CORE", 0.001), ("VSYS_PWR_DISPLAY", 0.255)]),
}

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


def build(root: Path, *, charging: bool = False, level: int = 78, thermal_status: int = 0, rails: bool = False,
          capture: str | None = None) -> Path:
    """Lay out the phone under `root` and return it: the Pixel 6 built here, or a capture of tests/data/phones."""
    root = Path(root)
    for d in ("usr", "dev", "data/local/tmp", "tmp", "proc", "system/bin", "vendor"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for link, target in (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"), ("sbin", "usr/sbin")):
        if not (root / link).is_symlink():
            os.symlink(target, root / link)
    props = PROPS if capture is None else read_props(CAPTURES / capture / "getprop.txt")
    cases = "".join(f"  {k}) echo '{v}' ;;\n" for k, v in props.items())
    listing = "".join(f"echo '[{k}]: [{v}]'\n" for k, v in props.items())
    write(root / "system/bin/getprop",
          f"#!/usr/bin/mksh\nif [ $# -eq 0 ]; then\n{listing}exit 0\nfi\ncase \"$1\" in\n{cases}  *) echo '' ;;\nesac\n",
          0o755)
    write(root / "system/bin/dumpsys",
          '#!/usr/bin/mksh\nf=/vendor/replay/dumpsys/"$1".txt\nif [ -f "$f" ]; then cat "$f"; exit 0; fi\n'
          'echo "Can\'t find service: $1" >&2\nexit 0\n', 0o755)
    if capture is not None:
        shutil.copytree(CAPTURES / capture / "root", root, dirs_exist_ok=True, symlinks=True)
        return root
    if rails:
        RailMeter(root).write()
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


RELEASES = ("litert", "tensorflow", "tensorflow-2019", "tensorflow-2018", "dry-run")


def set_release(root: Path, release: str) -> None:
    """Which benchmark_model release's output the replay plays on this phone (tests/phone/benchmark_model)."""
    assert release in RELEASES, release
    write(Path(root) / "vendor/replay/benchmark_model/release", f"{release}\n")


def benchmark_model_script() -> Path:
    """The host-side file a test gives as `benchmark_model:` (pushed to the phone like the user's binary)."""
    return HERE / "benchmark_model"


def litert_lm_main_script() -> Path:
    """The host-side file a test gives as `litert_lm_main:` (tests/phone/litert_lm_main, LiteRT-LM's tool replayed)."""
    return HERE / "litert_lm_main"


# A tiny .litertlm for the LiteRT-LM tests, written by litert-lm-builder (its LitertLmFileBuilder: the header layout
# of litertlm_core.py, magic "LITERTLM", format 1.x, the header's flatbuffer): a hand-written WordLevel
# tokenizer.json (an HF tokenizer section) and 4 KiB of fixed bytes (a generic binary section) stand in for the
# model's TFLite graphs, which the replay does not run. Deterministic: the same bytes every time.
TINY_TOKENIZER = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
    "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
    "model": {"type": "WordLevel", "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "hello": 3, "phone": 4},
              "unk_token": "<unk>"},
}


def tiny_litertlm(path: Path) -> Path:
    """Write the tiny .litertlm at `path` (needs litert-lm-builder: pytest.importorskip it first)."""
    import json

    from litert_lm_builder import litertlm_builder as lb

    path.parent.mkdir(parents=True, exist_ok=True)
    tok = path.with_name(path.stem + ".tokenizer.json")
    tok.write_text(json.dumps(TINY_TOKENIZER, sort_keys=True))
    blob = path.with_name(path.stem + ".blob.bin")
    blob.write_bytes(bytes(range(256)) * 16)
    b = lb.LitertLmFileBuilder()
    b.add_hf_tokenizer(str(tok))
    b.add_generic_binary_data(str(blob))

    def pinned(system_metadata: list) -> list:  # type: ignore[type-arg]
        # the builder stamps a fresh uuid4 and the creation time (populate_system_metadata): pinned so that the
        # file's bytes, and the sha256 that names it on the phone, are the same every time
        kept = [m for m in system_metadata if m.key not in ("uuid", "creation_timestamp")]
        return [*kept, lb.Metadata(key="uuid", value="00000000-0000-4000-8000-000000000000", dtype=lb.DType.STRING),
                lb.Metadata(key="creation_timestamp", value="2026-01-01T00:00:00+00:00", dtype=lb.DType.STRING)]

    from unittest import mock

    with mock.patch.object(lb, "populate_system_metadata", pinned), path.open("wb") as f:
        b.build(f)
    return path


def read_props(path: Path) -> dict[str, str]:
    """A `getprop` listing ("[name]: [value]" lines) → {name: value}."""
    return dict(re.findall(r"^\[([^\]]+)\]: \[([^\]]*)\]$", path.read_text(), re.M))


def captures() -> list[str]:
    return sorted(p.name for p in CAPTURES.iterdir() if (p / "getprop.txt").is_file())


class RailMeter:
    """Pixel 6's two ODPM meters under `root`: each rail's counter advances at its set watts (PIXEL6_RAILS) with the
    phone's monotonic clock in ms, rewritten every `period_s` (atomically, as a read of sysfs is) while started.
    `garbage`: a line to print in iio:device0's energy_value after its rails (a malformed rail line)."""

    def __init__(self, root: Path, *, period_s: float = 0.05, garbage: str | None = None) -> None:
        self.root, self.period_s, self.garbage = Path(root), period_s, garbage
        self.t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watts(self) -> dict[str, float]:
        return {rail: w for _, rails in PIXEL6_RAILS.values() for rail, w in rails}

    def write(self) -> None:
        now_ms = int(time.monotonic() * 1000)
        for meter, (name, rails) in PIXEL6_RAILS.items():
            d = self.root / IIO / meter
            lines = [f"t={now_ms}"]
            for ch, (rail, watts) in enumerate(rails):
                lines.append(f"CH{ch}(T={now_ms})[{rail}], {int(watts * 1e6 * (now_ms / 1000.0 - self.t0 + 1000))}")
            if self.garbage is not None and meter == "iio:device0":
                lines.append(self.garbage)
            write(d / "name", f"{name}\n")
            write(d / "enabled_rails", "".join(f"CH{ch}[{rail}]:{rail.split('_', 1)[-1]}\n"
                                               for ch, (rail, _) in enumerate(rails)))
            write(d / "energy_value.tmp", "\n".join(lines) + "\n")
            os.replace(d / "energy_value.tmp", d / "energy_value")

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            self.write()

    def __enter__(self) -> RailMeter:
        self.write()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def android_bin(root: Path, applets: list[str]) -> None:
    """/system/bin as on Android: `sh` is mksh, each toybox applet a link to toybox (the replayed getprop and dumpsys
    stay)."""
    bin_ = Path(root) / "system/bin"
    for name in ["sh", *applets]:
        link = bin_ / name
        if name in ("getprop", "dumpsys", "toybox") or link.exists() or link.is_symlink():
            continue
        os.symlink("/usr/bin/mksh" if name == "sh" else "/usr/bin/toybox", link)
