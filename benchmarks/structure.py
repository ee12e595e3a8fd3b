"""Measure the code's shape: cyclomatic complexity per function, and the Interpreter's mixins.

    python benchmarks/structure.py                 # functions above complexity 25, the mixin figures
    python benchmarks/structure.py --over 40

Standard library only (`ast`). Complexity is McCabe's, counted as radon counts it: 1 + one per
`if`/`elif`, loop, `except`, conditional expression, `assert`, comprehension (and each of its
`if`s), `case`, and each extra operand of `and`/`or`. docs/ARCHITECTURE.md quotes these figures.
"""

from __future__ import annotations

import argparse
import ast
import collections
from pathlib import Path

_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.IfExp, ast.ExceptHandler, ast.Assert, ast.match_case)


def complexity(fn: ast.AST) -> int:
    n = 1
    for node in ast.walk(fn):
        if isinstance(node, _BRANCHES):
            n += 1
        elif isinstance(node, ast.comprehension):
            n += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
    return n


def functions(root: Path) -> list[tuple[int, str]]:
    rows = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                rows.append((complexity(node), f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"))
    return sorted(rows, reverse=True)


def mixins(flow: Path) -> str:
    """The Interpreter's bases: their lines, methods, and `self.f()` calls from one to another."""
    classes = {}
    for path in sorted(flow.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = node
    if "Interpreter" not in classes:
        return "no Interpreter class in " + str(flow)
    parts = [b.id for b in classes["Interpreter"].bases if isinstance(b, ast.Name)] + ["Interpreter"]
    owner = {f.name: p for p in parts for f in classes[p].body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    lines = sum(classes[p].end_lineno - classes[p].lineno + 1 for p in parts)
    cross = collections.Counter()
    for p in parts:
        for n in ast.walk(classes[p]):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                    and n.func.value.id == "self" and owner.get(n.func.attr, p) != p):
                cross[p, owner[n.func.attr]] += 1
    return (f"Interpreter: {len(parts) - 1} mixins, {lines} class lines, {len(owner)} methods, "
            f"{sum(cross.values())} self-calls from one mixin to another")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "devicelint")
    ap.add_argument("--over", type=int, default=25)
    args = ap.parse_args()
    rows = functions(args.root)
    over = [r for r in rows if r[0] > args.over]
    print(f"{len(rows)} functions; {len(over)} above {args.over}; {sum(c > 40 for c, _ in rows)} above 40")
    for c, where in over:
        print(f"{c:4d}  {where}")
    print(mixins(args.root / "flow"))


if __name__ == "__main__":
    main()
