"""A generation runtime on a device: what the generation kind (session/generation.py) asks of the device's facts
and what a generation's runtime options mean, before anything is built or pushed.

Owns: the runtime's module in the device's facts (`capability`: importable, and for onnxruntime-genai on CUDA an
NVIDIA GPU and a build with CUDA, facts.runtimes.onnxruntime_genai.cuda), the GPU a generation runs on (`gpu_of`:
--gpu or devices.yaml gpu:, checked against the facts' GPUs, as the forward pass's run/plan.py), deploy's
--providers as onnxruntime-genai's `provider` option (`gen_provider_options`; its CUDA device_id is the agent's to
set), llama.cpp's load options (`check_llama_options`) and its extra-buffers default (`extra_buffers_default`).
Does not own: the kind itself, its checks of the model and settings and the measurement (session/generation.py,
which re-exports these names), the agent's backends (agents/edgeprof_agent/generation/).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edgeprof_agent.vocab import GEN_RUNTIMES, LITERT_LM

from ..errors import CapabilityError, ConfigError

if TYPE_CHECKING:
    from edgeprof_agent.messages import Facts

    from ..records import Device, RunSpec

# the module each runtime is imported as on the device (the agent's facts report it: environment.RUNTIME_MODULES)
RUNTIME_MODULE = {"llama.cpp": "llama_cpp", "onnxruntime-genai": "onnxruntime_genai", LITERT_LM: "litert_lm"}


# llama.cpp's load settings a spec's runtime_options may hold (deploy --mmap / --extra-buffers, or a sweep's
# runtime_options), each a GenerateRequest field of the same name; no other runtime has them
LLAMA_LOAD_OPTIONS = {"use_mmap": "--mmap", "extra_buffers": "--extra-buffers"}


# onnxruntime-genai's execution providers (its backend's `provider` option, agents/.../generation/ortgenai.py):
# deploy --providers names them as onnxruntime does (CUDAExecutionProvider) or as onnxruntime-genai does (cuda)
GEN_PROVIDERS = {"cuda": "cuda", "cudaexecutionprovider": "cuda", "cpu": "cpu", "cpuexecutionprovider": "cpu"}


def gen_provider_options(runtime: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The runtime options with --providers (`providers`, a list) as onnxruntime-genai's one `provider` ("cpu" or
    "cuda"; "cuda" followed by the CPU is CUDA: ONNX Runtime puts what CUDA has no kernel for on the CPU), or one
    line: providers for another generation runtime, one onnxruntime-genai has no mapping for, more than one GPU
    provider, or both forms at once."""
    opts = dict(options or {})
    if "device_id" in opts:  # the agent sets it: 0, the GPU it pinned CUDA to (gpu_of, genworker.py)
        raise ConfigError(f"device_id {opts['device_id']!r}: edgeprof chooses onnxruntime-genai's CUDA device itself",
                          hint="name the GPU with --gpu N or devices.yaml gpu: N (NVML's index, as nvidia-smi "
                               "numbers them)")
    given = opts.pop("providers", None)
    if given is None:
        if "provider" in opts and runtime != "onnxruntime-genai":
            raise ConfigError(f"provider {opts['provider']!r}: {runtime} has no execution provider setting here; it "
                              "is onnxruntime-genai's", hint="drop it, or --runtime onnxruntime-genai")
        if "provider" in opts and opts["provider"] not in ("cpu", "cuda"):
            raise ConfigError(f"provider {opts['provider']!r}: onnxruntime-genai runs on cpu or cuda here")
        return opts
    names = [given] if isinstance(given, str) else list(given)
    shown = ",".join(map(str, names))
    if runtime != "onnxruntime-genai":
        raise ConfigError(f"--providers {shown}: {runtime} takes no execution providers (only onnxruntime-genai "
                          "does, among the generation runtimes)",
                          hint="drop --providers" + (" (llama.cpp runs on the CPU here)" if runtime == "llama.cpp"
                                                     else ""))
    if "provider" in opts:
        raise ConfigError(f"--providers {shown} and provider {opts['provider']!r}: give one of them")
    mapped = [GEN_PROVIDERS.get(str(n).strip().lower()) for n in names]
    bad = [n for n, m in zip(names, mapped, strict=True) if m is None]
    if bad or not names or mapped not in (["cpu"], ["cuda"], ["cuda", "cpu"]):
        what = f"{bad[0]} has no onnxruntime-genai mapping here" if bad else "is not one provider"
        raise ConfigError(f"--providers {shown}: {what}",
                          hint="--providers cuda (or CUDAExecutionProvider; CUDA,CPU also), or cpu, or leave it "
                               "out (the CPU, as the model folder's genai_config.json says)")
    opts["provider"] = mapped[0]
    return opts


def check_llama_options(spec: RunSpec) -> None:
    """use_mmap and extra_buffers are llama.cpp's and true or false: one line for another runtime's spec (or a
    value that is not a boolean), before anything connects."""
    opts = spec.runtime_options or {}
    for key, flag in LLAMA_LOAD_OPTIONS.items():
        if key not in opts:
            continue
        if spec.runtime != "llama.cpp":
            raise ConfigError(f"{flag} ({key}): {spec.runtime} has no such setting; it is llama.cpp's",
                              hint=f"drop {flag}, or --runtime llama.cpp")
        if not isinstance(opts[key], bool):
            raise ConfigError(f"{flag} ({key}): must be true or false (on / off), not {opts[key]!r}")


def capability(runtime: str, facts: Facts, device: str, provider: str | None = None) -> None:
    """The device has the runtime's module importable (its facts), or one line saying it lacks it (a user's
    .litertlm on a board is judged by its own figures, before connecting: litertlm_refusal). onnxruntime-genai's
    `provider` "cuda" is refused, in one line that names each lack, on a device whose facts show no NVIDIA GPU and
    on one whose onnxruntime-genai build has no CUDA (the facts' runtimes.onnxruntime_genai.cuda:
    og.is_cuda_available(), read by the agent when it gathers facts). Facts that do not say (an agent before that
    field, or a call that raised: cuda None) leave it to the agent, which refuses it before loading
    (ortgenai.py check_options)."""
    mod = RUNTIME_MODULE[runtime]
    fact = (facts.runtimes or {}).get(mod)
    if runtime == LITERT_LM:
        if fact is None or fact.error is not None or fact.version is None:
            why = fact.error if fact is not None and fact.error else "not reported by the agent"
            raise CapabilityError(f"device {device}: litert-lm: not installed on this device ({mod} is not "
                                  f"importable there: {why})",
                                  hint="install litert-lm-api on the device (Python >= 3.10), or measure the "
                                       ".litertlm on a phone (devices.yaml litert_lm_main:, docs/phones.md)")
        return
    if fact is None or fact.error is not None or fact.version is None:
        why = fact.error if fact is not None and fact.error else "not reported by the agent"
        pkg = {"llama.cpp": "llama-cpp-python", "onnxruntime-genai": "onnxruntime-genai"}[runtime]
        raise CapabilityError(f"device {device} has no {runtime}: {mod} is not importable there ({why})",
                              hint=f"install {pkg} on the device, or pick --runtime "
                                   f"{' / '.join(r for r in GEN_RUNTIMES if r != runtime)}")
    if provider == "cuda":
        from ..capability import has_nvidia_gpu

        no_gpu, no_cuda = has_nvidia_gpu(facts) is False, fact.cuda is False  # None: not said (an older agent)
        lacks = [f"{device} has no NVIDIA GPU"] if no_gpu else []
        if no_cuda:
            whose = "its" if no_gpu else f"{device}'s"
            lacks.append(f"{whose} onnxruntime-genai {fact.version} has no CUDA (is_cuda_available() is False)")
        if lacks:
            hint = ("leave --providers out (the CPU), or pick a device with an NVIDIA GPU and onnxruntime-genai-cuda"
                    if no_gpu and no_cuda else "leave --providers out (the CPU), or pick a device with one" if no_gpu
                    else "install onnxruntime-genai-cuda on the device (instead of onnxruntime-genai), or leave "
                         "--providers out (the CPU)")
            raise CapabilityError(f"device {device}: --providers cuda: {', and '.join(lacks)}", hint=hint)


def gpu_of(spec: RunSpec, device: Device, facts: Facts) -> int | None:
    """The GPU a generation runs on, as the forward pass chooses it (run/plan.py): --gpu, else the device's gpu:
    (devices.yaml), NVML's index, refused in one line when the device's facts show no such GPU
    (capability.gpu_problem); None when neither names one. The agent pins CUDA to it (gpus.pin_cuda) whatever the
    runtime, as a run's; onnxruntime-genai on CUDA then runs there (device_id 0) and its GPU memory is read there."""
    gpu = spec.gpu if spec.gpu is not None else device.gpu
    if gpu is None:
        return None
    from ..capability import gpu_problem

    what = f"--gpu {gpu}" if spec.gpu is not None else f"gpu: {gpu} ({device.source or 'devices.yaml'})"
    problem = gpu_problem(facts, gpu, device.name, what)
    if problem is not None:
        raise CapabilityError(problem, hint=f"choose --gpu (devices.yaml {device.name}.gpu) below that count, or "
                              "leave it out")  # run/plan.py's line
    return gpu


def extra_buffers_default(runtime: str, precision: str, facts: Facts) -> bool | None:
    """llama.cpp's extra (repacked) buffers: off for quantised weights on x86-64, where llama-cpp-python 0.3.x
    crashes in the AMX buffer on CPUs that have it (docs/generative.md); llama.cpp's own default elsewhere."""
    if runtime != "llama.cpp" or precision == "f16":
        return None
    return False if facts.arch.lower() in ("x86_64", "amd64") else None
