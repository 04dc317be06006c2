"""One generative model on every runtime and precision edgeprof builds for, side by side in one run: the agent's
timed generation loop (agents/edgeprof_agent/generation/loop.py) and the host's statistics
(edgeprof/generative/stats.py) — prefill ms, prompt tokens/s, TTFT, TPOT, decode tokens/s, ITL p50/p99, load,
peak RSS, KV cache — for onnxruntime-genai fp32 / int4 and llama.cpp f16 / Q8_0 / Q4_0 (where llama-cpp-python is
installed).

    python benchmarks/generative_tiny.py [--model llama_tiny] [--prompt 64] [--gen 32] [--depth 0] [--reps 5]
                                         [--threads 1] [--cache DIR] [--extra-buffers]

Builds are cached (edgeprof's artifact cache, or --cache). Prints a table and the ratio of each row's decode
tokens/s to the first row's. Not a test: timing belongs here, not in the test suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "agents"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama_tiny")
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--gen", type=int, default=32)
    ap.add_argument("--depth", type=int, default=0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--extra-buffers", action="store_true",
                    help="llama.cpp's default weight repacking (AMX / CPU_REPACK); off by default here because of "
                         "llama.cpp's AMX crash on quantised weights (ggml-org/llama.cpp#20824)")
    ap.add_argument("--only", default=None, help="comma-separated runtime/precision rows, e.g. llama.cpp/q4_0")
    a = ap.parse_args()

    from edgeprof.generative.build import gguf_file, hf_folder, ortgenai_folder
    from edgeprof.generative.detect import detect
    from edgeprof.generative.stats import generation_summary
    from edgeprof_agent.generation.loop import run_generation

    folder = Path(hf_folder(a.model, cache_dir=a.cache).path).parent
    rows: list[tuple[str, str, str, dict[str, object]]] = []
    for precision in ("fp32", "int4"):
        rows.append(("onnxruntime-genai", precision, "", {"threads": a.threads}))
    try:
        import llama_cpp  # noqa: F401
        for quant in ("f16", "q8_0", "q4_0"):
            rows.append(("llama.cpp", quant, "", {"threads": a.threads, "threads_batch": a.threads,
                                                  "extra_buffers": a.extra_buffers}))
    except ImportError:
        print("llama-cpp-python is not installed: llama.cpp rows left out", file=sys.stderr)
    wanted = set(a.only.split(",")) if a.only else None
    print(f"{a.model}: prompt {a.prompt}, generate {a.gen}, depth {a.depth}, {a.reps} repetitions, "
          f"{a.threads} thread(s)")
    head = ("runtime", "prec", "prefill ms", "pp t/s", "TTFT ms", "TPOT ms", "tg t/s", "ITL p50", "ITL p99",
            "load ms", "RSS MB", "KV KB", "tg ratio")
    print("  ".join(f"{h:>10}" for h in head))
    first = None
    for runtime, prec, _, options in rows:
        if wanted and f"{runtime}/{prec}" not in wanted:
            continue
        if runtime == "llama.cpp":
            path = gguf_file(folder, prec, cache_dir=a.cache, name=a.model).path
        else:
            path = str(Path(ortgenai_folder(folder, prec, cache_dir=a.cache, name=a.model).path).parent)
        detect(path).check_context(a.depth, a.prompt, a.gen)
        raw = run_generation(runtime, path, a.prompt, a.gen, depth=a.depth, repetitions=a.reps, options=options)
        g = generation_summary(raw)
        tg = g.decode_tps.mean if g.decode_tps else float("nan")
        first = first or tg
        cells = (runtime, prec, f"{g.prefill_ms.mean:.3f}", f"{g.prefill_tps.mean:.0f}", f"{g.ttft_ms.mean:.3f}",
                 f"{g.tpot_ms.mean:.3f}" if g.tpot_ms else "-", f"{tg:.0f}",
                 f"{g.itl_ms.p50:.3f}" if g.itl_ms else "-", f"{g.itl_ms.p99:.3f}" if g.itl_ms else "-",
                 f"{g.load_ms:.0f}" if g.load_ms is not None else "-",
                 f"{(g.peak_rss_bytes or 0) / 2**20:.0f}", f"{(g.kv_cache_bytes or 0) / 1024:.0f}", f"{tg / first:.2f}")
        print("  ".join(f"{c:>10}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
