"""LiteRT-LM on a board (issue 36 item 2): llama_tiny built into a real .litertlm by litert-torch's exporter
(edgeprof/generative/litertlm_export.py, 20-60 s the first time, cached), run by the agent's LiteRT-LM backend
(agents/edgeprof_agent/generation/litertlm.py) through litert-lm-api's Session, every token timed by the agent.
Needs the litert-lm extra (litert-lm-api, litert-torch, litert-lm-builder); skipped, saying so, without it."""

import json
from pathlib import Path

import pytest

from edgeprof.cli.main import main

pytestmark = pytest.mark.gen

PROMPT, GEN, REPS = 64, 16, 2


def _need_litert_lm():
    pytest.importorskip("litert_lm", reason="litert-lm-api is not installed (pip install 'edgeprof[litert-lm]')")
    pytest.importorskip("litert_torch", reason="litert-torch is not installed (pip install 'edgeprof[litert-lm]')")
    pytest.importorskip("litert_lm_builder", reason="litert-lm-builder is not installed")


@pytest.fixture(scope="module")
def tiny_litertlm(gen_cache, tiny_hf):
    """llama_tiny as a .litertlm for runs of up to 256 tokens (wi8_afp32: the exporter's default recipe)."""
    _need_litert_lm()
    from edgeprof.generative.build import litertlm_file

    # one entry per key, written atomically (artifact_cache): two xdist workers building it at once are safe
    return litertlm_file(tiny_hf, "wi8_afp32", PROMPT + GEN, cache_dir=gen_cache, name="llama_tiny")


def test_the_build_is_a_real_litertlm_with_its_export_recorded(tiny_litertlm):
    from edgeprof.generative.detect import detect

    p = Path(tiny_litertlm.path)
    assert p.suffix == ".litertlm" and p.stat().st_size > 1_000_000  # the TFLite graphs, not a header
    assert detect(p).kind == "litertlm"
    o = tiny_litertlm.export_options
    assert (o.kind, o.quantizer, o.cache_length, o.prefill_lengths) == ("litertlm", "dynamic_wi8_afp32", 256, [32, 128])


def test_the_agent_times_each_token_and_the_engine_agrees_on_the_counts(tiny_litertlm):
    """The backend through the loop: each repetition's prompt prefilled as exactly PROMPT tokens and GEN tokens
    streamed, LiteRT-LM's own counts (BenchmarkInfo) equal to them; its own timings kept beside."""
    from edgeprof_agent.generation.litertlm import GenerationBackend
    from edgeprof_agent.generation.loop import run_generation

    be = GenerationBackend()
    kv = {"layers": 4, "kv_heads": 4, "head_dim": 32, "cache_length": 256, "dtype": "float32",
          "bytes_per_element": 4}
    out = run_generation("litert-lm", tiny_litertlm.path, PROMPT, GEN, depth=32, repetitions=REPS, backend=be,
                         options={"threads": 1, "vocab_size": 2048, "kv_cache": kv})
    assert len(out["repetitions"]) == REPS
    for r in out["repetitions"]:
        assert len(r["token_ns"]) == GEN and all(t > 0 for t in r["token_ns"]) and r["prefill_ns"] > 0
        assert r["depth_fill_ns"] > 0
        assert all(3 <= t < 2048 or t == -1 for t in r["tokens"]) and sum(t >= 0 for t in r["tokens"]) == GEN
    info = out["runtime"]["benchmark_info"]
    assert [(b["prefill_tokens"], b["decode_tokens"]) for b in info] == [(PROMPT, GEN)] * REPS
    assert all(b["decode_tps"] > 0 and b["prefill_tps"] > 0 for b in info)
    assert out["kv_cache"]["bytes"] == 2 * 4 * 4 * 32 * 256 * 4 and out["kv_cache"]["n_ctx"] == 256
    assert out["runtime"]["version"] and out["runtime"]["threads"] == 1


def test_what_the_backend_cannot_make_exact_is_refused(tiny_litertlm):
    from edgeprof_agent.generation.litertlm import GenerationBackend
    from edgeprof_agent.protocol import OpError
    from edgeprof_agent.vocab import ErrorKind

    be = GenerationBackend()
    with pytest.raises(OpError) as e:
        be.load(tiny_litertlm.path, 80, {"threads": 1})
    assert e.value.type == ErrorKind.BAD_OPTION and "vocab_size is needed" in str(e.value)
    kv = {"layers": 4, "kv_heads": 4, "head_dim": 32, "cache_length": 256, "dtype": "float32",
          "bytes_per_element": 4}
    with pytest.raises(OpError) as e:
        be.load(tiny_litertlm.path, 300, {"vocab_size": 2048, "kv_cache": kv})
    assert e.value.type == ErrorKind.BAD_REQUEST and "300 tokens do not fit the .litertlm's KV cache of 256" in str(
        e.value)


def test_deploy_local_runs_litert_lm_end_to_end_and_reads_back(tmp_path, capsys, monkeypatch, gen_cache,
                                                              tiny_litertlm):
    _need_litert_lm()
    monkeypatch.setenv("EDGEPROF_CACHE", str(gen_cache))  # the same key as tiny_litertlm: built once
    db = str(tmp_path / "r.sqlite")
    code = main(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "litert-lm",
                 "--prompt-tokens", str(PROMPT), "--gen-tokens", str(GEN), "--repetitions", str(REPS),
                 "--threads", "1", "--db", db, "--json", "-", "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    r = json.loads(cap.out)
    assert (r["runtime"], r["precision"], r["artifact"]["format"]) == ("litert-lm", "wi8_afp32", "litertlm")
    assert r["artifact"]["path"] == tiny_litertlm.path  # the cached build, not a second one
    g = r["generation"]
    assert (g["prompt_tokens"], g["tokens"], g["repetitions"]) == (PROMPT, GEN, REPS)
    assert g["decode_tps"]["mean"] > 0 and g["ttft_ms"]["mean"] > 0 and g["kv_cache"]["n_ctx"] == 256
    opts = r["environment"]["runtime"]["options"]
    assert opts["threads"] == 1
    info = json.loads(opts["passthrough"]["benchmark_info"])  # LiteRT-LM's own figures, kept beside
    assert [(b["prefill_tokens"], b["decode_tokens"]) for b in info] == [(PROMPT, GEN)] * REPS
    assert main(["results", "show", r["run_id"], "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "TTFT" in shown and "litert-lm" in shown


SWEEP_PP, SWEEP_GEN, SWEEP_DEPTHS = 16, 8, (0, 32)


def test_a_sweep_on_local_runs_llama_cpp_and_litert_lm_side_by_side(tmp_path, capsys, monkeypatch, gen_cache,
                                                                    tiny_litertlm):
    """`runtimes: [llama.cpp, litert-lm]` on this machine (issue 36 item 6): each runtime at its default precision
    (q4_0, wi8_afp32), a cell per depth; the .litertlm built when the cell measures, found in the cache (the same
    key as tiny_litertlm's: a cache of 256 tokens); results stored with the cell ids, the sweep's table and the
    report's llama-bench table listing both runtimes."""
    _need_litert_lm()
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    import html
    import re

    from edgeprof.store import Store

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("EDGEPROF_CACHE", str(gen_cache))
    monkeypatch.setenv("COLUMNS", "300")  # the sweep's table one line per row
    (tmp_path / "rt.yaml").write_text(
        "name: two-runtimes\nmodels: [llama_tiny]\ndevices: [local]\nruntimes: [llama.cpp, litert-lm]\n"
        f"threads: [1]\nprompt_tokens: [{SWEEP_PP}]\ngen_tokens: [{SWEEP_GEN}]\n"
        f"depth: [{', '.join(map(str, SWEEP_DEPTHS))}]\n"
        "settings: {repetitions: 2, idle_s: 0, timeout_s: 600, retries: 0}\n")
    db = str(tmp_path / "r.sqlite")
    code = main(["sweep", str(tmp_path / "rt.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    sweep_id = (tmp_path / "id").read_text().strip()
    store = Store(db)
    rows = {r.sweep.cell_id: r for r in (store.get(x.run_id) for x in store.list(sweep_id=sweep_id, limit=None))
            if r.sweep is not None}
    want = {f"local/llama_tiny/{rt}/{p}/b1/t1/pp{SWEEP_PP}/tg{SWEEP_GEN}/d{d}"
            for rt, p in (("llama.cpp", "q4_0"), ("litert-lm", "wi8_afp32")) for d in SWEEP_DEPTHS}
    assert set(rows) == want
    for cid, r in rows.items():
        g = r.generation
        assert r.status == "ok" and g is not None, (cid, r.reason)
        assert (g.prompt_tokens, g.tokens, g.repetitions, g.depth) == (SWEEP_PP, SWEEP_GEN, 2,
                                                                       int(cid.rsplit("/d", 1)[1]))
        assert g.decode_tps is not None and g.decode_tps.mean > 0 and g.ttft_ms is not None
        assert r.artifact is not None
        if r.runtime == "litert-lm":
            assert r.artifact.format == "litertlm" and r.artifact.path == tiny_litertlm.path  # the cached build
            assert r.environment.runtime is not None
            info = json.loads(r.environment.runtime.to_dict()["options"]["passthrough"]["benchmark_info"])
            assert [(b["prefill_tokens"], b["decode_tokens"]) for b in info] == [(SWEEP_PP, SWEEP_GEN)] * 2
        else:
            assert r.artifact.format == "gguf"
    out = re.sub(r"\s+", " ", cap.out + cap.err)
    for cid in want:  # each cell's line in the sweep's output
        depth = int(cid.rsplit("/d", 1)[1])
        assert f"ok {cid}: pp{SWEEP_PP} tg{SWEEP_GEN}" + (f" @ d{depth}" if depth else "") in out, out[-3000:]
    # the sweep's table: a row per cell, each runtime's two (depth 0 and 32) ok at its precision
    for rt, prec in (("llama.cpp", "q4_0"), ("litert-lm", "wi8_afp32")):
        table_rows = [ln for ln in cap.out.splitlines() if re.search(rf"\b{re.escape(rt)}\s*│\s*{prec}\s*│", ln)]
        assert len(table_rows) == len(SWEEP_DEPTHS) and all("│ ok" in ln for ln in table_rows), cap.out
    page = tmp_path / "report.html"
    assert main(["report", "--db", db, "--sweep", sweep_id, "--out", str(page)]) == 0
    table = re.search(r'<table class="sortable gen-bench">(.*?)</table>', page.read_text(), re.S)
    assert table is not None
    listed = {html.unescape(m) for m in re.findall(r'<td class="l">([^<]*)</td><td class="l">(?:wi8_afp32|q4_0)<',
                                                   table.group(1))}
    assert listed == {"llama.cpp", "litert-lm"}
