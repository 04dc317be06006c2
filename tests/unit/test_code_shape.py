"""The shape docs/architecture.md promises a newcomer: no module in edgeprof/ or agents/ over 600 lines, no
function over 100, no import cycle among edgeprof's modules at import time, no cycle among its packages once
every import is counted — those made inside functions too (a late import is how a heavy dependency is taken, not a
way around the package order) — and every import going from a package's layer (ORDER) to the same or a lower
one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100

# edgeprof's packages and top-level modules in layers, lowest first (docs/architecture.md "Package order"): a
# module imports from its own layer or a lower one, never a higher one, inside functions too. Data flows up
# this list: devices.yaml and a model → records → a measurement on a device → a sweep → a report → the CLI.
ORDER: list[tuple[str, list[str]]] = [
    ("foundation", ["errors", "numfmt", "metrics", "vocab", "interrupts"]),
    ("records and the host's files", ["records", "files", "capability"]),
    ("pure figures, inventory, results database, host model runs", ["analysis", "inventory", "store", "hostrun"]),
    ("reaching devices; exporting models", ["transport", "export"]),
    ("the agent link; evaluating answers", ["agentlink", "evaluation", "generative"]),
    ("the forward-pass measurement on the agent", ["run"]),
    ("phones over adb", ["phone"]),
    ("the device seam", ["session"]),
    ("sweeps, the queue, the lab; calibration tables and predictions", ["lab", "predict"]),
    ("reports", ["report"]),
    ("commands", ["cli"]),
    ("the entry point", ["__main__"]),
]


def _sources() -> list[Path]:
    return sorted(p for root in ("edgeprof", "agents") for p in (REPO / root).rglob("*.py")
                  if "fakes" not in p.parts)


def test_no_module_is_over_600_lines() -> None:
    big = {str(p.relative_to(REPO)): n for p in _sources() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_no_function_is_over_100_lines() -> None:
    long = []
    for p in _sources():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{p.relative_to(REPO)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, long


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: Path, name: str) -> set[str]:
    """edgeprof modules `path` imports when it is imported (module body, not inside functions or TYPE_CHECKING)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("edgeprof."))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                if mod == "edgeprof" or mod.startswith("edgeprof."):
                    found.add(mod)
                    found.update(f"{mod}.{a.name}" for a in node.names)
            elif isinstance(node, ast.If | ast.Try | ast.With):
                for inner in ("body", "orelse", "finalbody", "handlers"):
                    for part in getattr(node, inner, []) or []:
                        visit(part.body if isinstance(part, ast.ExceptHandler) else [part])
    visit(ast.parse(path.read_text()).body)
    return found


def test_edgeprof_has_no_import_cycle() -> None:
    paths = {_module_name(p): p for p in sorted((REPO / "edgeprof").rglob("*.py"))}
    graph = {name: {m for m in _top_level_imports(p, name) if m in paths and m != name} for name, p in paths.items()}
    # importing a.b.c runs a and a.b first: a package's own __init__ is not a cycle with its submodules
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if node.startswith(nxt + "."):
                continue  # a submodule naming its own package: Python has it half-initialised, by design
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name)
    # a package that re-exports its submodules imports them from __init__; submodule → package → submodule
    real = [c for c in cycles
            if not any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in zip(c, c[1:], strict=False))]
    assert not real, "import cycles: " + "; ".join(" → ".join(c) for c in real)


@pytest.mark.parametrize("name", ["edgeprof.run", "edgeprof.records", "edgeprof.lab.scheduler"])
def test_the_graph_sees_the_package_imports(name: str) -> None:
    """The cycle test is not vacuous: the graph holds these modules' edgeprof imports."""
    paths = {_module_name(p): p for p in (REPO / "edgeprof").rglob("*.py")}
    assert _top_level_imports(paths[name], name), name


def test_no_two_test_files_share_a_basename() -> None:
    """pytest imports test files by basename (rootdir-relative, no packages): a second tests/**/test_x.py stops
    the whole run at collection ("import file mismatch") when both halves of the suite are collected together."""
    seen: dict[str, list[str]] = {}
    for p in sorted((REPO / "tests").rglob("test_*.py")):
        seen.setdefault(p.name, []).append(str(p.relative_to(REPO)))
    twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not twice, f"test files sharing a basename (rename one): {twice}"


def _all_imports(path: Path, name: str) -> list[tuple[int, str]]:
    """Every edgeprof module `path` imports, with its line: module body and function bodies alike (only
    TYPE_CHECKING blocks are left out: they never run)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("edgeprof.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                mod = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod == "edgeprof" or mod.startswith("edgeprof."):
                found += [(node.lineno, mod)] + [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return found


def _unit(module: str) -> str:
    """The package-level unit a module belongs to: edgeprof.<package> or a top-level module edgeprof.<module>."""
    return ".".join(module.split(".")[:2])


def package_cycles(root: Path) -> list[list[str]]:
    """The strongly connected groups (2 or more) of edgeprof's packages and top-level modules, every import counted,
    each with the imports that close it ("module:line → module")."""
    base = root / "edgeprof"
    paths = {_module_name_in(root, p): p for p in sorted(base.rglob("*.py"))}
    edges: dict[str, dict[str, list[str]]] = {}
    for name, path in paths.items():
        for line, mod in _all_imports(path, name):
            if mod not in paths:
                continue
            a, b = _unit(name), _unit(mod)
            if a != b and "edgeprof" not in (a, b):
                edges.setdefault(a, {}).setdefault(b, []).append(f"{name}:{line} → {mod}")
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group) + [f"{a} → {b} ({edges[a][b][0]})" for a in sorted(group)
                                               for b in sorted(edges.get(a, {})) if b in group])
    for v in sorted(set(edges) | {b for out in edges.values() for b in out}):
        if v not in index:
            connect(v)
    return groups


def _module_name_in(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_a_cycle_made_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    """The package test is not vacuous: two packages that import each other, one of them only inside a function,
    make a cycle it reports with the import that closes it; a TYPE_CHECKING import makes none."""
    pkg = tmp_path / "edgeprof"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("from ..low import things\n")
    (pkg / "low" / "things.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from edgeprof.high import view\n")
    (pkg / "high" / "view.py").write_text("x = 1\n")
    assert package_cycles(tmp_path) == []
    (pkg / "low" / "things.py").write_text("def late():\n    from ..high import view\n    return view\n")
    groups = package_cycles(tmp_path)
    assert len(groups) == 1 and groups[0][:2] == ["edgeprof.high", "edgeprof.low"], groups
    assert any("edgeprof.low.things:2 → edgeprof.high" in line for line in groups[0]), groups


def _import_edges(root: Path) -> list[tuple[str, str, str]]:
    """(from unit, to unit, "module:line → module") for every import between two of edgeprof's units."""
    base = root / "edgeprof"
    paths = {_module_name_in(root, p): p for p in sorted(base.rglob("*.py"))}
    edges = []
    for name, path in paths.items():
        for line, mod in _all_imports(path, name):
            a, b = _unit(name), _unit(mod)
            if mod in paths and a != b and "edgeprof" not in (a, b):
                edges.append((a, b, f"{name}:{line} → {mod}"))
    return edges


def layer_violations(root: Path, order: list[tuple[str, list[str]]]) -> list[str]:
    """Every import (module body, functions, not TYPE_CHECKING) from a unit to one in a higher layer of `order`,
    as "module:line → module (layer → higher layer)"; and every unit that `order` does not place."""
    layer = {f"edgeprof.{u}": i for i, (_, units) in enumerate(order) for u in units}
    base = root / "edgeprof"
    units = {_unit(_module_name_in(root, p)) for p in base.rglob("*.py")} - {"edgeprof"}
    out = [f"{u} is in no layer of ORDER: add it to the layer it belongs to (docs/architecture.md)"
           for u in sorted(units - set(layer))]
    for a, b, where in _import_edges(root):
        if a in layer and b in layer and layer[b] > layer[a]:
            out.append(f"{where} ({order[layer[a]][0]} → {order[layer[b]][0]}, a higher layer)")
    return out


def test_edgeprof_packages_have_no_cycle() -> None:
    """No two of edgeprof's packages (or top-level modules) import each other, directly or around a loop, even
    through an import made inside a function."""
    groups = package_cycles(REPO)
    assert not groups, "package cycles:\n" + "\n".join("  " + "; ".join(g) for g in groups)


def test_every_import_goes_to_the_same_or_a_lower_layer() -> None:
    problems = layer_violations(REPO, ORDER)
    assert not problems, "imports against the package order (tests/unit/test_code_shape.py ORDER):\n" + \
        "\n".join("  " + p for p in problems)


def test_an_upward_import_inside_a_function_breaks_the_order(tmp_path: Path) -> None:
    """The order test is not vacuous: a low package importing a higher one inside a function is reported with
    its module:line, a package missing from the order is named, and a downward import is fine."""
    pkg = tmp_path / "edgeprof"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("from ..low import things\n")
    (pkg / "low" / "things.py").write_text("x = 1\n")
    (pkg / "high" / "view.py").write_text("x = 1\n")
    order = [("bottom", ["low"]), ("top", ["high"])]
    assert layer_violations(tmp_path, order) == []
    (pkg / "low" / "things.py").write_text("def late():\n    from ..high import view\n    return view\n")
    assert layer_violations(tmp_path, order) == [
        "edgeprof.low.things:2 → edgeprof.high (bottom → top, a higher layer)",
        "edgeprof.low.things:2 → edgeprof.high.view (bottom → top, a higher layer)"]
    (pkg / "extra.py").write_text("")
    assert layer_violations(tmp_path, order)[0].startswith("edgeprof.extra is in no layer of ORDER")


def test_order_names_each_unit_once() -> None:
    named = [u for _, units in ORDER for u in units]
    assert len(named) == len(set(named)), named
