"""The throttling onset and steady state of a sustained generation (generative/scenario.py sustained_curve: the
forward pass's rules and code, evaluation/sustained.py shape, with decode tokens/s as the throughput), from stored
results (tests/genscenario_samples.py, saved and read back): a board whose CPU clock falls more than 5 % below
window 0's at a known window k has its onset at k, one whose clock drifts only 4 % has none, and the steady state
is where the rule puts it (or not reached); a forward-pass run with the same windows gets the same answer. The
words reach `results show` and the Markdown report, and the HTML cards mark the onset band and the steady shade
on every chart; a run with too few windows says so and marks nothing."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import genscenario_samples as samples
import pytest

from edgeprof.cli.main import main
from edgeprof.evaluation.sustained import Shape, curve, window_rows
from edgeprof.generative.scenario import sustained_curve
from edgeprof.records import Result
from edgeprof.report.data import gather
from edgeprof.report.html import render_html
from edgeprof.report.tabular import render_markdown
from edgeprof.store import Store
from edgeprof_agent.messages import SustainedReply, SustainedWindow

N = 9  # 1 s windows: last N = max(1, min(5, 9 // 3)) = 3


def clocked(k: int | None) -> list[tuple[float | None, float, float, float | None]]:
    """A board whose mean CPU clock is 2400 MHz in window 0, drifts to 2300 (4.2 % below: within the 5 %) and
    falls to 2000 (16.7 % below) from window k (None: never); decode tokens/s follows the clock (clock / 3) and
    the hottest zone warms 5 °C a window from 60 °C until it holds at 80 °C (window 4 on)."""
    rows: list[tuple[float | None, float, float, float | None]] = []
    for i in range(N):
        cpu = 2400.0 if i == 0 else 2000.0 if k is not None and i >= k else 2300.0
        rows.append((float(int(cpu / 3)), min(60.0 + 5 * i, 80.0), cpu, None))
    return rows


def stored(tmp_path: Path, *runs: Result) -> Store:
    store = Store(str(tmp_path / "db.sqlite"))
    for r in runs:
        store.save(r)
    return store


def shape_of(store: Store, run_id: str) -> Shape:
    r = store.get(run_id)  # the stored windows, read back
    assert r.generation is not None and r.generation.scenario is not None
    cv = sustained_curve(r.generation.scenario)
    assert cv is not None and cv.shape is not None, cv
    return cv.shape


# (k, onset, steady): the tail (windows 6-8) holds at 80 °C and 666 tokens/s after an early fall, so the steady
# state reaches back to window 4, where the zone reached 80 °C (window 3's 75 °C is more than 1 °C off); after a
# fall at 6 the tail starts at the fall (window 5's 766 tokens/s is 15 % off); a fall in the last window leaves
# the tail disagreeing (766, 766, 666: 9 % off their mean): no steady state; no fall: steady from window 4
CASES = [(2, 2, 4), (6, 6, 6), (8, 8, None), (None, None, 4)]


@pytest.mark.parametrize(("k", "onset", "steady"), CASES)
def test_onset_at_the_clock_fall_and_the_steady_state_by_the_rule(tmp_path, k, onset, steady):
    store = stored(tmp_path, samples.sustained_result("pi5", "20260101-000000-sus", clocked(k)))
    sh = shape_of(store, "20260101-000000-sus")
    assert (sh.onset.index if sh.onset else None) == onset
    assert sh.steady_window == steady
    assert sh.last_n == 3 and [p.index for p in sh.tail] == [6, 7, 8]
    w = clocked(k)
    assert sh.ratio == pytest.approx(sum(x[0] for x in w[-3:]) / 3 / 800.0)  # last 3 windows' tokens/s ÷ window 0's
    if onset is not None:
        assert sh.onset_reason == "CPU clock 2000 MHz, 17 % below window 0"
        assert sh.onset_temp_c == w[onset][1] and sh.onset is not None and sh.onset.start_s == float(onset)
    else:
        assert sh.onset_reason is None and sh.onset_temp_c is None
    if steady is None:
        assert sh.time_to_steady_s is None and sh.steady_mean("throughput") is None
    else:
        tail = w[steady:]
        assert sh.time_to_steady_s == float(steady)
        assert sh.steady_mean("throughput") == pytest.approx(sum(x[0] for x in tail) / len(tail))
        assert sh.steady_mean("temp_c") == pytest.approx(80.0)
        assert sh.steady_mean("mean_w") == pytest.approx(sum(6.5 - i * 0.25 for i in range(steady, N)) / (N - steady))


def _forward_pass(rows: list[tuple[float | None, float, float, float | None]]):
    """The same windows as a forward-pass sustained run: tokens/s as queries in 1 s windows (1000 / tokens/s ms
    each), the same °C and clocks; its stored section as evaluation/sustained.py computes it."""
    counts = [int(r[0] or 0) for r in rows]
    ws, first = [], 0
    for i, (c, r) in enumerate(zip(counts, rows, strict=True)):
        ws.append(SustainedWindow(index=i, start_ns=i * 10**9, end_ns=(i + 1) * 10**9, first=first, count=c,
                                  temp_c=r[1], cpu_mhz=r[2]))
        first += c
    reply = SustainedReply(duration_s=float(len(rows)), window_s=1.0, read_period_s=0.25, windows=ws)
    ms = [1000.0 / c for c in counts for _ in range(c)]
    return curve(reply, window_rows(reply, ms, 1, None), ms)


@pytest.mark.parametrize(("k", "onset", "steady"), CASES)
def test_a_forward_pass_with_the_same_windows_gets_the_same_answer(tmp_path, k, onset, steady):
    store = stored(tmp_path, samples.sustained_result("pi5", "20260101-000000-sus", clocked(k)))
    sh = shape_of(store, "20260101-000000-sus")
    fp = _forward_pass(clocked(k))
    assert (fp.onset_window, fp.onset_reason, fp.onset_temp_c) == (onset, sh.onset_reason, sh.onset_temp_c)
    assert (fp.steady_window, fp.time_to_steady_s) == (steady, sh.time_to_steady_s)
    assert fp.sustained_ratio == pytest.approx(sh.ratio, abs=1e-4) and fp.last_n == sh.last_n


def test_new_throttle_bits_and_an_nvml_clock_fall_are_onsets_too(tmp_path):
    flat = [(800.0, 60.0, 2400.0, None)] * 6
    bits = samples.sustained_result("pi5", "20260101-000000-bits", flat,
                                    readings=[{"throttled": 0x8}] * 3 + [{"throttled": 0xc}] * 3)
    nvml = [{"board": {"nvml_sm_mhz": 1980.0, "nvml_temp_c": 55.0 + i, "nvml_reasons": 0}} for i in range(3)]
    nvml += [{"board": {"nvml_sm_mhz": 1800.0, "nvml_temp_c": 58.5, "nvml_reasons": 0x20}}] * 3
    gpu = samples.sustained_result("orin-nano", "20260101-000000-nvml", flat, readings=nvml)
    store = stored(tmp_path, bits, gpu)
    sh = shape_of(store, "20260101-000000-bits")
    assert sh.onset is not None and sh.onset.index == 3  # bit 2 is new; bit 3 was there in window 0
    assert sh.onset_reason == "throttle bits 0xc (window 0: 0x8)"
    sh = shape_of(store, "20260101-000000-nvml")
    assert sh.onset is not None and sh.onset.index == 3
    assert sh.onset_reason == "GPU SM clock 1800 MHz (NVML), 9 % below window 0"
    assert sh.onset_temp_c == 58.5  # an NVML onset: the GPU's temperature
    assert sh.steady_window == 0  # the throughput and the hottest zone never moved


def test_too_few_windows_with_a_decode_step_say_so_and_mark_nothing(tmp_path):
    # the clock halves at window 1, but only windows 0 and 1 hold a decode step: no curve from two windows
    rows: list[tuple[float | None, float, float, float | None]] = [
        (800.0, 60.0, 2400.0, None), (400.0, 70.0, 1200.0, None), (None, 71.0, 1200.0, None),
        (None, 72.0, 1200.0, None)]
    store = stored(tmp_path, samples.sustained_result("pi5", "20260101-000000-few", rows))
    r = store.get("20260101-000000-few")
    assert r.generation is not None and r.generation.scenario is not None
    cv = sustained_curve(r.generation.scenario)
    assert cv is not None and cv.shape is None and cv.counted == 2
    want = "2 of 4 windows hold a decode step, fewer than the 3 windows a curve needs"
    assert cv.reason is not None and want in cv.reason
    page = render_html(gather(store))
    assert 'class="onset"' not in page and 'class="steady"' not in page
    assert want in htmllib.unescape(page) and 'data-onset=""' in page
    assert want in render_markdown(gather(store))


def test_a_server_run_has_no_curve():
    r = samples.server_result("pi5", "20260101-000000-srv", rate=1.0, requests=10, seed=1)
    assert r.generation is not None and r.generation.scenario is not None
    assert sustained_curve(r.generation.scenario) is None


def test_results_show_and_the_markdown_report_say_the_onset_and_the_steady_state(tmp_path, capsys):
    store = stored(tmp_path, samples.sustained_result("pi5", "20260101-000000-k2", clocked(2)),
                   samples.sustained_result("pi4", "20260101-000000-k8", clocked(8)))  # a report shows each
    # configuration's newest result: two boards
    onset = "throttling onset: window 2 (from 2 s) at 70.0 °C: CPU clock 2000 MHz, 17 % below window 0"
    steady = "steady state from window 4 (4 s): 666 decode tokens/s · 80.0 °C · 2000 MHz · 5.00 W"
    assert main(["results", "show", "20260101-000000-k2", "--db", str(tmp_path / "db.sqlite")]) == 0
    out = capsys.readouterr().out
    assert onset in out and steady in out and "decode tokens/s 0.83" in out
    assert re.search(r"^\s+2 \(onset\)\s", out, re.M)  # the window table marks the onset row, as the Markdown's does
    md = render_markdown(gather(store))
    assert onset in md and steady in md
    assert "throttling onset: window 8 (from 8 s)" in md and "steady state: not reached before the run ended" in md


def _cards(page: str) -> dict[str, str]:
    parts = page.split('<div class="card sus-card gen-sus-card"')[1:]
    return {re.search(r'data-run="([^"]*)"', p)[1]: p for p in parts}  # type: ignore[index]


def test_the_cards_mark_the_onset_band_and_the_steady_shade_on_every_chart(tmp_path):
    store = stored(tmp_path, samples.sustained_result("pi5", "20260101-000000-k2", clocked(2)),
                   samples.sustained_result("pi4", "20260101-000000-none", clocked(None)))
    cards = _cards(render_html(gather(store)))
    k2, flat = cards["20260101-000000-k2"], cards["20260101-000000-none"]
    assert re.search(r'data-onset="2" data-steady="4"', k2) and re.search(r'data-onset="" data-steady="4"', flat)
    charts = re.split(r'<div class="sus-chart" data-chart=', k2)[1:]
    assert [c.split('"')[1] for c in charts] == ["gen_decode_tps", "gen_temperature", "gen_clock", "gen_power"]
    for chart in charts:  # each of the four: one red band over window 2, one green shade from window 4
        bands = re.findall(r'<rect class="onset" data-window="(\d+)" x="([\d.]+)" y="[^"]*" width="([\d.]+)"'
                           r'[^>]*fill="#c62828"[^>]*><title>([^<]*)</title>', chart)
        assert len(bands) == 1 and bands[0][0] == "2"
        x0, width = float(bands[0][1]), float(bands[0][2])
        cx = [float(x) for x in re.findall(r'<circle class="gen-window"[^>]*data-window="2"[^>]*cx="([\d.]+)"', chart)]
        assert cx and all(x0 < x < x0 + width for x in cx)  # window 2's points lie inside its band
        assert htmllib.unescape(bands[0][3]) == ("throttling onset: window 2 (from 2 s) at 70.0 °C: CPU clock "
                                                  "2000 MHz, 17 % below window 0")
        shades = re.findall(r'<rect class="steady" data-window="(\d+)" x="([\d.]+)"[^>]*fill="#1b7f3b"', chart)
        assert [s[0] for s in shades] == ["4"]
        cx4 = [float(x) for x in re.findall(r'<circle class="gen-window"[^>]*data-window="4"[^>]*cx="([\d.]+)"', chart)]
        assert cx4 and all(float(shades[0][1]) < x for x in cx4) and x0 < float(shades[0][1])
    assert '<rect class="onset"' not in flat and flat.count('<rect class="steady" data-window="4"') == 4
    words = htmllib.unescape(k2[:k2.index('<div class="sus-chart"')])
    assert "throttling onset: window 2 (from 2 s)" in words and "steady state from window 4 (4 s)" in words
