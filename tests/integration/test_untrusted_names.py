"""Issue 35 item 4: a user's name, path or a device's reply never reaches the terminal raw. A model file named with
an OSC title sequence and colour escapes (a file name can hold ESC and BEL) is deployed; neither its progress lines
(`…: reading <path>`, on a terminal's status line and as plain lines when stderr is not one) nor the error line of a
model that does not load write those bytes: they show as `\\x1b`, `\\x07`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_sweep_local import write_model
from test_terminal_noise import edgeprof_argv, fresh_env, run_in_pty

pytestmark = pytest.mark.slow

HOSTILE = "m\x1b]0;pwned\x07\x1b[31mRED\x1b[0m.onnx"
RAW = ("\x1b]0;pwned", "\x07", "\x1b[31mRED", "RED\x1b[0m")
SHOWN = "m\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m.onnx"
FLAGS = ["--min-duration", "0.2", "--min-queries", "5", "--warmup", "0", "--idle", "0",
         "--no-store"]


def run_piped(argv: list[str], home: Path) -> tuple[int, str]:
    """Exit code and stdout + stderr (bytes decoded as they came) of argv with neither stream a terminal."""
    p = subprocess.run(argv, env=fresh_env(home), capture_output=True, timeout=600)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "surrogateescape")


@pytest.fixture
def hostile_model(tmp_path: Path) -> Path:
    return write_model(tmp_path / HOSTILE)


def test_a_hostile_model_name_is_escaped_in_deploy_progress(hostile_model: Path, tmp_path: Path) -> None:
    argv = [*edgeprof_argv(), "deploy", "--device", "local", "--model", str(hostile_model), *FLAGS]
    code, text = run_piped(argv, tmp_path / "home")
    assert code == 0, text
    assert f"reading {hostile_model.parent}/{SHOWN}" in text, text  # the plain progress line, escaped
    for raw in RAW:
        assert raw not in text, (raw, text)
    code, text = run_in_pty(argv, fresh_env(tmp_path / "home"), 600)  # rich's status line on a terminal
    assert code == 0, text
    assert SHOWN in text
    for raw in RAW:
        assert raw not in text, (raw, text[-3000:])


def test_a_hostile_path_in_an_error_is_escaped_in_its_one_line(tmp_path: Path) -> None:
    bad = tmp_path / HOSTILE
    bad.write_bytes(b"not an onnx model\n")
    argv = [*edgeprof_argv(), "deploy", "--device", "local", "--model", str(bad), *FLAGS, "--quiet"]
    code, text = run_piped(argv, tmp_path / "home")
    assert code == 2, text
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgeprof: error: ") and SHOWN in lines[0], text
    for raw in RAW:
        assert raw not in text, (raw, text)
