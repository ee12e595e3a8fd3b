"""DL002's fix for a dict batch (`batch["label"]` still on the host): move just the entries
the flagged line uses, `batch["label"] = batch["label"].to(device)`, where the batch is
prepared: right after the code's own moves of its other entries (`input_ids =
batch["input_ids"].to(self.device)`), else at the top of the loop over the loader.

The device is the one the same code moves the batch's other entries to (the code's own
choice, and already evaluated there), or, at the top of a loader loop, a variable the
inference proves holds a device (rewrite.device_var). Whole dicts are never rewritten
(their values may be strings or lists); an entry is not moved when the code hands it to
NumPy or moves it to the host, or stores into it, and the dict is never rebound first.
"""

from __future__ import annotations

import libcst as cst

from devicelint import knowledge as kb
from devicelint.rules.dl004_redundant_to.bindonce import Binder, _string_key
from devicelint.flow import walk
from devicelint.names import dotted
from devicelint.rewrite import device_var
from devicelint.rules.base import Insert


def entry_fix(ctx, binder: Binder, node) -> tuple | None:
    """(message, Insert) moving the string-keyed entries of one dict that the flagged
    `node` (a call, operation or comparison) takes as operands; None when not sure."""
    entries = [e for e in (_entry(op) for op in _operands(node)) if e is not None]
    bases = {e.value.value for e in entries}
    if not entries or len(bases) != 1:
        return None
    base = bases.pop()
    container, loop = _container(ctx, binder, node, base)
    if container is None:
        return None
    scope = binder._scope(node)
    anchor = _statement_in(binder, container, node)
    if anchor is None or scope is None:
        return None
    index = container.body.index(anchor)
    device, at = _sibling_device(ctx, binder, container, index, base)
    if device is None and loop is not None:
        contexts = ctx.facts.batch_loops.get(loop, ())
        device = device_var(binder.scopes, loop, [names for names, _batch in contexts])
        at = 0
    if device is None:
        return None
    before = container.body[at]
    if not all(binder._bound_at(before, n) for n in {device.split(".")[0]}):
        return None
    if binder._written_between(scope, [device], binder.span(before)[0], binder.span(anchor)[1]):
        return None
    keys, texts = [], []
    for e in entries:
        key = _string_key(e)
        if key in keys:
            continue
        if _host_use_or_store(binder, container, base, key):
            return None
        keys.append(key)
        texts.append(binder.code(e))
    code = "".join(f"{t} = {t}.to({device})\n" for t in texts)
    shown = ", ".join(f"`{t}`" for t in texts)
    return f"move {shown} to `{device}` where the batch is prepared", Insert(before, code)


def _operands(node) -> list:
    if isinstance(node, cst.Call):
        return [a.value for a in node.args if not a.star]
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.Comparison):
        return [node.left, *(c.comparator for c in node.comparisons)]
    return []


def _entry(expr):
    """`batch["label"]` itself or under shape and dtype methods (`batch["label"].long()`)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in kb.torch_core.KEEPS_PLACE_METHODS:
        expr = expr.func.value
    return expr if _string_key(expr) is not None else None


def _container(ctx, binder: Binder, node, base: str):
    """(the block the moves go into, the loader loop or None): the body of the `for` over a
    loader that binds `base`, or of the function that receives `base` as a parameter."""
    child = node
    for anc in binder.scopes.ancestors(node):
        if isinstance(anc, (cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return None, None
        if isinstance(anc, cst.For) and child is anc.body and anc in ctx.facts.batch_loops:
            if base in {n.value for n in walk(anc.target) if isinstance(n, cst.Name)}:
                if not isinstance(anc.body, cst.IndentedBlock) or _stores(binder, anc.body, base):
                    return None, None
                return anc.body, anc
        if isinstance(anc, cst.FunctionDef):
            params = anc.params
            names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
            _loads, stores, trouble = binder.refs(anc, base)
            if base in names and not stores and not trouble and isinstance(anc.body, cst.IndentedBlock):
                return anc.body, None
            return None, None
        child = anc
    return None, None


def _stores(binder, block, base: str) -> bool:
    return any(True for _ in binder._writes(block, [base]) if isinstance(_, cst.Name))


def _statement_in(binder: Binder, block, node):
    child = node
    for anc in binder.scopes.ancestors(node):
        if anc is block:
            return child
        child = anc
    return None


def _sibling_device(ctx, binder: Binder, block, index: int, base: str):
    """(device text, where to insert) from the code's own moves of `base`'s entries to the
    device in the statements of `block` before the flagged one: after the last of them."""
    found, last = set(), None
    positions = {id(s): i for i, s in enumerate(block.body[:index])}
    for lm in ctx.facts.loader_moves:
        call = lm.node
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "to":
            continue
        recv = call.func.value
        if not (isinstance(recv, cst.Subscript) and isinstance(recv.value, cst.Name) and recv.value.value == base):
            continue
        stmt = _statement_in(binder, block, call)
        if stmt is None or id(stmt) not in positions:
            continue
        dev = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        dev = dev if dev is not None else (positional[0] if positional else None)
        text = dotted(dev) if dev is not None else None
        if text is None:
            return None, None
        found.add(text)
        last = max(last if last is not None else -1, positions[id(stmt)])
    if len(found) != 1:
        return None, None
    return found.pop(), last + 1


def _host_use_or_store(binder: Binder, block, base: str, key: str) -> bool:
    """The block hands `base[key]` to NumPy or the host (`.numpy()`, `.cpu()`, `np.*`), or
    stores into the entry."""
    for n in walk(block):
        if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == base and _string_key(n) == key:
            parent = binder.parent(n)
            if isinstance(parent, cst.Attribute) and parent.value is n and parent.attr.value in kb.torch_core.HOST_ONLY_METHODS:
                return True
            if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)):
                return True
            if isinstance(parent, cst.Arg):
                call = binder.parent(parent)
                head = (dotted(call.func) or "") if isinstance(call, cst.Call) else ""
                if head.split(".")[0] in ("np", "numpy"):
                    return True
    return False
