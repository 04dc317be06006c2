"""Board software stacks: the Python, numpy and runtime releases each board family's user space really holds.

Owns: one `StackProfile` per board family (JetPack 4.6, JetPack 5.1, JetPack 6, Raspberry Pi OS Bookworm, an
x86 server with a T4): the versions the board's OS ships or its users install, the pip requirements of the x86
stand-in venv built from the same releases, what cannot be had on this machine (and why), the runtimes the
stack can measure with, how the board's users install each runtime there (the README's stack table is rendered
from these by scripts/stack-table.py), and the newest ONNX IR / opset its onnxruntime loads (from
capability.ORT_ONNX_MAX, by the pinned release). Sources for every version are
cited in docs/stacks.md. TRAPS are broken stacks users end up with (tflite-runtime under numpy 2), built the
same way so that the agent's explanation of them is tested. Pure data, no I/O.
Does not own: building the venvs (scripts/build-stack-venvs.py), exporting for a board (export/), what the
agent does with a runtime (agents/edgeprof_agent/backends/).
Lives with the tests (tests/lanes/): nothing in edgeprof/ reads it; the lanes, their scripts and README's table do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from edgeprof.capability import ort_onnx_limit

__all__ = ["Unavailable", "StackProfile", "PROFILES", "TRAPS", "PROFILE_BY_NAME", "profile_hash", "as_json"]


@dataclass(frozen=True)
class Unavailable:
    """A part of the board's stack the x86 stand-in cannot have: the requirement as the board has it, and why."""

    requirement: str  # e.g. "tensorrt==8.2.1"
    why: str


@dataclass(frozen=True)
class StackProfile:
    """One board family's user space, and the venv that stands in for it here."""

    name: str  # short id: the venv directory and the test ids use it
    board: str  # the board family, as a user names it
    os_release: str  # the OS image (JetPack/L4T, Raspberry Pi OS, Ubuntu)
    python: str  # major.minor of the OS's python3 (the board's exact patch release in python_on_board)
    python_on_board: str
    numpy: str  # the numpy release the board's users have
    requirements: tuple[str, ...]  # pip requirements of the stand-in venv (exact pins: the cache key hashes them)
    expected: tuple[tuple[str, str], ...]  # (distribution, version) the stand-in must hold after the build
    runtimes: tuple[str, ...]  # vocab RUNTIMES the stand-in can measure with
    unavailable: tuple[Unavailable, ...]  # parts of the board's stack that cannot be had here
    pip_bootstrap: str | None = None  # pip release to install first (a 3.6 venv's pip 18 cannot see manylinux2014)
    # how the board's users install each runtime there: (runtime, how), shown in README's stack table
    install: tuple[tuple[str, str], ...] = ()

    @property
    def onnx_max(self) -> tuple[int, int] | None:
        """(IR version, opset) the stack's onnxruntime loads at most (capability.ORT_ONNX_MAX), None without one."""
        version = next((v for name, v in self.expected if name == "onnxruntime"), None)
        limit = ort_onnx_limit(version) if version else None
        return (limit.ir, limit.opset) if limit is not None else None


TRT_WHY = ("ships with JetPack (python3-libnvinfer) for the board's aarch64 Python; no x86 wheel of this release "
           "on PyPI, and it needs an NVIDIA GPU and driver")

PROFILES: tuple[StackProfile, ...] = (
    StackProfile(
        name="jetpack-4.6",
        board="Jetson Nano",
        os_release="JetPack 4.6.x (L4T R32.7, Ubuntu 18.04, glibc 2.27)",
        python="3.6",
        python_on_board="3.6.9",
        numpy="1.19.5",
        requirements=("numpy==1.19.5", "onnxruntime==1.10.0"),
        expected=(("numpy", "1.19.5"), ("onnxruntime", "1.10.0")),
        runtimes=("onnxruntime",),
        unavailable=(
            Unavailable("onnxruntime==1.11.0", "Jetson Zoo's aarch64 cp36 wheel only: onnxruntime 1.11 published no "
                        "cp36 wheel on PyPI (1.10.0 is the last one, used here instead)"),
            Unavailable("tensorrt==8.2.1", TRT_WHY + " (CUDA 10.2)"),
            Unavailable("pycuda", "source distribution only: it compiles against the CUDA 10.2 toolkit, which is not "
                        "here (cuda-python starts at CUDA 11.4, so JetPack 4.6 has only pycuda)"),
            Unavailable("tflite (ai-edge-litert / tflite-runtime)", "no cp36 wheel of either exists on PyPI"),
        ),
        pip_bootstrap="pip==21.3.1",
        install=(
            ("onnxruntime", "the Jetson Zoo's aarch64 cp36 wheel of onnxruntime-gpu 1.10 or 1.11 "
                            "(elinux.org/Jetson_Zoo#ONNX_Runtime): `pip3 install onnxruntime_gpu-1.11.0-cp36-"
                            "cp36m-linux_aarch64.whl`; keep numpy 1.19.5"),
            ("tensorrt", "ships with JetPack 4.6 (`python3-libnvinfer`, TensorRT 8.2); `pip3 install pycuda` "
                         "(builds against CUDA 10.2)"),
        ),
    ),
    StackProfile(
        name="jetpack-5.1",
        board="Jetson Xavier / Orin",
        os_release="JetPack 5.1.x (L4T R35, Ubuntu 20.04, glibc 2.31)",
        python="3.8",
        python_on_board="3.8.10",
        numpy="1.24.4",
        requirements=("numpy==1.24.4", "onnxruntime==1.16.3", "tflite-runtime==2.13.0"),
        expected=(("numpy", "1.24.4"), ("onnxruntime", "1.16.3"), ("tflite-runtime", "2.13.0")),
        runtimes=("onnxruntime", "tflite"),
        unavailable=(
            Unavailable("tensorrt==8.5.2", TRT_WHY + " (CUDA 11.4)"),
            Unavailable("ai-edge-litert", "no cp38 wheel on PyPI (it starts at Python 3.9): tflite-runtime 2.13 "
                        "is what works on Python 3.8"),
        ),
        install=(
            ("onnxruntime", "the Jetson Zoo's aarch64 cp38 wheel of onnxruntime-gpu 1.12 to 1.16 for JetPack 5 "
                            "(elinux.org/Jetson_Zoo#ONNX_Runtime)"),
            ("tflite", "`pip3 install tflite-runtime==2.13.0` (ai-edge-litert has no Python 3.8 wheel)"),
            ("tensorrt", "ships with JetPack 5.1 (`python3-libnvinfer`, TensorRT 8.5)"),
        ),
    ),
    StackProfile(
        name="jetpack-6",
        board="Jetson Orin",
        os_release="JetPack 6.x (L4T R36, Ubuntu 22.04, glibc 2.35)",
        python="3.10",
        python_on_board="3.10.12",
        numpy="1.26.4",
        requirements=("numpy==1.26.4", "onnxruntime==1.18.1", "ai-edge-litert==1.4.0", "cuda-python==12.6.0"),
        expected=(("numpy", "1.26.4"), ("onnxruntime", "1.18.1"), ("ai-edge-litert", "1.4.0"),
                  ("cuda-python", "12.6.0")),
        runtimes=("onnxruntime", "tflite"),
        unavailable=(
            Unavailable("tensorrt==10.3.0", TRT_WHY + " (CUDA 12.6); PyPI's tensorrt is a stub that downloads "
                        "from NVIDIA's index"),
        ),
        install=(
            ("onnxruntime", "the Jetson Zoo's aarch64 cp310 wheel of onnxruntime-gpu 1.17 or newer for JetPack 6 "
                            "(elinux.org/Jetson_Zoo#ONNX_Runtime)"),
            ("tflite", "`pip3 install ai-edge-litert`"),
            ("tensorrt", "ships with JetPack 6 (`python3-libnvinfer`, TensorRT 8.6 / 10.3); "
                         "`pip3 install 'cuda-python<13'`"),
        ),
    ),
    StackProfile(
        name="rpi-bookworm",
        board="Raspberry Pi 4 / 5",
        os_release="Raspberry Pi OS Bookworm 64-bit (Debian 12, glibc 2.36)",
        python="3.11",
        python_on_board="3.11.2",
        numpy="1.24.2",
        requirements=("numpy==1.24.2", "tflite-runtime==2.14.0"),
        expected=(("numpy", "1.24.2"), ("tflite-runtime", "2.14.0")),
        runtimes=("tflite",),
        unavailable=(
            Unavailable("onnxruntime", "not part of this stack: Raspberry Pi OS ships no onnxruntime and the "
                        "board's users run LiteRT"),
        ),
        install=(
            ("tflite", "`pip install tflite-runtime==2.14.0` with numpy < 2 (apt's python3-numpy 1.24 through "
                       "`python3 -m venv --system-site-packages`, or `pip install 'numpy<2'`), or "
                       "`pip install ai-edge-litert==2.3.0` (its aarch64 wheel runs on the board's Python 3.11 and numpy 1.24: "
                       "the aarch64 lane deploys with it)"),
        ),
    ),
    StackProfile(
        name="x86-t4",
        board="x86 server with an NVIDIA T4",
        os_release="Ubuntu 22.04 server (glibc 2.35)",
        python="3.10",
        python_on_board="3.10.12",
        numpy="2.2.6",
        requirements=("numpy==2.2.6", "onnxruntime==1.23.2", "ai-edge-litert==2.3.0", "nvidia-ml-py==12.575.51"),
        expected=(("numpy", "2.2.6"), ("onnxruntime", "1.23.2"), ("ai-edge-litert", "2.3.0"),
                  ("nvidia-ml-py", "12.575.51")),
        runtimes=("onnxruntime", "tflite"),
        unavailable=(
            Unavailable("tensorrt==10.13", "PyPI's tensorrt libs are stubs that download from NVIDIA's index, and "
                        "it needs an NVIDIA GPU and driver"),
        ),
        install=(
            ("onnxruntime", "`pip install onnxruntime-gpu` (`onnxruntime` for the CPU only)"),
            ("tflite", "`pip install ai-edge-litert`"),
            ("tensorrt", "`pip install tensorrt-cu12` (NVIDIA's index) with the NVIDIA driver; "
                         "`pip install nvidia-ml-py` for GPU telemetry"),
        ),
    ),
)

# Known-broken stacks a user ends up with; built like the others so the agent's explanation of them is tested.
TRAPS: tuple[StackProfile, ...] = (
    StackProfile(
        name="rpi-bookworm-numpy2",
        board="Raspberry Pi 4 / 5 after `pip install -U numpy`",
        os_release="Raspberry Pi OS Bookworm 64-bit (Debian 12, glibc 2.36)",
        python="3.11",
        python_on_board="3.11.2",
        numpy="2.2.6",
        requirements=("numpy==2.2.6", "tflite-runtime==2.14.0"),
        expected=(("numpy", "2.2.6"), ("tflite-runtime", "2.14.0")),
        runtimes=(),  # tflite-runtime is built for numpy 1: its interpreter fails under numpy 2
        unavailable=(),
    ),
)

PROFILE_BY_NAME: dict[str, StackProfile] = {p.name: p for p in PROFILES + TRAPS}


def profile_hash(profile: StackProfile) -> str:
    """Hex digest of everything that decides a stand-in venv's contents: the cache key of its directory."""
    keyed = {"python": profile.python, "requirements": list(profile.requirements),
             "pip_bootstrap": profile.pip_bootstrap, "expected": [list(e) for e in profile.expected]}
    return hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()


def as_json(profile: StackProfile) -> dict[str, object]:
    """The profile as plain JSON types (the builder's report embeds it)."""
    return asdict(profile)
