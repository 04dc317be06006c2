"""The slow lane's sustained run and the report drawn from it. Two boards run the agent's sustained loop side by side
for 1 minute in 5 s windows (edgeprof_agent.windows.sustained_loop, its telemetry thread reading each tree):

- rpi5-hot, a Pi 5 tree that heats up (tests/agent/fakes/heating.py, scaled to 1 minute): 50 → 68 °C at
  0.6 °C/s (the plateau from 30 s), its clock stepping 2.4 → 1.2 GHz at 22.5 s; a query takes 10 ms × 2.4 GHz / the
  clock it reads. So: onset in window 4 ([20, 25) s), the last windows at half the first's rate (sustained ratio
  0.5, p50 ratio 2), steady from window 6 (30 s: clock and temperature settled; a window later when a busy
  machine stalls one).
- box-flat, a Pi 5 tree that stays at 45 °C and 1.8 GHz: 13.3 ms a query, flat.

At second 0 rpi5-hot leads (10 ms against 13.3), at the end box-flat (13.3 against 20): the stored results
(SQLite) give an `edgeprof report` whose ranking says so, whose charts mark the onset at window 4 on one time axis
for both boards, rendered in headless Chromium (the pattern of test_report_browser.py), and whose Markdown holds the
window tables."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import chromium, console_errors, png_size

from edgeprof.analysis.stats import latency_summary
from edgeprof.cli.main import main
from edgeprof.evaluation.sustained import summarize
from edgeprof.records import Result
from edgeprof.store import Store
from edgeprof_agent import windows
from edgeprof_agent.messages import ScenarioSpec
from edgeprof_agent.sysfs import SysfsRoot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent" / "fakes"))
from heating import HeatingBoard  # noqa: E402

# alone: a minute of 10 ms queries on the real clock, whose steady window a parallel suite's other workers push a
# window later by stalling the loop (make test runs it after the parallel suite)
pytestmark = [pytest.mark.slow, pytest.mark.alone]

DURATION_S, WINDOW_S = 60.0, 5.0
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results" / "v7" / "ok_local_sustained.json"


def _run_on(board: HeatingBoard, out: dict[str, Any], name: str) -> None:
    freq = board.freqs[0]

    def query() -> None:
        time.sleep(0.010 * 2400000 / int(freq.read_text()))

    sc = ScenarioSpec(name="sustained", duration_s=DURATION_S, sustained_window_s=WINDOW_S)
    out[name] = windows.sustained_loop(query, sc, SysfsRoot(str(board.dir)), None, progress=False)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    d = tmp_path_factory.mktemp("sustained-report")
    boards = {"rpi5-hot": HeatingBoard(d / "hot", trip_s=22.5, rise_c_per_s=0.6, tick_s=0.2),
              "box-flat": HeatingBoard(d / "flat", t0_c=45.0, rise_c_per_s=0.0, high_khz=1800000, low_khz=1800000,
                                       trip_s=1e9, tick_s=0.2)}
    runs: dict[str, Any] = {}
    threads = [threading.Thread(target=_run_on, args=(b, runs, name)) for name, b in boards.items()]
    for b in boards.values():
        b.start()
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(DURATION_S + 60)
    finally:
        for b in boards.values():
            b.stop()
    base = Result.from_dict(json.loads(GOLDEN.read_text()))
    out = {}
    for k, (name, (sched, reply)) in enumerate(sorted(runs.items())):
        samples = [ns / 1e6 for ns in sched.latencies]
        section, warnings = summarize(reply, samples, 1, None)
        out[name] = dataclasses.replace(
            base, run_id=f"20261202-010000-sus{k:03d}", device=name, samples_ms=samples,
            latency_ms=latency_summary(samples), throughput_ips=len(samples) / DURATION_S, sustained=section,
            warnings=warnings, scenario=dataclasses.replace(base.scenario, rate_qps=None))
    return out


def test_a_minute_on_the_heating_board_find_the_onset_ratio_and_steady_state(results: dict[str, Result]) -> None:
    hot = results["rpi5-hot"].sustained
    assert hot is not None and len(hot.windows) == 12
    rows = hot.windows
    assert all(w.n_readings >= 4 for w in rows) and hot.read_period_s == 1.0  # min(1 s, window / 4)
    assert [w.cpu_mhz for w in rows[:4]] == [2400.0] * 4 and [w.cpu_mhz for w in rows[5:]] == [1200.0] * 7
    assert 1200.0 < (rows[4].cpu_mhz or 0) < 2400.0  # the step at 22.5 s, inside window 4
    assert hot.onset_window == 4 and hot.onset_s == 20.0 and "CPU clock" in (hot.onset_reason or "")
    assert hot.onset_temp_c == rows[4].temp_c and 62.0 <= (hot.onset_temp_c or 0) <= 65.5
    assert hot.sustained_ratio == pytest.approx(0.5, abs=0.05) and hot.p50_ratio == pytest.approx(2.0, abs=0.2)
    # steady from window 6 (30 s) by construction; a window that a busy machine stalled for a quarter of a second
    # falls outside the 5 % band and starts the steady tail a window later (seen once on the shared 2-core VM: 7)
    qps = [w.qps for w in rows]
    assert hot.last_n == 4 and hot.steady_window in (6, 7), qps
    assert hot.time_to_steady_s == WINDOW_S * hot.steady_window
    assert hot.steady_temp_c == pytest.approx(68.0, abs=0.3) and hot.steady_cpu_mhz == 1200.0
    assert hot.steady_p50_ms == pytest.approx(20.0, abs=2.0)
    assert "sustained_not_steady" not in [w.code for w in results["rpi5-hot"].warnings]
    flat = results["box-flat"].sustained
    assert flat is not None and flat.onset_window is None and flat.sustained_ratio == pytest.approx(1.0, abs=0.05)
    assert flat.steady_window is not None and flat.steady_window <= 3, [w.qps for w in flat.windows]


@pytest.fixture(scope="module")
def report(results: dict[str, Result], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("sustained-report-out")
    db = str(d / "db.sqlite")
    store = Store(db)
    for r in results.values():
        store.save(r)
    html, md = d / "report.html", d / "report.md"
    assert main(["report", "--db", db, "--out", str(html)]) == 0
    assert main(["report", "--db", db, "--out", str(md)]) == 0
    return html, md


def _card(dom: str, device: str) -> str:
    i = dom.index(f'<div class="card sus-card" data-device="{device}"')
    j = dom.find('<div class="card sus-card"', i + 1)
    return dom[i:j if j > 0 else dom.index("</section>", i)]


def test_the_report_ranks_the_boards_and_marks_the_onset_in_chromium(report: tuple[Path, Path],
                                                                     tmp_path: Path) -> None:
    html, _md = report
    dom = chromium(tmp_path, "--dump-dom", html.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None and 'data-ready="1"' in body.group(0) and "data-errors" not in body.group(0)
    assert not console_errors(dom.stderr), console_errors(dom.stderr)
    page = dom.stdout
    assert '<p class="rank-change" data-changed="1">In the first window (0–5 s) rpi5-hot leads' in page
    assert "at the end box-flat" in page
    ranks = dict((dev, (int(a), int(b))) for dev, a, b in re.findall(
        r'<tr class="sus-rank-row" data-device="([^"]+)" data-start-rank="(\d)" data-end-rank="(\d)"', page))
    assert ranks == {"rpi5-hot": (1, 2), "box-flat": (2, 1)}
    hot, flat = _card(page, "rpi5-hot"), _card(page, "box-flat")
    assert 'data-onset="4"' in hot and 'data-onset=""' in flat
    axes = set()
    for card in (hot, flat):
        charts = re.findall(r'<div class="sus-chart" data-chart="(\w+)" data-t1="60">', card)
        assert charts == ["latency", "temperature", "clock"]
        xticks = re.findall(r'text-anchor="middle" class="tick">(\d+)</text>', card)
        assert xticks == ["0", "10", "20", "30", "40", "50", "60"] * 3
        axes.add(tuple(re.findall(r'text-anchor="end" class="tick">([\d.]+)</text>', card)))
    assert len(axes) == 1  # the time ticks of every chart and the value ticks of each kind: the same on both
    for chart in re.split(r'(?=<div class="sus-chart")', hot)[1:]:
        (x, w), = [(float(a), float(b)) for a, b in re.findall(
            r'<rect class="onset" data-window="4" x="([^"]+)" y="[^"]+" width="([^"]+)"', chart)]
        cx = {int(k): float(v) for k, v in re.findall(r'data-window="(\d+)" data-v="[^"]+" cx="([^"]+)"', chart)}
        assert [k for k, v in cx.items() if x <= v <= x + w] == [4]
    shot = tmp_path / "sustained.png"
    run = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,4000", html.as_uri())
    assert run.returncode == 0 and png_size(shot) == (1400, 4000) and not console_errors(run.stderr)


def test_the_markdown_report_has_the_ranking_and_the_window_tables(report: tuple[Path, Path]) -> None:
    text = report[1].read_text()
    sec = text[text.index("## Sustained runs"):]
    assert "In the first window (0–5 s) rpi5-hot leads" in sec and "at the end box-flat" in sec
    assert re.search(r"\| rpi5-hot \| 1 \| \d+\.\d+ \| \d+\.?\d* \| 2 \| 2\d\.\d \|", sec)
    hot = sec[sec.index("· rpi5-hot ·"):]
    assert "- throttling onset: window 4 (from 20 s) at " in hot and "- steady state from window 6 (30 s)" in hot
    rows = re.findall(r"^\| (\d+)( \(onset\))? \| (\d+) \|", hot, re.M)[:12]
    assert [(int(k), bool(o), int(t)) for k, o, t in rows] == [(k, k == 4, 5 * k) for k in range(12)]
