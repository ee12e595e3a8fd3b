"""Containers and their elements (ARCHITECTURE.md §2.2): what a list, tuple or dict holds
after it is grown (`append`, `extend`, `insert`, `update`, `setdefault`, `d[k] = v`), and
what the reducers that take a container of tensors (`sum(losses)`) give back.

Pure functions over `values.Val`: a container is `Kind.SEQ` (`parts` per position where the
code spells them, `elem` the join of every element) or `Kind.MAPPING` (`elem` the join of its
values). The interpreter calls these from its method and builtin dispatch; they decide
nothing about devices themselves, only which element values a container holds, so the
rules see the elements' places wherever they are read back."""

from __future__ import annotations

import libcst as cst

from devicelint.flow.nodes import find
from devicelint.values import OTHER, UNKNOWN, Kind, Val, join

# methods that put their (last) argument into a list, and those that put every element of it
_LIST_ADDS = frozenset({"append", "insert"})
_LIST_SPREADS = frozenset({"extend"})
# dict methods that put values in: `d.update(other)` every value of `other`, `d.setdefault(k, v)` v
_DICT_SPREADS = frozenset({"update"})
_DICT_ADDS = frozenset({"setdefault", "__setitem__"})


def elements(v: Val) -> Val | None:
    """The join of every element a container holds (None: it holds none we know of)."""
    if v.kind not in (Kind.SEQ, Kind.MAPPING):
        return None
    out = v.elem
    for p in v.parts or ():
        out = join(out, p) if out is not None else p
    return out


def spread(v: Val) -> Val:
    """One element of an iterable handed to `extend`/`update`: its elements, or unknown."""
    found = elements(v)
    if found is not None:
        return found
    return OTHER if v.kind is Kind.OTHER else UNKNOWN


def with_element(container: Val, new: Val) -> Val:
    """`container` once it also holds `new`: its positions are no longer known (an append
    adds one at the end, an insert anywhere), its element is the join. What else it carries
    (where a module attribute's list literal was written) is kept."""
    old = elements(container)
    return container.with_(parts=None, elem=_joined_element(old, new) if old is not None else new)


def _joined_element(old: Val, new: Val) -> Val:
    """The element of a list that holds both: where one is a layer with weights and the other
    one without (`self.convs.append(nn.Conv2d(...))` then `.append(nn.ReLU())`), the layer
    with weights speaks for the list: only weights have a place to be wrong about."""
    if old.kind is Kind.MODULE and new.kind is Kind.MODULE and old.param_free != new.param_free:
        return new if old.param_free else old
    return join(old, new)


def grown(container: Val, method: str, args: list) -> Val | None:
    """The container after `container.method(*args)`, when the method puts something in
    (None: it does not, or the call is not one we model)."""
    if not args:
        return None
    if container.kind is Kind.SEQ:
        if method in _LIST_ADDS:
            return with_element(container, args[-1])
        if method in _LIST_SPREADS:
            return with_element(container, spread(args[-1]))
    elif container.kind is Kind.MAPPING:
        if method in _DICT_SPREADS and len(args) == 1:
            return with_element(container, spread(args[0]))
        if method in _DICT_ADDS and len(args) == 2:
            return with_element(container, args[1])
    return None


def empty_list() -> Val:
    """`[]`, `list()`: a list that holds nothing yet."""
    return Val(Kind.SEQ, parts=())


def mapping_of_keywords(values: list) -> Val:
    """`dict()`, `dict(x=t, y=u)`: a mapping holding the keyword arguments' values."""
    elem = None
    for v in values:
        elem = join(elem, v) if elem is not None else v
    return Val(Kind.MAPPING, elem=elem)


def summed(v: Val) -> Val:
    """`sum(losses)` over a container of tensors: a tensor where they are (the start value 0
    is a number, which meets any tensor harmlessly); of numbers, a number; else unknown."""
    elem = elements(v)
    if elem is None:
        return OTHER if v.kind in (Kind.SEQ, Kind.MAPPING) else UNKNOWN
    if elem.kind is Kind.TENSOR:
        return elem.with_(fresh=False, inplace=False, empty=False, attr=None, born=None, loader=None, src=None)
    return OTHER if elem.kind is Kind.OTHER else UNKNOWN


def grow(interp, target, container: Val, method: str, args: list) -> bool:
    """`target.method(*args)` on a container: rebind `target` to what it holds now, and say
    whether the method was one that puts something in. A local name is rebound in place; an
    attribute of `self` goes through the interpreter's binding of attributes (so a plain list
    of layers kept on an `nn.Module` is known as one, as `self.layers = [...]` is); what other
    objects' attributes hold is left alone (binding them would forget the object's moves)."""
    new = grown(container, method, args)
    if new is None:
        return False
    _rebind(interp, target, new)
    return True


def _rebind(interp, target, new: Val) -> None:
    if isinstance(target, cst.Name):
        interp.frame.state.vars[target.value] = new
    elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        interp.statements.bind(target, new)
    elif isinstance(target, cst.Subscript) and isinstance(target.value, (cst.Name, cst.Attribute)):
        # `history["train"].append(err)`: a dict of lists now holds `err` in its lists (one
        # element value for all keys, as for any mapping)
        holder = _held(interp, target.value)
        if holder is not None and holder.kind is Kind.MAPPING and holder.elem is not None \
                and holder.elem.kind is Kind.SEQ:
            _rebind(interp, target.value, holder.with_(elem=new))


def _held(interp, node) -> Val | None:
    """What a name, or an attribute of `self`, holds now (None for anything else)."""
    if isinstance(node, cst.Name):
        return interp.frame.state.vars.get(node.value)
    if isinstance(node.value, cst.Name) and node.value.value == "self":
        return interp.eval(node)
    return None


# builtins that only read a list of layers (iterate it, count it): handing the list to them
# registers nothing
_READERS = frozenset({"enumerate", "zip", "len", "reversed", "iter", "range", "print", "isinstance"})


def lists_handed_on(interp, cls: cst.ClassDef) -> frozenset:
    """Attributes `self.X` a method of `cls` hands to a call other than a reader
    (`nn.Sequential(*self.layers)`, `nn.ModuleList(self.blocks)`, a registering helper): the
    layers in such a plain list may be registered after all, so nothing is said of them."""
    key = ("lists_handed_on", id(cls))
    found = interp.body_cache.get(key)
    if found is None:
        names = set()
        for n in _calls(cls):
            if isinstance(n.func, cst.Name) and n.func.value in _READERS:
                continue
            for a in n.args:
                v = a.value
                if isinstance(v, cst.Attribute) and isinstance(v.value, cst.Name) and v.value.value == "self":
                    names.add(v.attr.value)
        found = interp.body_cache[key] = frozenset(names)
    return found


def _calls(node):
    return find(node, cst.Call)  # from the module's index: LibCST's `.children` runs a visitor per node


def mapping_method(mapping: Val, method: str, args: list) -> Val:
    """What a dict method returns: its pairs, its values, one value (`get`, `pop`, and
    `setdefault`, which may give back the default it now holds); None for the rest."""
    if method == "items":
        return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, mapping.elem or UNKNOWN)))
    if method == "values":
        return Val(Kind.SEQ, elem=mapping.elem or UNKNOWN)
    if method == "setdefault" and len(args) == 2:
        return join(mapping.elem, args[1])
    if method in ("get", "pop", "setdefault"):
        return mapping.elem or UNKNOWN
    return OTHER


def column(row: Val) -> Val:
    """One column of `zip(*rows)`: any of a row's fields (their join)."""
    fields = (row.parts if row.parts else (row.elem,)) if row.kind is Kind.SEQ else ()
    out = None
    for f in fields:
        out = join(out, f)
    return out or UNKNOWN
