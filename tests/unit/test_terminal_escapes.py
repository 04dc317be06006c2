"""Issue 35 item 4: names, paths and a device's words reach the terminal shown visibly (`\\x1b`), never raw and
never read as rich markup: deploy's progress (on a terminal's status line and as plain lines), the CLI's error
line, a sweep's result lines and a worker's lines. (tests/integration/test_untrusted_names.py deploys a model file
so named through the real CLI.)"""

from __future__ import annotations

import dataclasses
import io
import time
from pathlib import Path

import pytest
from test_store import make_result

from edgeprof.cli import ui
from edgeprof.cli.main import main
from edgeprof.cli.sweep import _result_line

HOSTILE = "m\x1b]0;pwned\x07\x1b[31mRED\x1b[0m.onnx"
RAW = ("\x1b]0;pwned", "\x07", "\x1b[31mRED", "RED\x1b[0m", "\x1b]8;")
SHOWN = "m\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m.onnx"
MARKUP = "[link=https://evil.example]click[/link] [/] [bold"  # as a name: text, not markup (nor a crash)


def assert_clean(text: str) -> None:
    for raw in RAW:
        assert raw not in text, (raw, text)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    buf = io.StringIO()
    monkeypatch.setattr(ui, "err", ui.SafeConsole(file=buf, force_terminal=True, width=300, highlight=False))
    return buf


def test_deploy_progress_on_a_terminal_status_line_escapes_names(terminal: io.StringIO) -> None:
    with ui.DeployProgress() as progress:
        assert progress._status is not None  # rich's status line, as on a terminal
        progress.stage(f"{HOSTILE}: reading /models/{HOSTILE} {MARKUP}")
        time.sleep(0.4)  # a few refreshes of the status line
    text = terminal.getvalue()
    assert SHOWN in text and "click[/link]" in text, text
    assert_clean(text)


def test_deploy_progress_as_plain_lines_escapes_names(capsys: pytest.CaptureFixture[str]) -> None:
    with ui.DeployProgress() as progress:  # stderr is not a terminal under pytest: plain lines
        assert progress._status is None
        progress.stage(f"{HOSTILE}: reading /models/{HOSTILE}")
    err = capsys.readouterr().err
    assert err == f"  {SHOWN}: reading /models/{SHOWN}\n"


def test_the_error_line_escapes_the_path_it_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["deploy", "--device", "local", "--model", str(tmp_path / HOSTILE), "--quiet", "--no-store"])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgeprof: error: ") and SHOWN in lines[0], err
    assert_clean(err)


def test_a_sweep_result_line_shows_a_device_reason_as_text(terminal: io.StringIO) -> None:
    r = dataclasses.replace(make_result(model=HOSTILE), status="failed", reason=f"device said {HOSTILE} {MARKUP}")
    ui.err.print(_result_line(r, 1, 2))
    text = terminal.getvalue()
    assert SHOWN in text and MARKUP in text, text
    assert_clean(text)
