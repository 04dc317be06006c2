"""onnxruntime-genai's `provider` option (agents/edgeprof_agent/generation/ortgenai.py): with the real CPU wheel
installed here, "cuda" is refused in one line (its is_cuda_available() is False), an unknown provider is refused,
and nothing is loaded; with a double of the binding whose build has CUDA, the provider reaches og.Config before
og.Model is made, and describe() records the provider asked and the model's device_type.

The double follows onnxruntime-genai's Python binding (microsoft/onnxruntime-genai src/python/python.cpp):
og.Config(config_path) reads the folder's genai_config.json; Config.clear_providers(), Config.append_provider(name),
Config.overlay(json) change it; og.Model(config) is made from it (and an unknown provider name is refused there,
not by append_provider: seen with the 0.18 CPU wheel, "Unknown provider name 'bogus'. Currently supported values
are ..."); Model.device_type and Model.type are read-only strings; og.is_cuda_available() is the build's USE_CUDA.
(A model run on CUDA is not here: no GPU on this machine; docs/generative.md "CUDA".)"""

import json

import pytest

from edgeprof_agent.generation.ortgenai import PROVIDERS, GenerationBackend
from edgeprof_agent.protocol import OpError
from edgeprof_agent.vocab import ErrorKind


def _folder(tmp_path):
    cfg = {"model": {"type": "llama", "vocab_size": 512, "decoder": {
        "num_hidden_layers": 2, "num_key_value_heads": 4, "head_size": 16,
        "session_options": {"log_id": "onnxruntime-genai", "provider_options": []}}},
        "search": {"past_present_share_buffer": True}}
    (tmp_path / "genai_config.json").write_text(json.dumps(cfg))
    return str(tmp_path)


def _real():
    og = pytest.importorskip("onnxruntime_genai")
    if og.is_cuda_available():
        pytest.skip("this onnxruntime-genai has CUDA: the refusal is for a build without it")
    return og


def test_cuda_on_the_cpu_wheel_is_refused_in_one_line_before_anything_loads(tmp_path):
    og = _real()
    be = GenerationBackend()
    with pytest.raises(OpError) as e:
        be.check_options({"provider": "cuda"})
    assert e.value.type == ErrorKind.CAPABILITY
    assert e.value.message == f"onnxruntime-genai {og.__version__} here has no CUDA (is_cuda_available() is False)"
    assert "\n" not in e.value.message and "install onnxruntime-genai-cuda on the device" in e.value.hint
    with pytest.raises(OpError) as e:  # load() refuses it too, before reading the folder
        be.load(str(tmp_path / "no-such-folder"), 64, {"provider": "cuda", "threads": 1})
    assert e.value.type == ErrorKind.CAPABILITY and be.model is None


def test_an_unknown_provider_and_an_unknown_option_are_refused(tmp_path):
    _real()
    be = GenerationBackend()
    for bad in ("rocm", "CUDAExecutionProvider", "", 1):  # the host maps onnxruntime's names; the agent takes its own
        with pytest.raises(OpError) as e:
            be.check_options({"provider": bad})
        assert e.value.type == ErrorKind.BAD_OPTION and "provider must be one of cpu, cuda" in e.value.message
    with pytest.raises(OpError) as e:
        be.check_options({"providers": ["cuda"]})
    assert e.value.type == ErrorKind.BAD_OPTION and "unknown option(s) providers" in e.value.message
    assert PROVIDERS == ("cpu", "cuda")


class FakeOg:
    """onnxruntime-genai's module as its binding declares it (python.cpp), built with CUDA or not; `calls` in
    order."""

    __version__ = "0.18.0"
    KNOWN = ("cuda", "cpu", "dml", "qnn", "openvino", "webgpu")  # names og.Model takes (lower-cased, as it compares)

    def __init__(self, cuda):
        self.cuda = cuda
        self.calls = []
        og = self

        class Config:
            def __init__(self, config_path):
                with open(config_path + "/genai_config.json") as f:  # the real one refuses a folder without it
                    json.load(f)
                self.providers = []  # genai_config.json's provider_options: [] as the model builder writes for cpu
                og.calls.append(("Config", config_path))

            def overlay(self, text):
                json.loads(text)
                og.calls.append(("overlay", text))

            def clear_providers(self):
                self.providers = []
                og.calls.append(("clear_providers",))

            def append_provider(self, name):
                if name not in self.providers:  # "If the provider isn't already in the list, adds it to the end"
                    self.providers.append(name)
                og.calls.append(("append_provider", name))

            def set_provider_option(self, provider, key, value):
                og.calls.append(("set_provider_option", provider, key, value))

        class Model:
            def __init__(self, config):
                unknown = [p for p in config.providers if p.lower() not in og.KNOWN]
                if unknown:
                    raise RuntimeError(f"Unknown provider name '{unknown[0]}'.")
                if "cuda" in config.providers and not og.cuda:
                    raise RuntimeError("Cuda interface not available: Failed to load library: "
                                       "libonnxruntime-genai-cuda.so")
                self._device = "CUDA" if "cuda" in config.providers else "CPU"
                og.calls.append(("Model", tuple(config.providers)))

            @property
            def device_type(self):
                return self._device

            @property
            def type(self):
                return "llama"

        self.Config, self.Model = Config, Model

    def is_cuda_available(self):
        return self.cuda


def _backend(og):
    import numpy

    be = GenerationBackend()
    be.og, be.np = og, numpy
    return be


def test_cuda_reaches_the_config_before_the_model_is_made(tmp_path):
    og = FakeOg(cuda=True)
    be = _backend(og)
    folder = _folder(tmp_path)
    be.load(folder, 64, {"provider": "cuda", "threads": 2})
    names = [c[0] for c in og.calls]
    assert names == ["Config", "overlay", "clear_providers", "append_provider", "Model"]
    assert og.calls[3] == ("append_provider", "cuda") and og.calls[4] == ("Model", ("cuda",))
    d = be.describe()
    assert (d["provider"], d["device_type"], d["threads"]) == ("cuda", "CUDA", 2)
    assert d["provider_options"] == []  # genai_config.json's, as the folder holds them


def test_cpu_clears_the_folders_providers_and_no_option_leaves_them(tmp_path):
    og = FakeOg(cuda=True)
    be = _backend(og)
    be.load(_folder(tmp_path), 64, {"provider": "cpu"})
    assert [c[0] for c in og.calls] == ["Config", "clear_providers", "Model"]
    assert (be.describe()["provider"], be.describe()["device_type"]) == ("cpu", "CPU")
    og2 = FakeOg(cuda=False)
    be = _backend(og2)
    be.load(_folder(tmp_path), 64, {})
    assert [c[0] for c in og2.calls] == ["Config", "Model"]
    assert be.describe()["provider"] is None


def test_the_double_refuses_what_the_binding_refuses(tmp_path):
    """The double is checked against the real refusals: a build without CUDA is refused by the backend before the
    Config is made (no call at all), and og.Model refuses a provider name it does not know."""
    og = FakeOg(cuda=False)
    be = _backend(og)
    with pytest.raises(OpError) as e:
        be.load(_folder(tmp_path), 64, {"provider": "cuda"})
    assert e.value.type == ErrorKind.CAPABILITY and "is_cuda_available() is False" in e.value.message
    assert og.calls == []
    config = og.Config(_folder(tmp_path))
    config.append_provider("bogus")
    with pytest.raises(RuntimeError, match="Unknown provider name 'bogus'"):
        og.Model(config)
    with pytest.raises(IOError):
        og.Config(str(tmp_path / "elsewhere"))


def test_the_double_names_what_the_installed_binding_has():
    og = pytest.importorskip("onnxruntime_genai")
    fake = FakeOg(cuda=True)
    for name in ("clear_providers", "append_provider", "set_provider_option", "overlay"):
        assert callable(getattr(og.Config, name)) and callable(getattr(fake.Config, name)), name
    for name in ("device_type", "type"):
        assert isinstance(getattr(og.Model, name), property) and isinstance(getattr(fake.Model, name), property)
    assert isinstance(og.is_cuda_available(), bool)
