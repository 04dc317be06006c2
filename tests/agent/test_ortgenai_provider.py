"""onnxruntime-genai's `provider` option (agents/edgeprof_agent/generation/ortgenai.py): with the real CPU wheel
installed here, "cuda" is refused in one line (its is_cuda_available() is False), an unknown provider is refused,
and nothing is loaded; with a double of the binding whose build has CUDA, the provider reaches og.Config before
og.Model is made, and describe() records the provider asked and the model's device_type.

The double (tests/agent/fakes/og_double.py) follows onnxruntime-genai's Python binding (microsoft/onnxruntime-genai
src/python/python.cpp): og.Config(config_path) reads the folder's genai_config.json; Config.clear_providers(),
Config.append_provider(name), Config.set_provider_option(provider, name, value) (str only) and Config.overlay(json)
change it; og.Model(config) is made from it (and an unknown provider name is refused there, not by append_provider:
seen with the 0.18 CPU wheel, "Unknown provider name 'bogus'. Currently supported values are ..."); Model.device_type
and Model.type are read-only strings; og.is_cuda_available() is the build's USE_CUDA. The CUDA provider's device_id
(0: the GPU the agent pinned CUDA to) is set with set_provider_option before og.Model is made. (A model run on CUDA
is not here: no GPU on this machine; docs/generative.md "CUDA".)"""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

from og_double import FakeOg, model_folder  # noqa: E402

from edgeprof_agent.generation.ortgenai import PROVIDERS, GenerationBackend  # noqa: E402
from edgeprof_agent.protocol import OpError  # noqa: E402
from edgeprof_agent.vocab import ErrorKind  # noqa: E402


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
    assert og.calls[3] == ("append_provider", "cuda") and og.calls[4][:2] == ("Model", ("cuda",))
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


def test_device_id_reaches_the_cuda_provider_before_the_model_is_made(tmp_path):
    """device_id (genworker.py sets 0 when it pinned a GPU) becomes set_provider_option("cuda", "device_id", "0")
    after the provider is appended and before og.Model is made, as a string (the binding takes str only); the
    description records it."""
    og = FakeOg(cuda=True)
    be = _backend(og)
    be.load(_folder(tmp_path), 64, {"provider": "cuda", "device_id": 0})
    assert [c[0] for c in og.calls] == ["Config", "clear_providers", "append_provider", "set_provider_option", "Model"]
    assert og.calls[3] == ("set_provider_option", "cuda", "device_id", "0")
    assert og.calls[4][:3] == ("Model", ("cuda",), {"cuda": {"device_id": "0"}})
    d = be.describe()
    assert (d["provider"], d["device_id"], d["device_type"]) == ("cuda", 0, "CUDA")
    be = _backend(FakeOg(cuda=True))
    be.load(_folder(tmp_path), 64, {"provider": "cuda"})
    assert be.describe()["device_id"] is None  # not set: CUDA's device 0 as CUDA numbers them


def test_a_device_id_that_is_no_cuda_ordinal_or_comes_without_cuda_is_refused(tmp_path):
    og = FakeOg(cuda=True)
    be = _backend(og)
    for bad in (-1, True, "0", 0.0):
        with pytest.raises(OpError) as e:
            be.check_options({"provider": "cuda", "device_id": bad})
        assert e.value.type == ErrorKind.BAD_OPTION and "device_id must be a CUDA device ordinal" in e.value.message
    for provider in (None, "cpu"):
        opts = {"device_id": 0, **({"provider": provider} if provider else {})}
        with pytest.raises(OpError) as e:
            be.load(_folder(tmp_path), 64, opts)
        assert e.value.type == ErrorKind.BAD_OPTION and "device_id is the CUDA provider's" in e.value.message
    assert og.calls == []  # refused before the Config is made


def test_the_double_takes_provider_options_as_the_binding_does(tmp_path):
    """set_provider_option takes str only (pybind11's TypeError) and adds the provider to the list when it is not
    there (config.cpp SetProviderOption): the double and the installed wheel alike (on this CPU wheel, og.Model then
    fails to load onnxruntime-genai's CUDA library, as the double's build without CUDA does)."""
    folder = model_folder(tmp_path / "m")
    for og in (FakeOg(cuda=False), pytest.importorskip("onnxruntime_genai")):
        config = og.Config(folder)
        with pytest.raises(TypeError, match="incompatible function arguments"):
            config.set_provider_option("cuda", "device_id", 0)
        config.clear_providers()
        config.set_provider_option("cuda", "device_id", "0")  # no append_provider: cuda is in the list now
        if og.is_cuda_available():
            continue
        with pytest.raises(RuntimeError, match="Cuda interface not available"):
            og.Model(config)
    config = FakeOg(cuda=True).Config(folder)
    config.set_provider_option("cuda", "device_id", "0")
    assert config.providers == ["cuda"]
