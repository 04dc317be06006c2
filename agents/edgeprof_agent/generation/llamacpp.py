"""llama.cpp as a generation backend (generation/base.py), through llama-cpp-python's Llama, on a GGUF file.

Owns: Llama(model_path, n_ctx, n_threads, n_threads_batch, n_batch, n_ubatch, use_mmap, verbose=False) with every
thread count set (llama-cpp-python's defaults are half the cores for decode and all of them for batches: the
default here is the cores this process may run on, for both, said in describe()); a fresh sequence = reset() and
the KV cache's memory cleared (llama_memory_clear) before the timed prefill, so Llama.eval's own removal of stale
cells costs nothing inside the timing; append = Llama.eval(ids) (prefill in n_batch chunks); next_token = one
decode step of the previous token through llama.cpp's C API (llama_decode of a one-token llama_batch_get_one
batch, made once per sequence: its position is the memory's next, so Llama.eval's Python work per call (removing
cells past n_tokens, filling a batch token by token, copying ids) stays out of each token's time: that work is
llama-cpp-python's, not llama.cpp's, and on a small model it was 3 % of a token, benchmarks/generative_crosscheck.py)
then the argmax of the last logits (llama_get_logits_ith(ctx, -1), viewed by numpy once while their address
stays): no sampler chain, no repetition penalty; the KV cache's size for the context the runtime allocated (llama_n_ctx) at
llama.cpp's default K/V type (f16), from the model's layers, KV heads and key length.
Does not own: timing (loop.py). Imports llama_cpp only in require().
"""

import ctypes
import os

from ..protocol import OpError
from ..vocab import ErrorKind
from .base import GenerationBackend as _Base
from .base import bad_option, kv_cache_figures, positive_int

RUNTIME = "llama.cpp"
OPTIONS = ("threads", "threads_batch", "n_batch", "n_ubatch", "use_mmap", "extra_buffers")
KV_TYPE = ("f16", 2)  # llama.cpp's default type_k / type_v (this backend never changes them)


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class GenerationBackend(_Base):
    name = RUNTIME

    def __init__(self):
        self.lc = None
        self.np = None
        self.llm = None
        self.settings = {}
        self._pending = None
        self._vocab = None
        self._one = None  # the one-token array and batch of a decode step (start())
        self._logits = None  # numpy's view of the last logits, and the address it views
        self._logits_at = None
        self._batch_one = None

    def require(self):
        try:
            import llama_cpp
            import numpy
        except ImportError as e:
            from ..backends import runtime_missing

            raise runtime_missing(RUNTIME, e, "llama-cpp-python")
        self.lc, self.np = llama_cpp, numpy

    def load(self, path, n_ctx, options):
        if self.lc is None:
            self.require()
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise bad_option(RUNTIME, unknown, OPTIONS)
        cores = usable_cores()
        s = {"n_ctx": n_ctx, "threads": cores, "threads_batch": cores, "n_batch": 512, "n_ubatch": 512,
             "use_mmap": True}
        for key in ("threads", "threads_batch", "n_batch", "n_ubatch"):
            if key in options:
                s[key] = positive_int(RUNTIME, key, options[key])
        s["extra_buffers"] = True
        for key in ("use_mmap", "extra_buffers"):
            if key in options:
                if not isinstance(options[key], bool):
                    raise OpError(ErrorKind.BAD_OPTION, "%s: option %s must be true or false, not %r" % (
                        RUNTIME, key, options[key]))
                s[key] = options[key]
        s["threads_source"] = "option" if "threads" in options else "the %d cores this process may use" % cores
        try:
            self.llm = self._llama(path, s)
        except OpError:
            raise
        except Exception as e:
            raise OpError(ErrorKind.LOAD_FAILED, "%s could not load %s: %s" % (RUNTIME, path, e))
        self._vocab = int(self.llm.n_vocab())
        s["n_ctx_allocated"] = int(self.lc.llama_n_ctx(self.llm.ctx))
        s["n_batch_used"] = int(self.llm.n_batch)  # Llama caps n_batch at n_ctx
        self.settings = s

    def _llama(self, path, s):
        """Llama(...) with the settings `s`. extra_buffers False loads with llama_model_params.use_extra_bufts off
        (no weight repacking into AMX / CPU_REPACK buffers): Llama() takes no such argument, so its call of
        llama_model_default_params is given params with the flag off for the duration of the load only. The way
        around llama.cpp's AMX crash (ggml-org/llama.cpp#20824: a segfault in the AMX buffer's repack or
        mul_mat on some AMX CPUs, seen here on a Q8_0 and a Q4_0 model)."""
        kwargs = dict(model_path=path, n_ctx=s["n_ctx"], n_threads=s["threads"], n_threads_batch=s["threads_batch"],
                      n_batch=s["n_batch"], n_ubatch=s["n_ubatch"], use_mmap=s["use_mmap"], verbose=False)
        if s["extra_buffers"]:
            return self.lc.Llama(**kwargs)
        bindings = self.lc.llama_cpp  # the ctypes module llama.py calls llama_model_default_params through
        default = bindings.llama_model_default_params
        if "use_extra_bufts" not in [f[0] for f in bindings.llama_model_params._fields_]:
            raise OpError(ErrorKind.BAD_OPTION, "%s %s has no use_extra_bufts: extra_buffers cannot be turned off" % (
                RUNTIME, self.lc.__version__), hint="leave extra_buffers unset or upgrade llama-cpp-python")

        def without_extra_buffers():
            params = default()
            params.use_extra_bufts = False
            return params

        bindings.llama_model_default_params = without_extra_buffers
        try:
            return self.lc.Llama(**kwargs)
        finally:
            bindings.llama_model_default_params = default

    @property
    def vocab_size(self):
        return self._vocab

    def start(self):
        self.llm.reset()
        memory = self.lc.llama_get_memory(self.llm.ctx)
        if memory is not None:
            self.lc.llama_memory_clear(memory, True)
        self._pending = None
        self._one = (self.lc.llama_token * 1)()
        self._batch_one = self.lc.llama_batch_get_one(self._one, 1)  # points at _one: kept beside it

    def append(self, ids):
        self.llm.eval(list(ids))

    def next_token(self):
        if self._pending is not None:
            self._one[0] = self._pending
            rc = self.lc.llama_decode(self.llm.ctx, self._batch_one)
            if rc != 0:
                raise OpError(ErrorKind.RUN_FAILED, "%s: llama_decode of one token returned %d (%s)" % (
                    RUNTIME, rc, "the KV cache is full" if rc == 1 else "an error"))
        ptr = self.lc.llama_get_logits_ith(self.llm.ctx, -1)
        at = ctypes.cast(ptr, ctypes.c_void_p).value
        if at != self._logits_at:  # numpy's view of the context's logits, made again only when they move
            self._logits = self.np.ctypeslib.as_array(ptr, shape=(self._vocab,))  # (12-24 us a call: not per token)
            self._logits_at = at
        self._pending = int(self._logits.argmax())
        return self._pending

    def kv_cache(self, n_ctx):
        meta = getattr(self.llm, "metadata", None) or {}
        arch = meta.get("general.architecture", "llama")
        layers = int(self.lc.llama_model_n_layer(self.llm.model))
        kv_heads = int(self.lc.llama_model_n_head_kv(self.llm.model))
        head_dim = meta.get("%s.attention.key_length" % arch)
        if head_dim is None:
            head_dim = int(self.lc.llama_model_n_embd(self.llm.model)) // int(self.lc.llama_model_n_head(self.llm.model))
        allocated = self.settings.get("n_ctx_allocated", n_ctx)
        return kv_cache_figures(layers, kv_heads, int(head_dim), allocated, KV_TYPE[0], KV_TYPE[1],
                                "2 x layers x KV heads x key length x llama_n_ctx (%d) x 2 bytes: llama.cpp's "
                                "default f16 K and V" % allocated)

    def describe(self):
        info = None
        try:
            info = self.lc.llama_print_system_info().decode("utf-8", "replace").strip()
        except Exception:
            pass
        d = {"runtime": RUNTIME, "version": getattr(self.lc, "__version__", None), "system_info": info}
        d.update(self.settings)
        return d

    def close(self):
        if self.llm is not None:
            close = getattr(self.llm, "close", None)
            if close is not None:
                close()
        self.llm = None
