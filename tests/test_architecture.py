"""The package's import graph has no cycle, counting the imports made inside functions (which
Python never trips on, and which hid `engine -> edits -> fix -> notebook -> engine`). An edge
is one file naming another module of the package; the parent package's `__init__.py`, which
Python also runs, is not counted (every package that re-exports its parts would be a loop)."""

from __future__ import annotations

import ast
from pathlib import Path

import devicelint

PACKAGE = Path(devicelint.__file__).resolve().parent


def _module_file(name: str) -> Path | None:
    """The file of `devicelint.a.b`: a/b.py, or a/b/__init__.py."""
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path) -> set[Path]:
    """The package files one file imports, anywhere in it (a function-local import too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from devicelint.x import y`: the submodule x.y when there is one, else x itself
            names = [f"{node.module}.{a.name}" if _module_file(f"{node.module}.{a.name}") else node.module
                     for a in node.names]
        for name in names:
            if name == "devicelint" or not name.startswith("devicelint."):
                continue
            target = _module_file(name)
            if target is not None and target != path:
                out.add(target)
    return out


def cycles(graph: dict) -> list[list]:
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_package():
    graph = {p: _imports(p) for p in PACKAGE.rglob("*.py")}
    named = [[p.relative_to(PACKAGE.parent).as_posix() for p in comp] for comp in cycles(graph)]
    assert named == []
