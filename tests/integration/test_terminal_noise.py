"""What a user sees in a terminal: edgeprof's own lines only, the libraries' output in the logs (issue 15).

Each test runs the real `edgeprof deploy --device local` under a pseudo-terminal (so rich draws its spinner and
tables as for a person) with a fresh HOME, hence an empty export cache: the first, noisiest export. Every line
printed must match one of the patterns edgeprof prints (OWN); any other line fails the test and is shown. The
logs must hold what the libraries said: the export's `<cache>/<key>.log` on the host, `runtime.log` in the
agent's workdir on the device (here ~/.cache/edgeprof)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

COLUMNS = 400  # wide enough that rich wraps none of its lines
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Za-z0-9]")
_SPINNER = "⠁⠂⠄⡀⢀⠠⠐⠈⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_NAME = r"[\w.:-]+"

# What edgeprof itself prints during a deploy: the spinner's stages, the result tables, warnings.
STAGES = [
    r"starting", r"connecting to \S+", r"export", r"pushing model", r"measuring", r"storing",
    r"(pushing|starting|checking) (the )?agent.*", r"agent .*",
    rf"{_NAME}: exporting to (ONNX|TFLite) \(.*\)", rf"{_NAME}: checking (ONNX|TFLite) against torch.*",
    rf"{_NAME}: counting FLOPs", rf"{_NAME}: quantising (ONNX|TFLite) to int8 \(.*\)",
    rf"{_NAME}: converting ONNX to fp16 \(.*\)", rf"{_NAME}: cached .*", rf"{_NAME}: reading .*",
    rf"{_NAME}: warning: .*", r"fidelity: computing the reference \(.*\)",
    r"(warmup|measure): [\d.]+/[\d.]+ s, \d+ queries.*", r"(load|profile) \w*", r"idle power baseline.*",
]
OWN = [
    rf"[{_SPINNER}] ({'|'.join(STAGES)})",
    rf"{_NAME} on \S+ · \w+ \w+( \[.*\])? · batch \d+.*run \S+",  # the result's title (precision detail)
    r"[┏┃┡│└┌├╭╰].*",  # table rows and borders
    r"latency \(ms\)", r"throughput and memory", r"n=\d+ +CV=.*", r"memory: .*", r"power: .*",
    r"power · .*", r"power warning: .*", r"compute: .*", r"thermal: .*", r"fidelity vs .*", r"fidelity: none.*",
    r"warning \w+: .*", r"THROTTLED .*", r"stored as run \S+ in .*", r"result written to .*",
    # the I/O summary (cli/ui.render_io): inputs as fed, outputs, load and first inference
    r"inputs and outputs( \(batch \d+: .*\))?", rf"(in|out) +{_NAME}: \w+\[[\d, ]*\].*",
    r"load [\d.]+ s .*first inference .*",
    # where the measurement's time went (records/phases.py, cli/ui.render_phases)
    r"phases: [\d.]+ s in all, timed window .*", r"(host before|device|host after): .*",
]
OWN_RE = re.compile("|".join(f"(?:{p})" for p in OWN))


def run_in_pty(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """(exit status, everything written to the terminal) of argv run on a fresh pseudo-terminal.

    subprocess (fork and exec in C), not pty.fork: this test process may hold threads (torch, JAX)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, COLUMNS, 0, 0))
    try:
        proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                pytest.fail(f"{' '.join(argv)} ran past {timeout:.0f} s; it printed:\n"
                            + b"".join(chunks).decode("utf-8", "replace")[-3000:])
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: every process holding the terminal has closed it
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=60)
    finally:
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", "replace")


def screen_lines(raw: str) -> list[str]:
    """What the terminal showed, as lines: escape sequences removed, each spinner redraw (\\r) its own line."""
    text = _ANSI.sub("", raw)
    return [ln.strip() for ln in re.split(r"[\r\n]", text) if ln.strip()]


def foreign(lines: list[str]) -> list[str]:
    return [ln for ln in lines if not OWN_RE.fullmatch(ln)]


def edgeprof_argv() -> list[str]:
    script = Path(sys.executable).parent / "edgeprof"
    return [str(script)] if script.exists() else [sys.executable, "-m", "edgeprof"]


def fresh_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "EDGEPROF_", "PYTEST_", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"))}
    env.update(HOME=str(home), TERM="xterm-256color")
    return env


def deploy(home: Path, *args: str, timeout: float = 600) -> tuple[int, list[str], str]:
    argv = [*edgeprof_argv(), "deploy", "--device", "local", *args, "--min-duration", "0.5", "--warmup", "0",
            "--idle", "0"]
    code, raw = run_in_pty(argv, fresh_env(home), timeout)
    return code, screen_lines(raw), raw


def logs(home: Path) -> dict[str, str]:
    cache = home / ".cache" / "edgeprof" / "artifacts"
    return {p.name: p.read_text(errors="replace") for p in sorted(cache.glob("*.log"))}


def assert_own(code: int, lines: list[str], raw: str) -> None:
    assert code == 0, "deploy failed; the terminal showed:\n" + "\n".join(lines[-40:])
    assert any(OWN_RE.fullmatch(ln) and ln.startswith("stored as run") for ln in lines), raw[-2000:]
    strangers = foreign(lines)
    assert not strangers, "lines on the terminal that edgeprof did not print:\n" + "\n".join(strangers)


def test_the_allow_list_rejects_the_noise_of_issue_15():
    """The check itself: the lines the issue saw are foreign, edgeprof's are not (one of each kind)."""
    noise = ["⠇ exportWARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
             "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.",
             "I0000 00:00:1796099044.850522 8778 port.cc:153] oneDNN custom operations are on.",
             "W1201 04:24:11.299000 8778 torch/utils/_pytree.py:630] <enum 'KernelPreference'> is an Enum",
             "Failed to load /x/torchao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so: Could not load this library"]
    own = ["⠋ ds_cnn: exporting to TFLite (litert-torch, shapes input=1x1x49x10)", "⠙ measure: 0.4/0 s, 12 queries",
           "ds_cnn on local · tflite fp32 · batch 1   run 20261201-042430-28f0d7", "│ 1.2 │ 3.4 │",
           "warning high_cv: latency CV 32 % (> 10 %): results are noisy."]
    assert foreign(noise) == noise and foreign(own) == []
    assert screen_lines("\x1b[2K\r⠋ export\r\x1b[2K⠙ export\nline two\n") == ["⠋ export", "⠙ export", "line two"]


def test_first_tflite_deploy_shows_only_edgeprof(tmp_path):
    pytest.importorskip("litert_torch")
    pytest.importorskip("ai_edge_litert")
    code, lines, raw = deploy(tmp_path, "--model", "ds_cnn", "--runtime", "tflite")
    assert_own(code, lines, raw)
    assert any(ln.startswith("ds_cnn on local · tflite fp32") for ln in lines)
    host = logs(tmp_path)
    export_logs = [t for t in host.values() if "exporting ds_cnn to TFLite" in t]
    assert export_logs, f"no export log among {sorted(host)}"
    assert re.search(r"absl|LiteRT|XNNPACK|oneDNN|torch", export_logs[0]), export_logs[0][:2000]
    runtime_log = tmp_path / ".cache" / "edgeprof" / "runtime.log"  # the local agent's workdir
    assert runtime_log.is_file(), "the agent kept no runtime.log in its workdir"
    assert "TensorFlow Lite XNNPACK delegate" in runtime_log.read_text(), runtime_log.read_text()[-2000:]
    # the second deploy (cached export) is just as quiet
    code, lines, raw = deploy(tmp_path, "--model", "ds_cnn", "--runtime", "tflite")
    assert_own(code, lines, raw)


def test_first_onnx_int8_deploy_shows_only_edgeprof(tmp_path):
    pytest.importorskip("onnxruntime.quantization")
    code, lines, raw = deploy(tmp_path, "--model", "ds_cnn", "--precision", "int8")
    assert_own(code, lines, raw)
    assert any(ln.startswith("ds_cnn on local · onnxruntime int8") for ln in lines)
    host = logs(tmp_path)
    onnx_logs = [t for t in host.values() if "exporting ds_cnn to ONNX" in t]
    assert onnx_logs, f"no ONNX export log among {sorted(host)}"
    assert re.search(r"torch", onnx_logs[0]), onnx_logs[0][:2000]
    # onnxruntime.quantization says nothing about ds_cnn: a silent capture leaves no log (else it heads its own)
    assert all("converting ds_cnn to int8 ONNX" in t.splitlines()[0] for t in host.values() if t not in onnx_logs)
