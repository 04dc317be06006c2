"""aarch64 board roots: genuine arm64 Debian user spaces, run under qemu-user, that stand in for the boards' own.

Owns: one `ArmRoot` per board family the aarch64 lane runs on real Arm binaries (a Debian release built for arm64
by mmdebstrap from Debian's registry: its own python3 and python3-numpy), the venvs inside it (`ArmVenv`: aarch64
wheels of the runtime releases, installed offline), the Arm `/proc/cpuinfo` file each root runs with, what the
agent's facts must say there, which stack profile (tests/lanes/stack_profiles.py) each venv's runtimes belong to, what of the
board's stack no root can hold (and why), and the recipe hash that keys each root's cached archive. README's
board-stack table reads which stacks ran on aarch64 from here (scripts/stack-table.py). Pure data, no I/O.
Does not own: building, caching and entering the roots (tests/arm/roots.py, scripts/build-arm-roots.py), the
tests (tests/arm/), the x86 stand-ins (tests/lanes/stack_profiles.py). Lives with the tests: nothing in edgeprof/ reads it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

__all__ = ["ArmVenv", "ArmRoot", "ROOTS", "ROOT_BY_NAME", "VENVS_BY_STACK", "RECIPE_VERSION", "recipe_hash",
           "aarch64_platforms", "runtime_dist", "DPKG_EXCLUDES", "MIRROR"]

# bumped when the build steps change in a way the data below does not show (the cache key hashes it)
RECIPE_VERSION = 1


@dataclass(frozen=True)
class ArmVenv:
    """A venv inside a root: exact pins of aarch64 wheels (downloaded on the host, installed offline)."""

    name: str  # short id, unique across roots: the wrapper `python-<name>` and test ids use it
    stack: str  # the stack profile (tests/lanes/stack_profiles.py) whose runtime releases this venv holds
    requirements: tuple[str, ...]  # pip requirements (exact pins); numpy is Debian's unless pinned here
    expected: tuple[tuple[str, str], ...]  # (distribution, version) after the build, numpy included
    # (runtime, distribution) the lane deploys with; for tflite the agent imports ai_edge_litert before
    # tflite_runtime, so a venv measures tflite-runtime only where ai-edge-litert is absent
    runtimes: tuple[tuple[str, str], ...]

    @property
    def path(self) -> str:
        """The venv's directory inside the root."""
        return f"/opt/venvs/{self.name}"

    @property
    def numpy(self) -> str:
        return dict(self.expected)["numpy"]


@dataclass(frozen=True)
class ArmRoot:
    """One arm64 Debian root (mmdebstrap) and the venvs built in it."""

    name: str
    board: str  # the board family it stands for, as a user names it
    suite: str  # the Debian release mmdebstrap builds
    os: str  # PRETTY_NAME of its /etc/os-release (what the agent's facts say)
    python: str  # its python3, exactly
    numpy: str  # its python3-numpy, exactly
    glibc: tuple[int, int]  # its glibc: the newest manylinux_2_N wheels it runs
    packages: tuple[str, ...]  # mmdebstrap --include (on top of --variant=minbase)
    cpuinfo: str  # the Arm /proc/cpuinfo bind-mounted when anything runs in it (tests/data/arm/<file>)
    cpu: str  # the CPU the agent's facts read from that cpuinfo
    cores_in_cpuinfo: int
    # the core qemu-user emulates (QEMU_CPU): the board's, or the closest model qemu 7.2 has. Its default `max`
    # offers every Arm extension (SVE2, i8mm, SME, ...) a Pi 5 or an Orin lacks, so the runtimes' kernel
    # dispatch would take paths the board never runs (LiteRT 2.3's XNNPACK int8 then gave cosine 0.95)
    qemu_cpu: str
    venvs: tuple[ArmVenv, ...]
    differs: str  # how this root differs from the board's own user space (docs, README)

    @property
    def python_tag(self) -> str:
        """`pip download --python-version` for this root's Python (e.g. "311")."""
        major, minor = self.python.split(".")[:2]
        return major + minor


DEBIAN_PACKAGES = ("python3", "python3-venv", "python3-numpy")
# the one apt source of every root: Debian's registry, the release's main suite (mmdebstrap's default would add
# security.debian.org for bullseye, which this lane's machines cannot reach; its point releases keep python3 and
# python3-numpy at the versions below)
MIRROR = "http://deb.debian.org/debian"
# dpkg leaves these out of every root (mmdebstrap --dpkgopt=path-exclude=...): smaller archives, nothing run needs
DPKG_EXCLUDES = ("/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*")

ROOTS: tuple[ArmRoot, ...] = (
    ArmRoot(
        name="pi-bookworm-arm64",
        board="Raspberry Pi 4 / 5",
        suite="bookworm",
        os="Debian GNU/Linux 12 (bookworm)",
        python="3.11.2",
        numpy="1.24.2",
        glibc=(2, 36),
        # mksh and toybox: Android's shell and coreutils, for the stand-in phone's user space (tests/phone);
        # nothing of the Pi board's lane uses them
        packages=(*DEBIAN_PACKAGES, "mksh", "toybox"),
        cpuinfo="cpuinfo-raspberry-pi-5",
        cpu="ARM Cortex-A76",
        cores_in_cpuinfo=4,
        qemu_cpu="cortex-a76",  # the Pi 5's own core
        venvs=(
            # what a Pi user with all three runtimes has: facts show every one; tflite deploys on ai-edge-litert
            ArmVenv("pi", "rpi-bookworm",
                    ("tflite-runtime==2.14.0", "ai-edge-litert==2.3.0", "onnxruntime==1.32.0"),
                    (("numpy", "1.24.2"), ("tflite-runtime", "2.14.0"), ("ai-edge-litert", "2.3.0"),
                     ("onnxruntime", "1.32.0")),
                    (("tflite", "ai-edge-litert"), ("onnxruntime", "onnxruntime"))),
            # the stack profile's own runtime: tflite-runtime alone, so the agent measures with it
            ArmVenv("pi-tflite-runtime", "rpi-bookworm", ("tflite-runtime==2.14.0",),
                    (("numpy", "1.24.2"), ("tflite-runtime", "2.14.0")), (("tflite", "tflite-runtime"),)),
        ),
        differs="Debian 12's arm64 packages are the user space of Raspberry Pi OS Bookworm 64-bit (same "
                "python3 3.11.2 and python3-numpy 1.24.2); Raspberry Pi's own packages (kernel, firmware, "
                "vcgencmd) are not in it",
    ),
    ArmRoot(
        name="jetson-runtimes-arm64",
        board="Jetson Nano / Xavier / Orin",
        suite="bullseye",
        os="Debian GNU/Linux 11 (bullseye)",
        python="3.9.2",
        numpy="1.19.5",
        glibc=(2, 31),
        packages=DEBIAN_PACKAGES,
        cpuinfo="cpuinfo-jetson-agx-orin",
        cpu="ARM Cortex-A78AE",
        cores_in_cpuinfo=12,
        qemu_cpu="cortex-a76",  # qemu 7.2 has no A78AE: the A76 is the same Armv8.2-A + dot product, no SVE
        venvs=(
            # one venv per JetPack family: one onnxruntime release each (a venv holds one), with that family's
            # numpy and TFLite runtime, as the x86 stand-ins of tests/lanes/stack_profiles.py pair them
            ArmVenv("jp4", "jetpack-4.6", ("onnxruntime==1.10.0",),
                    (("numpy", "1.19.5"), ("onnxruntime", "1.10.0")), (("onnxruntime", "onnxruntime"),)),
            ArmVenv("jp5", "jetpack-5.1", ("numpy==1.24.4", "onnxruntime==1.16.3", "tflite-runtime==2.13.0"),
                    (("numpy", "1.24.4"), ("onnxruntime", "1.16.3"), ("tflite-runtime", "2.13.0")),
                    (("onnxruntime", "onnxruntime"), ("tflite", "tflite-runtime"))),
            ArmVenv("jp6", "jetpack-6", ("numpy==1.26.4", "onnxruntime==1.18.1", "ai-edge-litert==1.4.0"),
                    (("numpy", "1.26.4"), ("onnxruntime", "1.18.1"), ("ai-edge-litert", "1.4.0")),
                    (("onnxruntime", "onnxruntime"), ("tflite", "ai-edge-litert"))),
        ),
        differs="the Jetson families' runtime releases as aarch64 wheels on Debian 11's Python 3.9.2, not "
                "JetPack's: no reachable Debian or Ubuntu arm64 release has Python 3.6, 3.8 or 3.10 (buster's "
                "arm64 index is gone), and TensorRT, CUDA and the GPU builds of onnxruntime come only with "
                "JetPack on a Jetson",
    ),
)

ROOT_BY_NAME: dict[str, ArmRoot] = {r.name: r for r in ROOTS}

# stack profile name → the (root, venv) pairs whose runtimes are that stack's releases on real aarch64
VENVS_BY_STACK: dict[str, list[tuple[ArmRoot, ArmVenv]]] = {}
for _root in ROOTS:
    for _venv in _root.venvs:
        VENVS_BY_STACK.setdefault(_venv.stack, []).append((_root, _venv))


def runtime_dist(venv: ArmVenv, runtime: str) -> str:
    """The distribution the agent measures `runtime` with in this venv."""
    return dict(venv.runtimes)[runtime]


def aarch64_platforms(glibc: tuple[int, int]) -> list[str]:
    """`pip download --platform` tags for aarch64 wheels a glibc runs: pip matches each manylinux_2_N exactly."""
    major, minor = glibc
    return ["manylinux2014_aarch64", *(f"manylinux_{major}_{n}_aarch64" for n in range(17, minor + 1))]


def recipe_hash(root: ArmRoot) -> str:
    """Hex digest of everything that decides a root's contents: the key of its cached archive."""
    keyed = {"recipe": RECIPE_VERSION, "suite": root.suite, "packages": list(root.packages),
             "dpkg_excludes": list(DPKG_EXCLUDES), "mirror": MIRROR,
             "python": root.python, "numpy": root.numpy, "glibc": list(root.glibc),
             "venvs": [[v.name, list(v.requirements)] for v in root.venvs]}
    return hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()
