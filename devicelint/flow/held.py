"""Modules a user `nn.Module` keeps from its constructor's arguments.

`ContentLoss(vgg)` whose `__init__` does `self.features = vgg.features[:26]` builds no weights
of its own, yet it holds `vgg`'s: the same parameter tensors, wherever `vgg` lives. Such an
object is that model under another name (moving either moves both), not a parameter-free
module. Only a part reached from the parameter by attributes and subscripts counts: a call
(`copy.deepcopy(vgg)`, `build(vgg)`) may make something else of it.
"""

from __future__ import annotations

import libcst as cst

from devicelint import naming
from devicelint.values import Kind, Val
from devicelint.flow.nodes import last_name, param_names, walk


def _root_name(expr) -> str | None:
    """`vgg` of `vgg`, `vgg.features`, `vgg.features[:26]`; None when a call or anything else
    stands between."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def kept_parameters(init: cst.FunctionDef) -> set[str]:
    """The parameters of `__init__` (after `self`) whose value, or a part of it, the object
    keeps as a `self.<name>` attribute."""
    params = {p.name.value for p in param_names(init)[1:]} | {p.name.value for p in init.params.kwonly_params}
    kept = set()
    for n in walk(init):
        if not isinstance(n, cst.Assign):
            continue
        for t in n.targets:
            if isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name) \
                    and t.target.value.value == "self":
                root = _root_name(n.value)
                if root in params:
                    kept.add(root)
    return kept


def _argument_for(init: cst.FunctionDef, name: str, pos: list, kw: dict) -> Val | None:
    if name in kw:
        return kw[name]
    names = [p.name.value for p in param_names(init)[1:]]
    i = names.index(name) if name in names else len(pos)
    return pos[i] if i < len(pos) else None


def handed_model(init: cst.FunctionDef | None, pos: list, kw: dict) -> Val | None:
    """The one model with weights, built in this file, whose parameters the new object keeps
    (the argument of a kept parameter); None when there is none, or more than one."""
    if init is None:
        return None
    models = []
    for name in sorted(kept_parameters(init)):
        v = _argument_for(init, name, pos, kw)
        if v is not None and v.kind is Kind.MODULE and v.mid is not None and not v.param_free:
            models.append(v)
    return models[0] if len(models) == 1 else None


_MOVES = ("to", "cuda")


def _locals_of(fn: cst.FunctionDef) -> set[str]:
    """The parameters of `fn` and the names it assigns."""
    names = {p.name.value for p in (*param_names(fn), *fn.params.kwonly_params)}
    for n in walk(fn):
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name):
            names.add(n.target.value)
    return names


def _moves_to_a_global(fn: cst.FunctionDef) -> bool:
    """`x.to(device)` in `fn` with `device` a module-level name (not a parameter, a local or
    a `self` attribute): the method places its inputs on a device it chose itself."""
    local = _locals_of(fn)
    for n in walk(fn):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "to" \
                and n.args and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value not in local \
                and naming.looks_like_device_name(n.args[0].value.value):
            return True
    return False


def _moves_self(methods: dict) -> bool:
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _MOVES
               and isinstance(n.func.value, cst.Name) and n.func.value.value == "self"
               for fn in methods.values() for n in walk(fn))


def places_its_inputs(methods: dict) -> bool:
    """A class (of a base we cannot see) used as no module (no `forward`, never `self.to()`)
    whose own methods move their inputs to a module-level device: it places what it runs on
    itself, so a model it builds and never moves stays where it was built."""
    if "forward" in methods or "__call__" in methods or _moves_self(methods):
        return False
    return any(_moves_to_a_global(fn) for name, fn in methods.items() if name != "__init__")


def instances_moved(module: cst.Module, cls: cst.ClassDef) -> bool:
    """Does the file move an object of `cls` (`t = Cls(...)` then `t.to(...)`, or
    `Cls(...).cuda()`), or hand the class or an object of it somewhere we cannot follow? Only
    the moves are looked for: a class handed on as a value is judged by its own code."""
    name = cls.name.value
    made = set()
    for n in walk(module):
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call) and last_name(n.value.func) == name:
            made |= {t.target.value for t in n.targets if isinstance(t.target, cst.Name)}
    for n in walk(module):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _MOVES:
            recv = n.func.value
            if (isinstance(recv, cst.Name) and recv.value in made) or (isinstance(recv, cst.Call) and last_name(recv.func) == name):
                return True
    return False
