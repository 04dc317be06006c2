"""LiteRT-LM as a generation backend (generation/base.py): a .litertlm file (TFLite prefill/decode graphs with their
KV cache, the tokenizer, the metadata) run through litert-lm-api's Python Session API on the CPU.

Owns: litert_lm.Engine (CPU backend, thread_count from the option `threads`, max_num_tokens = the KV cache's room
n_ctx, its benchmark info on), one Session per sequence (no prompt template, greedy: SamplerConfig(top_k=1)), how
token ids are fed to an API that takes text, and each token read from its decode stream.

How the ids become exact text: the Session API takes text only (Session.run_prefill(list of str), litert-lm-api
0.18.1 session.py), so prepare(ids), called by the loop before its clock starts, makes the text with the engine's
own tokenizer (Engine.detokenize) and checks that Engine.tokenize gives back exactly those ids; if not, the run is
refused (BAD_REQUEST): a prompt of another length is never measured. After each sequence, the engine's own count
of the prefill's tokens (BenchmarkInfo.last_prefill_token_count) must equal the ids fed, and, for a sequence that
generated up to the KV cache's room, its count of decoded tokens the tokens this backend handed out (one stream
chunk per token); a difference fails the run (RUN_FAILED), checked outside every timed span (start() and
describe()).
How each token is read: Session.run_decode_async() streams one chunk per token from LiteRT-LM's own decode thread
(its callback puts each into a queue; the iterator returns as each arrives); next_token() takes the next one, so the
loop's clock stamps each token as the caller receives it. The first call after append() starts the decode (the
graphs' prefill leaves no logits: litert-torch's export writes prefill_logits off), so it runs one model step, as
LiteRT-LM's own time to first token does. Generation stops at max_num_tokens = n_ctx, so a sequence decodes exactly
n_ctx - the tokens appended (the loop asks for exactly that many in a timed repetition); a stop token before it
ends the stream early and the loop refuses the run (done()). A sequence cut short (the warm-up's two tokens) is
cancelled (Session.cancel_process) when the next one starts.
The token id of each chunk is not known to the stream (text only): next_token() returns the id of the chunk's text
looked up in a table of each id's text (Engine.detokenize of each, made by the first prepare(), untimed) where it is one token's text, -1
otherwise. LiteRT-LM's own BenchmarkInfo of each sequence is kept for describe() (the cross-check beside the
agent's clock), never used as the measurement.
KV cache: LiteRT-LM does not report its cache; the figures come from the option `kv_cache` (layers, KV heads, head
dim, the cache length the graphs were exported with, dtype), and the option `dims_from` says where the host read them
and the vocabulary (the config.json of the folder it built the file from, or the file's own TFLite signatures and
tokenizer: edgeprof/generative/litertlm_read.py); said so in `how`, and describe() reports both.
Does not own: timing (loop.py), building the .litertlm (the host: edgeprof/generative/build.py).
Imports litert_lm only in require().
"""

from ..protocol import OpError
from ..vocab import ErrorKind
from .base import GenerationBackend as _Base
from .base import bad_option, kv_cache_figures, positive_int

RUNTIME = "litert-lm"
OPTIONS = ("threads", "vocab_size", "kv_cache", "dims_from")
KV_KEYS = ("layers", "kv_heads", "head_dim", "cache_length", "dtype", "bytes_per_element")
_END = object()


class GenerationBackend(_Base):
    name = RUNTIME

    def __init__(self):
        self.lm = None
        self.engine = None
        self.session = None
        self.stream = None
        self.n_ctx = None
        self.threads = None
        self._vocab = None
        self._kv = None
        self._dims_from = None
        self._texts = {}  # tuple(ids) -> the text prepare() checked
        self._by_text = {}  # one token's text -> its id
        self._appended = 0
        self._prefill_counts = []
        self._handed = 0
        self._ended = False
        self.benchmarks = []  # LiteRT-LM's BenchmarkInfo of each sequence that ran to the KV cache's room

    def require(self):
        try:
            import litert_lm
        except ImportError as e:
            from ..backends import runtime_missing

            raise runtime_missing(RUNTIME, e, "litert-lm-api")
        self.lm = litert_lm

    def load(self, path, n_ctx, options):
        if self.lm is None:
            self.require()
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise bad_option(RUNTIME, unknown, OPTIONS)
        if "vocab_size" not in options:
            raise OpError(ErrorKind.BAD_OPTION, "%s: option vocab_size is needed (LiteRT-LM's API does not say how "
                          "many token ids the model takes)" % RUNTIME,
                          hint="the host reads it from the .litertlm's decode signature and tokenizer (edgeprof "
                               "deploy does)")
        self._vocab = positive_int(RUNTIME, "vocab_size", options["vocab_size"])
        kv = options.get("kv_cache")
        if kv is not None:
            if not isinstance(kv, dict) or set(kv) != set(KV_KEYS):
                raise OpError(ErrorKind.BAD_OPTION, "%s: option kv_cache must be an object with %s, not %r" % (
                    RUNTIME, ", ".join(KV_KEYS), kv))
            self._kv = kv
            if isinstance(kv["cache_length"], int) and n_ctx > kv["cache_length"]:
                raise OpError(ErrorKind.BAD_REQUEST, "%s: %d tokens do not fit the .litertlm's KV cache of %d "
                              "(the length its graphs were exported with)" % (RUNTIME, n_ctx, kv["cache_length"]),
                              hint="fewer depth + prompt + generated tokens")
        dims_from = options.get("dims_from")
        if dims_from is not None and not isinstance(dims_from, str):
            raise OpError(ErrorKind.BAD_OPTION, "%s: option dims_from must be text, not %r" % (RUNTIME, dims_from))
        self._dims_from = dims_from
        if "threads" in options:
            self.threads = positive_int(RUNTIME, "threads", options["threads"])
        self.n_ctx = n_ctx
        try:
            backend = self.lm.Backend.CPU(thread_count=self.threads)
            self.engine = self.lm.Engine(path, backend=backend, max_num_tokens=n_ctx, enable_benchmark=True)
        except Exception as e:
            raise OpError(ErrorKind.LOAD_FAILED, "%s could not load %s: %s" % (RUNTIME, path, e))

    @property
    def vocab_size(self):
        return self._vocab

    def prepare(self, ids):
        key = tuple(ids)
        if key in self._texts:
            return
        if not self._by_text:  # made once, before the first timed span (not in the load's time)
            seen = {}
            for i in range(self._vocab):
                t = self.engine.detokenize([i])
                seen[t] = i if t not in seen else -1  # a text two ids share names neither
            self._by_text = seen
        try:
            text = self.engine.detokenize(list(ids))
            back = self.engine.tokenize(text)
        except Exception as e:
            raise OpError(ErrorKind.RUN_FAILED, "%s: its tokenizer failed on %d ids: %s" % (RUNTIME, len(ids), e))
        if list(back) != list(ids):
            first = next((i for i, (a, b) in enumerate(zip(back, ids)) if a != b), min(len(back), len(ids)))
            raise OpError(ErrorKind.BAD_REQUEST, "%s takes text, and the text of these %d token ids tokenizes to %d "
                          "other ids (first difference at position %d): the prompt length would not be exact" % (
                              RUNTIME, len(ids), len(back), first),
                          hint="a model whose tokenizer round-trips its ids (edgeprof's bundled models do)")
        self._texts[key] = text

    def _finish(self):
        """The checks of the sequence that ran (outside every timed span): the engine's own token counts."""
        if self.session is None:
            return
        s, self.session, stream, self.stream = self.session, None, self.stream, None
        full = False
        try:
            full = self._appended + self._handed == self.n_ctx
            if full and not self._ended:  # the stream's end (max tokens reached) comes after the last token
                for _chunk in stream:
                    self._handed += 1
            info = s.get_benchmark_info()
            if self._prefill_counts and info.last_prefill_token_count != self._prefill_counts[-1]:
                raise OpError(ErrorKind.RUN_FAILED, "%s prefilled %d tokens where %d ids were fed: the prompt length "
                              "was not exact" % (RUNTIME, info.last_prefill_token_count, self._prefill_counts[-1]))
            if full and info.last_decode_token_count != self._handed:
                raise OpError(ErrorKind.RUN_FAILED, "%s decoded %d tokens and its stream gave %d chunks: a chunk is "
                              "not one token, so the per-token times are not" % (
                                  RUNTIME, info.last_decode_token_count, self._handed))
            if full:
                self.benchmarks.append({
                    "init_s": info.init_time_in_second, "ttft_s": info.time_to_first_token_in_second,
                    "prefill_tokens": info.last_prefill_token_count,
                    "prefill_tps": info.last_prefill_tokens_per_second,
                    "decode_tokens": info.last_decode_token_count, "decode_tps": info.last_decode_tokens_per_second})
        finally:
            if stream is not None and not full:
                s.cancel_process()
                stream.close()
            s.close()

    def start(self):
        self._finish()
        self.session = self.engine.create_session(apply_prompt_template=False,
                                                  sampler_config=self.lm.SamplerConfig(top_k=1))
        self.stream, self._appended, self._prefill_counts, self._handed, self._ended = None, 0, [], 0, False

    def append(self, ids):
        text = self._texts.pop(tuple(ids), None)
        if text is None:
            self.prepare(ids)  # the loop prepares before its clock starts; a caller that did not pays here
            text = self._texts.pop(tuple(ids))
        self.session.run_prefill([text])
        self._appended += len(ids)
        self._prefill_counts.append(len(ids))

    def next_token(self):
        if self.stream is None:
            self.stream = self.session.run_decode_async()
        r = next(self.stream, _END)
        if r is _END:
            self._ended = True
            raise OpError(ErrorKind.RUN_FAILED, "%s ended the sequence after %d generated tokens (a stop token, "
                          "or the KV cache's room)" % (RUNTIME, self._handed),
                          hint="LiteRT-LM's Session API has no way to ignore stop tokens")
        self._handed += 1
        t = r.texts[0] if r.texts else ""
        i = self._by_text.get(t)
        if i is None and t[:1] == " ":  # a token after the first comes with the separator before it
            i = self._by_text.get(t[1:])
        return -1 if i is None else i

    def done(self):
        return self._ended

    def kv_cache(self, n_ctx):
        kv = self._kv
        if kv is None:
            return kv_cache_figures(0, 0, 0, n_ctx, None, 0, "not known: LiteRT-LM does not report its KV cache "
                                    "and the request did not say the model's dimensions")
        out = kv_cache_figures(kv["layers"], kv["kv_heads"], kv["head_dim"], kv["cache_length"], kv["dtype"],
                               kv["bytes_per_element"], "the .litertlm's graphs hold a KV cache of the length they "
                               "were exported with (%s tokens, not the %d used); layers, KV heads and head dim %s; "
                               "LiteRT-LM does not report it" % (
                                   kv["cache_length"], n_ctx,
                                   self._dims_from or "from the model's config, as the host built it"))
        return out

    def describe(self):
        self._finish()
        out = {"runtime": RUNTIME, "version": _version(), "threads": self.threads,
               "threads_source": "option" if self.threads else "LiteRT-LM default", "backend": "cpu",
               "max_num_tokens": self.n_ctx, "sampler": "top_k=1 (greedy)", "prompt_template": False,
               "ids_as_text": "Engine.detokenize, checked by Engine.tokenize before timing",
               "vocab_size": self._vocab, "benchmark_info": list(self.benchmarks)}
        if self._dims_from is not None:
            out["dims_from"] = self._dims_from
        return out

    def close(self):
        try:
            self._finish()
        except OpError:
            pass  # describe() reported it; close() only frees
        self.engine, e = None, self.engine
        if e is not None:
            e.close()



def _version():
    from ..environment import dist_version

    return dist_version("litert-lm-api")
