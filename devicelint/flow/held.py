"""Modules a user `nn.Module` keeps from its constructor's arguments.

`ContentLoss(vgg)` whose `__init__` does `self.features = vgg.features[:26]` builds no weights
of its own, yet it holds `vgg`'s: the same parameter tensors, wherever `vgg` lives. Such an
object is that model under another name (moving either moves both), not a parameter-free
module. Only a part reached from the parameter by attributes and subscripts counts: a call
(`copy.deepcopy(vgg)`, `build(vgg)`) may make something else of it.
"""

from __future__ import annotations

import libcst as cst

from devicelint.values import Kind, Val
from devicelint.flow.nodes import param_names, walk


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
