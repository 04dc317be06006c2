"""The interface every generation backend implements (onnxruntime-genai, llama.cpp, LiteRT-LM).

Owns: what the generation loop (loop.py) may ask of a runtime, so that the loop, not the runtime, times every
token. One sequence at a time, batch 1, greedy:

- require() -> None: import the runtime, or raise OpError RUNTIME_MISSING (default: nothing to check);
- load(path, n_ctx, options) -> None: load the model at `path` with room for `n_ctx` tokens in its KV cache;
  `options` the runtime options (threads, ...); unknown options are refused (BAD_OPTION);
- check_options(options) -> None: refuse, before the measurement waits for anything (cool-down, idle power) or
  loads, the options this runtime cannot honour here: unknown ones, bad values, a provider this build lacks
  (default: nothing; load() refuses them in any case);
- vocab_size: the number of token ids the model takes (after load);
- prepare(ids) -> None: called by the loop with each list it will append(), before its clock starts: a runtime
  that takes text (LiteRT-LM) makes and checks the text here, outside the timed span (default: nothing);
- start() -> None: begin a fresh sequence with an empty KV cache (a repetition never sees the previous one's);
- append(ids) -> None: feed `ids` (a list of ints) through the model, the KV cache growing by len(ids): the prefill
  (and the depth fill before it). Returns when the runtime has computed them (the logits of the last are ready);
- next_token() -> int: one generated token, greedy (argmax). The first call after append() only picks from the
  logits append() left; each later call first runs the model on the token the previous call returned (one decode
  step), then picks. So N calls generate N tokens with N - 1 decode steps, as both runtimes do natively;
- done() -> bool: the runtime considers the sequence finished (it must not be before the last token: the loop
  refuses an early stop);
- kv_cache(n_ctx) -> dict: {bytes, dtype, bytes_per_element, per_token_bytes, layers, kv_heads, head_dim, how};
- describe() -> dict: runtime, version and the options actually used (threads, mmap, batch, ...);
- device() -> str: what the loaded model runs on, "CPU" or the runtime's own name for it ("CUDA": the measurement
  then reads the process's GPU memory through NVML; default "CPU");
- close() -> None: free the model.
Does not own: timing, random ids, warm-up, repetitions (loop.py).
"""

from ..protocol import OpError
from ..vocab import ErrorKind


def bad_option(runtime, unknown, known):
    return OpError(ErrorKind.BAD_OPTION, "%s: unknown option(s) %s" % (runtime, ", ".join(sorted(unknown))),
                   hint="%s takes: %s" % (runtime, ", ".join(sorted(known))))


def positive_int(runtime, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OpError(ErrorKind.BAD_OPTION, "%s: option %s must be a positive integer, not %r" % (
            runtime, name, value))
    return value


def kv_cache_figures(layers, kv_heads, head_dim, n_ctx, dtype, bytes_per_element, how):
    """The KV cache's size: keys and values (2) x layers x KV heads x head dim x n_ctx x bytes per element."""
    per_token = 2 * layers * kv_heads * head_dim * bytes_per_element
    return {"bytes": per_token * n_ctx, "per_token_bytes": per_token, "n_ctx": n_ctx, "dtype": dtype,
            "bytes_per_element": bytes_per_element, "layers": layers, "kv_heads": kv_heads, "head_dim": head_dim,
            "how": how}


class GenerationBackend(object):
    """The base of every generation backend: the declared interface, with the optional members' defaults."""

    name = None  # the runtime's name in generation.GEN_BACKENDS

    def require(self):
        return None

    def check_options(self, options):
        return None

    def load(self, path, n_ctx, options):
        raise NotImplementedError("%s.load" % type(self).__name__)

    @property
    def vocab_size(self):
        raise NotImplementedError("%s.vocab_size" % type(self).__name__)

    def prepare(self, ids):
        return None

    def start(self):
        raise NotImplementedError("%s.start" % type(self).__name__)

    def append(self, ids):
        raise NotImplementedError("%s.append" % type(self).__name__)

    def next_token(self):
        raise NotImplementedError("%s.next_token" % type(self).__name__)

    def done(self):
        return False

    def kv_cache(self, n_ctx):
        raise NotImplementedError("%s.kv_cache" % type(self).__name__)

    def describe(self):
        raise NotImplementedError("%s.describe" % type(self).__name__)

    def device(self):
        return "CPU"

    def close(self):
        return None


REQUIRED = ("load", "vocab_size", "start", "append", "next_token", "kv_cache", "describe")
OPTIONAL = ("require", "check_options", "prepare", "done", "device", "close")
