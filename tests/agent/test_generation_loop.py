"""agents/edgeprof_agent/generation/loop.py: the timed generation loop against a scripted backend of the declared
interface (generation/base.py), on a scripted clock, so what is timed, in which order, is checked exactly; and the
registry refuses an unknown runtime. The real runtimes run in tests/gen (the gen lane)."""

import pytest

from edgeprof_agent.generation import GEN_BACKENDS, base, get_generation_backend, loop
from edgeprof_agent.protocol import OpError
from edgeprof_agent.vocab import ErrorKind


class Clock:
    """Each read advances 1 ns; a backend call advances it by the call's scripted cost."""

    def __init__(self):
        self.t = 1000

    def __call__(self):
        self.t += 1
        return self.t


class Scripted(base.GenerationBackend):
    name = "scripted"

    def __init__(self, clock, stop_after=None, per_token_ns=100, per_prompt_token_ns=10):
        self.clock, self.stop_after = clock, stop_after
        self.per_token_ns, self.per_prompt_token_ns = per_token_ns, per_prompt_token_ns
        self.calls, self.kv, self.generated = [], 0, 0
        self.loaded = None

    def load(self, path, n_ctx, options):
        self.loaded = (path, n_ctx, options)

    @property
    def vocab_size(self):
        return 50

    def start(self):
        self.calls.append(("start",))
        self.kv, self.generated = 0, 0

    def append(self, ids):
        assert all(3 <= i < 50 for i in ids)
        self.calls.append(("append", len(ids)))
        self.kv += len(ids)
        self.clock.t += self.per_prompt_token_ns * len(ids)

    def next_token(self):
        self.calls.append(("next",))
        if self.generated:
            self.kv += 1
            self.clock.t += self.per_token_ns
        self.generated += 1
        return 7

    def done(self):
        return self.stop_after is not None and self.generated >= self.stop_after

    def kv_cache(self, n_ctx):
        return base.kv_cache_figures(2, 2, 4, n_ctx, "float32", 4, "scripted")

    def describe(self):
        return {"runtime": "scripted"}


def test_registry_names_the_runtimes_and_refuses_others():
    assert sorted(GEN_BACKENDS) == ["litert-lm", "llama.cpp", "onnxruntime-genai"]
    with pytest.raises(OpError) as e:
        get_generation_backend("vllm")
    assert e.value.type == ErrorKind.UNKNOWN_RUNTIME and "onnxruntime-genai" in e.value.hint


def test_each_backend_declares_the_interface():
    import importlib

    for name, modname in GEN_BACKENDS.items():
        cls = importlib.import_module(modname).GenerationBackend
        assert issubclass(cls, base.GenerationBackend) and cls.name == name
        for member in base.REQUIRED:
            assert getattr(cls, member) is not getattr(base.GenerationBackend, member), (name, member)


def test_warmup_then_fresh_repetitions_with_depth_untimed():
    clock = Clock()
    be = Scripted(clock)
    out = loop.measure(be, prompt_tokens=8, gen_tokens=4, depth=16, repetitions=2, seed=3, clock=clock)
    # warm-up: a prefill and a 1-token decode (the first token's pick, then one decode step); then per repetition
    # a fresh sequence, the depth fill, the timed prompt, exactly 4 tokens
    rep = [("start",), ("append", 16), ("append", 8)] + [("next",)] * 4
    assert be.calls == [("start",), ("append", 8), ("next",), ("next",)] + rep + rep
    assert out["warmup"]["prefill_ns"] == 8 * 10 + 1 and out["warmup"]["token_ns"] == [1, 101]
    for r in out["repetitions"]:
        assert r["prefill_ns"] == 8 * 10 + 1  # the prompt only: the depth fill is outside the timing
        assert r["depth_fill_ns"] == 16 * 10 + 1
        assert r["token_ns"] == [1, 101, 101, 101]  # first = the pick from the prefill's logits; then decode steps
        assert r["t_prefill_start_ns"] < r["t_prefill_end_ns"] < r["t_first_token_end_ns"] < r["t_end_ns"]
        assert r["t_first_token_end_ns"] - r["t_prefill_end_ns"] == 2  # the first call, as its token_ns says
        assert r["tokens"] == [7, 7, 7, 7]


def test_random_ids_are_seeded():
    a = Scripted(Clock())
    ids_a = []
    a.append = lambda ids: ids_a.append(list(ids))
    loop.measure(a, 5, 1, repetitions=2, seed=9, clock=Clock())
    b = Scripted(Clock())
    ids_b = []
    b.append = lambda ids: ids_b.append(list(ids))
    loop.measure(b, 5, 1, repetitions=2, seed=9, clock=Clock())
    assert ids_a == ids_b and ids_a[1] != ids_a[2]  # same seed, same ids; fresh ids per repetition


def test_an_early_stop_is_refused_not_recorded_short():
    be = Scripted(Clock(), stop_after=3)
    with pytest.raises(OpError) as e:
        loop.measure(be, 4, 6, repetitions=1, warmup=False, clock=Clock())
    assert e.value.type == ErrorKind.RUN_FAILED and "after 3 of 6 generated tokens" in e.value.message


@pytest.mark.parametrize("field,value", [("prompt_tokens", 0), ("gen_tokens", 0), ("depth", -1),
                                         ("repetitions", 0), ("gen_tokens", True), ("depth", 1.5)])
def test_bad_counts_are_bad_requests(field, value):
    kwargs = dict(prompt_tokens=4, gen_tokens=4, depth=0, repetitions=1)
    kwargs[field] = value
    with pytest.raises(OpError) as e:
        loop.measure(Scripted(Clock()), clock=Clock(), **kwargs)
    assert e.value.type == ErrorKind.BAD_REQUEST and field in e.value.message


def test_run_generation_sizes_the_kv_cache_and_reports_memory():
    clock = Clock()
    be = Scripted(clock)
    out = loop.run_generation("scripted", "/m", prompt_tokens=8, gen_tokens=4, depth=20, repetitions=1,
                              options={"threads": 2}, clock=clock, backend=be)
    assert be.loaded == ("/m", 32, {"threads": 2})  # room for depth + prompt + generated tokens, no more
    assert out["n_ctx"] == 32 and out["kv_cache"]["bytes"] == 2 * 2 * 2 * 4 * 32 * 4
    assert out["load_ns"] == 1 and len(out["repetitions"]) == 1 and len(out["repetitions"][0]["token_ns"]) == 4
    assert out["memory"]["peak_rss_bytes"] > 0 and out["clock"]


_PY36_RUN = """
import json, sys
sys.path.insert(0, sys.argv[1])
from edgeprof_agent.generation import base, loop

class B(base.GenerationBackend):
    name = "scripted36"
    vocab_size = 40
    def load(self, path, n_ctx, options):
        self.n_ctx = n_ctx
    def start(self):
        pass
    def append(self, ids):
        pass
    def next_token(self):
        return 5
    def kv_cache(self, n_ctx):
        return base.kv_cache_figures(1, 1, 8, n_ctx, "float32", 4, "scripted")
    def describe(self):
        return {"runtime": "scripted36"}

raw = loop.run_generation("scripted36", "/m", 4, 3, depth=2, repetitions=2, backend=B())
print(json.dumps({"n": [len(r["token_ns"]) for r in raw["repetitions"]], "kv": raw["kv_cache"]["bytes"],
                  "clock": raw["clock"]}))
"""


def _python36():
    """A Python 3.6 interpreter (pyenv's, as tests/agent/test_power_memory.py finds it), or None."""
    import glob
    import os
    import pwd
    import shutil
    import subprocess

    home = pwd.getpwuid(os.getuid()).pw_dir  # HOME is redirected for tests
    cands = sorted(glob.glob(os.path.join(home, ".pyenv", "versions", "3.6*", "bin", "python3.6")))
    cands.append(shutil.which("python3.6"))
    for exe in reversed([c for c in cands if c]):
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 6))"],
                                 capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if out.stdout.strip() == "True":
            return exe
    return None


def test_the_loop_runs_under_python36():
    import json
    import os
    import subprocess

    py36 = _python36()
    if py36 is None:
        pytest.skip("no Python 3.6 interpreter here")
    agents = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agents")
    out = subprocess.run([py36, "-c", _PY36_RUN, agents], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["n"] == [3, 3] and got["kv"] == 2 * 8 * 9 * 4 and "3.6" in got["clock"]


def test_litert_lm_backend_refuses_before_touching_the_runtime(monkeypatch):
    """The LiteRT-LM backend's one-line refusals come before any engine is made (so they hold without
    litert-lm-api): an unknown option, no vocab_size (LiteRT-LM's API does not report it), a run longer than the
    .litertlm's KV cache, a kv_cache option without its keys; and without the module, RUNTIME_MISSING naming the
    package."""
    import sys

    from edgeprof_agent.generation.litertlm import GenerationBackend

    kv = {"layers": 4, "kv_heads": 4, "head_dim": 32, "cache_length": 256, "dtype": "float32",
          "bytes_per_element": 4}
    be = GenerationBackend()
    be.lm = object()  # past require(): every refusal below is decided before the module is used
    cases = [({"threads": 1, "n_batch": 8}, ErrorKind.BAD_OPTION, "unknown option(s) n_batch"),
             ({"threads": 1}, ErrorKind.BAD_OPTION, "option vocab_size is needed"),
             ({"vocab_size": 2048, "kv_cache": kv}, ErrorKind.BAD_REQUEST,
              "300 tokens do not fit the .litertlm's KV cache of 256"),
             ({"vocab_size": 2048, "kv_cache": {"layers": 4}}, ErrorKind.BAD_OPTION, "option kv_cache must be"),
             ({"vocab_size": 0}, ErrorKind.BAD_OPTION, "vocab_size must be a positive integer")]
    for options, kind, words in cases:
        with pytest.raises(OpError) as e:
            be.load("/nowhere/m.litertlm", 300, options)
        assert e.value.type == kind and words in str(e.value), (options, str(e.value))
    monkeypatch.setitem(sys.modules, "litert_lm", None)
    with pytest.raises(OpError) as e:
        GenerationBackend().require()
    assert e.value.type == ErrorKind.RUNTIME_MISSING and "litert-lm-api" in e.value.hint
