"""The generation measurement kind's choices (edgeprof/session/generation.py): which specs it takes, the runtime's
capability on a device's facts, llama.cpp's extra-buffers default and the silence allowed per repetition."""

import pytest

from edgeprof.errors import CapabilityError
from edgeprof.records import RunSpec
from edgeprof.session import generation as gen
from edgeprof.session.kinds import FORWARD_PASS, kind_of
from edgeprof_agent.messages import Facts


def facts(**fields):
    base = {"hostname": "nano", "arch": "aarch64", "cpu": "ARMv8", "os": "Ubuntu 18.04", "kernel": "4.9.253-tegra",
            "python": "3.6.9", "python_executable": "/usr/bin/python3", "agent_version": "0.1.0", "protocol": 11}
    base.update(fields)
    return Facts.from_dict(base)


def spec(**kw):
    return RunSpec(**{"device": "local", "model": "llama_tiny", "runtime": "llama.cpp", "precision": "q4_0", **kw})


def test_generative_models_and_runtimes_choose_the_generation_kind(tmp_path):
    assert kind_of(spec()) is gen.GENERATION
    assert kind_of(spec(model="/nowhere/m.gguf")) is gen.GENERATION  # detect() words what is wrong with it
    assert kind_of(spec(model="net.onnx")) is gen.GENERATION  # the runtime asks for it; check() refuses the model
    assert kind_of(spec(model="mobilenet_v2", runtime="onnxruntime", precision="fp32")) is FORWARD_PASS
    assert kind_of(spec(model=str(tmp_path), runtime="onnxruntime")) is gen.GENERATION  # a folder


def test_the_settings_default_to_llama_bench_and_are_read_from_the_spec():
    assert gen.settings_of(spec()) == {"prompt_tokens": 512, "gen_tokens": 128, "depth": 0, "repetitions": 5}
    s = spec(depth=64, gen_tokens=16, runtime_options={"n_batch": 256})
    assert gen.settings_of(s) == {"prompt_tokens": 512, "gen_tokens": 16, "depth": 64, "repetitions": 5}


def test_a_runtime_the_facts_lack_is_refused_naming_the_reason():
    no_llama = facts(runtimes={"llama_cpp": {"error": "ModuleNotFoundError: No module named 'llama_cpp'"}})
    with pytest.raises(CapabilityError, match="device nano has no llama.cpp: llama_cpp is not importable there"):
        gen.capability("llama.cpp", no_llama, "nano")
    with pytest.raises(CapabilityError, match="onnxruntime_genai is not importable there \\(not reported"):
        gen.capability("onnxruntime-genai", facts(runtimes={}), "nano")
    gen.capability("llama.cpp", facts(runtimes={"llama_cpp": {"version": "0.3.36"}}), "nano")


def test_litert_lm_on_a_board_needs_its_module():
    """On a board the facts say whether LiteRT-LM's module is there (one line when it is not); with it, the
    capability passes whatever the model (a user's .litertlm is judged by its own figures before connecting:
    litertlm_refusal, tests/gen/test_user_litertlm.py)."""
    missing = facts(runtimes={"litert_lm": {"error": "ModuleNotFoundError: No module named 'litert_lm'"}})
    with pytest.raises(CapabilityError) as e:
        gen.capability("litert-lm", missing, "nano")
    assert e.value.message == ("device nano: litert-lm: not installed on this device (litert_lm is not importable "
                               "there: ModuleNotFoundError: No module named 'litert_lm')")
    with pytest.raises(CapabilityError, match="litert-lm: not installed on this device .*not reported by the agent"):
        gen.capability("litert-lm", facts(runtimes={}), "nano")
    installed = facts(runtimes={"litert_lm": {"version": "0.18.1"}})
    gen.capability("litert-lm", installed, "nano")


def test_a_litertlm_takes_litert_lm_at_its_own_precision(tmp_path):
    """check(): a .litertlm runs on litert-lm only, measured as built; litert-lm takes a .litertlm, or a bundled
    model or Hugging Face folder it builds one from (at wi8_afp32 or fp32, not as-built)."""
    from edgeprof.errors import ConfigError, ModelError

    f = tmp_path / "m.litertlm"
    f.write_bytes(b"PK\x03\x04" + bytes(60))
    with pytest.raises(ModelError, match="is not a LiteRT-LM file"):
        gen.check(spec(model=str(f), runtime="litert-lm", precision="as-built"))
    with pytest.raises(ConfigError, match="--runtime litert-lm: it runs a .litertlm file"):
        gen.check(spec(model="net.onnx", runtime="litert-lm", precision="as-built"))
    with pytest.raises(ConfigError, match="--precision as-built: llama_tiny is built for LiteRT-LM by edgeprof"):
        gen.check(spec(runtime="litert-lm", precision="as-built"))
    with pytest.raises(ConfigError, match="--precision int4: litert-lm takes as-built, wi8_afp32, fp32") as e:
        gen.check(spec(runtime="litert-lm", precision="int4"))
    assert "--precision wi8_afp32 (the default" in e.value.one_line()  # what llama_tiny is built at, not as-built
    gen.check(spec(runtime="litert-lm", precision="wi8_afp32"))
    gen.check(spec(runtime="litert-lm", precision="fp32"))
    with pytest.raises(ConfigError, match="--precision int4: a .litertlm is measured as it was built"):
        gen.check(spec(model=str(f), runtime="litert-lm", precision="int4"))
    assert gen.default_runtime(str(f)) == "litert-lm" and kind_of(spec(model=str(f))) is gen.GENERATION


def test_extra_buffers_off_only_for_quantised_weights_on_x86_64():
    x86, arm = facts(arch="x86_64"), facts(arch="aarch64")
    assert gen.extra_buffers_default("llama.cpp", "q4_0", x86) is False
    assert gen.extra_buffers_default("llama.cpp", "q8_0", x86) is False
    assert gen.extra_buffers_default("llama.cpp", "f16", x86) is None  # AMX does not take F16
    assert gen.extra_buffers_default("llama.cpp", "q4_0", arm) is None  # llama.cpp's CPU_REPACK: what boards run
    assert gen.extra_buffers_default("onnxruntime-genai", "int4", x86) is None


def test_the_silence_covers_one_repetition_of_a_slow_board():
    # docs/generative.md: a 1B Q4_0 on a loaded 2-core VM: prefill 64 tokens ~15 s, decode 0.38 tokens/s
    s = {"prompt_tokens": 64, "gen_tokens": 128, "depth": 0, "repetitions": 5}
    assert gen.repetition_silence_s(s) > 15 + 128 / 0.38


def test_a_litertlm_build_has_the_runs_cache_and_the_agent_is_told_the_model():
    """The .litertlm's KV cache: the run's tokens rounded up to a power of two, at least 256, at most the context
    (its graphs work over all of it each step); the agent's LiteRT-LM backend is told the vocabulary and the cache's
    dimensions from the model's config (LiteRT-LM's API reports neither), nothing for another runtime."""
    import dataclasses

    from edgeprof.generative.build import litertlm_cache_length
    from edgeprof.records import Artifact, GenerativeBuild

    assert [litertlm_cache_length(4096, n) for n in (1, 80, 256, 257, 640, 4096)] == [256, 256, 256, 512, 1024, 4096]
    assert litertlm_cache_length(4096, 5000) == 4096 and litertlm_cache_length(128, 80) == 128
    art = Artifact(path="/cache/k/model.litertlm", format="litertlm", sha256="", size_bytes=0, inputs=(), outputs=(),
                   model_name="llama_tiny", source="file:/cache/hf", precision="wi8_afp32",
                   export_options=GenerativeBuild(kind="litertlm", cache_length=256))
    opts = gen.litertlm_options(spec(runtime="litert-lm", precision="wi8_afp32"), art)
    assert opts == {"vocab_size": 2048, "kv_cache": {"layers": 4, "kv_heads": 4, "head_dim": 32, "cache_length": 256,
                                                     "dtype": "float32", "bytes_per_element": 4},
                    "dims_from": "the config.json of the Hugging Face folder edgeprof built the .litertlm from"}
    assert gen.litertlm_options(spec(), dataclasses.replace(art, format="gguf")) == {}


def test_onnxruntime_genai_cuda_needs_an_nvidia_gpu_in_the_facts():
    """The facts say whether the device has an NVIDIA GPU (a discrete one, or a Jetson's: l4t), not whether its
    onnxruntime-genai was built with CUDA (the agent refuses that before loading): cuda is refused on a device
    whose facts show none, passes where they show one or do not say, and the CPU needs no GPU."""
    og = {"onnxruntime_genai": {"version": "0.18.0"}}
    none = facts(runtimes=og, gpus=[])
    with pytest.raises(CapabilityError, match="^device nano: --providers cuda: nano has no NVIDIA GPU — leave"):
        gen.capability("onnxruntime-genai", none, "nano", provider="cuda")
    gen.capability("onnxruntime-genai", none, "nano", provider="cpu")
    gen.capability("onnxruntime-genai", none, "nano")
    gen.capability("onnxruntime-genai", facts(runtimes=og, gpus=[{"name": "Tesla T4", "kind": "discrete"}]), "nano",
                   provider="cuda")
    gen.capability("onnxruntime-genai", facts(runtimes=og, gpus=None), "nano", provider="cuda")  # unknown: the agent
    missing = facts(runtimes={}, gpus=[])  # the module's absence is said first
    with pytest.raises(CapabilityError, match="has no onnxruntime-genai"):
        gen.capability("onnxruntime-genai", missing, "nano", provider="cuda")
    cell = spec(runtime="onnxruntime-genai", precision="int4", runtime_options={"provider": "cuda"})
    assert gen.decide(cell, "llama_tiny", none) == ("device local: --providers cuda: local has no NVIDIA GPU — "
                                                    "leave --providers out (the CPU), or pick a device with one")
    assert gen.decide(cell, "llama_tiny", facts(runtimes=og, l4t={"release": "R32.7.1", "raw": "# R32"})) is None


def test_onnxruntime_genai_cuda_needs_its_cuda_build_in_the_facts():
    """Facts that read og.is_cuda_available() (runtimes.onnxruntime_genai.cuda) let the host refuse cuda on a CPU
    build before anything is built or pushed, in one line naming the module's lack (and the GPU's, when both
    lack); a build with CUDA passes, and facts without the field (an older agent) leave it to the agent."""
    t4 = [{"name": "Tesla T4", "kind": "discrete"}]
    cpu_build = {"onnxruntime_genai": {"version": "0.18.0", "cuda": False}}
    with pytest.raises(CapabilityError) as e:
        gen.capability("onnxruntime-genai", facts(runtimes=cpu_build, gpus=t4), "t4box", provider="cuda")
    assert e.value.one_line() == ("device t4box: --providers cuda: t4box's onnxruntime-genai 0.18.0 has no CUDA "
                                  "(is_cuda_available() is False) — install onnxruntime-genai-cuda on the device "
                                  "(instead of onnxruntime-genai), or leave --providers out (the CPU)")
    with pytest.raises(CapabilityError) as e:
        gen.capability("onnxruntime-genai", facts(runtimes=cpu_build, gpus=[]), "nano", provider="cuda")
    assert e.value.one_line().startswith("device nano: --providers cuda: nano has no NVIDIA GPU, and its "
                                          "onnxruntime-genai 0.18.0 has no CUDA (is_cuda_available() is False) — ")
    assert "\n" not in e.value.one_line()
    gen.capability("onnxruntime-genai", facts(runtimes=cpu_build, gpus=t4), "t4box", provider="cpu")  # the CPU: fine
    gen.capability("onnxruntime-genai", facts(runtimes=cpu_build, gpus=t4), "t4box")
    cuda_build = {"onnxruntime_genai": {"version": "0.18.0", "cuda": True}}
    gen.capability("onnxruntime-genai", facts(runtimes=cuda_build, gpus=t4), "t4box", provider="cuda")
    unsaid = {"onnxruntime_genai": {"version": "0.18.0"}}  # an agent before the field: the agent refuses it
    gen.capability("onnxruntime-genai", facts(runtimes=unsaid, gpus=t4), "t4box", provider="cuda")
    cell = spec(runtime="onnxruntime-genai", precision="int4", runtime_options={"provider": "cuda"})
    assert gen.decide(cell, "llama_tiny", facts(runtimes=cpu_build, gpus=t4)).startswith(
        "device local: --providers cuda: local's onnxruntime-genai 0.18.0 has no CUDA")
    assert gen.decide(cell, "llama_tiny", facts(runtimes=cuda_build, gpus=t4)) is None


def test_a_generation_runs_on_the_gpu_devices_yaml_or_gpu_names_and_one_the_facts_lack_is_refused():
    """gpu_of, as the forward pass chooses (run/plan.py): --gpu, else the device's gpu: (NVML's index), checked
    against the GPUs the facts show (the forward pass's line, naming them; facts that do not say leave it to the
    agent); a device_id in runtime options is refused: edgeprof sets it (0, the pinned GPU)."""
    import dataclasses

    from edgeprof.errors import ConfigError
    from edgeprof.records import Device

    two = facts(gpus=[{"name": "Tesla T4", "kind": "discrete", "uuid": "GPU-a"},
                      {"name": "Tesla T4", "kind": "discrete", "uuid": "GPU-b"}])
    board = Device(name="t4box", gpu=1, source="devices.yaml:7")
    cuda = spec(runtime="onnxruntime-genai", precision="int4", runtime_options={"provider": "cuda"})
    assert gen.gpu_of(cuda, board, two) == 1
    assert gen.gpu_of(dataclasses.replace(cuda, gpu=0), board, two) == 0  # --gpu overrides gpu:
    assert gen.gpu_of(cuda, Device(name="t4box"), two) is None  # none named: nothing pinned, CUDA's device 0
    with pytest.raises(CapabilityError) as e:
        gen.gpu_of(cuda, Device(name="t4box", gpu=2, source="devices.yaml:7"), two)
    assert e.value.one_line() == ("gpu: 2 (devices.yaml:7): t4box has 2 NVIDIA GPU(s) (0: Tesla T4, 1: Tesla T4) — "
                                  "choose --gpu (devices.yaml t4box.gpu) below that count, or leave it out")
    with pytest.raises(CapabilityError, match="^--gpu 5: t4box has 2 NVIDIA GPU"):
        gen.gpu_of(dataclasses.replace(cuda, gpu=5), board, two)
    with pytest.raises(CapabilityError, match="^--gpu 0: nano has no NVIDIA GPU"):
        gen.gpu_of(dataclasses.replace(spec(), gpu=0), Device(name="nano"), facts(gpus=[]))
    assert gen.gpu_of(dataclasses.replace(cuda, gpu=5), board, facts(gpus=None)) == 5  # unknown: the agent decides
    gen.check(dataclasses.replace(cuda, gpu=1))
    with pytest.raises(ConfigError, match="^device_id 1: edgeprof chooses onnxruntime-genai's CUDA device itself"):
        gen.check(spec(runtime="onnxruntime-genai", precision="int4",
                       runtime_options={"provider": "cuda", "device_id": 1}))
