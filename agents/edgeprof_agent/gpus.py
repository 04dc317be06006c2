"""NVIDIA GPUs on this machine: which there are (the capability matrix: TensorRT, onnxruntime's CUDA/TensorRT
providers) and which one a run uses.

Owns: finding GPUs without importing any CUDA library: the driver's /proc/driver/nvidia/gpus/*/information
(discrete GPUs: name, UUID, PCI bus, in PCI bus order) and the Tegra markers of a Jetson (/etc/nv_tegra_release,
device-tree compatible "nvidia,tegra"). Reads only, through the agent's SysfsRoot (the same one the probes get),
so a board tree is one picture.
Also owns the GPU a run uses (`choose`, `pin_cuda`): `gpu: N` is NVML's index N, the index nvidia-smi shows (PCI
bus order), read through NVML when it is there (name, UUID, PCI bus id), else the N-th GPU of the driver's list
in PCI bus order. The run's CUDA is then pinned to that GPU by its UUID, CUDA_VISIBLE_DEVICES=GPU-<uuid>, set in
the run's own child process before any runtime is imported: CUDA's own ordinals follow CUDA_DEVICE_ORDER
(FASTEST_FIRST by default, not NVML's PCI order) and renumber under CUDA_VISIBLE_DEVICES, so an ordinal passed to
a runtime (onnxruntime's device_id, cudaSetDevice) could name another GPU than the one NVML reads; a UUID names
one board whatever the order, and every runtime (onnxruntime's CUDA and TensorRT providers, TensorRT through
cuda-python or pycuda) then sees it as its device 0. Without a UUID (a driver list that lacks it, no NVML),
CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=N say the same thing in PCI order.
Does not own: GPU telemetry (probes/nvml.py, probes/jetson.py), reading the chosen GPU's power and memory
(probes/nvml.py, memory.py, windows.py: they are handed its index).
"""

import os


def nvidia_gpus(root):
    """[{"name", "kind": "discrete" | "integrated", "bus"?, "uuid"?}] — empty when there is none, discrete GPUs
    in PCI bus order (NVML's index order). root: a SysfsRoot."""
    found = []
    for bus in sorted(root.listdir("/proc/driver/nvidia/gpus"), key=lambda b: b.lower()):
        text = root.try_read_text("/proc/driver/nvidia/gpus/%s/information" % bus) or ""
        name = uuid = None
        for line in text.splitlines():
            if line.startswith("Model:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("GPU UUID:"):
                uuid = line.split(":", 1)[1].strip() or None
        gpu = {"name": name or "NVIDIA GPU", "kind": "discrete", "bus": bus}
        if uuid:
            gpu["uuid"] = uuid
        found.append(gpu)
    tegra = root.try_read_text("/etc/nv_tegra_release")
    compatible = (root.try_read_text("/proc/device-tree/compatible") or "").replace("\x00", " ")
    if tegra is not None or "nvidia,tegra" in compatible:
        model = (root.try_read_text("/proc/device-tree/model") or "").strip("\x00\n ")
        found.append({"name": model or "NVIDIA Tegra", "kind": "integrated"})
    return found


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _from_nvml(index):
    """{"index", "name", "uuid", "pci_bus_id", "source"} of NVML's GPU `index`, (None, count) when NVML has fewer
    GPUs, or (None, None) when NVML cannot be asked."""
    from .probes import nvml

    nv, _reason = nvml.load()
    if nv is None:
        return None, None
    try:
        count = nv.nvmlDeviceGetCount()
        if index >= count:
            return None, count
        h = nv.nvmlDeviceGetHandleByIndex(index)
        info = {"index": index, "name": _text(nv.nvmlDeviceGetName(h)), "source": "NVML"}
        try:
            info["uuid"] = _text(nv.nvmlDeviceGetUUID(h))
        except Exception:
            pass
        try:
            info["pci_bus_id"] = _text(nv.nvmlDeviceGetPciInfo(h).busId)
        except Exception:
            pass
        return info, count
    except Exception:
        return None, None
    finally:
        nvml.shutdown(nv)


def choose(root, index):
    """The GPU `index` (NVML's index) as {"index", "name", "uuid"?, "pci_bus_id"?, "source", "kind"}; raises
    OpError(BAD_REQUEST) in one line when this machine has no such GPU."""
    from .protocol import OpError
    from .vocab import ErrorKind

    info, count = _from_nvml(index)
    if info is not None:
        info["kind"] = "discrete"
        return info
    listed = nvidia_gpus(root)
    discrete = [g for g in listed if g["kind"] == "discrete"]
    if count is None:  # no NVML: the driver's list, PCI bus order
        if index < len(discrete):
            g = discrete[index]
            info = {"index": index, "name": g["name"], "pci_bus_id": g["bus"], "kind": "discrete",
                    "source": "/proc/driver/nvidia/gpus (PCI bus order)"}
            if g.get("uuid"):
                info["uuid"] = g["uuid"]
            return info
        integrated = [g for g in listed if g["kind"] == "integrated"]
        if not discrete and integrated and index == 0:
            return {"index": 0, "name": integrated[0]["name"], "kind": "integrated",
                    "source": "Tegra device tree"}
        count = len(discrete) or len(integrated)
    raise OpError(ErrorKind.BAD_REQUEST, "gpu %d: this device has %d NVIDIA GPU(s)%s" % (
        index, count, " (indices 0-%d, as nvidia-smi numbers them)" % (count - 1) if count else ""),
        hint="choose --gpu from 0 to %d (devices.yaml gpu:)" % (count - 1) if count else
        "leave out --gpu: this device has no NVIDIA GPU")


def pin_cuda(info, environ=None):
    """Make CUDA in this process see only the GPU `info` (choose's) as its device 0: CUDA_VISIBLE_DEVICES=its UUID
    (else CUDA_DEVICE_ORDER=PCI_BUS_ID and its index). Call before any CUDA library is imported. Returns the
    variables set, {name: value}; a Jetson's one integrated GPU sets none."""
    environ = os.environ if environ is None else environ
    if info.get("kind") == "integrated":
        return {}
    if info.get("uuid"):
        pinned = {"CUDA_VISIBLE_DEVICES": info["uuid"]}
    else:
        pinned = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": str(info["index"])}
    environ.update(pinned)
    return pinned
