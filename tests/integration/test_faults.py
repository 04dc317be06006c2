"""Faults (issue 21): Ctrl-C during the first export, a full or read-only disk under the export cache, the results
database and --json, and an agent that is stopped mid-run. Each through the CLI as a real subprocess: a real
SIGINT, a real tmpfs of 64 KiB (mounted here; root only), a real SIGSTOP/SIGCONT of the real agent process."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edgeprof.store import Store

EDGEPROF = [sys.executable, "-m", "edgeprof"]
NULL = ["deploy", "--device", "local", "--model", "m", "--runtime", "null", "--min-duration", "0.1",
        "--min-queries", "3", "--max-queries", "200", "--warmup", "0", "--quiet"]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"),
               XDG_CONFIG_HOME=str(home / "config"), EDGEPROF_DB=f"sqlite:///{tmp_path / 'runs.sqlite'}")
    env.pop("EDGEPROF_CACHE", None)
    env.update(extra)
    return env


def start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*EDGEPROF, *args], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EDGEPROF, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def one_line_error(p: subprocess.CompletedProcess[str] | tuple[int, str], code: int = 2) -> str:
    rc, err = (p.returncode, p.stderr) if isinstance(p, subprocess.CompletedProcess) else p
    assert "Traceback" not in err, err
    assert rc == code, err
    lines = [ln for ln in err.splitlines() if ln.startswith("edgeprof:")]
    assert len(lines) == 1, err
    return lines[0]


def cache_leftovers(cache: Path) -> list[str]:
    """What a failed or interrupted build left in the cache: entries and temporary folders (logs are logs)."""
    if not cache.exists():
        return []
    return sorted(p.name for p in cache.iterdir() if p.is_dir())


# ------------------------------------------------------------------------------------------ Ctrl-C

BUILDER = """
import gc, os, pathlib, time
import torch

MARK = pathlib.Path(os.environ["FAULT_MARK"])
HOW = os.environ["FAULT_HOW"]


def _wait():
    MARK.write_text("tracing")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.01)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        if not MARK.exists():
            if HOW == "plain":
                _wait()
            elif HOW == "wrapped":  # a library that turns the interruption into its own error
                try:
                    _wait()
                except KeyboardInterrupt:
                    raise RuntimeError("tracing was stopped") from None
            elif HOW == "swallowed":  # a library that catches it and carries on
                try:
                    _wait()
                except KeyboardInterrupt:
                    pass
            elif HOW == "gc":  # where Python itself drops it: a garbage-collector callback (jax has one)
                def cb(phase, info):
                    if phase == "start" and not MARK.exists():
                        _wait()
                gc.callbacks.append(cb)
                try:
                    gc.collect()
                finally:
                    gc.callbacks.remove(cb)
        return self.fc(x)


def build(seed):
    torch.manual_seed(seed)
    return Net(), {"x": torch.zeros(1, 4)}
"""


def interrupt_when(p: subprocess.Popen[str], ready: callable, within: float = 240) -> tuple[int, str]:  # type: ignore[valid-type]
    deadline = time.monotonic() + within
    while not ready():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the export never started"
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    return p.returncode, err


@pytest.mark.parametrize("how", ["plain", "wrapped", "swallowed", "gc"])
def test_ctrl_c_during_a_builder_export_is_an_interruption_however_the_library_takes_it(tmp_path, how):
    (tmp_path / "net.py").write_text(BUILDER)
    mark = tmp_path / "mark"
    cache = tmp_path / "cache"
    env = env_for(tmp_path, EDGEPROF_CACHE=str(cache), FAULT_MARK=str(mark), FAULT_HOW=how)
    p = start([*NULL[:4], "net.py:build", "--min-duration", "0.1", "--min-queries", "3", "--warmup", "0"], env,
              tmp_path)
    rc, err = interrupt_when(p, mark.exists)
    assert one_line_error((rc, err), 130) == "edgeprof: interrupted", err
    assert "bug" not in err and "failed" not in err
    assert cache_leftovers(cache) == []  # no entry, no temporary folder
    assert Store(f"sqlite:///{tmp_path / 'runs.sqlite'}").count() == 0


def test_ctrl_c_during_the_first_export_of_a_bundled_model(tmp_path):
    cache = tmp_path / "cache"
    env = env_for(tmp_path, EDGEPROF_CACHE=str(cache))
    p = start(["deploy", "--device", "local", "--model", "ds_cnn", "--min-duration", "0.1", "--min-queries", "3",
               "--warmup", "0"], env, tmp_path)

    def exporting() -> bool:  # the export's capture has opened its log: torch is exporting
        return cache.exists() and any(f.suffix == ".log" and f.name != "host.log" for f in cache.iterdir())

    rc, err = interrupt_when(p, exporting)
    assert one_line_error((rc, err), 130) == "edgeprof: interrupted", err
    assert cache_leftovers(cache) == []
    assert Store(f"sqlite:///{tmp_path / 'runs.sqlite'}").count() == 0


@pytest.mark.parametrize("after_s", [0.2, 0.6, 1.5])
def test_ctrl_c_at_any_moment_of_a_deploy_is_one_line_and_leaves_no_agent(tmp_path, after_s):
    # the null runtime reaches the default --max-queries (200 000) within a second on an idle machine: raised, so
    # the run is still measuring at 1.5 s
    p = start(["deploy", "--device", "local", "--model", "m", "--runtime", "null", "--min-duration", "30",
               "--max-queries", "100000000", "--warmup", "0"], env_for(tmp_path), tmp_path)
    time.sleep(after_s)  # while the command's modules load, the agent starts, or it measures
    agents = children(p.pid)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert one_line_error((p.returncode, err), 130) == "edgeprof: interrupted", err
    time.sleep(1.0)
    assert [a for a in agents if Path(f"/proc/{a}").exists() and " Z " not in Path(f"/proc/{a}/stat").read_text()
            ] == []


# ------------------------------------------------------------------------------------------ full disks


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "64k", ro: bool = False) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    opts = f"size={size}" + (",ro" if ro else "")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root and mount permission): {r.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    """Use up every byte left on the filesystem holding `folder`."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 512)
    finally:
        os.close(fd)


def test_a_full_disk_under_the_export_cache_is_one_line_naming_it(tmp_path):
    (tmp_path / "net.py").write_text(BUILDER.replace('os.environ["FAULT_HOW"]', '"none"')
                                     .replace('os.environ["FAULT_MARK"]', '"/nonexistent-mark"'))
    with tmpfs(tmp_path / "small") as small:
        cache = small / "cache"
        env = env_for(tmp_path, EDGEPROF_CACHE=str(cache))
        for model in ("ds_cnn", "net.py:build"):  # ds_cnn's ONNX does not fit; the builder's tiny one on a full disk
            if model == "net.py:build":
                fill(small)
            p = cli(["deploy", "--device", "local", "--model", model, "--min-duration", "0.1", "--min-queries",
                     "3", "--warmup", "0"], env, tmp_path)
            line = one_line_error(p)
            assert f"cannot write the export cache {cache}" in line and "no space left on the device" in line
            assert "free space there" in line and "EDGEPROF_CACHE=DIR" in line
            assert cache_leftovers(cache) == []
        assert Store(f"sqlite:///{tmp_path / 'runs.sqlite'}").count() == 0


def test_a_read_only_export_cache_is_one_line_naming_it(tmp_path):
    (tmp_path / "net.py").write_text(BUILDER.replace('os.environ["FAULT_HOW"]', '"none"')
                                     .replace('os.environ["FAULT_MARK"]', '"/nonexistent-mark"'))
    with tmpfs(tmp_path / "ro", ro=True) as ro:
        env = env_for(tmp_path, EDGEPROF_CACHE=str(ro / "cache"))
        for model in ("ds_cnn", "net.py:build"):  # the builder's import writes its log under the cache first
            p = cli(["deploy", "--device", "local", "--model", model, "--min-duration", "0.1", "--min-queries",
                     "3", "--warmup", "0"], env, tmp_path)
            line = one_line_error(p)
            assert f"cannot write the export cache {ro / 'cache'}" in line and "read-only file system" in line
            assert "make it writable" in line


def test_a_new_results_database_on_a_full_disk_is_one_line_and_leaves_no_half_made_file(tmp_path):
    with tmpfs(tmp_path / "small") as small:
        fill(small)
        db = small / "runs.sqlite"
        p = cli([*NULL, "--db", str(db)], env_for(tmp_path), tmp_path)
        line = one_line_error(p)
        assert str(db) in line and "full" in line and "free space" in line
        assert sorted(f.name for f in small.iterdir()) == ["filler"]


def test_a_full_disk_under_the_results_database_keeps_the_run_in_a_recovery_file(tmp_path):
    env = env_for(tmp_path)
    with tmpfs(tmp_path / "small", size="512k") as small:
        db = small / "runs.sqlite"
        assert cli(["results", "list", "--db", str(db)], env, tmp_path).returncode == 0
        fill(small)
        p = cli([*NULL, "--db", str(db)], env, tmp_path)
        line = one_line_error(p)
        assert f"cannot write to results database {db} (database or disk is full)" in line
        assert "free space there, then store it with: edgeprof results import" in line
        saved = Path(line.rsplit(" ", 1)[1].strip())
        json.loads(saved.read_text())  # whole
        (small / "filler").unlink()
        imported = cli(["results", "import", str(saved), "--db", str(db)], env, tmp_path)
        assert imported.returncode == 0, imported.stderr
        assert Store(f"sqlite:///{db}").count() == 1


def test_json_on_a_full_disk_leaves_no_half_written_file_and_the_run_is_stored(tmp_path):
    env = env_for(tmp_path)
    with tmpfs(tmp_path / "small") as small:
        fill(small)
        out = small / "run.json"
        p = cli([*NULL, "--json", str(out)], env, tmp_path)
        line = one_line_error(p)
        assert line.startswith(f"edgeprof: error: --json {out}: cannot write it (No space left on device); "
                               "nothing was written; the run is stored as ")
        assert sorted(f.name for f in small.iterdir()) == ["filler"]
    assert Store(f"sqlite:///{tmp_path / 'runs.sqlite'}").count() == 1


# ------------------------------------------------------------------------------------------ a stopped agent


def children(pid: int) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError):
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(d.name))
    return found


def write_model(path: Path) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = np.random.RandomState(0).standard_normal((32, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_an_agent_stopped_mid_run_is_a_warning_naming_the_stall_and_the_samples_stay(tmp_path):
    out = tmp_path / "run.json"
    model = write_model(tmp_path / "m.onnx")  # a small onnxruntime model: tens of thousands of queries in 6 s
    args = ["deploy", "--device", "local", "--model", str(model), "--min-duration", "6", "--min-queries", "3",
            "--max-queries", "100000000", "--warmup", "0", "--json", str(out)]
    p = start(args, env_for(tmp_path), tmp_path)
    measuring = threading.Event()
    err_lines: list[str] = []

    def read_err() -> None:
        assert p.stderr is not None
        for line in p.stderr:
            err_lines.append(line)
            if "measure" in line:
                measuring.set()

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    assert measuring.wait(120), "".join(err_lines)
    time.sleep(1.0)
    agents = [c for c in children(p.pid) if b"serve" in open(f"/proc/{c}/cmdline", "rb").read()]
    assert len(agents) == 1, agents
    group = os.getpgid(agents[0])  # the agent and the child it measures in (children.py): stopped together
    os.killpg(group, signal.SIGSTOP)
    time.sleep(3.0)
    os.killpg(group, signal.SIGCONT)
    p.wait(120)
    reader.join(10)
    assert p.stdout is not None
    shown = p.stdout.read() + "".join(err_lines)
    assert p.returncode == 0, shown
    result = json.loads(out.read_text())
    stalls = [w for w in result["warnings"] if w["code"] == "agent_stalled"]
    assert len(stalls) == 1, result["warnings"]
    text = stalls[0]["message"]
    assert text.startswith("the agent was stopped or not scheduled for ") and "rerun" in text
    seconds = float(text.split(" for ", 1)[1].split(" s ", 1)[0])
    assert 2.5 <= seconds <= 10, text
    samples = result["samples_ms"]
    if " between samples " in text:  # stopped between two queries: no latency holds it, the window does
        assert max(samples) < 2500, text
    else:
        first, last = (int(x) for x in text.split("samples ", 1)[1].split(" of ", 1)[0].split(".."))
        assert "the run's tail includes it" in text
        assert max(samples[first:last + 1]) >= 2500  # the stall is in those samples, kept as measured
        assert max(samples) == max(samples[first:last + 1])
    assert "agent_stalled" in shown  # shown as a warning too


# ------------------------------------------------------------------------------------------ found by the hostile pass


def test_battery_wh_without_measured_power_says_so_instead_of_leaving_the_hours_out(tmp_path):
    out = tmp_path / "run.json"
    p = cli([*NULL, "--battery-wh", "50", "--json", str(out)], env_for(tmp_path), tmp_path)
    assert p.returncode == 0, p.stderr
    result = json.loads(out.read_text())
    if result["power"] is not None:  # pragma: no cover - a host with a power sensor: the hours are there
        assert result["scenario"]["battery_hours"] == pytest.approx(50 / result["power"]["mean_w"])
        return
    codes = [w["code"] for w in result["warnings"]]
    assert "battery_no_power" in codes


@pytest.mark.parametrize("command", [["sweep", "FILE"], ["devices", "list", "--inventory", "FILE"]])
def test_a_fifo_as_a_sweep_or_inventory_file_is_one_line_not_a_hang(tmp_path, command):
    fifo = tmp_path / "sweep.yaml"
    os.mkfifo(fifo)
    p = cli([str(fifo) if w == "FILE" else w for w in command], env_for(tmp_path), tmp_path, timeout=60)
    line = one_line_error(p)
    assert str(fifo) in line and ("not a regular file" in line or "not a file" in line)


def test_a_json_path_on_a_read_only_mount_or_in_a_folder_only_root_could_write_is_refused_before_the_run(tmp_path):
    """--json on a read-only file system is refused before anything runs, naming why (os.access says yes to
    root there); a 0555 folder is writable to root, so the run goes on and writes the file."""
    with tmpfs(tmp_path / "ro", ro=True) as ro:
        for target in (ro / "r.json", ro):  # a new file in it, and the mount itself is a folder
            p = cli([*NULL, "--json", str(target), "--no-store"], env_for(tmp_path), tmp_path)
            line = one_line_error(p)
            assert f"--json {target}" in line
            assert ("read-only file system" in line) if target != ro else ("is a folder" in line)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        p = cli([*NULL, "--json", str(locked / "r.json"), "--no-store"], env_for(tmp_path), tmp_path)
        if os.geteuid() == 0:
            assert p.returncode == 0, p.stderr
            assert json.loads((locked / "r.json").read_text())["runtime"] == "null"
        else:
            assert "permission denied" in one_line_error(p)
        assert not [f for f in locked.iterdir() if f.name.startswith(".edgeprof-write-probe-")]
    finally:
        locked.chmod(0o755)
