"""Is the file a program that runs on the host only? A notebook or script that never names a
device and runs its own code: what its modules would do once moved cannot happen in it."""

from __future__ import annotations

import libcst as cst

from devicelint import knowledge as kb
from devicelint import project as pj
from devicelint.flow.classes import places_on_device
from devicelint.flow.nodes import walk
from devicelint.names import dotted



def host_only_program(module: cst.Module, path: str, view=None) -> bool:
    """A notebook, or a script with top-level loops or calls, in which nothing is placed on a
    device and no device is named. A file of definitions may be imported by one that moves its
    modules: not host-only, unless (`view`: the project) it runs its own code from a `__main__`
    block, no other file of the project uses a class or function of it, and the project code
    it hands its objects to never places anything either (`train_mnist(model, optimizer)`)."""
    if path.lower().endswith(".ipynb") or _runs_at_top_level(module):
        return not _names_a_device(module)
    if view is None or not path.endswith(".py") or not _runs_under_main(module) or _names_a_device(module):
        return False
    # only the reads of the project's summaries are guarded (a damaged one: not known, False);
    # this file's own syntax is read outside the guard
    if not pj.read_or(False, _used_only_here, _top_level_names(module), view):
        return False
    return pj.read_or(False, _calls_place_nothing, _calls_given_values(module), view)


def _runs_at_top_level(module: cst.Module) -> bool:
    for stmt in module.body:
        if isinstance(stmt, (cst.For, cst.While)):
            return True
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) for s in stmt.body):
            return True
    return False


def _names_a_device(module: cst.Module) -> bool:
    for n in walk(module):
        if isinstance(n, cst.Call) and places_on_device(n):
            return True
        if isinstance(n, cst.Name) and n.value in kb.torch_core.DEVICE_WORDS:
            return True  # `torch.cuda.is_available()`, `x.cuda()`
        if isinstance(n, cst.SimpleString) and any(w in n.value.lower() for w in kb.torch_core.DEVICE_WORDS):
            return True
    return False


def _runs_under_main(module: cst.Module) -> bool:
    """`if __name__ == "__main__":` at the top level with a call in it (`main()`)."""
    for stmt in module.body:
        if isinstance(stmt, cst.If) and isinstance(stmt.test, cst.Comparison) \
                and dotted(stmt.test.left) == "__name__" and any(isinstance(n, cst.Call) for n in walk(stmt.body)):
            return True
    return False


def _top_level_names(module: cst.Module) -> set:
    return {stmt.name.value for stmt in module.body if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))}


def _used_only_here(names: set, view) -> bool:
    """Does no other file of the project call, read or subclass a function or class of this one?
    False for a project too large to scan."""
    from devicelint import contexts

    table = contexts.project_table(view.store, view.root)
    if table is None:
        return False
    by_name, _hashes = table
    here = view.path
    views: dict = {}  # one view per other file, as contexts.Contexts keeps them
    for name in names:
        for what, cpath, x in by_name.get(name, ()):
            if cpath == here:
                continue
            text = x[1] if what == "site" else x
            other = views.get(cpath) or views.setdefault(cpath, pj.FileView(cpath, view.store))
            sym = other.qualify(cpath, text)
            if sym is not None and sym[0] in ("class", "function") and sym[1] == here:
                view.deps[cpath] = _hashes[cpath]
                return False
    return True


def _literal(node) -> bool:
    return isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def _calls_given_values(module: cst.Module) -> list:
    """The dotted names of the calls given anything but constants (`load_mnist(onehot=False)`
    has nothing of ours to move)."""
    out = []
    for call in walk(module):
        if isinstance(call, cst.Call) and not all(_literal(a.value) for a in call.args):
            text = dotted(call.func)
            if text:
                out.append(text)
    return out


def _calls_place_nothing(calls: list, view) -> bool:
    """Does every call of another project file's code never place anything (project.py's
    never_places), and no call look like a framework that places what it is given?"""
    here = view.path
    for text in calls:
        sym = view.qualify(here, text)
        if sym is None:
            continue
        if sym[0] == "lib" and kb.frameworks.FRAMEWORK_CALL.search(sym[1].rsplit(".", 1)[-1]):
            return False
        if sym[0] == "function" and sym[1] != here and not view.never_places(sym[1], sym[2]):
            return False
        if sym[0] == "class" and sym[1] != here:
            facts = view.class_facts(sym[1], sym[2])
            if facts is None or facts["self_moves"] or facts["framework"]:
                return False
    return True
