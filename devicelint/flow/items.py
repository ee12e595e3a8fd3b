"""Where a dataset's items are, position by position: the value a loader's batches, `next(iter(loader))`
and `dataset[i]` take from the dataset's `__getitem__` (docs/ARCHITECTURE.md §2.7).

An item is known only where `__getitem__` visibly places it: `return x.to(device), y.cuda()`, or a
local bound once to such a move. Every other position stays unknown (no host guess: the host
default of an unseen dataset is the loader's, not the item's). Pure functions over LibCST (the
imported files' classes: summary._item, read by crossfile.item_of_summary); the interpreter
attaches the result to the dataset value as its `elem`.
"""

from __future__ import annotations

import libcst as cst

from devicelint.values import UNKNOWN, Dev, Kind, Val
from devicelint.flow.nodes import find

_ON_DEVICE = Val(Kind.TENSOR, Dev.ACCEL)


def of_getitem(fn: cst.FunctionDef | None, places_on_device) -> Val | None:
    """The item value `fn` (a `__getitem__`) returns on every path, when one of its positions
    is placed on the device; None when nothing is known (today's dataset-wide answer stands)."""
    if fn is None or find(fn, cst.FunctionDef)[1:] or find(fn, cst.Lambda) or find(fn, cst.Yield):
        return None  # nested code or a generator: its returns are not the item's
    returns = find(fn, cst.Return)
    if not returns or any(r.value is None for r in returns):
        return None
    bound = _bound_once(fn)
    items = [_shape(r.value, bound, places_on_device) for r in returns]
    first = items[0]
    if first is None or any(i != first for i in items[1:]):
        return None
    return first if _holds_device(first) else None


def _bound_once(fn: cst.FunctionDef) -> dict:
    """Locals assigned exactly once in `fn` (by a plain `name = value`), to their value."""
    seen: dict = {}
    for a in find(fn, cst.Assign):
        for t in a.targets:
            for n in find(t.target, cst.Name):
                seen.setdefault(n.value, []).append(a.value if t.target is n else None)
    for n in find(fn, cst.AugAssign) + find(fn, cst.AnnAssign) + find(fn, cst.For) + find(fn, cst.NamedExpr):
        for name in find(n.target, cst.Name):
            seen.setdefault(name.value, []).extend([None, None])
    return {k: v[0] for k, v in seen.items() if len(v) == 1 and v[0] is not None}


def _shape(e: cst.BaseExpression, bound: dict, places_on_device) -> Val | None:
    """One returned expression: a tuple/list of positions, a dict literal of keys (its values
    joined), or a single position."""
    if isinstance(e, (cst.Tuple, cst.List)):
        if any(isinstance(el, cst.StarredElement) for el in e.elements):
            return None
        return Val(Kind.SEQ, parts=tuple(_place(el.value, bound, places_on_device) for el in e.elements))
    if isinstance(e, cst.Dict):
        if any(not isinstance(el, cst.DictElement) for el in e.elements):
            return None
        places = {_place(el.value, bound, places_on_device) for el in e.elements}
        return Val(Kind.MAPPING, elem=places.pop()) if len(places) == 1 else None
    return _place(e, bound, places_on_device)


def _place(e: cst.BaseExpression, bound: dict, places_on_device) -> Val:
    if isinstance(e, cst.Name) and e.value in bound:
        e = bound[e.value]
    if isinstance(e, cst.Call) and places_on_device(e):
        return _ON_DEVICE
    return UNKNOWN


def _holds_device(item: Val) -> bool:
    if item.kind is Kind.SEQ:
        return any(p.dev is Dev.ACCEL for p in item.parts or ())
    if item.kind is Kind.MAPPING:
        return item.elem is not None and item.elem.dev is Dev.ACCEL
    return item.dev is Dev.ACCEL


def of_tensors(tensors: list) -> Val | None:
    """`TensorDataset(x, y)`: each position is where its tensor is (on the device, on the host,
    or unknown), when one is on the device and the others are not all there too (that case is
    the dataset's own place)."""
    parts = tuple(_position(t) for t in tensors)
    return Val(Kind.SEQ, parts=parts) if any(p.dev is Dev.ACCEL for p in parts) else None


_ON_HOST = Val(Kind.TENSOR, Dev.CPU)


def _position(t: Val) -> Val:
    """Where one position's tensor is: the device, the host (an item of the loader: `labelled`
    names it), or unknown."""
    if t.kind is not Kind.TENSOR or t.dev is Dev.UNKNOWN:
        return UNKNOWN
    return _ON_DEVICE if t.dev is Dev.ACCEL else _ON_HOST


def of_list(elem: Val | None) -> Val | None:
    """`DataLoader(list(zip(x, y)))`: a Python list's items are its elements, and the default
    collate stacks each position where it is. Known only where an element holds a tensor on
    the device (a list of unknown things keeps the loader's host default)."""
    if elem is None:
        return None
    if elem.kind is Kind.TENSOR:
        return _ON_DEVICE if elem.dev is Dev.ACCEL else None
    if elem.kind is Kind.SEQ and elem.parts:
        return of_tensors(list(elem.parts))
    return None


def labelled(item: Val, loader: str, src) -> Val:
    """An item as a batch of the loader (or dataset) named `loader`: its host positions are
    that loader's tensors still on the host (what DL002 reports, by the loader's name)."""
    if item.kind is Kind.SEQ and item.parts:
        return item.with_(parts=tuple(labelled(p, loader, src) for p in item.parts))
    if item.kind is Kind.TENSOR and item.dev is Dev.CPU and item.loader is None:
        return Val(Kind.TENSOR, Dev.CPU, loader=loader, src=src)
    return item


def joined(items: list) -> Val | None:
    """`ConcatDataset([a, b])`: the item every part agrees on, else nothing known."""
    if not items or any(i is None or i != items[0] for i in items):
        return None
    return items[0]
