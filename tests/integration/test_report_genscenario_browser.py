"""The report's generation scenarios (server verdicts, sustained windows: report/html_genscenario.py) in headless
Chromium: the page from `edgeprof report` over stored results (tests/genscenario_samples.py) renders, its script
runs to the end, nothing is logged as an error, and the rendered DOM has the server rows and every window point.
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

    shot = tmp_path / "report.png"
    run = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,6000", page.as_uri())
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    assert not console_errors(run.stderr), console_errors(run.stderr)
    assert png_size(shot) == (1400, 6000)
    keep = os.environ.get("EDGEPROF_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
