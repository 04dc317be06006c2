"""Simulated boards behind a real sshd, for end-to-end telemetry tests (test_power_e2e.py, test_thermal_e2e.py).

Owns: one sshd host shared by a test module; per test a writable copy of a board tree
(tests/data/boards/<name>), a bin directory whose board tools (vcgencmd, nvpmodel) replay the tree's captures,
a devices.yaml entry whose `sysfs_root` is the copy and whose `env` puts those tools first on PATH (plus
PYTHONPATH for a pynvml double), a driver process (tests/agent/fakes/boardkit.py drive) that shows a known
P(t) in the tree's sensor files, and a deploy through the real CLI whose progress events start the driver's
wave when the agent loads the model (after the idle baseline).
Does not own: the sshd harness (sshd.py), the truth of P(t) (boardkit.StepWave), assertions (the tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from sshd import SSHHost, SSHLab

REPO = Path(__file__).resolve().parents[2]
FAKES = REPO / "tests" / "agent" / "fakes"
BOARDS = REPO / "tests" / "data" / "boards"
BOARDKIT = FAKES / "boardkit.py"
READY_TIMEOUT_S = 30.0

sys.path.insert(0, str(FAKES))
import boardkit  # noqa: E402


@dataclass
class Board:
    """One simulated board: its tree, its devices.yaml, its driver process and the wave it shows."""

    name: str
    device: str
    dir: Path
    inventory: Path
    idle_w: float
    wave: dict[str, float]
    go_file: Path
    stop_file: Path
    proc: subprocess.Popen[bytes] | None = None
    files: dict[str, str] = field(default_factory=dict)

    def go(self) -> None:
        if not self.go_file.exists():
            self.go_file.write_text("go\n")

    @property
    def t_go(self) -> float | None:
        """When the driver started the wave (perf_counter seconds), or None before."""
        p = Path(str(self.go_file) + ".t")
        deadline = time.monotonic() + 5.0
        while self.go_file.exists() and not p.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return float(p.read_text()) if p.exists() else None

    def truth(self) -> boardkit.StepWave:
        w = self.wave
        step = boardkit.StepWave(self.idle_w, boardkit.Wave(w["base"], w["amp"], w["period"], w["phase"]))
        step.t_go = self.t_go
        return step


class BoardLab:
    """A module's sshd host plus the boards deployed to it."""

    def __init__(self, lab: SSHLab, host: SSHHost, base: Path) -> None:
        self.lab, self.host, self.base = lab, host, base
        self.known_hosts = lab.known_hosts(base / "known_hosts", host)
        self.db = str(base / "results.sqlite")
        self.n = 0

    @contextmanager
    def board(self, tree: str, *, idle_w: float = 3.0, wave: dict[str, float] | None = None,
              power: dict[str, Any] | None = None, on_go: dict[str, str] | None = None,
              cool: dict[str, Any] | None = None, nvml: dict[str, Any] | None = None,
              drive: bool = True) -> Iterator[Board]:
        """A copy of tests/data/boards/<tree> as device `<tree>-<n>`; `drive` runs the P(t) driver on it."""
        self.n += 1
        root = self.base / f"b{self.n}"
        root.mkdir()
        bdir = root / tree
        if (BOARDS / tree).is_dir():
            shutil.copytree(BOARDS / tree, bdir, symlinks=True)
        else:
            (bdir / "sys").mkdir(parents=True)  # an empty tree: no sensors (e.g. a GPU box seen only by NVML)
        bindir = root / "bin"
        bindir.mkdir()
        tools = bdir / "tools"
        for name in sorted(os.listdir(tools)) if tools.is_dir() else []:
            (bindir / name).symlink_to(FAKES / "bin" / "replay")
        env = {"PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "EDGEPROF_FAKE_BOARD": str(bdir),
               "HOME": str(root)}
        if nvml is not None:
            mods = root / "modules"
            mods.mkdir()
            shutil.copy(FAKES / "modules" / "pynvml.py", mods / "pynvml.py")  # only pynvml: no jtop double
            (root / "nvml.json").write_text(json.dumps(nvml))
            env["PYTHONPATH"] = str(mods)
            env["EDGEPROF_FAKE_NVML"] = str(root / "nvml.json")
        device = f"{tree}-{self.n}"
        entry: dict[str, Any] = {
            "host": "127.0.0.1", "port": self.host.port, "user": self.lab.user,
            "identity_file": str(self.lab.client_key), "known_hosts": str(self.known_hosts),
            "python": sys.executable, "workdir": self.host.workdir, "sysfs_root": str(bdir), "env": env,
        }
        if power is not None:
            entry["power"] = power
        inventory = root / "devices.yaml"
        inventory.write_text(yaml.safe_dump({"version": 1, "devices": {device: entry}}, sort_keys=False))
        w = {"base": 5.0, "amp": 1.5, "period": 1.0, "phase": 0.3, **(wave or {})}
        b = Board(name=tree, device=device, dir=bdir, inventory=inventory, idle_w=idle_w, wave=w,
                  go_file=root / "go", stop_file=root / "stop")
        if drive:
            config = {"board_dir": str(bdir), "name": tree if (BOARDS / tree).is_dir() else None, "idle_w": idle_w,
                      "wave": w, "go_file": str(b.go_file), "stop_file": str(b.stop_file),
                      "ready_file": str(root / "ready"), "on_go": on_go or {}, "cool": cool}
            (root / "drive.json").write_text(json.dumps(config))
            log = open(root / "drive.log", "wb")
            b.proc = subprocess.Popen([sys.executable, str(BOARDKIT), str(root / "drive.json")],
                                      stdout=log, stderr=subprocess.STDOUT)
            log.close()
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not (root / "ready").exists():
                if b.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("board driver did not start:\n" + (root / "drive.log").read_text())
                time.sleep(0.01)
        try:
            yield b
        finally:
            b.stop_file.write_text("stop\n")
            if b.proc is not None:
                try:
                    b.proc.wait(10)
                except subprocess.TimeoutExpired:
                    b.proc.kill()
                    b.proc.wait(10)

    def deploy(self, board: Board, model: str, *extra: str, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, dict[str, Any] | None]:
        """`edgeprof deploy` through the CLI; the wave starts when the agent reports the model load.

        Returns (exit code, stdout, stderr, result JSON or None)."""
        import edgeprof.cli.deploy as deploy_cli
        from edgeprof.cli.main import main
        from edgeprof.cli.ui import DeployProgress

        class GoOnLoad(DeployProgress):
            def event(self, event: Any) -> None:
                if getattr(event, "phase", None) == "load":
                    board.go()
                super().event(event)

        monkeypatch.setattr(deploy_cli, "DeployProgress", GoOnLoad)
        out_json = board.inventory.parent / "result.json"
        args = ["deploy", "--device", board.device, "--inventory", str(board.inventory), "--db", self.db,
                "--model", model, "--json", str(out_json), *extra]
        code = main(args)
        cap = capsys.readouterr()
        result = json.loads(out_json.read_text()) if code == 0 and out_json.exists() else None
        return code, cap.out, cap.err, result


def matmul_model(path: Path) -> str:
    """A user ONNX file: one MatMul (1x64x256 · 256x256, 8.4 MFLOP), a fraction of a millisecond per query."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    w = np.random.RandomState(0).standard_normal((256, 256)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64, 256])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


@contextmanager
def board_lab(ssh_lab: SSHLab, base: Path, name: str) -> Iterator[BoardLab]:
    # HOME for the login shell: a board's own (empty) home, so this machine's ~/.bashrc (pyenv init: a rehash
    # lock per ssh command) does not run for every command, as on a real board
    home = base / "board-home"
    home.mkdir(exist_ok=True)
    host = ssh_lab.start_host(name, workdir=str(base / "board work" / "edgeprof"),
                              extra_config=(f"SetEnv HOME={home}",))
    try:
        yield BoardLab(ssh_lab, host, base)
    finally:
        ssh_lab.stop_host(host)
        if host in ssh_lab.hosts:
            ssh_lab.hosts.remove(host)
