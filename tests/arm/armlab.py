"""What the aarch64 lane's fixtures (conftest.py) and tests share: paths, the board record, devices.yaml entries.

Owns: where the builder and the cache are (the cache read at import, before tests/conftest.py points HOME at a
temp dir), `ArmBoard` (one venv of a root as an sshd board) and its devices.yaml entry.
Does not own: starting anything (conftest.py), the roots (roots.py).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from arm_recipes import ROOT_BY_NAME, ArmRoot, ArmVenv
from sshd import SSHHost, SSHLab

REPO = Path(__file__).resolve().parents[2]
BUILDER = REPO / "scripts" / "build-arm-roots.py"
ORIG_ENV = dict(os.environ)
_XDG_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
CACHE = Path(os.environ.get("EDGEPROF_ARM_CACHE") or _XDG_CACHE / "edgeprof" / "arm-roots")
# the stack-matrix lane's export cache (tests/stacks/conftest.py), shared: the same exports of ds_cnn
STACKS_ARTIFACTS = Path(os.environ.get("EDGEPROF_STACKS_CACHE") or _XDG_CACHE / "edgeprof" / "stacks") / "artifacts"


@dataclass
class ArmBoard:
    """One venv of a root as an sshd board: its devices.yaml, device name and where it lives."""

    root: ArmRoot
    venv: ArmVenv
    entry: dict[str, object]  # the builder's report entry of the root
    device: str
    inventory: Path
    workdir: Path  # inside the root: the same path inside the chroot and out
    host: SSHHost

    @property
    def tree(self) -> Path:
        return Path(str(self.entry["tree"]))

    def inside(self, name: str) -> Path:
        """A fresh directory inside the root (for a board tree given as sysfs_root)."""
        d = self.tree / "var" / "tmp" / "edgeprof" / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        return d


def device_yaml(board: ArmBoard, lab: SSHLab, *, sysfs_root: Path | None = None, name: str | None = None) -> str:
    python = board.entry["venvs"][board.venv.name]["python"]  # type: ignore[index]
    extra: dict[str, object] = {"python": python, "connect_timeout": 60}
    if sysfs_root is not None:
        extra["sysfs_root"] = sysfs_root
    return lab.yaml_entry(board.host, name or board.device, workdir=board.workdir, **extra)


def venv_of(name: str) -> tuple[ArmRoot, ArmVenv]:
    for root in ROOT_BY_NAME.values():
        for venv in root.venvs:
            if venv.name == name:
                return root, venv
    raise KeyError(name)
