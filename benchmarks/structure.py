"""Measure the code's shape: cyclomatic complexity per function, and the Interpreter's mixins.

    python benchmarks/structure.py                 # functions above complexity 25, the mixin and part figures
    python benchmarks/structure.py --over 40
    python benchmarks/structure.py --mixins        # and each mixin's lines, calls in and out

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


def _parts(init: ast.FunctionDef, classes: dict) -> dict:
    """The parts the Interpreter holds (`self.flags = DeviceFlags(self)` in `__init__`):
    attribute -> class name, for classes of flow/ handed the interpreter itself."""
    out = {}
    for n in ast.walk(init):
        if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute)
                and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                and n.value.func.id in classes and any(isinstance(a, ast.Name) and a.id == "self" for a in n.value.args)):
            out[n.targets[0].attr] = n.value.func.id
    return out


def _per_mixin(parts: list, classes: dict, cross: collections.Counter) -> str:
    """One line per mixin: its lines, the `self.f()` calls into it from the others and out of it."""
    rows = []
    for p in parts:
        calls_in = sum(v for (_, b), v in cross.items() if b == p)
        calls_out = sum(v for (a, _), v in cross.items() if a == p)
        rows.append(f"  {p:12s} {classes[p].end_lineno - classes[p].lineno + 1:5d} lines  {calls_in:3d} in  {calls_out:3d} out")
    return "\n" + "\n".join(rows)


def mixins(flow: Path, per_mixin: bool = False) -> str:
    """The Interpreter's bases: their lines, methods, and `self.f()` calls from one to another;
    then its parts (objects it holds, each reaching it through a declared interface): their
    lines, the calls into them (`self.part.f()`) and out of them (`self.host.f()`)."""
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
    held = collections.Counter()
    init = owner.get("__init__") == "Interpreter" and next(
        f for f in classes["Interpreter"].body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    composed = _parts(init, classes) if init else {}
    for p in parts:
        for n in ast.walk(classes[p]):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
                continue
            recv = n.func.value
            if isinstance(recv, ast.Name) and recv.id == "self" and owner.get(n.func.attr, p) != p:
                cross[p, owner[n.func.attr]] += 1
            elif (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == "self"
                  and recv.attr in composed):
                held[composed[recv.attr]] += 1
    out = (f"Interpreter: {len(parts) - 1} mixins, {lines} class lines, {len(owner)} methods, "
           f"{sum(cross.values())} self-calls from one mixin to another")
    if per_mixin:
        out += _per_mixin(parts, classes, cross)
    if composed:
        back = sum(1 for c in composed.values() for n in ast.walk(classes[c])
                   if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute)
                   and isinstance(n.value.value, ast.Name) and n.value.value.id == "self" and n.value.attr == "host")
        part_lines = sum(classes[c].end_lineno - classes[c].lineno + 1 for c in composed.values())
        out += (f"\nparts: {len(composed)} ({', '.join(f'self.{a}: {c}' for a, c in sorted(composed.items()))}), "
                f"{part_lines} class lines, {sum(held.values())} calls into them from the mixins, "
                f"{back} uses of their host's interface")
    return out


def largest_classes(root: Path, n: int = 3) -> str:
    rows = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                rows.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(root.parent)} {node.name}"))
    rows.sort(reverse=True)
    over = sum(size > 600 for size, _ in rows)
    return f"classes above 600 lines: {over}; largest: " + ", ".join(f"{w} {size}" for size, w in rows[:n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "devicelint")
    ap.add_argument("--over", type=int, default=25)
    ap.add_argument("--mixins", action="store_true", help="each mixin's lines and calls in and out")
    args = ap.parse_args()
    rows = functions(args.root)
    over = [r for r in rows if r[0] > args.over]
    print(f"{len(rows)} functions; {len(over)} above {args.over}; {sum(c > 40 for c, _ in rows)} above 40")
    for c, where in over:
        print(f"{c:4d}  {where}")
    print(mixins(args.root / "flow", args.mixins))
    print(largest_classes(args.root))


if __name__ == "__main__":
    main()
