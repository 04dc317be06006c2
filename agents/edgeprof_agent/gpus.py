"""NVIDIA GPUs on this machine, for the capability matrix (TensorRT, onnxruntime's CUDA/TensorRT providers).

Owns: finding GPUs without importing any CUDA library: the driver's /proc/driver/nvidia/gpus/*/information
(discrete GPUs) and the Tegra markers of a Jetson (/etc/nv_tegra_release, device-tree compatible "nvidia,tegra").
Reads only, through the agent's SysfsRoot (the same one the probes get), so a board tree is one picture.
Does not own: GPU telemetry (probes/nvml.py, probes/jetson.py).
"""


def nvidia_gpus(root):
    """[{"name", "kind": "discrete" | "integrated", "bus"?}] — empty when there is none. root: a SysfsRoot."""
    found = []
    for bus in root.listdir("/proc/driver/nvidia/gpus"):
        text = root.try_read_text("/proc/driver/nvidia/gpus/%s/information" % bus) or ""
        name = None
        for line in text.splitlines():
            if line.startswith("Model:"):
                name = line.split(":", 1)[1].strip()
        found.append({"name": name or "NVIDIA GPU", "kind": "discrete", "bus": bus})
    tegra = root.try_read_text("/etc/nv_tegra_release")
    compatible = (root.try_read_text("/proc/device-tree/compatible") or "").replace("\x00", " ")
    if tegra is not None or "nvidia,tegra" in compatible:
        model = (root.try_read_text("/proc/device-tree/model") or "").strip("\x00\n ")
        found.append({"name": model or "NVIDIA Tegra", "kind": "integrated"})
    return found
