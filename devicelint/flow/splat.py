"""Which keywords a call's `**name` argument can pass, when the file spells the dict out.

`kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}` then
`DataLoader(data, shuffle=True, **kwargs)` is how the PyTorch examples build their loaders:
the keywords the splat can pass are exactly the dict's keys, so a rule that asks "is
`generator=` given?" need not give up at the `**`. The answer is name-based over the whole
module and all-or-nothing: every binding of the name must be such a dict and every other
use of the name one that cannot add a key (`**name`, `name[...]`, `name.update({...})`,
`name["k"] = v`); a parameter, a loop target, an attribute of that spelling, the dict handed
to a call... anything else means the keys are not known, and the rule stays as careful as
it was.
"""

from __future__ import annotations

import libcst as cst

from devicelint.flow.nodes import is_string


def splat_keywords(module: cst.Module, call: cst.Call) -> frozenset | None:
    """The keywords the `**` arguments of `call` can pass (empty when it has none), or None
    when one of them is not a dict of this file with known keys (or the call has `*args`)."""
    keys: set = set()
    for a in call.args:
        if a.star == "*":
            return None
        if a.star != "**":
            continue
        if isinstance(a.value, cst.Dict):
            found = _dict_keys(a.value)
        elif isinstance(a.value, cst.Name):
            found = _name_keys(module, a.value.value)
        else:
            found = None
        if found is None:
            return None
        keys |= found
    return frozenset(keys)


def _dict_keys(node) -> set | None:
    """The string keys of `{...}`, `dict(k=v, ...)` or `a if c else b` over such dicts."""
    if isinstance(node, cst.Dict):
        keys = set()
        for el in node.elements:
            key = is_string(el.key) if isinstance(el, cst.DictElement) else None
            if key is None:
                return None  # `{**base, ...}` or a computed key
            keys.add(key)
        return keys
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        if any(a.keyword is None for a in node.args):
            return None  # `dict(base, x=1)`, `dict(**base)`
        return {a.keyword.value for a in node.args}
    if isinstance(node, cst.IfExp):
        body, orelse = _dict_keys(node.body), _dict_keys(node.orelse)
        return None if body is None or orelse is None else body | orelse
    return None


def _name_keys(module: cst.Module, name: str) -> set | None:
    uses = _Uses(name)
    module.visit(uses)
    if uses.unknown or not uses.bound or uses.accounted != uses.total:
        return None
    return uses.keys


class _Uses(cst.CSTVisitor):
    """Counts every `Name` spelling `name`, and the ones whose use is known not to add a key."""

    def __init__(self, name: str):
        self.name = name
        self.total = 0
        self.accounted = 0
        self.keys: set = set()
        self.bound = False
        self.unknown = False

    def _is(self, node) -> bool:
        return isinstance(node, cst.Name) and node.value == self.name

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.total += 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if self._is(t.target):
                keys = _dict_keys(node.value)
                if keys is None:
                    self.unknown = True
                    return
                self.keys |= keys
                self.bound = True
                self.accounted += 1
            elif isinstance(t.target, cst.Subscript) and self._is(t.target.value):
                key = _subscript_key(t.target)
                if key is None:
                    self.unknown = True
                    return
                self.keys.add(key)  # the Name itself is counted as a subscript below

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.star == "**" and self._is(node.value):
            self.accounted += 1

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # a read `name["k"]` (a store is counted by its assignment, which also adds the key)
        if self._is(node.value):
            self.accounted += 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and self._is(func.value) and func.attr.value == "update":
            keys = _dict_keys(node.args[0].value) if len(node.args) == 1 and not node.args[0].keyword else None
            if keys is None:
                self.unknown = True
                return
            self.keys |= keys
            self.accounted += 1


def _subscript_key(node: cst.Subscript) -> str | None:
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return is_string(node.slice[0].slice.value)
    return None
