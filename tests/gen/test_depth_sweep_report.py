"""The issue's "done when" for the lab: a sweep over depth 0 / 512 / 2048 (llama_tiny on llama.cpp Q4_0, this
machine) whose HTML report, opened in headless Chromium, draws decode tokens/s against depth with one point per
depth — asserted on the rendered DOM: the points are there, their values are the stored ones, they are placed in
the order of their values, and the axes are labelled; and beside it TPOT and ITL p50 / p99 against depth, a point
per figure and depth, each the stored value.

llama_tiny's context is 4096 tokens, so depth 2048 + a prompt + generated tokens fits. Whether tokens/s falls with
depth is the model's and the machine's behaviour, not asserted: the measured values are printed (-s)."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from browser import rendered_dom

from edgeprof.cli.main import main
from edgeprof.store import Store

DEPTHS = (0, 512, 2048)

SWEEP = f"""version: 1
name: depth
models: [llama_tiny]
devices: [local]
runtimes: [llama.cpp]
precisions: [q4_0]
threads: [2]
prompt_tokens: [32]
gen_tokens: [32]
depth: [{", ".join(str(d) for d in DEPTHS)}]
settings: {{repetitions: 3, idle_s: 0, timeout_s: 600, retries: 0}}
"""


def test_depth_sweep_draws_decode_tokens_per_s_against_depth_in_chromium(tmp_path, monkeypatch, capsys):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "depth.yaml").write_text(SWEEP)
    db = str(tmp_path / "r.sqlite")
    code = main(["sweep", str(tmp_path / "depth.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    sweep_id = (tmp_path / "id").read_text().strip()
    store = Store(db)
    stored, latency = {}, {}
    for row in store.list(sweep_id=sweep_id, limit=None):
        g = store.get(row.run_id).generation
        assert row.status == "ok" and g is not None and g.decode_tps is not None
        stored[g.depth] = g.decode_tps.mean
        assert g.tpot_ms is not None and g.itl_ms is not None
        latency[g.depth] = {"tpot_ms": g.tpot_ms.mean, "itl_p50_ms": g.itl_ms.p50, "itl_p99_ms": g.itl_ms.p99}
    assert sorted(stored) == list(DEPTHS)
    with capsys.disabled():
        print("\nllama_tiny q4_0, 2 threads, pp32 tg32, decode tokens/s by depth: "
              + ", ".join(f"d{d} {v:.1f}" for d, v in sorted(stored.items())))

    page = tmp_path / "report.html"
    assert main(["report", "--db", db, "--sweep", sweep_id, "--out", str(page)]) == 0
    dom = rendered_dom(tmp_path, page)
    card = re.search(r'<div class="card gen-chart" data-chart="decode_vs_depth">(.*?)</svg>', dom, re.S)
    assert card is not None, "no decode tokens/s against depth chart in the rendered page"
    chart = card.group(1)
    assert "context depth (tokens in the KV cache before the prompt)" in chart
    assert re.search(r">decode tokens/s( \(log scale\))?</text>", chart)
    points = re.findall(r'<g class="gen-point"[^>]*data-x="([^"]*)" data-v="([^"]*)"[^>]*><circle cx="([^"]*)" '
                        r'cy="([^"]*)"', chart)
    assert len(points) == len(DEPTHS), chart[:2000]  # one point per depth
    drawn = {int(x): (float(v), float(cx), float(cy)) for x, v, cx, cy in points}
    assert sorted(drawn) == list(DEPTHS)
    for depth, (v, _cx, _cy) in drawn.items():
        assert v == pytest.approx(stored[depth], rel=1e-5)  # the stored value, not a recomputed one
    by_depth = sorted(drawn.items())
    assert [cx for _, (_, cx, _) in by_depth] == sorted(cx for _, (_, cx, _) in by_depth)  # x grows with depth
    by_value = sorted(drawn.values())  # a higher tokens/s sits higher on the page (a smaller y)
    assert [cy for _, _, cy in by_value] == sorted((cy for _, _, cy in by_value), reverse=True)
    # beside it, TPOT and the ITL p50 and p99 against depth: a line per figure, a point per depth, the stored value
    card = re.search(r'<div class="card gen-chart" data-chart="latency_vs_depth">(.*?)</svg>', dom, re.S)
    assert card is not None, "no TPOT and ITL against depth chart in the rendered page"
    chart = card.group(1)
    assert "context depth (tokens in the KV cache before the prompt)" in chart
    assert re.search(r">time per output token \(ms\)( \(log scale\))?</text>", chart)
    points = re.findall(r'<g class="gen-point"[^>]*data-metric="([^"]*)" data-x="([^"]*)" data-v="([^"]*)"[^>]*>'
                        r'<circle cx="([^"]*)" cy="([^"]*)"', chart)
    assert len(points) == 3 * len(DEPTHS), chart[:2000]
    for metric, x, v, _cx, _cy in points:
        assert float(v) == pytest.approx(latency[int(x)][metric], rel=1e-5)
    for metric in ("tpot_ms", "itl_p50_ms", "itl_p99_ms"):  # each figure's line: x grows with depth
        line = sorted((int(x), float(cx)) for m, x, _v, cx, _cy in points if m == metric)
        assert [d for d, _ in line] == list(DEPTHS) and [cx for _, cx in line] == sorted(cx for _, cx in line)
    with capsys.disabled():
        print("TPOT ms by depth: " + ", ".join(f"d{d} {v['tpot_ms']:.3f}" for d, v in sorted(latency.items()))
              + "; ITL p99 ms: " + ", ".join(f"d{d} {v['itl_p99_ms']:.3f}" for d, v in sorted(latency.items())))
    # the llama-bench table beside it: tg32 rows at each depth
    for depth in DEPTHS:
        assert (f"tg32 @ d{depth}" if depth else "tg32") in dom
    keep = os.environ.get("EDGEPROF_KEEP_REPORT")
    if keep:
        shutil.copy(page, keep)


def test_onnxruntime_genai_cells_of_a_sweep(tmp_path, monkeypatch, capsys, gen_cache, tiny_ortgenai):
    """The other generation runtime through the lab: onnxruntime-genai int4 (its model builder's folder, built once
    per run in the lane's cache, which the sweep uses) at two depths, and fp32 on llama.cpp a skip row."""
    tiny_ortgenai("int4")  # built (or found) in the lane's cache before the sweep looks for it
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("EDGEPROF_CACHE", str(gen_cache))
    (tmp_path / "ort.yaml").write_text(
        "name: ortgenai\nmodels: [llama_tiny]\ndevices: [local]\nruntimes: [onnxruntime-genai]\n"
        "precisions: [int4, q4_0]\nthreads: [1]\nprompt_tokens: [16]\ngen_tokens: [8]\ndepth: [0, 64]\n"
        "settings: {repetitions: 2, idle_s: 0, timeout_s: 600, retries: 0}\n")
    db = str(tmp_path / "r.sqlite")
    code = main(["sweep", str(tmp_path / "ort.yaml"), "--db", db, "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    store = Store(db)
    rows = [store.get(r.run_id) for r in store.list(limit=None)]
    ok = sorted((r for r in rows if r.status == "ok"), key=lambda r: r.generation.depth if r.generation else -1)
    assert [(r.runtime, r.precision, r.generation.depth if r.generation else None) for r in ok] == [
        ("onnxruntime-genai", "int4", 0), ("onnxruntime-genai", "int4", 64)]
    assert all(r.generation is not None and r.generation.tokens == 8 and r.artifact is not None
               and r.artifact.format == "ortgenai" for r in ok)
    skipped = [r for r in rows if r.status == "skipped"]
    assert len(skipped) == 2 and all("onnxruntime-genai takes fp32, int4" in (r.reason or "") for r in skipped)
