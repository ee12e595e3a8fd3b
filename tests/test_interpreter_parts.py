"""The Interpreter's composed parts (docs/ARCHITECTURE.md §3 step 6): a part is an object the
Interpreter holds, not one of its bases, and it reaches the interpreter only through the
interface it declares (a Protocol). Anything else it touches is its own: its methods and the
state it sets up in `__init__`. A new dependency on the interpreter must be declared, which is
what keeps the part readable on its own."""

from __future__ import annotations

import ast
import inspect

import pytest

from devicelint.flow.api_calls import ApiCalls, ApiHost
from devicelint.flow.flags import DeviceFlags, FlagHost
from devicelint.flow.interpreter import Interpreter
from devicelint.flow.library import Library, LibraryHost
from devicelint.flow.models import ModelHost, Models
from devicelint.flow.moves import MoveHost, Moves

PARTS = [(DeviceFlags, FlagHost, "flags"), (Models, ModelHost, "models"), (Moves, MoveHost, "moves"),
         (Library, LibraryHost, "library"), (ApiCalls, ApiHost, "api")]


def _declared(host) -> set:
    methods = {n for n, v in vars(host).items() if callable(v) and not n.startswith("__")}
    return methods | set(getattr(host, "__annotations__", {}))


def _self_attributes(tree: ast.AST, via_host: bool) -> set:
    """`self.host.X` names (via_host) or `self.X` names (not via_host) read in a class."""
    out = set()
    for n in ast.walk(tree):
        if not isinstance(n, ast.Attribute):
            continue
        base = n.value
        if via_host and isinstance(base, ast.Attribute) and base.attr == "host" and \
                isinstance(base.value, ast.Name) and base.value.id == "self":
            out.add(n.attr)
        elif not via_host and isinstance(base, ast.Name) and base.id == "self":
            out.add(n.attr)
    return out


@pytest.mark.parametrize("part, host, attr", PARTS, ids=[p.__name__ for p, _, _ in PARTS])
def test_a_part_is_held_not_inherited_and_uses_only_its_declared_interface(part, host, attr):
    assert part not in Interpreter.__mro__
    tree = ast.parse(inspect.getsource(part))
    assert _self_attributes(tree, via_host=True) <= _declared(host)
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    own = {n for n, v in vars(part).items() if callable(v)} | _self_attributes(init, via_host=False)
    assert _self_attributes(tree, via_host=False) <= own
    # the interpreter provides every method the interface declares, and holds the part
    methods = {n for n, v in vars(host).items() if callable(v) and not n.startswith("__")}
    assert all(callable(getattr(Interpreter, n, None)) for n in methods)
    init_source = inspect.getsource(Interpreter.__init__)
    assert f"self.{attr} = {part.__name__}(self)" in init_source
