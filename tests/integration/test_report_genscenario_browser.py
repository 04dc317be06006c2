"""The report's generation scenarios (server verdicts, sustained windows: report/html_genscenario.py) in headless
Chromium: the page from `edgeprof report` over stored results (tests/genscenario_samples.py) renders, its script
runs to the end, nothing is logged as an error, and the rendered DOM has the server rows, every window point, and
the throttling onset band and steady-state shade on each chart of the sustained cards.
A screenshot is taken (kept at $EDGEPROF_KEEP_SCREENSHOT when set). Skipped, saying why, only without Chromium."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import genscenario_samples as samples
import pytest
from browser import chromium, console_errors, rendered_dom
from test_report_browser import png_size

from edgeprof.cli.main import main
from edgeprof.generative.scenario import sustained_curve
from edgeprof.report.html_genscenario import CHARTS
from edgeprof.store import Store

pytestmark = pytest.mark.slow


def test_generation_scenarios_render_in_chromium_without_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")
    runs = samples.populate(Store(db))
    page = tmp_path / "report.html"
    assert main(["report", "--db", db, "--out", str(page)]) == 0
    dom = rendered_dom(tmp_path, page)
    assert len(re.findall(r'<tr class="gen-server-row"', dom)) == 3
    points = re.findall(r'<circle class="gen-window"', dom)
    want = sum(v is not None for r in runs if r.generation and r.generation.scenario
               for w in r.generation.scenario.windows for v in (w.decode_tps, w.temp_c, w.cpu_mhz, w.gpu_mhz, w.mean_w))
    assert len(points) == want > 0
    # the onset band and the steady shade on every chart of a sustained card (generative/scenario.py
    # sustained_curve): pi5's clock halves at window 1, steady from window 2; orin-nano never throttles (only its
    # GPU devfreq clock falls, which the onset rule does not read), steady from window 1
    curves = {r.run_id: sustained_curve(r.generation.scenario) for r in runs
              if r.generation and r.generation.scenario and r.generation.scenario.name == "sustained"}
    shapes = {rid: cv.shape for rid, cv in curves.items() if cv is not None and cv.shape is not None}
    assert {rid: (sh.onset.index if sh.onset else None, sh.steady_window) for rid, sh in shapes.items()} == {
        "20260101-000000-sus-pi5": (1, 2), "20260101-000000-sus-orin": (None, 1)}
    bands = re.findall(r'<rect class="onset" data-window="(\d+)"', dom)
    assert bands == ["1"] * len(CHARTS)  # pi5's four charts
    assert sorted(re.findall(r'<rect class="steady" data-window="(\d+)"', dom)) == ["1"] * 4 + ["2"] * 4
    assert re.search(r'data-run="20260101-000000-sus-pi5" data-onset="1" data-steady="2"', dom)

    shot = tmp_path / "report.png"
    run = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,6000", page.as_uri())
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    assert not console_errors(run.stderr), console_errors(run.stderr)
    assert png_size(shot) == (1400, 6000)
    keep = os.environ.get("EDGEPROF_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
