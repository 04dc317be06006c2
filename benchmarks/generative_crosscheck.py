"""edgeprof's generation figures beside each runtime's own measurement, in one run (issue 36 item 7): decode
tokens/s and prefill / TTFT, on the same model, the same thread count, repetitions interleaved, median of N.

    python benchmarks/generative_crosscheck.py [--model llama_tiny] [--prompt 512] [--gen 128] [--reps 15]
                                               [--threads 1] [--cache DIR] [--json OUT] [--only llama.cpp]
                                               [--python-lm .venv-lm/bin/python]

What is compared (edgeprof's side is always the agent's loop, agents/edgeprof_agent/generation/loop.py measure(),
and the host's statistics, edgeprof/generative/stats.py repetition_figures):

- llama.cpp (llama-cpp-python, GGUF Q4_0): the runtime's own clock is llama.cpp's perf counters,
  llama_perf_context(ctx) -> t_p_eval_ms / n_p_eval (prompt) and t_eval_ms / n_eval (one-token decodes).
  They are reset (llama_perf_context_reset) before each repetition and read after it, so BOTH clocks time the same
  calls of the same repetition. llama.cpp adds to them in llama_context::synchronize (src/llama-context.cpp): from
  the start of the llama_decode call to the moment its results are waited for (llama_get_logits*). n_p_eval ==
  prompt tokens and n_eval == tokens - 1 are checked, so both count the same work. Runtime decode t/s =
  n_eval / t_eval; edgeprof's = (tokens - 1) / the sum of the per-token times after the first (each token: the
  Python eval() call, the logits read, the argmax). Prefill: edgeprof's prefill (the append of the prompt, one
  eval()) against t_p_eval; TTFT (prefill + the first token's pick) against t_p_eval too, since llama.cpp has no
  TTFT of its own.
- onnxruntime-genai (int4 folder from its model builder): the runtime's Python API has no timer of its own
  (0.18: Generator and Engine expose token counts only, TurnUsage prompt_tokens / generated_tokens), so its side
  is the method of its own benchmark script, benchmark/python/benchmark_e2e.py: time.perf_counter around the
  prompt call (append_tokens), the first generate_next_token (its "sampling" step, TTFT = prompt + it) and each
  later generate_next_token (token generation; tps = 1 / mean step). Its repetitions run on the same og.Model
  as edgeprof's, with their own Generator and the same random ids, interleaved with edgeprof's (order alternating).
  Both clocks wrap the same API calls, so this compares two runs, not two clocks of one run: the spread of the
  machine shows in it. A second onnxruntime-genai comparison does time one run with two clocks: ONNX Runtime's
  own session profiler (session_options enable_profiling in the folder's genai_config.json, a copy of the folder
  whose other files are links) records a "model_run" event, with its duration, for every session Run: one for the
  prompt's append_tokens and one for each generate_next_token after the first (the first only samples from the
  prompt's logits). edgeprof's loop runs in a child process (ONNX Runtime writes the profile when the process
  ends); the events are counted (1 + tokens - 1 per repetition, after the warm-up's) and set beside edgeprof's
  times of the same calls. The profiler records every node too, which slows the run itself; both clocks see that.

- litert-lm (a .litertlm litert-torch's exporter built from the same folder, wi8_afp32): the runtime's own clock
  is its BenchmarkInfo (litert-lm-api Session.get_benchmark_info, runtime/engine/io_types.cc in LiteRT-LM): a
  prefill turn (the run_prefill's tokens and its duration inside the engine) and a decode turn (every token of
  run_decode_async, the first included, and its duration), so runtime decode t/s = tokens / the turn, prefill =
  its turn's duration, TTFT = the first prefill turn + the decode turn / its tokens (GetTimeToFirstToken). The
  agent's backend keeps that info for each sequence it runs to the end (generation/litertlm.py), so both clocks
  time the same repetition. edgeprof's decode t/s counts the tokens after the first, LiteRT-LM's every token.
  The two TTFTs are two definitions (io_types.cc GetTimeToFirstToken, google-ai-edge/LiteRT-LM 91ffc99: prefill
  turn 0's duration + decode turn 0's duration / its tokens, the MEAN step; edgeprof's: the prefill call + the
  first token as its caller receives it), so beside that difference the script also prints edgeprof's TTFT by
  LiteRT-LM's definition, computed from edgeprof's own times (prefill + the mean of every token's time, the first
  included), and its ratio to BenchmarkInfo's TTFT: like for like, target within 2 % of 1.
  litert-lm-api runs where it is installed: with --python-lm PY, the litert-lm rows run in a child process of
  that Python (this script's own code, --lm-child), the same loop and statistics.

Ratios printed: decode t/s edgeprof / runtime's own (target >= 0.98), prefill and TTFT difference in % (target
within 2 %), each the median of the per-repetition values, with min and max. The load average is printed before
and after (the 2-core development host is shared). Not a test: timing belongs here, not in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "agents"))


def med(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def fmt(name: str, values: list[float], unit: str, target: str) -> str:
    m, lo, hi = med(values)
    return f"  {name:<34} median {m:9.4f}{unit}  (min {lo:.4f}, max {hi:.4f}, n {len(values)})  target {target}"


class LlamaCppCheck:
    """edgeprof's loop on llama.cpp with llama.cpp's own perf counters read around each repetition."""

    name = "llama.cpp"

    def __init__(self, path: str, n_ctx: int, threads: int) -> None:
        from edgeprof_agent.generation.llamacpp import GenerationBackend

        self.be = GenerationBackend()
        self.be.require()
        # extra buffers off: llama-cpp-python 0.3.x crashes in the AMX buffer on quantised weights on this host's
        # CPU (ggml-org/llama.cpp#20824, docs/generative.md)
        self.be.load(path, n_ctx, {"threads": threads, "threads_batch": threads, "extra_buffers": False})
        self.lc = self.be.lc
        self.rows: list[dict[str, float]] = []

    def repetition(self, prompt: int, gen: int, seed: int, warmup: bool) -> None:
        from edgeprof.generative.stats import repetition_figures
        from edgeprof_agent.generation.loop import measure

        ctx = self.be.llm.ctx
        if warmup:
            measure(self.be, prompt, gen, repetitions=1, warmup=True, seed=seed)
        self.lc.llama_perf_context_reset(ctx)
        rep = measure(self.be, prompt, gen, repetitions=1, warmup=False, seed=seed)["repetitions"][0]
        perf = self.lc.llama_perf_context(ctx)
        if (perf.n_p_eval, perf.n_eval) != (prompt, gen - 1):
            raise SystemExit(f"llama.cpp counted {perf.n_p_eval} prompt and {perf.n_eval} decode tokens, not "
                             f"{prompt} and {gen - 1}: the two clocks would not time the same work")
        f = repetition_figures(rep["prefill_ns"], rep["token_ns"], prompt)
        own_tps = perf.n_eval * 1000.0 / perf.t_eval_ms
        self.rows.append({"ep_decode_tps": f.decode_tps or 0.0, "rt_decode_tps": own_tps,
                          "decode_ratio": (f.decode_tps or 0.0) / own_tps,
                          "ep_prefill_ms": f.prefill_ms, "ep_ttft_ms": f.ttft_ms, "rt_prefill_ms": perf.t_p_eval_ms,
                          "prefill_diff_pct": (f.prefill_ms - perf.t_p_eval_ms) / perf.t_p_eval_ms * 100,
                          "ttft_diff_pct": (f.ttft_ms - perf.t_p_eval_ms) / perf.t_p_eval_ms * 100})

    def close(self) -> None:
        self.be.close()


class OrtGenaiCheck:
    """edgeprof's loop on onnxruntime-genai, interleaved with repetitions timed as benchmark_e2e.py times them."""

    name = "onnxruntime-genai"

    def __init__(self, path: str, n_ctx: int, threads: int) -> None:
        from edgeprof_agent.generation.ortgenai import GenerationBackend

        self.be = GenerationBackend()
        self.be.require()
        self.be.load(path, n_ctx, {"threads": threads})
        self.n_ctx = n_ctx
        self.ep: list[dict[str, float]] = []
        self.rt: list[dict[str, float]] = []

    def script_repetition(self, prompt: int, gen: int, seed: int) -> None:
        """benchmark_e2e.py's timing on the current API: prompt = append_tokens, TTFT = prompt + the first
        generate_next_token, token generation = each later generate_next_token, tps = 1 / mean step."""
        import numpy as np
        import onnxruntime_genai as og

        from edgeprof_agent.generation.loop import random_ids

        ids = np.asarray(random_ids(random.Random(seed), self.be.vocab_size, prompt), dtype=np.int32)
        params = og.GeneratorParams(self.be.model)
        params.set_search_options(max_length=self.n_ctx, min_length=self.n_ctx, do_sample=False)
        generator = og.Generator(self.be.model, params)
        t0 = time.perf_counter()
        generator.append_tokens(ids)
        t1 = time.perf_counter()
        generator.generate_next_token()
        t2 = time.perf_counter()
        steps = []
        for _ in range(gen - 1):
            s0 = time.perf_counter()
            generator.generate_next_token()
            steps.append(time.perf_counter() - s0)
        del generator
        self.rt.append({"prefill_ms": (t1 - t0) * 1000, "ttft_ms": (t2 - t0) * 1000,
                        "decode_tps": 1.0 / (sum(steps) / len(steps))})

    def edgeprof_repetition(self, prompt: int, gen: int, seed: int) -> None:
        from edgeprof.generative.stats import repetition_figures
        from edgeprof_agent.generation.loop import measure

        rep = measure(self.be, prompt, gen, repetitions=1, warmup=False, seed=seed)["repetitions"][0]
        f = repetition_figures(rep["prefill_ns"], rep["token_ns"], prompt)
        self.ep.append({"prefill_ms": f.prefill_ms, "ttft_ms": f.ttft_ms, "decode_tps": f.decode_tps or 0.0})

    def repetition(self, prompt: int, gen: int, seed: int, warmup: bool) -> None:
        if warmup:  # both methods once, untimed (benchmark_e2e.py warms up too)
            self.edgeprof_repetition(prompt, gen, seed)
            self.script_repetition(prompt, gen, seed)
            self.ep.clear()
            self.rt.clear()
        if len(self.ep) % 2 == 0:  # alternate which goes first
            self.edgeprof_repetition(prompt, gen, seed)
            self.script_repetition(prompt, gen, seed)
        else:
            self.script_repetition(prompt, gen, seed)
            self.edgeprof_repetition(prompt, gen, seed)

    @property
    def rows(self) -> list[dict[str, float]]:
        return [{"ep_decode_tps": e["decode_tps"], "rt_decode_tps": r["decode_tps"],
                 "decode_ratio": e["decode_tps"] / r["decode_tps"], "ep_prefill_ms": e["prefill_ms"],
                 "ep_ttft_ms": e["ttft_ms"], "rt_prefill_ms": r["prefill_ms"], "rt_ttft_ms": r["ttft_ms"],
                 "prefill_diff_pct": (e["prefill_ms"] - r["prefill_ms"]) / r["prefill_ms"] * 100,
                 "ttft_diff_pct": (e["ttft_ms"] - r["ttft_ms"]) / r["ttft_ms"] * 100}
                for e, r in zip(self.ep, self.rt, strict=True)]

    def close(self) -> None:
        self.be.close()


class OrtProfiledCheck:
    """edgeprof's loop on onnxruntime-genai in a child process with ONNX Runtime's session profiler on; its
    model_run events beside edgeprof's times of the same calls."""

    name = "onnxruntime-genai, profiled"

    def __init__(self, path: str, n_ctx: int, threads: int, work: Path) -> None:
        self.path, self.n_ctx, self.threads, self.work = path, n_ctx, threads, work
        self.rows: list[dict[str, float]] = []

    def run(self, prompt: int, gen: int, reps: int) -> None:
        import shutil
        import subprocess

        folder = self.work / "ortgenai-profiled"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for f in Path(self.path).iterdir():
            if f.name != "genai_config.json":
                (folder / f.name).symlink_to(f.resolve())
        cfg = json.loads((Path(self.path) / "genai_config.json").read_text())
        cfg["model"]["decoder"].setdefault("session_options", {})["enable_profiling"] = str(folder / "ort_profile")
        (folder / "genai_config.json").write_text(json.dumps(cfg, indent=1))
        raw_path = folder / "edgeprof.json"
        subprocess.run([sys.executable, __file__, "--profile-child", json.dumps(
            {"path": str(folder), "n_ctx": self.n_ctx, "threads": self.threads, "prompt": prompt, "gen": gen,
             "reps": reps, "out": str(raw_path)})], check=True)
        profiles = sorted(folder.glob("ort_profile*.json"))
        if len(profiles) != 1:
            raise SystemExit(f"expected one ONNX Runtime profile in {folder}, found {len(profiles)}")
        events = json.loads(profiles[0].read_text())
        runs = [e["dur"] for e in sorted((e for e in events if e.get("name") == "model_run"), key=lambda e: e["ts"])]
        raw = json.loads(raw_path.read_text())
        # the warm-up (a prefill and one decode step) and the repetition measure() runs with it: not compared
        warm = 1 + (min(2, gen) - 1) + gen
        if len(runs) != warm + reps * gen:
            raise SystemExit(f"ONNX Runtime recorded {len(runs)} session runs, not {warm + reps * gen} "
                             f"(warm-up {warm}, then {reps} x (1 prefill + {gen - 1} decode steps))")
        from edgeprof.generative.stats import repetition_figures

        for i, rep in enumerate(raw):
            mine = runs[warm + i * gen: warm + (i + 1) * gen]
            own_prefill_ms, own_decode_us = mine[0] / 1000, sum(mine[1:])
            f = repetition_figures(rep["prefill_ns"], rep["token_ns"], prompt)
            own_tps = (gen - 1) * 1e6 / own_decode_us
            self.rows.append({"ep_decode_tps": f.decode_tps or 0.0, "rt_decode_tps": own_tps,
                              "decode_ratio": (f.decode_tps or 0.0) / own_tps, "ep_prefill_ms": f.prefill_ms,
                              "ep_ttft_ms": f.ttft_ms, "rt_prefill_ms": own_prefill_ms,
                              "prefill_diff_pct": (f.prefill_ms - own_prefill_ms) / own_prefill_ms * 100,
                              "ttft_diff_pct": (f.ttft_ms - own_prefill_ms) / own_prefill_ms * 100})

    def close(self) -> None:
        pass


class LiteRtLmCheck:
    """edgeprof's loop on LiteRT-LM with its BenchmarkInfo of the same repetition (the backend keeps it)."""

    name = "litert-lm"

    def __init__(self, path: str, n_ctx: int, threads: int, vocab: int, kv: dict[str, Any]) -> None:
        from edgeprof_agent.generation.litertlm import GenerationBackend

        self.be = GenerationBackend()
        self.be.require()
        self.be.load(path, n_ctx, {"threads": threads, "vocab_size": vocab, "kv_cache": kv})
        self.rows: list[dict[str, float]] = []

    def repetition(self, prompt: int, gen: int, seed: int, warmup: bool) -> None:
        from edgeprof_agent.generation.loop import measure

        rep = measure(self.be, prompt, gen, repetitions=1, warmup=warmup, seed=seed)["repetitions"][0]
        own = self.be.describe()["benchmark_info"][-1]  # describe() closes the sequence and reads its info
        if (own["prefill_tokens"], own["decode_tokens"]) != (prompt, gen):
            raise SystemExit(f"LiteRT-LM counted {own['prefill_tokens']} prompt and {own['decode_tokens']} decode "
                             f"tokens, not {prompt} and {gen}: the two clocks would not time the same work")
        self.rows.append(_rows_of(rep, prompt, own))

    def close(self) -> None:
        self.be.close()


def _rows_of(rep: dict[str, Any], prompt: int, own: dict[str, float]) -> dict[str, float]:
    from edgeprof.generative.stats import repetition_figures

    f = repetition_figures(rep["prefill_ns"], rep["token_ns"], prompt)
    rt_prefill_ms = own["prefill_tokens"] / own["prefill_tps"] * 1000.0
    rt_decode_ms = own["decode_tokens"] / own["decode_tps"] * 1000.0  # the decode turn: every token, the first too
    ep_decode_ms = sum(rep["token_ns"]) / 1e6
    rt_ttft_ms = own["ttft_s"] * 1000.0
    # LiteRT-LM's definition of TTFT from edgeprof's own stored times: the prefill call + the MEAN of every token's
    # time, the first included (GetTimeToFirstToken: prefill turn 0 + decode turn 0 / its tokens), like for like
    ep_ttft_lm_ms = f.prefill_ms + ep_decode_ms / len(rep["token_ns"])
    return {"ep_ttft_lm_ms": ep_ttft_lm_ms, "ttft_lm_ratio": ep_ttft_lm_ms / rt_ttft_ms,
            "ep_decode_tps": f.decode_tps or 0.0, "rt_decode_tps": own["decode_tps"],
            "decode_ratio": (f.decode_tps or 0.0) / own["decode_tps"], "ep_prefill_ms": f.prefill_ms,
            "ep_ttft_ms": f.ttft_ms, "rt_prefill_ms": rt_prefill_ms, "rt_ttft_ms": rt_ttft_ms,
            "prefill_diff_pct": (f.prefill_ms - rt_prefill_ms) / rt_prefill_ms * 100,
            "ttft_diff_pct": (f.ttft_ms - rt_ttft_ms) / rt_ttft_ms * 100,
            "ep_first_token_ms": rep["token_ns"][0] / 1e6, "rt_mean_step_ms": 1000.0 / own["decode_tps"],
            "decode_turn_diff_pct": (ep_decode_ms - rt_decode_ms) / rt_decode_ms * 100}


def lm_child(args: dict[str, Any]) -> None:
    """The litert-lm rows in a Python that has litert-lm-api (--python-lm): every repetition's row as JSON."""
    c = LiteRtLmCheck(args["path"], args["n_ctx"], args["threads"], args["vocab"], args["kv"])
    for i in range(args["reps"]):
        c.repetition(args["prompt"], args["gen"], seed=i, warmup=(i == 0))
    c.close()
    print(json.dumps(c.rows))


class LiteRtLmChild:
    """The litert-lm rows run by lm_child in another Python; its rows read back."""

    name = "litert-lm"

    def __init__(self, python: str, args: dict[str, Any]) -> None:
        import subprocess

        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "agents"),
                                                           os.environ.get("PYTHONPATH", "")]))
        out = subprocess.run([python, __file__, "--lm-child", json.dumps(args)], capture_output=True, text=True,
                             env=env, check=False)
        if out.returncode != 0:
            raise SystemExit(f"the litert-lm child ({python}) failed: {out.stderr[-2000:]}")
        self.rows = json.loads(out.stdout.strip().splitlines()[-1])

    def close(self) -> None:
        return None


def profile_child(args: dict[str, Any]) -> None:
    """In the child: edgeprof's loop (one warm-up, then repetitions of one) on the profiled folder; its raw
    repetitions written to args["out"]. ONNX Runtime writes its profile when this process ends."""
    from edgeprof_agent.generation.loop import measure
    from edgeprof_agent.generation.ortgenai import GenerationBackend

    be = GenerationBackend()
    be.require()
    be.load(args["path"], args["n_ctx"], {"threads": args["threads"]})
    measure(be, args["prompt"], args["gen"], repetitions=1, warmup=True, seed=0)  # warm-up + 1: not compared
    reps = []
    for i in range(args["reps"]):
        reps.append(measure(be, args["prompt"], args["gen"], repetitions=1, warmup=False, seed=i)["repetitions"][0])
    Path(args["out"]).write_text(json.dumps(reps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama_tiny")
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--gen", type=int, default=128)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None, help="write every repetition's figures here")
    ap.add_argument("--only", default=None, help="llama.cpp, onnxruntime-genai or litert-lm")
    ap.add_argument("--python-lm", default=None, help="a Python with litert-lm-api, for the litert-lm rows (default: "
                    "this one, when it has it)")
    ap.add_argument("--lm-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--no-profile", action="store_true", help="leave out the ONNX Runtime profiled comparison")
    ap.add_argument("--work", type=Path, default=Path("/tmp/edgeprof-crosscheck"),
                    help="where the profiled copy of the onnxruntime-genai folder is made")
    ap.add_argument("--profile-child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.profile_child is not None:
        profile_child(json.loads(a.profile_child))
        return
    if a.lm_child is not None:
        lm_child(json.loads(a.lm_child))
        return
    if a.gen < 2:
        raise SystemExit("--gen must be at least 2 (decode t/s needs a token after the first)")

    from edgeprof.generative.build import gguf_file, hf_folder, ortgenai_folder

    folder = Path(hf_folder(a.model, cache_dir=a.cache).path).parent
    n_ctx = a.prompt + a.gen
    checks: list[Any] = []
    if a.only in (None, "llama.cpp"):
        try:
            import llama_cpp  # noqa: F401
            checks.append(LlamaCppCheck(gguf_file(folder, "q4_0", cache_dir=a.cache, name=a.model).path, n_ctx,
                                        a.threads))
        except ImportError:
            print("llama-cpp-python is not installed: the llama.cpp rows are left out", file=sys.stderr)
    if a.only in (None, "onnxruntime-genai"):
        path = str(Path(ortgenai_folder(folder, "int4", cache_dir=a.cache, name=a.model).path).parent)
        checks.append(OrtGenaiCheck(path, n_ctx, a.threads))
    lm_args = None
    if a.only in (None, "litert-lm"):
        import importlib.util

        if a.python_lm is None and importlib.util.find_spec("litert_lm") is None:
            print("litert-lm-api is not installed here (and no --python-lm): the litert-lm rows are left out",
                  file=sys.stderr)
        else:
            from edgeprof.generative.build import litertlm_file

            cfg = json.loads((folder / "config.json").read_text())
            art = litertlm_file(folder, "wi8_afp32", n_ctx, cache_dir=a.cache, name=a.model)
            heads = int(cfg["num_attention_heads"])
            kv = {"layers": int(cfg["num_hidden_layers"]), "kv_heads": int(cfg.get("num_key_value_heads") or heads),
                  "head_dim": int(cfg.get("head_dim") or int(cfg["hidden_size"]) // heads),
                  "cache_length": art.export_options.cache_length, "dtype": "float32", "bytes_per_element": 4}
            lm_args = {"path": art.path, "n_ctx": n_ctx, "threads": a.threads, "vocab": int(cfg["vocab_size"]),
                       "kv": kv, "prompt": a.prompt, "gen": a.gen, "reps": a.reps}
            if a.python_lm is None:
                checks.append(LiteRtLmCheck(art.path, n_ctx, a.threads, lm_args["vocab"], kv))
    load0 = os.getloadavg()
    t0 = time.monotonic()
    for i in range(a.reps):  # interleaved: one repetition of each runtime per round
        for c in checks:
            c.repetition(a.prompt, a.gen, seed=i, warmup=(i == 0))
    if lm_args is not None and a.python_lm is not None:  # its own repetitions, after the interleaved ones
        checks.append(LiteRtLmChild(a.python_lm, lm_args))
    if a.only in (None, "onnxruntime-genai") and not a.no_profile:
        prof = OrtProfiledCheck(path, n_ctx, a.threads, a.work)
        prof.run(a.prompt, a.gen, a.reps)
        checks.append(prof)
    load1 = os.getloadavg()
    print(f"{a.model}: prompt {a.prompt}, generate {a.gen}, {a.reps} repetitions per runtime (interleaved), "
          f"{a.threads} thread(s), {os.cpu_count()} cores; load average {load0[0]:.2f} before, {load1[0]:.2f} "
          f"after ({time.monotonic() - t0:.1f} s)")
    out: dict[str, Any] = {"model": a.model, "prompt": a.prompt, "gen": a.gen, "reps": a.reps,
                           "threads": a.threads, "loadavg": [load0, load1], "runtimes": {}}
    for c in checks:
        rows = c.rows
        out["runtimes"][c.name] = rows
        own = {"llama.cpp": "llama_perf_context, the same repetitions",
               "litert-lm": "its BenchmarkInfo, the same repetitions",
               "onnxruntime-genai": "benchmark_e2e.py's method, its own repetitions, interleaved"}.get(
            c.name, "ONNX Runtime's model_run events, the same repetitions")
        print(f"{c.name} ({own}):")
        print(fmt("edgeprof decode t/s", [r["ep_decode_tps"] for r in rows], "", ""))
        print(fmt("runtime's decode t/s", [r["rt_decode_tps"] for r in rows], "", ""))
        print(fmt("decode t/s ratio edgeprof/runtime", [r["decode_ratio"] for r in rows], "", ">= 0.98"))
        print(f"  {'ratio of the medians':<34} {med([r['ep_decode_tps'] for r in rows])[0] / med([r['rt_decode_tps'] for r in rows])[0]:.4f}")
        print(fmt("prefill ms, edgeprof", [r["ep_prefill_ms"] for r in rows], "", ""))
        print(fmt("prefill ms, runtime", [r["rt_prefill_ms"] for r in rows], "", ""))
        print(fmt("prefill difference", [r["prefill_diff_pct"] for r in rows], " %", "within 2 %"))
        print(fmt("TTFT difference" + (" (vs its prefill)" if c.name not in ("onnxruntime-genai", "litert-lm")
                                       else ""),
                  [r["ttft_diff_pct"] for r in rows], " %", "within 2 %"))
        if c.name == "litert-lm":  # its TTFT is prefill + the MEAN step; the sum of every token's time is its turn
            print(fmt("every token's time vs its decode turn", [r["decode_turn_diff_pct"] for r in rows], " %", ""))
            print(fmt("TTFT ms, edgeprof (its definition)", [r["ep_ttft_lm_ms"] for r in rows], "", ""))
            print(fmt("TTFT ms, BenchmarkInfo", [r["rt_ttft_ms"] for r in rows], "", ""))
            print(fmt("TTFT ratio, LiteRT-LM's definition", [r["ttft_lm_ratio"] for r in rows], "",
                      "within 2 % of 1"))
            print(fmt("first token ms, edgeprof", [r["ep_first_token_ms"] for r in rows], "", ""))
            print(fmt("mean step ms, runtime", [r["rt_mean_step_ms"] for r in rows], "", ""))
        c.close()
    if a.json is not None:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
