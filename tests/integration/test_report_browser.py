"""The HTML report in a real browser (headless Chromium): it renders, a screenshot is taken, the page's script
runs to the end and nothing is logged as an error. Skipped, saying why, only when Chromium is not installed
(Debian: apt-get install chromium chromium-driver; scripts/install-system-deps.sh does it)."""

from __future__ import annotations

import os
import re
import shutil
import struct
from pathlib import Path

import pytest
import report_samples
from browser import chromium, console_errors  # noqa: F401 (other report tests import them from here)

from edgeprof.cli.main import main
from edgeprof.store import Store

pytestmark = pytest.mark.slow

def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", head[16:24])
    return int(w), int(h)


def test_report_renders_in_chromium_without_errors(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "db.sqlite"))
    report_samples.populate(store)
    page = tmp_path / "report.html"
    assert main(["report", "--db", str(tmp_path / "db.sqlite"), "--out", str(page)]) == 0
    url = page.as_uri()

    dom = chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None and 'data-ready="1"' in body.group(0), "the page's script did not run to the end"
    assert "data-errors" not in body.group(0), body.group(0)
    assert not console_errors(dom.stderr), console_errors(dom.stderr)
    assert dom.stdout.count("<svg") >= 15 and "Board comparison" in dom.stdout
    assert dom.stdout.count('class="acc-row"') == 2 and '<td data-v="-1.2" class="worse">-1.2</td>' in dom.stdout

    shot = tmp_path / "report.png"
    run = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,5200", url)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    assert not console_errors(run.stderr), console_errors(run.stderr)
    assert png_size(shot) == (1400, 5200)
    assert shot.stat().st_size > 100_000  # a page of charts, not a blank one
    keep = os.environ.get("EDGEPROF_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


def test_the_error_check_itself_catches_a_broken_page(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text("<!doctype html><html><head><link rel=icon href='data:,'><script>"
                   "window.addEventListener('error',function(e){document.body.setAttribute('data-errors',e.message);});"
                   "</script></head><body><script>notDefined();</script></body></html>")
    dom = chromium(tmp_path, "--dump-dom", bad.as_uri())
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None and "data-errors" in body.group(0)
    assert console_errors(dom.stderr), dom.stderr[-2000:]
