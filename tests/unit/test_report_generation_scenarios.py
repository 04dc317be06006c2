"""The HTML report's view of a generation's scenarios (report/html_genscenario.py), from stored results
(tests/genscenario_samples.py: records only, no runtime): the server table's rows are the stored section's
values with VALID / INVALID, a run without bounds says why it has no verdict; each sustained run's windows are
drawn as decode tokens/s, °C and MHz per window, every point its window's stored figure, a window without a
decode step left out of the decode chart (never drawn as zero)."""

from __future__ import annotations

import html as htmllib
import re

import genscenario_samples as samples
import pytest

from edgeprof.generative.table import verdict_word
from edgeprof.report.data import gather
from edgeprof.report.html import render_html
from edgeprof.store import Store


def attrs(tag: str) -> dict[str, str]:
    return {k: htmllib.unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', tag)}


@pytest.fixture()
def page(tmp_path):
    store = Store(str(tmp_path / "db.sqlite"))
    stored = {r.run_id: r for r in samples.populate(store)}
    again = {rid: store.get(rid) for rid in stored}  # the values the report reads are the stored ones
    return render_html(gather(store)), again


def test_the_server_table_rows_are_the_stored_values(page):
    html, stored = page
    rows = re.findall(r'(<tr class="gen-server-row"[^>]*>)(.*?)</tr>', html, re.S)
    assert len(rows) == 3
    seen = {}
    for tag, cells in rows:
        a = attrs(tag)
        sc = stored[a["run"]].generation.scenario
        values = re.findall(r'<td data-v="([^"]*)"', cells)  # rate, requests, p99 TTFT, p99 TPOT
        assert [float(v) for v in values] == pytest.approx([sc.rate_rps, sc.requests, sc.ttft_p99_ms,
                                                            sc.tpot_p99_ms], rel=1e-5)
        assert a["verdict"] == ("none" if sc.valid is None else verdict_word(sc.valid))
        seen[a["verdict"]] = (sc, htmllib.unescape(re.sub(r"<[^>]+>", "", cells)))
    assert set(seen) == {"VALID", "INVALID", "none"}
    sc, text = seen["VALID"]
    assert "TTFT ≤ 2000 ms · TPOT ≤ 100 ms" in text  # the bounds as given
    assert sc.valid_reason in text  # the judged p99s against their bounds, as stored
    sc, text = seen["INVALID"]
    assert "INVALID" in text and "> --ttft-bound 50 ms" in text
    sc, text = seen["none"]
    assert sc.valid is None and "no verdict: give --ttft-bound and --tpot-bound" in text  # says why
    assert "VALID" not in text and "none" in text  # the bounds cell: none given


def test_each_sustained_window_point_is_its_stored_figure(page):
    html, stored = page
    cards = re.findall(r'(<div class="card sus-card gen-sus-card"[^>]*>)(.*?)(?=<div class="card sus-card|</div></div><(?:h[34]|/section))',
                       html, re.S)
    assert {attrs(tag)["run"] for tag, _ in cards} == {"20260101-000000-sus-pi5", "20260101-000000-sus-orin"}
    getters = {"decode tokens/s": lambda w: w.decode_tps, "hottest zone": lambda w: w.temp_c,
               "CPU (mean of cores)": lambda w: w.cpu_mhz, "GPU": lambda w: w.gpu_mhz, "mean W": lambda w: w.mean_w}
    for tag, body in cards:
        run = attrs(tag)["run"]
        windows = stored[run].generation.scenario.windows
        points = [attrs(p) for p in re.findall(r'<circle class="gen-window"[^>]*>', body)]
        assert points and all(p["run"] == run for p in points)
        for series, get in getters.items():
            mine = {int(p["window"]): float(p["v"]) for p in points if p["series"] == series}
            want = {w.index: get(w) for w in windows if get(w) is not None}
            assert mine == pytest.approx(want, rel=1e-5), (run, series)
    pi5 = next(body for tag, body in cards if "sus-pi5" in tag)
    decode = [attrs(p) for p in re.findall(r'<circle class="gen-window"[^>]*data-series="decode tokens/s"[^>]*>', pi5)]
    assert [p["window"] for p in decode] == ["0", "1", "2"]  # window 3 had no decode step: not drawn as 0
    assert "GPU" not in re.findall(r'data-series="([^"]*)"', pi5)  # no GPU clock read: no GPU line
    # the four charts, on the time axis of the run
    assert re.findall(r'<div class="sus-chart" data-chart="(gen_[a-z_]+)" data-t1="4"', pi5) == [
        "gen_decode_tps", "gen_temperature", "gen_clock", "gen_power"]


def test_decode_points_fall_with_the_clock(page):
    """Placement follows value: the throttled windows' decode points sit lower on the chart (a larger y)."""
    html, _ = page
    card = html[html.index('data-run="20260101-000000-sus-pi5"'):]
    chart = card[card.index('data-chart="gen_decode_tps"'):card.index('data-chart="gen_temperature"')]
    ys = [float(y) for y in re.findall(r'<circle class="gen-window"[^>]*cy="([^"]*)"', chart)]
    assert ys[0] < ys[1] and ys[0] < ys[2]  # 813 tokens/s above 414 and 430


def test_the_bench_table_names_each_row_s_scenario(page):
    html, stored = page
    table = html[html.index('<table class="sortable gen-bench">'):]
    table = table[:table.index("</table>")]
    assert "<th class=\"l\">scenario</th>" in table
    labels = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'<td class="l">([^<]*)</td><td data-v', table)]
    want = [r.scenario.label for r in stored.values() for _ in range(2)]  # a pp row and a tg row each
    assert sorted(labels) == sorted(want) and "server 0.5/s" in labels and "sustained" in labels


def test_no_scenario_no_scenario_markup(tmp_path):
    store = Store(str(tmp_path / "db.sqlite"))
    store.save(samples._base("pi5", "20260101-000000-plain"))
    html = render_html(gather(store))
    assert "gen-server-row" not in html and "gen-sus-card" not in html and "Generation under load" not in html
    assert "<th class=\"l\">scenario</th>" not in html  # single-stream only: no scenario column
