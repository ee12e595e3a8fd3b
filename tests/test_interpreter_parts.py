"""The Interpreter's composed parts (docs/ARCHITECTURE.md §3 step 6): a part is an object the
Interpreter holds, not one of its bases, and it reaches the interpreter only through the
interface it declares (a Protocol). Anything else it touches is its own: its methods and the
state it sets up in `__init__`. A new dependency on the interpreter must be declared, which is
what keeps the part readable on its own."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from devicelint.flow.api_calls import ApiCalls, ApiHost
from devicelint.flow.classes import ClassHost, Classes, UserCode, UserCodeHost
from devicelint.flow.flags import DeviceFlags, FlagHost
from devicelint.flow.interpreter import Interpreter
from devicelint.flow.library import Library, LibraryHost
from devicelint.flow.methods import MethodHost, Methods
from devicelint.flow.models import ModelHost, Models
from devicelint.flow.moves import MoveHost, Moves
from devicelint.flow.recording import Recording, RecordingHost
from devicelint.flow.statements import StatementHost, Statements

PARTS = [(DeviceFlags, FlagHost, "flags"), (Models, ModelHost, "models"), (Moves, MoveHost, "moves"),
         (Library, LibraryHost, "library"), (ApiCalls, ApiHost, "api"),
         (Classes, ClassHost, "classes"), (UserCode, UserCodeHost, "user_code"),
         (Recording, RecordingHost, "recording"), (Methods, MethodHost, "methods"),
         (Statements, StatementHost, "statements")]


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


def _interpreter_attributes() -> set:
    """What an Interpreter has: its methods (its own and its mixins') and what `__init__` sets."""
    init = ast.parse(inspect.getsource(Interpreter.__init__).strip())
    return set(dir(Interpreter)) | _self_attributes(init, via_host=False)


def _calls_on(tree: ast.AST, receiver: str) -> set:
    """Names called as `receiver.NAME(...)` (`self.f()` in a mixin, `interp.f()` in a helper)."""
    return {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == receiver}


def test_every_call_on_the_interpreter_names_something_it_has():
    """A method that moved from a mixin onto a part is called through the part (`self.api.f()`,
    `interp.api.f()`): a call left on the interpreter itself (code written before the move,
    merged after it) would be an AttributeError, which the lint of that file turns into an
    internal error and fewer findings. Checked over the mixins and every helper handed the
    interpreter as `interp`."""
    have = _interpreter_attributes()
    mixins = [c for c in Interpreter.__mro__ if c.__module__.startswith("devicelint.")]
    missing = {f"{c.__name__}.{name}" for c in mixins for name in _calls_on(ast.parse(inspect.getsource(c)), "self")
               if name not in have}
    package = Path(inspect.getfile(Interpreter)).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        missing |= {f"{path.name}: interp.{name}" for name in _calls_on(ast.parse(path.read_text(encoding="utf-8")), "interp")
                    if name not in have}
    assert not missing


def _part_calls(tree: ast.AST, receiver: str) -> set:
    """(part, NAME) for each call `<receiver>.<part>.NAME(...)`, where receiver is `self`,
    `self.host` or `interp`."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Attribute) \
                and ast.unparse(n.func.value.value) == receiver:
            out.add((n.func.value.attr, n.func.attr))
    return out


def test_every_call_through_a_part_names_a_method_of_that_part():
    """A method moved onto a part is called through it (`self.methods.call_method()` in a
    mixin, `self.host.methods.current()` in another part, `interp.api.call_api()` in a helper):
    a misspelt or stale name there would be an AttributeError that the lint of that one file
    turns into an internal error and fewer findings. Checked over the Interpreter and its
    mixins, every part, and every helper handed the interpreter as `interp`."""
    parts = {attr: part for part, _, attr in PARTS}
    calls = set()
    for c in [c for c in Interpreter.__mro__ if c.__module__.startswith("devicelint.")]:
        calls |= {(c.__name__, *pc) for pc in _part_calls(ast.parse(inspect.getsource(c)), "self")}
    for part in parts.values():
        calls |= {(part.__name__, *pc) for pc in _part_calls(ast.parse(inspect.getsource(part)), "self.host")}
    package = Path(inspect.getfile(Interpreter)).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        calls |= {(path.name, *pc) for pc in _part_calls(ast.parse(path.read_text(encoding="utf-8")), "interp")}
    assert {(where, attr) for where, attr, _ in calls if attr in parts}, "no call through a part found: the scan is broken"
    missing = {f"{where}: {attr}.{name}" for where, attr, name in calls
               if attr in parts and not callable(getattr(parts[attr], name, None))}
    assert not missing
