"""Which names a file binds anywhere: read once per file, without running anything.

A name the file never binds (no assignment, import, parameter, loop or `with` target, `def`,
`class`, `global`) is undefined there: reading it fails with a NameError where it runs, so the
line either never runs (a dead branch, a function nobody calls) or fails before any device
matters. Either way its spelling (`device`) names no device: the interpreter does not guess one
from it (other guesses by name, such as a loader's, stay: what the loop body does is still the
author's pattern). A file with a star import may bind any name: nothing is undefined there.

A branch under a module toggle (`RANDOM = False` ... `if RANDOM:`) is not pruned: the toggle is
the user's to flip, and what the branch does then is still checked.
"""

from __future__ import annotations

import libcst as cst

from devicelint.flow.nodes import walk
from devicelint.names import dotted


def _target_names(target) -> list[str]:
    if target is None:
        return []
    if isinstance(target, cst.Name):
        return [target.value]
    return [n.value for n in walk(target) if isinstance(n, cst.Name)]


def _import_names(node) -> list[str]:
    if isinstance(node.names, cst.ImportStar):
        return ["*"]
    out = []
    for alias in node.names:
        if alias.asname is not None:
            out.extend(_target_names(alias.asname.name))
        else:
            out.append((dotted(alias.name) or "").split(".")[0])
    return out


def _bound_by(node) -> list[str]:
    """The names one node binds (over-approximated: `x[i] = v` counts `x` and `i`)."""
    if isinstance(node, cst.AssignTarget):
        return _target_names(node.target)
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
        return _target_names(node.target)
    if isinstance(node, cst.AsName):
        return _target_names(node.name)
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
        return [node.name.value]
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        return _import_names(node)
    if isinstance(node, (cst.Global, cst.Nonlocal)):
        return [n.name.value for n in node.names]
    if isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
        return [node.name.value]
    if isinstance(node, cst.MatchMapping) and node.rest is not None:
        return [node.rest.value]
    return []


class Bindings:
    def __init__(self, module: cst.Module) -> None:
        self.counts: dict[str, int] = {}
        for node in walk(module):
            for name in _bound_by(node):
                self.counts[name] = self.counts.get(name, 0) + 1
        self.star = "*" in self.counts

    def undefined(self, name: str) -> bool:
        """Is `name` bound nowhere in the file (and no star import could bind it)?"""
        return not self.star and name not in self.counts


def module_bindings(interp) -> Bindings:
    b = getattr(interp, "_bindings", None)
    if b is None:
        b = interp._bindings = Bindings(interp.module)
    return b
