"""tests/arm/roots.py (scripts/build-arm-roots.py): a root that cannot be built is a failed entry with its
reason, and a cached archive is restored (not rebuilt) into a fresh cache, ready to run aarch64."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import roots
from arm_recipes import ROOT_BY_NAME
from armlab import BUILDER, ORIG_ENV

pytestmark = pytest.mark.arm


def test_a_root_that_cannot_be_built_is_reported_failed_with_the_reason(tmp_path: Path) -> None:
    broken = replace(ROOT_BY_NAME["pi-bookworm-arm64"], name="broken-arm64", suite="no-such-suite")
    entry = roots.build(broken, tmp_path)
    assert entry["status"] == "failed"
    assert "mmdebstrap no-such-suite arm64 failed" in str(entry["error"]), entry["error"]


def test_the_builder_exits_1_and_names_a_failed_root(tmp_path: Path) -> None:
    """The command line's report: what `make test-arm` prints before the lane fails that root's tests."""
    env = dict(ORIG_ENV, PATH="/nonexistent")  # no mmdebstrap, no apt-get: nothing can be had
    p = subprocess.run([sys.executable, str(BUILDER), "--cache", str(tmp_path / "cache"), "--only", "pi-bookworm-arm64",
                        "--json", str(tmp_path / "r.json")], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "FAILED: missing" in p.stdout and "aarch64 roots: 0 ready, 1 failed (pi-bookworm-arm64)" in p.stdout
    entry = json.loads((tmp_path / "r.json").read_text())["roots"][0]
    assert entry["status"] == "failed" and "no apt-get" in entry["error"]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("root", ["pi-bookworm-arm64"])
def test_a_cached_archive_is_restored_not_rebuilt(root: str, arm_root: Callable[[str], dict[str, object]],
                                                  tmp_path: Path) -> None:
    built = arm_root(root)
    recipe = ROOT_BY_NAME[root]
    cache = tmp_path / "cache"
    (cache / "archives").mkdir(parents=True)
    archive = Path(str(built["archive"]))
    (cache / "archives" / archive.name).symlink_to(archive)
    try:
        entry = roots.build(recipe, cache)
        assert entry["status"] == "restored", entry.get("error")
        assert entry["hash"] == built["hash"]
        venvs, before = entry["venvs"], built["venvs"]
        assert isinstance(venvs, dict) and isinstance(before, dict)
        assert {k: v["found"] for k, v in venvs.items()} == {k: v["found"] for k, v in before.items()}
        assert not any("mmdebstrap" in step for step in entry["steps"])  # type: ignore[attr-defined]
        python = Path(str(venvs["pi-tflite-runtime"]["python"]))
        out = subprocess.run([str(python), "-c", "import platform, numpy; print(platform.machine(), "
                              "platform.python_version(), numpy.__version__)"], capture_output=True, text=True,
                             timeout=600)
        assert out.stdout.split() == ["aarch64", recipe.python, recipe.numpy], out.stderr
        again = roots.build(recipe, cache)
        assert again["status"] == "reused"
    finally:
        roots._clear(roots.RootPaths(cache, recipe))
