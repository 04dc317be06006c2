"""Test double of onnxruntime-genai's Python module (`onnxruntime_genai`), built with CUDA or not.

It follows the binding (microsoft/onnxruntime-genai src/python/python.cpp, 0.18's pybind11 module, as installed
here) and the config code under it (src/config.cpp, src/models/model.cpp):
- og.Config(config_path) reads the folder's genai_config.json (a folder without it is refused);
  Config.clear_providers(), Config.append_provider(name) ("if the provider isn't already in the list, adds it to
  the end"), Config.set_provider_option(provider, name, value): all three str (pybind11 refuses anything else with
  TypeError, as the installed wheel does), the provider added to the list when it is not there (config.cpp
  SetProviderOption), the option kept under it (model.cpp hands a "cuda" entry's options to onnxruntime's CUDA
  provider options), Config.overlay(json);
- og.Model(config) refuses a provider name it does not know (seen with the 0.18 CPU wheel: "Unknown provider name
  'bogus'") and, on a build without CUDA, a "cuda" provider (0.18's CPU wheel fails to load
  libonnxruntime-genai-cuda.so); Model.device_type ("CPU", "CUDA") and Model.type are read-only properties;
- og.GeneratorParams(model).set_search_options(**options) takes float / bool / int values only
  ("Unknown search option type"); og.Generator(model, params): append_tokens(int32 ids), generate_next_token(),
  get_next_tokens() (an int32 array of one id), is_done(), get_output(name) (a present.N.key buffer: (1, KV heads,
  max_length, head size), as allocated);
- og.is_cuda_available() is the build's USE_CUDA.
No model runs: the tokens are ids drawn from the vocabulary by a fixed rule. `calls` lists every call in order,
with the CUDA variables the process held when og.Model was made (what gpus.pin_cuda set). `on_cuda_alloc(nbytes)`
(optional) is told what a CUDA build would allocate on the GPU: the model's weights when og.Model is made on "cuda"
(`weights_bytes`), and each generator's KV cache (2 x layers x KV heads x max_length x head size x 2 bytes, fp16)
when it is made; a test hands it the pynvml double's per-process memory.
"""

import json
import os
import types

import numpy as np

KNOWN = ("cuda", "cpu", "dml", "qnn", "openvino", "webgpu")  # names og.Model takes (lower-cased, as it compares)


class FakeOg(types.ModuleType):
    """The module: FakeOg(cuda=True) is a build with CUDA. Put it in sys.modules["onnxruntime_genai"] to have the
    agent import it."""

    __version__ = "0.18.0"
    KNOWN = KNOWN

    def __init__(self, cuda, on_cuda_alloc=None, weights_bytes=300 * 2 ** 20):
        types.ModuleType.__init__(self, "onnxruntime_genai")
        self.__version__ = FakeOg.__version__
        self.cuda = cuda
        self.calls = []
        self.on_cuda_alloc = on_cuda_alloc
        self.weights_bytes = weights_bytes
        og = self

        def _str(*values):
            for v in values:
                if not isinstance(v, str):
                    raise TypeError("set_provider_option(): incompatible function arguments. The following argument "
                                    "types are supported: (self, arg0: str, arg1: str, arg2: str) -> None")

        class Config:
            def __init__(self, config_path):
                with open(os.path.join(config_path, "genai_config.json")) as f:
                    self.json = json.load(f)
                self.providers = []  # genai_config.json's provider_options: [] as the model builder writes for cpu
                self.provider_options = {}
                og.calls.append(("Config", config_path))

            def overlay(self, text):
                json.loads(text)
                og.calls.append(("overlay", text))

            def clear_providers(self):
                self.providers = []
                og.calls.append(("clear_providers",))

            def append_provider(self, name):
                if name not in self.providers:
                    self.providers.append(name)
                og.calls.append(("append_provider", name))

            def set_provider_option(self, provider, name, value):
                _str(provider, name, value)
                if provider not in self.providers:
                    self.providers.append(provider)
                self.provider_options.setdefault(provider, {})[name] = value
                og.calls.append(("set_provider_option", provider, name, value))

        class Model:
            def __init__(self, config):
                unknown = [p for p in config.providers if p.lower() not in og.KNOWN]
                if unknown:
                    raise RuntimeError(f"Unknown provider name '{unknown[0]}'.")
                if "cuda" in config.providers and not og.cuda:
                    raise RuntimeError("Cuda interface not available: Failed to load library: "
                                       "libonnxruntime-genai-cuda.so")
                self._device = "CUDA" if "cuda" in config.providers else "CPU"
                decoder = config.json["model"]["decoder"]
                self.vocab = int(config.json["model"]["vocab_size"])
                self.dims = (int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"]),
                             int(decoder["head_size"]))
                cuda_env = dict((k, os.environ[k]) for k in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
                                if k in os.environ)
                og.calls.append(("Model", tuple(config.providers), dict(config.provider_options), cuda_env))
                if self._device == "CUDA" and og.on_cuda_alloc is not None:
                    og.on_cuda_alloc(og.weights_bytes)

            @property
            def device_type(self):
                return self._device

            @property
            def type(self):
                return "llama"

        class GeneratorParams:
            def __init__(self, model):
                self.model = model
                self.search = {}

            def set_search_options(self, **options):
                for name, value in options.items():
                    if not isinstance(value, (float, bool, int)):
                        raise RuntimeError("Unknown search option type, can be float/bool/int:" + name)
                    self.search[name] = value

        class Generator:
            def __init__(self, model, params):
                self.model = model
                self.max_length = int(params.search["max_length"])
                self.length = 0  # tokens in the sequence: appended ones and each generated one
                layers, kv_heads, head_dim = model.dims
                self.kv_bytes = 2 * layers * kv_heads * self.max_length * head_dim * 2
                if model.device_type == "CUDA" and og.on_cuda_alloc is not None:
                    og.on_cuda_alloc(self.kv_bytes)

            def append_tokens(self, ids):
                ids = np.asarray(ids, dtype=np.int32)
                if self.length + len(ids) > self.max_length:
                    raise RuntimeError("Total sequence length exceeds max_length")
                self.length += len(ids)

            def generate_next_token(self):  # a decode step on the last token (none right after append), a pick
                if self.length >= self.max_length:
                    raise RuntimeError("Total sequence length exceeds max_length")
                self.token = (self.length * 7 + 3) % self.model.vocab
                self.length += 1  # the generated token joins the sequence

            def get_next_tokens(self):
                return np.array([self.token], dtype=np.int32)

            def is_done(self):
                return self.length >= self.max_length

            def get_output(self, name):
                layers, kv_heads, head_dim = self.model.dims
                if not name.startswith("present."):
                    raise RuntimeError("Model output was not found: " + name)
                return np.zeros((1, kv_heads, self.max_length, head_dim), dtype=np.float16 if
                                self.model.device_type == "CUDA" else np.float32)

        self.Config, self.Model = Config, Model
        self.GeneratorParams, self.Generator = GeneratorParams, Generator

    def is_cuda_available(self):
        return self.cuda


def model_folder(path, vocab=512, layers=2, kv_heads=4, head_size=16):
    """A folder with the genai_config.json the backend and the double read (the model builder's keys; the real
    og.Config takes it too: it needs context_length)."""
    os.makedirs(str(path), exist_ok=True)
    cfg = {"model": {"type": "llama", "vocab_size": vocab, "context_length": 4096, "decoder": {
        "num_hidden_layers": layers, "num_key_value_heads": kv_heads, "head_size": head_size,
        "session_options": {"log_id": "onnxruntime-genai", "provider_options": []}}},
        "search": {"past_present_share_buffer": True}}
    with open(os.path.join(str(path), "genai_config.json"), "w") as f:
        json.dump(cfg, f)
    return str(path)
