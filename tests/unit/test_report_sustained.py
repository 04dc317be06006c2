"""The report's sustained runs (report/curves.py, report/html_sustained.py): the ranking of boards in the first
window and at the end and its sentence, the charts per board (latency p50/p99, temperature, clock against time on
one time axis, the onset window marked), the Markdown window tables and figures; and the host's onset from NVML
readings (edgeprof/evaluation/sustained.py). The curves come from agent-shaped replies through the host's own summarize."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from edgeprof.evaluation.sustained import NVML_LIMITS, summarize
from edgeprof.records import Result
from edgeprof.report.curves import rankings
from edgeprof.report.data import ReportData
from edgeprof.report.html import render_html
from edgeprof.report.tabular import render_markdown
from edgeprof_agent.messages import SustainedReply, SustainedWindow

S = 1_000_000_000
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results" / "v7" / "ok_local_sustained.json"


def sustained_result(device: str, p50s: list[float], window_s: float = 2.0, n: int = 0,
                     **state: list[Any]) -> Result:
    """A stored sustained result of `device` whose window k runs back to back at p50s[k] ms per query, with the
    board state given per window (agent SustainedWindow fields), summarised by the host's code."""
    rows, samples, first = [], [], 0
    for k, p50 in enumerate(p50s):
        c = int(round(window_s * 1000 / p50))
        samples += [p50] * c
        extra = {name: values[k] for name, values in state.items()}
        rows.append(SustainedWindow(index=k, start_ns=int(k * window_s * S), end_ns=int((k + 1) * window_s * S),
                                    first=first, count=c, n_readings=4, **extra))
        first += c
    reply = SustainedReply(duration_s=window_s * len(p50s), window_s=window_s, read_period_s=0.5, windows=rows,
                           nvml_gpu="NVIDIA H200" if "nvml_sm_mhz" in state else None)
    section, warnings = summarize(reply, samples, 1, None)
    base = Result.from_dict(json.loads(GOLDEN.read_text()))
    return dataclasses.replace(base, run_id=f"20261202-000000-{device[:4]}{n:04d}", device=device,
                               samples_ms=samples, sustained=section, warnings=warnings)


HOT = dict(cpu_mhz=[2400.0, 2400.0, 1800.0, 1200.0, 1200.0, 1200.0], temp_c=[50.0, 58.0, 64.0, 68.0, 68.0, 68.0])
FLAT = dict(cpu_mhz=[1800.0] * 6, temp_c=[45.0] * 6)


@pytest.fixture()
def two_boards() -> list[Result]:
    """rpi5-hot: 10 ms per query until it throttles in window 2, then 20 ms; box-flat: 14 ms throughout."""
    return [sustained_result("rpi5-hot", [10.0, 10.0, 14.0, 20.0, 20.0, 20.0], **HOT),  # type: ignore[arg-type]
            sustained_result("box-flat", [14.0] * 6, n=1, **FLAT)]  # type: ignore[arg-type]


def _data(results: list[Result]) -> ReportData:
    return ReportData("t", "scope", "2026-12-02T00:00:00Z", "db", results)


def test_the_ranking_flips_and_says_so(two_boards: list[Result]) -> None:
    (rk,) = rankings(two_boards)
    hot, flat = sorted(rk.standings, key=lambda s: s.label, reverse=True)
    assert (hot.label, hot.start_rank, hot.end_rank) == ("rpi5-hot", 1, 2)
    assert (flat.label, flat.start_rank, flat.end_rank) == ("box-flat", 2, 1)
    assert hot.start_p50 == 10.0 and hot.end_p50 == 20.0 and flat.end_p50 == 14.0
    assert hot.start_qps == 100.0 and hot.end_qps == 50.0
    assert rk.changed and [s.label for s in rk.standings] == ["box-flat", "rpi5-hot"]
    assert "In the first window (0–2 s) rpi5-hot leads (p50 10.0 ms), at the end box-flat (14.0 ms)" in rk.sentence
    assert hot.result.sustained is not None and hot.result.sustained.onset_window == 2


def test_no_flip_no_change_and_three_boards_name_the_orders() -> None:
    a = sustained_result("a", [10.0] * 6, **FLAT)  # type: ignore[arg-type]
    b = sustained_result("b", [12.0] * 6, **FLAT)  # type: ignore[arg-type]
    (rk,) = rankings([b, a])
    assert not rk.changed and rk.sentence == "a leads from the first window (0–2 s) to the end. The order holds."
    c = sustained_result("c", [11.0, 11.0, 13.0, 13.0, 13.0, 13.0], **HOT)  # type: ignore[arg-type]
    (rk,) = rankings([a, b, c])  # a leads throughout; c falls behind b
    assert rk.changed and rk.sentence.startswith("a leads from the first window")
    assert "Order at the start: a > c > b; at the end: a > b > c." in rk.sentence
    assert rankings([a]) == []  # one board: nothing to rank


def _cards(html: str) -> dict[str, str]:
    sec = re.search(r'<section id="sustained">.*?</section>', html, re.S)
    assert sec is not None
    cards = re.split(r'(?=<div class="card sus-card")', sec.group(0))[1:]
    return {re.search(r'data-device="([^"]+)"', c).group(1): c for c in cards}  # type: ignore[union-attr]


def _charts(card: str) -> dict[str, str]:
    parts = re.split(r'(?=<div class="sus-chart")', card)[1:]
    return {re.search(r'data-chart="([^"]+)"', p).group(1): p for p in parts}  # type: ignore[union-attr]


def _points(chart: str, series: str) -> dict[int, float]:
    return {int(k): float(x) for k, x in re.findall(
        rf'<circle class="win" data-series="{re.escape(series)}" data-window="(\d+)" data-v="[^"]+" cx="([^"]+)"',
        chart)}


def test_the_charts_mark_the_onset_window_on_one_time_axis(two_boards: list[Result]) -> None:
    cards = _cards(render_html(_data(two_boards)))
    assert set(cards) == {"rpi5-hot", "box-flat"}
    assert 'data-onset="2"' in cards["rpi5-hot"] and 'data-onset=""' in cards["box-flat"]
    ticks = set()
    for device, card in cards.items():
        charts = _charts(card)
        assert set(charts) == {"latency", "temperature", "clock"}
        for name, chart in charts.items():
            assert 'data-t1="12"' in chart and "<svg" in chart, (device, name)
            ticks.add(tuple(re.findall(r'y="[^"]+" text-anchor="middle" class="tick">([^<]+)<', chart)))
            onsets = re.findall(r'<rect class="onset" data-window="(\d+)" x="([^"]+)" y="[^"]+" width="([^"]+)"',
                                chart)
            if device == "box-flat":
                assert onsets == []
                continue
            ((k, x, w),) = onsets
            first = "p50" if name == "latency" else ("hottest zone" if name == "temperature" else "CPU (mean of cores)")
            pts = _points(chart, first)
            assert int(k) == 2 and sorted(pts) == list(range(6))
            inside = [i for i, cx in pts.items() if float(x) <= cx <= float(x) + float(w)]
            assert inside == [2], (name, x, w, pts)
    assert len(ticks) == 1 and list(ticks)[0][:2] == ("0", "2")  # one time axis for every chart of both boards
    hot, flat = (_points(_charts(cards[d])["latency"], "p50") for d in ("rpi5-hot", "box-flat"))
    assert hot == flat  # window k of each board at the same pixel
    cy = {d: dict(re.findall(r'data-series="p50" data-window="(\d)" data-v="[^"]+" cx="[^"]+" cy="([^"]+)"',
                             _charts(cards[d])["latency"])) for d in cards}
    assert cy["rpi5-hot"]["2"] == cy["box-flat"]["0"]  # 14 ms on both: one value axis per chart for the model
    lat = _charts(cards["rpi5-hot"])["latency"]
    assert re.findall(r'data-series="p99" data-window="(\d)" data-v="([^"]+)"', lat)[3] == ("3", "20")
    assert 'data-series="p50" data-window="3" data-v="20"' in lat


def test_a_shorter_run_and_a_board_without_sensors_share_the_axis() -> None:
    long = sustained_result("long", [10.0] * 6, **FLAT)  # type: ignore[arg-type]
    short = sustained_result("short", [10.0] * 3)  # 6 s, no thermal zones or cpufreq
    cards = _cards(render_html(_data([long, short])))
    charts = _charts(cards["short"])
    assert 'data-t1="12"' in charts["latency"] and _points(charts["latency"], "p50") == {
        k: v for k, v in _points(_charts(cards["long"])["latency"], "p50").items() if k < 3}
    assert "no temperature read during the run" in charts["temperature"] and "<svg" not in charts["temperature"]
    assert "no clock read during the run" in charts["clock"]


def test_markdown_has_the_ranking_the_window_tables_and_the_figures(two_boards: list[Result]) -> None:
    md = render_markdown(_data(two_boards))
    sec = md[md.index("## Sustained runs"):]
    assert "In the first window (0–2 s) rpi5-hot leads (p50 10.0 ms), at the end box-flat (14.0 ms)" in sec
    assert "| box-flat | 2 | 14.0 | 71.5 | 1 | 14.0 | 71.5 | 1.00 |" in sec
    assert "| rpi5-hot | 1 | 10.0 | 100 | 2 | 20.0 | 50.0 | 0.50 |" in sec
    hot = sec[sec.index("### ds_cnn · rpi5-hot"):sec.index("### ds_cnn · box-flat")]
    assert "6 windows of 2 s over 12 s." in hot
    assert "- throttling onset: window 2 (from 4 s) at 64.0 °C: CPU clock 1800 MHz, 25 % below window 0" in hot
    assert "- sustained ratio (last 2 windows ÷ window 0): throughput 0.50 · p50 2.00" in hot
    assert "- steady state from window 3 (6 s): 50.0 q/s · p50 20.0 ms" in hot
    rows = [line for line in hot.splitlines() if re.match(r"\| \d", line)]
    assert len(rows) == 6 and rows[2].startswith("| 2 (onset) | 4 | 143 | 71.5 | 14.0 | 14.0 | - | 64.0 | 1800 |")
    assert "GPU MHz" not in hot  # no GPU here


def test_nvml_throttle_gives_the_onset_and_the_gpu_columns() -> None:
    """A discrete GPU whose SM clock holds but whose SwThermalSlowdown rises in window 3: an NVML onset, at the
    GPU's temperature; GpuIdle alone (window 1) is no throttle."""
    r = sustained_result("h200", [5.0] * 6, nvml_sm_mhz=[1980.0] * 6, nvml_temp_c=[60.0, 70.0, 80.0, 86.0, 86.0, 86.0],
                         nvml_reasons=[0, 0x1, 0, 0x20, 0x20, 0x20], nvml_w=[650.0] * 6, n_nvml=[4] * 6,
                         temp_c=[40.0] * 6)  # type: ignore[arg-type]
    s = r.sustained
    assert s is not None and s.nvml_gpu == "NVIDIA H200" and NVML_LIMITS & 0x1 == 0
    assert s.onset_window == 3 and s.onset_temp_c == 86.0 and "NVML clock event reasons 0x20" in (s.onset_reason or "")
    r2 = sustained_result("h200", [5.0] * 6, nvml_sm_mhz=[1980.0, 1980.0, 1800.0, 1410.0, 1410.0, 1410.0])
    assert r2.sustained is not None and r2.sustained.onset_window == 2  # the SM clock 9 % below window 0's
    assert "GPU SM clock 1800 MHz (NVML), 9 % below window 0" in (r2.sustained.onset_reason or "")
    md = render_markdown(_data([r]))
    assert "GPU: NVIDIA H200 (NVML)" in md and "| GPU MHz | GPU °C | GPU W |" in md and "NVML 0x20" in md
    clock = _charts(_cards(render_html(_data([r])))["h200"])["clock"]
    assert _points(clock, "GPU") and not _points(clock, "CPU (mean of cores)")


def test_a_phone_refuses_the_sustained_scenario_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Phones cannot run a sustained scenario yet (so no thermal status per window): deploy says so in one line,
    before connecting."""
    from edgeprof.cli.main import main

    inv = tmp_path / "devices.yaml"
    inv.write_text("version: 1\ndevices:\n  pixel:\n    transport: adb\n    serial: 'emulator-5554'\n")
    assert main(["deploy", "--device", "pixel", "--inventory", str(inv), "--model", "ds_cnn", "--scenario",
                 "sustained", "--duration", "300", "--window", "30", "--no-store"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "edgeprof: error: device pixel: --scenario sustained is not supported on phones yet"
