"""The HTML report's generation charts (report/html_generation.py) from stored generation results: the golden
schema-10 result (tests/data/golden/results/v10/ok_local_generation.json) stored at three depths on two boards,
one with its energy and one without. Each drawn point carries its stored value; a board without a power reading
is named, never drawn; a series with one x value is said, not drawn; one wattage read twice is one wattage."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from edgeprof.records import Result
from edgeprof.report.data import gather
from edgeprof.report.html import render_html
from edgeprof.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "data/golden/results/v10/ok_local_generation.json"


def result(device: str, depth: int, decode_tps: float, *, energy: bool, watts: float = 3.2768) -> Result:
    d = copy.deepcopy(json.loads(GOLDEN.read_text()))
    d["run_id"] = f"20260101-000000-{device[:3]}{depth:03d}"[:22]
    d["device"] = device
    g = d["generation"]
    g["depth"] = depth
    g["decode_tps"]["mean"] = decode_tps
    if energy:
        g["energy"]["decode_mean_w"] = watts
    else:
        g["energy"], g["energy_reason"] = None, "no power sensor found on this board"
    return Result.from_dict(d)


def points(html: str, cls: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'data-([a-z]+)="([^"]*)"', m)) for m in re.findall(rf'<g class="{cls}"[^>]*>', html)]


def test_generation_charts_draw_the_stored_values(tmp_path):
    store = Store(str(tmp_path / "db.sqlite"))
    runs = [result("pi5", 0, 40.0, energy=True), result("pi5", 512, 31.5, energy=True, watts=3.2768000000000006),
            result("pi5", 2048, 22.25, energy=True), result("nano", 0, 12.0, energy=False),
            result("nano", 512, 9.5, energy=False)]
    for r in runs:
        store.save(r)
    html = render_html(gather(store))
    depth = points(html, "gen-point")
    by_run = {r.run_id: r for r in runs}
    drawn = [p for p in depth if p["chart"] == "decode_vs_depth"]
    assert len(drawn) == 5
    for p in drawn:
        g = by_run[p["run"]].generation
        assert g is not None and g.decode_tps is not None
        assert (int(p["x"]), float(p["v"])) == (g.depth, g.decode_tps.mean)
    assert {p["series"].split(" · ")[0] for p in drawn} == {"pi5", "nano"}  # one line per board (and runtime ...)
    # one prompt length only: said, not drawn
    assert not [p for p in depth if p["chart"] == "ttft_vs_prompt"]
    assert "TTFT against prompt length needs two prompt lengths or more" in html
    # energy per token: bars for the powered board only; the other named with no power reading
    bars = points(html, "gen-bar")
    assert sorted(b["device"] for b in bars) == ["pi5"] * 3
    assert "no power reading on nano" in html
    # tokens/s per watt: one wattage (3.2768 read two ways) → the fastest run alone on the frontier
    pareto = points(html, "gen-pareto-point")
    assert len(pareto) == 3 and [p["v"] for p in pareto if p["front"] == "1"] == ["40"]


def test_no_generation_run_no_generation_chart(tmp_path):
    store = Store(str(tmp_path / "db.sqlite"))
    store.save(result("pi5", 0, 40.0, energy=False))
    html = render_html(gather(store))
    assert 'class="card gen-chart"' not in html  # one run: no series of two x values, no energy to draw
    assert "needs two depths or more" in html and "no power reading on pi5" in html


def test_tpot_and_itl_against_depth_draw_the_stored_values(tmp_path):
    store = Store(str(tmp_path / "db.sqlite"))
    runs = []
    for i, depth in enumerate((0, 512, 2048)):
        r = result("pi5", depth, 40.0 - 5 * i, energy=True).to_dict()
        g = r["generation"]
        g["tpot_ms"]["mean"], g["itl_ms"]["p50"], g["itl_ms"]["p99"] = 1.25 + i, 1.0 + i, 3.5 + 2 * i
        runs.append(Result.from_dict(r))
    runs.append(result("nano", 0, 12.0, energy=False))  # one depth only: no line of its own
    for r in runs:
        store.save(r)
    html = render_html(gather(store))
    drawn = [p for p in points(html, "gen-point") if p["chart"] == "latency_vs_depth"]
    assert len(drawn) == 9  # three figures at three depths, the one-depth board left out
    by_run = {r.run_id: r for r in runs}
    for p in drawn:
        g = by_run[p["run"]].generation
        assert g is not None and g.tpot_ms is not None and g.itl_ms is not None and int(p["x"]) == g.depth
        stored = {"tpot_ms": g.tpot_ms.mean, "itl_p50_ms": g.itl_ms.p50, "itl_p99_ms": g.itl_ms.p99}[p["metric"]]
        assert float(p["v"]) == stored
        assert p["series"].startswith("pi5 · ") and p["series"].endswith(
            {"tpot_ms": " · TPOT", "itl_p50_ms": " · ITL p50", "itl_p99_ms": " · ITL p99"}[p["metric"]])
    assert {p["metric"] for p in drawn} == {"tpot_ms", "itl_p50_ms", "itl_p99_ms"}
    assert "TPOT and ITL against context depth" in html and "time per output token (ms)" in html
