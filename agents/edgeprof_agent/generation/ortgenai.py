"""onnxruntime-genai as a generation backend (generation/base.py): a model folder (ONNX decoder with its KV cache,
genai_config.json, tokenizer files) as its model builder writes it.

Owns: og.Model from og.Config (threads through the decoder's session_options, overlaid on genai_config.json; the
execution provider when the `provider` option names one, see PROVIDERS, and the CUDA provider's device_id, see
DEVICE_ID), one og.Generator per sequence with max_length = min_length = the KV cache's room (the shared
past/present buffer is allocated at max_length; min_length keeps end-of-sequence from stopping it early),
append_tokens for the prefill, generate_next_token + get_next_tokens for each token (greedy: do_sample off), and
the KV cache's size read from the generator's own present.0.key buffer (shape and dtype as allocated).
Does not own: timing (loop.py). Imports onnxruntime_genai only in require().
"""

import json
import os

from ..protocol import OpError
from ..vocab import ErrorKind
from .base import GenerationBackend as _Base
from .base import bad_option, kv_cache_figures, positive_int

RUNTIME = "onnxruntime-genai"
OPTIONS = ("threads", "provider", "device_id")
# The `provider` option: the execution provider og.Model runs the decoder on, applied to og.Config before og.Model
# is made, as onnxruntime-genai's Python binding offers it (src/python/python.cpp: Config.clear_providers,
# Config.append_provider(name), Config.set_provider_option(provider, key, value); "CUDA" in its docs,
# onnxruntime.ai/docs/genai: config.clear_providers(); config.append_provider("cuda"); og.Model(config)).
# clear_providers() drops the providers genai_config.json lists (none: ONNX Runtime's CPU provider); "cpu" is that,
# "cuda" appends CUDA (ONNX Runtime places a node CUDA has no kernel for on the CPU). Not given: genai_config.json
# as the folder holds it (edgeprof's model builder writes it for the CPU). Whether this build has CUDA is
# og.is_cuda_available() (python.cpp; 0.18's CPU wheel: False, and og.Model then fails to load
# libonnxruntime-genai-cuda.so): "cuda" there is refused before anything is waited for or loaded.
PROVIDERS = ("cpu", "cuda")
# DEVICE_ID: the `device_id` option (with provider "cuda" only), CUDA's device the decoder runs on, set on the CUDA
# provider before og.Model is made: config.set_provider_option("cuda", "device_id", "N") (python.cpp: provider,
# option and value are all str; onnxruntime-genai hands a "cuda" entry's options to onnxruntime's
# OrtCUDAProviderOptionsV2 Update, src/models/model.cpp, where `device_id` is CUDA's device ordinal). genworker.py
# sets it to 0 when the request pinned a GPU: CUDA_VISIBLE_DEVICES then holds that GPU alone (gpus.pin_cuda), so
# CUDA's device 0 is it. No other ordinal is passed: CUDA numbers GPUs otherwise than NVML does (gpus.py), and
# onnxruntime-genai on a device other than 0 has failed in its own CUDA stream (onnxruntime-genai issues #730 and
# #1545, set_current_gpu_device_id(N > 0): CUDNN_STATUS_MAPPING_ERROR, CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH).


class GenerationBackend(_Base):
    name = RUNTIME

    def __init__(self):
        self.og = None
        self.np = None
        self.model = None
        self.generator = None
        self.config = None
        self.n_ctx = None
        self.threads = None
        self.provider = None
        self.device_id = None
        self._kv = None

    def require(self):
        try:
            import numpy
            import onnxruntime_genai
        except ImportError as e:
            from ..backends import runtime_missing

            raise runtime_missing(RUNTIME, e, "onnxruntime-genai")
        self.og, self.np = onnxruntime_genai, numpy

    def check_options(self, options):
        """Unknown options, a provider not in PROVIDERS, "cuda" on a build without CUDA, and a device_id that is
        not a CUDA ordinal (an int >= 0) or comes without provider "cuda": one line each."""
        if self.og is None:
            self.require()
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise bad_option(RUNTIME, unknown, OPTIONS)
        provider = options.get("provider")
        if "device_id" in options:
            device_id = options["device_id"]
            if isinstance(device_id, bool) or not isinstance(device_id, int) or device_id < 0:
                raise OpError(ErrorKind.BAD_OPTION, "%s: option device_id must be a CUDA device ordinal (an integer "
                              ">= 0), not %r" % (RUNTIME, device_id))
            if provider != "cuda":
                raise OpError(ErrorKind.BAD_OPTION, "%s: option device_id is the CUDA provider's; provider is %r" % (
                    RUNTIME, provider), hint="give device_id with provider cuda (deploy --providers cuda --gpu N)")
        if provider is None:
            return
        if provider not in PROVIDERS:
            raise OpError(ErrorKind.BAD_OPTION, "%s: option provider must be one of %s, not %r" % (
                RUNTIME, ", ".join(PROVIDERS), provider), hint="provider cpu or cuda (deploy --providers cuda)")
        if provider == "cuda" and not self._has_cuda():
            raise OpError(ErrorKind.CAPABILITY, "onnxruntime-genai %s here has no CUDA (is_cuda_available() is "
                          "False)" % getattr(self.og, "__version__", "?"),
                          hint="install onnxruntime-genai-cuda on the device (not beside onnxruntime-genai), or "
                               "leave --providers out for the CPU")

    def _has_cuda(self):
        available = getattr(self.og, "is_cuda_available", None)
        return bool(available()) if available is not None else False

    def load(self, path, n_ctx, options):
        self.check_options(options)
        cfg_path = os.path.join(path, "genai_config.json")
        try:
            with open(cfg_path) as f:
                self.config = json.load(f)
            decoder = self.config["model"]["decoder"]
            self._vocab = int(self.config["model"]["vocab_size"])
            self._dims = (int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"]),
                          int(decoder["head_size"]))
        except (IOError, OSError, ValueError, KeyError, TypeError) as e:
            raise OpError(ErrorKind.LOAD_FAILED, "%s: cannot read %s: %s" % (RUNTIME, cfg_path, e))
        self.n_ctx = n_ctx
        try:
            config = self.og.Config(path)
            if "threads" in options:
                self.threads = positive_int(RUNTIME, "threads", options["threads"])
                if not hasattr(config, "overlay"):
                    raise OpError(ErrorKind.BAD_OPTION, "%s %s cannot set threads (no Config.overlay)" % (
                        RUNTIME, self.og.__version__), hint="leave threads unset or upgrade onnxruntime-genai")
                config.overlay(json.dumps({"model": {"decoder": {"session_options": {
                    "intra_op_num_threads": self.threads, "inter_op_num_threads": 1}}}}))
            self.provider = options.get("provider")
            if self.provider is not None:  # PROVIDERS: on the Config, before og.Model reads it
                config.clear_providers()
                if self.provider != "cpu":
                    config.append_provider(self.provider)
            if "device_id" in options:  # the CUDA provider's device (check_options: only with provider cuda)
                self.device_id = options["device_id"]
                config.set_provider_option("cuda", "device_id", str(self.device_id))
            self.model = self.og.Model(config)
        except OpError:
            raise
        except Exception as e:
            raise OpError(ErrorKind.LOAD_FAILED, "%s could not load %s: %s" % (RUNTIME, path, e))

    @property
    def vocab_size(self):
        return self._vocab

    def start(self):
        self.generator = None  # frees the previous sequence's KV cache before the next is allocated
        params = self.og.GeneratorParams(self.model)
        params.set_search_options(max_length=self.n_ctx, min_length=self.n_ctx, do_sample=False)
        self.generator = self.og.Generator(self.model, params)

    def append(self, ids):
        self.generator.append_tokens(self.np.asarray(ids, dtype=self.np.int32))

    def next_token(self):
        self.generator.generate_next_token()
        token = int(self.generator.get_next_tokens()[0])
        if self._kv is None:
            self._kv = self.generator.get_output("present.0.key")  # the allocated buffer, (1, kv, max_len, hd)
        return token

    def done(self):
        return bool(self.generator.is_done())

    def kv_cache(self, n_ctx):
        layers, kv_heads, head_dim = self._dims
        if self._kv is not None:
            shape, dtype = tuple(self._kv.shape), self._kv.dtype
            return kv_cache_figures(layers, int(shape[1]), int(shape[3]), int(shape[2]), str(dtype),
                                    int(dtype.itemsize), "the generator's present.0.key buffer %s %s, x2 (keys, "
                                    "values) x %d layers" % (list(shape), dtype, layers))
        return kv_cache_figures(layers, kv_heads, head_dim, n_ctx, None, 0, "not read: no token was generated")

    def describe(self):
        decoder = (self.config or {}).get("model", {}).get("decoder", {})
        return {"runtime": RUNTIME, "version": getattr(self.og, "__version__", None),
                "threads": self.threads, "threads_source": "option" if self.threads else "onnxruntime default",
                "provider": self.provider,  # the option asked (None: genai_config.json's providers, provider_options)
                "device_id": self.device_id,  # the CUDA provider's device_id set (None: not set, CUDA's device 0)
                "device_type": getattr(self.model, "device_type", None), "model_type": getattr(self.model, "type", None),
                "max_length": self.n_ctx, "provider_options": (decoder.get("session_options") or {}).get(
                    "provider_options"),
                "past_present_share_buffer": (self.config or {}).get("search", {}).get("past_present_share_buffer")}

    def device(self):
        """og.Model.device_type as the loaded model reports it ("CPU", "CUDA"; python.cpp: "The device type the
        model is running on"), else what the provider asked ("CUDA" for cuda)."""
        device_type = getattr(self.model, "device_type", None)
        if device_type:
            return str(device_type)
        return "CUDA" if self.provider == "cuda" else "CPU"

    def close(self):
        self.generator = None
        self.model = None
