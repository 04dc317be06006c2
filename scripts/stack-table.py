#!/usr/bin/env python3
"""Render README's board-stack table from the stack matrix (tests/lanes/stack_profiles.py), between its markers.

    .venv/bin/python scripts/stack-table.py           # rewrite the table in README.md
    .venv/bin/python scripts/stack-table.py --check   # exit 1 when README's table differs from the rendering
    .venv/bin/python scripts/stack-table.py --print   # the table on stdout

One row per board family: the Python and numpy its OS has, the runtimes that work there (the releases the
stack-matrix lane deploys every bundled model on, over a real sshd, with the ONNX IR / opset the host exports at
for that onnxruntime), which of them also ran as real aarch64 binaries (the aarch64 lane's arm64 Debian roots
under qemu-user, tests/lanes/arm_recipes.py) and which only as x86 stand-ins, how the board's users install each
runtime there, and what the lane cannot have here.
tests/unit/test_stack_table.py fails when README's table is not what this script renders.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "lanes"))  # the stack profiles and aarch64 recipes

from arm_recipes import VENVS_BY_STACK  # noqa: E402
from stack_profiles import PROFILES, StackProfile  # noqa: E402

from edgeprof.capability import ort_onnx_limit  # noqa: E402
from edgeprof.export.onnx_export import DEFAULT_OPSET  # noqa: E402

README = REPO / "README.md"
BEGIN = "<!-- stack-table:begin: rendered by scripts/stack-table.py from tests/lanes/stack_profiles.py; do not edit by hand -->"
END = "<!-- stack-table:end -->"
EXPORTER_IR = 10  # the IR version torch's exporter writes today (lowered for an onnxruntime that loads less)
RUNTIME_DISTS = {"onnxruntime": ("onnxruntime",), "tflite": ("ai-edge-litert", "tflite-runtime"),
                 "tensorrt": ("tensorrt",)}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _tested(profile: StackProfile) -> str:
    pins = dict(profile.expected)
    out = []
    for rt in profile.runtimes:
        dist = next(d for d in RUNTIME_DISTS[rt] if d in pins)
        text = f"{dist} {pins[dist]}"
        limit = ort_onnx_limit(pins[dist]) if rt == "onnxruntime" else None
        if limit is not None:
            text += f" (exported at IR {min(limit.ir, EXPORTER_IR)} / opset {min(limit.opset, DEFAULT_OPSET)})"
        out.append(text)
    return "<br>".join(out) or "—"


def _aarch64(profile: StackProfile) -> str:
    """What of the stack ran as real aarch64 binaries (tests/arm), and what only as an x86 stand-in."""
    pairs = VENVS_BY_STACK.get(profile.name, [])
    if not pairs:
        return "— (an x86 board: its stand-in runs the board's own x86_64 wheels)"
    grouped: dict[tuple[str, str, str], list[str]] = {}  # (Debian, Python, numpy) → runtime releases
    on_arm = set()
    for root, venv in pairs:
        debian = root.os.split(" (")[0].replace("GNU/Linux ", "")
        dists = grouped.setdefault((debian, root.python, venv.numpy), [])
        dists.extend(f"{d} {v}" for d, v in venv.expected if d != "numpy" and f"{d} {v}" not in dists)
        on_arm.update(d for d, v in venv.expected if d != "numpy" and (d, v) in profile.expected)
    rows = []
    for (debian, python, numpy), dists in grouped.items():
        own = " (the board's own)" if python == profile.python_on_board and numpy == profile.numpy else ""
        rows.append(f"{', '.join(dists)} on {debian} arm64, Python {python} / numpy {numpy}{own}")
    x86_only = [] if pairs[0][0].python == profile.python_on_board else [f"Python {profile.python_on_board}"]
    x86_only += [f"{d} {v}" for d, v in profile.expected if d != "numpy" and d not in on_arm]
    if x86_only:
        rows.append("x86 stand-in only: " + ", ".join(x86_only))
    return "<br>".join(rows)


def _install(profile: StackProfile) -> str:
    rows = []
    for rt, how in profile.install:
        untested = "" if rt in profile.runtimes else " (not tested here)"
        rows.append(f"**{rt}**{untested}: {how}")
    return "<br>".join(rows) or "—"


def render() -> str:
    lines = [
        "| board family (OS) | Python / numpy | runtimes that work (the lane deploys every bundled model on each) "
        "| on real aarch64 binaries (qemu-user, `make test-arm`) | how to install them there "
        "| on the board, not testable here |",
        "|---|---|---|---|---|---|",
    ]
    for p in PROFILES:
        missing = ", ".join(u.requirement for u in p.unavailable) or "—"
        lines.append("| " + " | ".join(_cell(c) for c in (
            f"{p.board} ({p.os_release.split(' (')[0]})", f"{p.python_on_board} / {p.numpy}", _tested(p),
            _aarch64(p), _install(p), missing)) + " |")
    return "\n".join(lines) + "\n"


def readme_table(text: str) -> str | None:
    """The table between README's markers, or None when the markers are missing."""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when README's table differs from the rendering")
    ap.add_argument("--print", action="store_true", help="print the table instead of writing README")
    ap.add_argument("--readme", type=Path, default=README)
    args = ap.parse_args(argv)
    table = render()
    if args.print:
        sys.stdout.write(table)
        return 0
    text = args.readme.read_text()
    current = readme_table(text)
    if current is None:
        print(f"{args.readme}: no stack-table markers ({BEGIN!r} ... {END!r}); add them where the table goes",
              file=sys.stderr)
        return 1
    if args.check:
        if current != table:
            print(f"{args.readme}: the stack table differs from tests/lanes/stack_profiles.py; run scripts/stack-table.py",
                  file=sys.stderr)
            return 1
        return 0
    before, rest = text.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    args.readme.write_text(f"{before}{BEGIN}\n{table}{END}{after}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
