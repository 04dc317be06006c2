"""The real headless browser the report tests render pages in (Chromium): starting it, the console's error lines,
and a page rendered and checked to have run its script to the end with nothing logged as an error. Skipped, saying
why, only when Chromium is not installed (Debian: apt-get install chromium chromium-driver;
scripts/install-system-deps.sh does it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
ERROR_LINE = re.compile(r"CONSOLE.*(Uncaught|Error|error)|:ERROR:CONSOLE|Failed to load resource")


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium chromium-driver): the report was not "
                    "rendered in a browser")
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HOME": str(tmp)})


def console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ERROR_LINE.search(line)]


def rendered_dom(tmp: Path, page: Path) -> str:
    """`page` rendered by Chromium: its DOM, after asserting that the page's script ran to the end (data-ready),
    flagged no error of its own (data-errors) and that the console logged none."""
    dom = chromium(tmp, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None and 'data-ready="1"' in body.group(0), "the page's script did not run to the end"
    assert "data-errors" not in body.group(0), body.group(0)
    assert not console_errors(dom.stderr), console_errors(dom.stderr)
    return dom.stdout
