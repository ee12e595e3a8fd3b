"""In which order a class's methods are run on their own (with unknown parameters), so that
what one method keeps on `self` is known to the methods that read it.

A class is analysed on one shared instance: `__init__` first, then the other methods. In
file order, a method that reads `self.train_loader` may come before the `build_data` that
sets it, and would then see nothing. Python may call them in either order, but a method that
reads an attribute `__init__` never sets can only run after something set it (else it raises
AttributeError), so the setter runs first here (ARCHITECTURE.md §2.5: attributes set anywhere
in the class)."""

from __future__ import annotations

import libcst as cst

from devicelint.flow.nodes import child_nodes


def _self_attrs(fn: cst.FunctionDef) -> tuple[set, set]:
    """(attributes `fn` assigns on `self`, attributes it reads from `self`)."""
    sets, reads = set(), set()
    todo = [fn.body]
    # exact types: LibCST's node classes are final, and an isinstance on them is a call into ABCMeta
    while todo:
        n = todo.pop()
        t = type(n)
        if t in _SCOPES:
            continue  # a nested scope's `self` may be something else
        if t in _ASSIGNS:
            targets = [a.target for a in n.targets] if t is cst.Assign else [n.target]
            for target in targets:
                for el in _flat(target):
                    if is_self_attr(el):
                        sets.add(el.attr.value)
        elif t is cst.Attribute and is_self_attr(n):
            reads.add(n.attr.value)
        todo.extend(child_nodes(n))  # LibCST's `.children` runs a visitor per node
    return sets, reads - sets


_SCOPES = frozenset((cst.FunctionDef, cst.ClassDef, cst.Lambda))
_ASSIGNS = frozenset((cst.Assign, cst.AnnAssign, cst.AugAssign))


def _flat(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _flat(el.value)
    else:
        yield target


def is_self_attr(n) -> bool:
    return type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == "self"


def setup_order(methods: dict) -> list:
    """The methods (name -> FunctionDef, in file order): `__init__` first, then each method in
    file order, preceded by the methods (not yet run) that set an attribute it reads and
    `__init__` does not set."""
    init = methods.get("__init__")
    facts = {name: _self_attrs(fn) for name, fn in methods.items()}
    in_init = facts["__init__"][0] if init is not None else set()
    setters: dict = {}
    for name, (sets, _reads) in facts.items():
        if name != "__init__":
            for attr in sets - in_init:
                setters.setdefault(attr, []).append(name)
    order: list = []
    done: set = set()

    def visit(name: str) -> None:
        if name in done:
            return
        done.add(name)  # before its setters: a cycle of methods keeps file order
        for attr in sorted(facts[name][1] - in_init):
            for setter in setters.get(attr, ()):
                visit(setter)
        order.append(methods[name])

    if init is not None:
        done.add("__init__")
        order.append(init)
    for name in methods:
        visit(name)
    return order
