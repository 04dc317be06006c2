"""NVIDIA GPUs on this machine, for the capability matrix (TensorRT, onnxruntime's CUDA/TensorRT providers).

Owns: finding GPUs without importing any CUDA library: the driver's /proc/driver/nvidia/gpus/*/information
(discrete GPUs) and the Tegra markers of a Jetson (/etc/nv_tegra_release, device-tree compatible "nvidia,tegra").
Reads only; `root` is a path prefix so tests can lay out a fake tree.
Does not own: GPU telemetry (probes/nvml.py, probes/jetson.py).
"""

import os


def _read(path):
    try:
        with open(path, "r") as f:
            return f.read()
    except (IOError, OSError, UnicodeDecodeError):
        return None


def nvidia_gpus(root="/"):
    """[{"name", "kind": "discrete" | "integrated", "bus"?}] — empty when there is none."""
    found = []
    base = os.path.join(root, "proc/driver/nvidia/gpus")
    try:
        buses = sorted(os.listdir(base))
    except OSError:
        buses = []
    for bus in buses:
        text = _read(os.path.join(base, bus, "information")) or ""
        name = None
        for line in text.splitlines():
            if line.startswith("Model:"):
                name = line.split(":", 1)[1].strip()
        found.append({"name": name or "NVIDIA GPU", "kind": "discrete", "bus": bus})
    tegra = _read(os.path.join(root, "etc/nv_tegra_release"))
    compatible = (_read(os.path.join(root, "proc/device-tree/compatible")) or "").replace("\x00", " ")
    if tegra is not None or "nvidia,tegra" in compatible:
        model = (_read(os.path.join(root, "proc/device-tree/model")) or "").strip("\x00\n ")
        found.append({"name": model or "NVIDIA Tegra", "kind": "integrated"})
    return found
