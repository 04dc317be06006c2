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
