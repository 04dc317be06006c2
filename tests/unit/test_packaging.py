"""The explicit package list in pyproject.toml names every package directory, so an install from a fresh clone
(CI, a user's `pip install .`) ships all of them; a package left out imports from a checkout but not from a wheel."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_directory_is_in_the_setuptools_list() -> None:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    found = set()
    for name, rel in cfg["package-dir"].items():
        top = ROOT / rel
        for init in top.rglob("__init__.py"):
            parts = init.parent.relative_to(top).parts
            if "__pycache__" in parts:
                continue
            found.add(".".join((name, *parts)))
    assert found - listed == set(), f"add to pyproject.toml [tool.setuptools] packages: {sorted(found - listed)}"
    assert listed - found == set(), f"listed but not a package directory: {sorted(listed - found)}"
