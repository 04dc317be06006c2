"""Ctrl-C while the command's modules load: `edgeprof: interrupted`, exit 130 — also when the interrupt lands
inside an extension module's import and surfaces as that import failing (numpy's "PyCapsule_Import could not
import module 'datetime'", seen when a deploy was interrupted 0.2 s after it started)."""

from __future__ import annotations

import pytest

from edgeprof import interrupts
from edgeprof.cli import main as cli_main


def _failing_import(exc: BaseException):
    def build_parser(_command: str | None) -> object:
        raise exc
    return build_parser


def test_an_import_failing_after_a_sigint_is_an_interruption(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli_main, "build_parser", _failing_import(ImportError("PyCapsule_Import could not import")))
    monkeypatch.setattr(interrupts, "_count", 1)
    assert cli_main.main(["deploy"]) == 130
    assert capsys.readouterr().err.strip() == "edgeprof: interrupted"


def test_an_import_failing_without_a_sigint_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_main, "build_parser", _failing_import(ImportError("no module named rich")))
    monkeypatch.setattr(interrupts, "_count", 0)
    with pytest.raises(ImportError, match="rich"):
        cli_main.main(["deploy"])


def test_a_keyboard_interrupt_while_loading_is_an_interruption(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli_main, "build_parser", _failing_import(KeyboardInterrupt()))
    assert cli_main.main(["deploy"]) == 130
    assert "interrupted" in capsys.readouterr().err


HELD = """\
import os, signal, sys, time
from edgeprof import interrupts

interrupts.install()
steps = []
try:
    with interrupts.held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler has run by now: counted, not raised
        steps.append("the block ran to its end")
    steps.append("not reached")
except KeyboardInterrupt:
    steps.append("raised when the block ended")
try:
    with interrupts.held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        raise ValueError("the block's own error")
except ValueError as e:
    steps.append(str(e))
try:
    os.kill(os.getpid(), signal.SIGINT)  # after the blocks: raised at once again
    time.sleep(1)
    steps.append("not reached")
except KeyboardInterrupt:
    steps.append("raised at once after")
print(steps, interrupts.count())
"""


def test_a_sigint_inside_a_held_step_is_raised_when_the_step_ends() -> None:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", HELD], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ("['the block ran to its end', 'raised when the block ended', \"the block's own "
                                "error\", 'raised at once after'] 3")
