"""A native crash in the agent leaves its Python stack on stderr (faulthandler), on the JetPack 4.6 Python 3.6.

The host only ever sees the agent's stderr when the agent dies of a signal: without faulthandler it was empty.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.stacks


def test_sigsegv_in_the_agent_writes_its_stack_to_stderr(stack_entry: Callable[[str], dict[str, object]],
                                                         tmp_path: Path) -> None:
    python = str(stack_entry("jetpack-4.6")["python"])
    p = subprocess.Popen([python, "-m", "edgeprof_agent", "serve", "--workdir", str(tmp_path / "w")],
                         cwd=REPO / "agents", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "w").is_dir():  # serve() made its workdir: faulthandler is on by then
            assert p.poll() is None and time.monotonic() < deadline, "the agent did not start"
            time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGSEGV)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
    assert p.returncode == -signal.SIGSEGV
    text = err.decode(errors="replace")
    assert "Fatal Python error: Segmentation fault" in text
    assert "edgeprof_agent" in text and "read_request" in text, text  # the stack names where it was
