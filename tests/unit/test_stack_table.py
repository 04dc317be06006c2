"""README's board-stack table is produced from the stack matrix (tests/lanes/stack_profiles.py) by scripts/stack-table.py:
it fails here when README's table is not what the script renders (edit stacks.py, then run the script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from stack_profiles import PROFILES

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stack_table", REPO / "scripts" / "stack-table.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_holds_the_rendered_table(script: ModuleType) -> None:
    table = script.readme_table((REPO / "README.md").read_text())
    assert table is not None, "README.md lost its stack-table markers"
    assert table == script.render(), "README's stack table is stale: run scripts/stack-table.py"


def test_the_table_has_a_row_per_board_family_with_its_tested_runtimes(script: ModuleType) -> None:
    rows = script.render().splitlines()[2:]
    assert len(rows) == len(PROFILES)
    for p, row in zip(PROFILES, rows, strict=True):
        assert row.startswith(f"| {p.board} (") and f"{p.python_on_board} / {p.numpy}" in row
        for dist, version in p.expected:
            if dist != "numpy" and dist not in ("cuda-python", "nvidia-ml-py"):
                assert f"{dist} {version}" in row, (p.name, dist)
        assert {rt for rt, _ in p.install} >= set(p.runtimes), f"{p.name}: a tested runtime without install advice"
        for u in p.unavailable:
            assert u.requirement in row
    nano = rows[[p.name for p in PROFILES].index("jetpack-4.6")]
    assert "onnxruntime 1.10.0 (exported at IR 8 / opset 15)" in nano and "**tensorrt** (not tested here)" in nano


def test_check_fails_on_a_stale_table_and_the_script_rewrites_it(script: ModuleType, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n\n{script.BEGIN}\n| old |\n{script.END}\n\nafter\n")
    assert script.main(["--check", "--readme", str(readme)]) == 1
    assert "stack table differs" in capsys.readouterr().err
    assert script.main(["--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# x\n\nbefore\n\n") and text.endswith(f"{script.END}\n\nafter\n")
    assert script.readme_table(text) == script.render()
    assert script.main(["--check", "--readme", str(readme)]) == 0
    readme.write_text("# no markers\n")
    assert script.main(["--check", "--readme", str(readme)]) == 1
    assert "no stack-table markers" in capsys.readouterr().err


def test_the_aarch64_column_says_what_ran_on_real_arm_binaries_and_what_only_as_an_x86_stand_in(
        script: ModuleType) -> None:
    from arm_recipes import VENVS_BY_STACK

    rows = dict(zip([p.name for p in PROFILES], script.render().splitlines()[2:], strict=True))
    for stack, pairs in VENVS_BY_STACK.items():
        cell = rows[stack].split(" | ")[3]
        for root, venv in pairs:
            assert f"Python {root.python} / numpy {venv.numpy}" in cell, stack
            for dist, version in venv.expected:
                assert dist == "numpy" or f"{dist} {version}" in cell, (stack, dist)
    assert "x86 stand-in only: Python 3.6.9" in rows["jetpack-4.6"].split(" | ")[3]
    assert "x86 stand-in only: Python 3.10.12, cuda-python 12.6.0" in rows["jetpack-6"].split(" | ")[3]
    pi = rows["rpi-bookworm"].split(" | ")[3]
    assert "(the board's own)" in pi and "x86 stand-in only" not in pi
    assert rows["x86-t4"].split(" | ")[3].startswith("— (an x86 board")
