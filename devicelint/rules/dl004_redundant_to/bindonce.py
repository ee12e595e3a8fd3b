"""DL004's fixes for a value moved to the device again and again: move it once, bind the
result, and let the later moves read the binding.

Three shapes, each offered only when the code around proves the rewrite keeps what every
use sees:

- a plain name moved twice (`model(x.to(device))` then `criterion(out, x.to(device))`), or
  moved on every iteration of a loop it does not change in: `x = x.to(device)` goes before
  the statement of the first move (or before the outermost loop in which neither `x` nor
  the device changes), and the moves it reaches become `x`;
- a dict entry moved twice (`batch["label"].to(self.device)`): a new local named after the
  key (`labels = batch["label"].to(self.device)`) goes before the first move;
- a parameter moved on every iteration in each function it is handed to
  (`train(model, loader, device, class_weights)`): where every caller makes it
  (`class_weights = compute(...)`) and hands it only to such functions, together with the
  device they move it to, it is moved once there and the functions use it as it is.

The checks are on the code, not the inference: a rebinding must reach only loads that are
the same move (`.to()` of a tensor already there returns it), no store may come between,
no nested function or lambda may read the name, and the device must be bound where the
move now runs. When in doubt: no fix.
"""

from __future__ import annotations

import builtins
import keyword

import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow import child_nodes, walk
from devicelint.flow.nodes import is_string
from devicelint.names import dotted
from devicelint.rewrite import Scopes, bound_names, certainly_bound, stmt_binds
from devicelint.rules.base import Insert

_LOOPS = (cst.For, cst.While)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_CONSTANTS = {"True", "False", "None"}
# dict methods that only read
_READS = {"get", "keys", "values", "items", "copy", "__getitem__", "__contains__"}
_MAX_FUNCTIONS = 8  # a parameter handed on through more functions than this: no fix


class Plan:
    def __init__(self, message: str, parts: list) -> None:
        self.message = message
        self.parts = tuple(parts)


class Binder:
    """The plans of one module (its parents and node order are built once)."""

    def __init__(self, module: cst.Module, line=None, scopes=None) -> None:
        self.module = module
        self.line = line or (lambda _node: 0)  # a node's line, for messages
        self.scopes = scopes or Scopes(module)  # the lint's own (engine.Context.scopes), when given
        self._span: dict | None = None
        self._text: dict = {}

    # ------------------------------------------------------------------ order and text

    def span(self, node) -> tuple[int, int]:
        """(first, past-last) pre-order index of `node`'s subtree: source order for statements."""
        if self._span is None:
            self._span = {}
            counter = 0
            stack = [(self.module, False)]
            while stack:
                n, done = stack.pop()
                if done:
                    self._span[id(n)] = (self._span[id(n)], counter)
                    continue
                self._span[id(n)] = counter
                counter += 1
                stack.append((n, True))
                stack.extend((c, False) for c in reversed(child_nodes(n)))
        return self._span[id(node)]

    def code(self, node) -> str:
        text = self._text.get(id(node))
        if text is None:
            text = self._text[id(node)] = self.module.code_for_node(node)
        return text

    def parent(self, node):
        return self.scopes.parent(node)

    def statement_of(self, node):
        """The statement holding `node` that sits directly in a block's body, or None (a
        one-line suite `if a: b`, a lambda, comprehension, default or decorator on the way)."""
        child = node
        for anc in self.scopes.ancestors(node):
            if isinstance(anc, (cst.IndentedBlock, cst.Module)):
                return child if isinstance(child, cst.BaseStatement) else None
            if isinstance(anc, (cst.SimpleStatementSuite, *_NESTED)):
                return None
            child = anc
        return None

    def block_of(self, stmt):
        return self.parent(stmt)

    # ------------------------------------------------------------------ names in a scope

    def refs(self, scope, name: str):
        """(loads, stores, trouble) of `name` directly in `scope` (a FunctionDef or the
        Module): Name nodes read and written; trouble when a nested scope mentions it
        without binding it itself, or `global` / `nonlocal` / `del` touch it."""
        loads, stores, trouble = [], [], False
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        stack = [(c, body) for c in child_nodes(body)]
        targets: set = set()
        while stack:
            n, parent = stack.pop()
            if isinstance(n, _NESTED):
                if _free_read(n, name):
                    trouble = True
                if isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n.name.value == name:
                    stores.append(n.name)
                continue
            if isinstance(n, (cst.Global, cst.Nonlocal)) and any(i.name.value == name for i in n.names):
                trouble = True
            elif isinstance(n, cst.Del) and _mentions(n.target, name):
                trouble = True
            for t in _store_targets(n):
                targets.add(id(t))
            if isinstance(n, cst.Name) and n.value == name:
                if id(n) in targets:
                    stores.append(n)
                elif not _not_a_reference(n, parent):
                    loads.append(n)
                    if isinstance(parent, cst.AugAssign) and parent.target is n:
                        stores.append(n)
            stack.extend((c, n) for c in child_nodes(n))
        return loads, stores, trouble

    def move_of(self, load, text: str):
        """The move `load.to(...)` whose code is `text`, when `load` is its receiver."""
        attr = self.parent(load)
        if not (isinstance(attr, cst.Attribute) and attr.value is load):
            return None
        call = self.parent(attr)
        if isinstance(call, cst.Call) and call.func is attr and self.code(call) == text:
            return call
        return None

    def _dominated(self, node, stmt) -> bool:
        """`node` runs only after `stmt`'s start: it lies in `stmt` or in a later statement
        of the same block, or, when `stmt` sits in the body of a `with torch.no_grad():` (a
        context manager that never swallows an exception), in a later statement after it."""
        chain, cur = [], stmt
        while True:
            block = self.block_of(cur)
            chain.append((block, cur))
            owner = self.parent(block)
            if not (isinstance(owner, cst.With) and owner.body is block and _transparent(owner)):
                break
            cur = owner
        for level, (block, at) in enumerate(chain):
            child = node
            for anc in self.scopes.ancestors(node):
                if anc is block:
                    index = {id(s): i for i, s in enumerate(anc.body)}
                    here, there = index.get(id(child), -1), index[id(at)]
                    if here > there or (here == there and level == 0):
                        return True
                    break
                child = anc
        return False

    def _scope(self, node):
        scope = self.scopes.scope_of(node)
        return scope if isinstance(scope, (cst.FunctionDef, cst.Module)) else None

    def _device_texts(self, move: cst.Call) -> list | None:
        """How the move's arguments spell what they read (`device`, `self.device`); None
        when an argument is more than a name, an attribute chain or a literal."""
        texts = []
        for a in move.args:
            if a.star:
                return None
            v = a.value
            if isinstance(v, (cst.SimpleString, cst.Integer)):
                continue
            text = dotted(v)
            if text is None:
                return None
            if text not in _CONSTANTS:
                texts.append(text)
        return texts

    def _bound_at(self, stmt, name: str, read=None) -> bool:
        """`name` is bound when `stmt` runs: rewrite.certainly_bound, the target of a `for`
        loop whose body holds `stmt`, or read by `read` (the move itself), which `stmt`
        always evaluates before anything in it could bind the name."""
        if certainly_bound(self.scopes, stmt, name):
            return True
        if read is not None and self._always_evaluated(read, stmt) and not _binds_inside(stmt, name):
            return True
        scope = self._scope(stmt)
        child = stmt
        for anc in self.scopes.ancestors(stmt):
            if anc is scope:
                break
            if isinstance(anc, cst.For) and child is anc.body and name in _target_ids(anc.target):
                return True
            child = anc
        return False

    def _always_evaluated(self, node, stmt) -> bool:
        """Running `stmt` evaluates `node`: no branch (`a if c else b`, `and` / `or`),
        lambda, comprehension or body of a compound statement lies between them."""
        child = node
        for anc in self.scopes.ancestors(node):
            if anc is stmt:
                return not isinstance(anc, cst.BaseCompoundStatement) or child is not getattr(anc, "body", None)
            if isinstance(anc, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                                cst.BaseSuite, cst.IfExp)) and not (isinstance(anc, cst.IfExp) and child is anc.test):
                return False
            if isinstance(anc, cst.BooleanOperation) and child is not anc.left:
                return False
            child = anc
        return False

    def _loops_around(self, node, scope) -> list:
        out = []
        for anc in self.scopes.ancestors(node):
            if anc is scope:
                break
            if isinstance(anc, _LOOPS):
                out.append(anc)
        return out

    def _changes_in(self, loop, text: str) -> bool:
        """The loop (header, body, else) rebinds `text` (`device`, `self.device`) or
        something it is read through (`self`), or changes a name in place (`x[i] = ...`)."""
        return any(True for _ in self._writes(loop, [text]))

    def _writes(self, root, texts):
        """(node, when) for the writes under `root` of one of `texts` or of what it is read
        through; `when` is where the write happens in node order: an assignment writes after
        its value is computed (`x = (m.to(x.device) * a) + x` reads the old `x.device`)."""
        roots = {t.split(".")[0] for t in texts}
        for n in walk(root):
            when = self.span(n)[1] - 1 if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
            for t in _store_targets(n):
                at = when if when is not None else self.span(t)[0]
                if isinstance(t, cst.Subscript):
                    head = t
                    while isinstance(head, (cst.Attribute, cst.Subscript)):
                        head = head.value
                    if isinstance(head, cst.Name) and head.value in roots:
                        yield t, at
                    continue
                written = dotted(t)
                if written is not None and any(x == written or x.startswith(written + ".") for x in texts):
                    yield t, at

    def _written_between(self, scope, texts, start, stop) -> bool:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        return any(start <= at < stop for _t, at in self._writes(body, texts))

    # ------------------------------------------------------------------ plain names

    def rebind(self, move: cst.Call, first: cst.Call | None) -> Plan | None:
        """`x = x.to(d)` once, the later identical moves read `x`. `first`: the earlier move
        of a repeated one; None for a move made on every iteration of a loop (hoisted)."""
        recv = move.func.value
        if not isinstance(recv, cst.Name):
            return None
        name, scope = recv.value, self._scope(move)
        if scope is None or (first is not None and self._scope(first) is not scope):
            return None
        devices = self._device_texts(move)
        if devices is None or name in {d.split(".")[0] for d in devices}:
            return None
        text = self.code(move)
        stmt = self._bind_point(move, first, scope, name, devices)
        if stmt is None:
            return None
        loads, stores, trouble = self.refs(scope, name)
        if trouble:
            return None
        start = self.span(stmt)[0]
        end = self._region_end(scope, stmt, name)
        replaced = self._replaced_moves(scope, stmt, name, text, loads, end)
        if replaced is None or any(start <= self.span(s)[0] < end for s in stores):
            return None
        if move not in replaced:
            return None
        where = "before the loop" if first is None else "once"
        return self._bind_once(scope, devices, stmt, replaced, name, text,
                               f"move `{name}` {where} (`{name} = {text}`) and use `{name}`")

    def _bind_point(self, move, first, scope, name, devices):
        """The statement before which `name = <move>` goes: the one holding `first` (the
        same move, earlier), or the loop it is hoisted out of; None where a name the move
        reads is not bound yet there."""
        if first is not None:
            if self.code(first) != self.code(move):
                return None
            stmt = self.statement_of(first)
        else:
            stmt = self._hoist_point(move, scope, name, devices)
        if stmt is None or not all(self._bound_at(stmt, n, first) for n in _roots([name, *devices])):
            return None
        return stmt

    def _replaced_moves(self, scope, stmt, name, text, loads, end):
        """The moves `text` of `name` that read the name bound at `stmt` instead; None when a
        use it reaches is no such move."""
        start = self.span(stmt)[0]
        loops = self._loops_around(stmt, scope)
        replaced = []
        for load in loads:
            at = self.span(load)[0]
            inside = start <= at < end
            if not inside and not any(self._within(load, lp) and not self._protected(load, lp, stmt, name) for lp in loops):
                continue
            call = self.move_of(load, text)
            if call is None:
                return None  # a use that would see the device tensor instead of the host one
            if inside and self._dominated(call, stmt):
                replaced.append(call)
        return replaced

    def _hoist_point(self, move, scope, name, devices):
        """The outermost loop around `move` in which neither `name` nor the device changes."""
        best = None
        for loop in self._loops_around(move, scope):
            if any(self._changes_in(loop, n) for n in [name, *devices]):
                break
            best = loop
        if best is None or self.statement_of(best) is not best:
            return None
        return best

    def _region_end(self, scope, stmt, name) -> float:
        """Where a plain `name = ...` at the top level of the scope, after the statement
        holding `stmt`, starts a new value that no fix reaches."""
        top = stmt
        for anc in self.scopes.ancestors(stmt):
            if anc is scope or (isinstance(anc, cst.IndentedBlock) and self.parent(anc) is scope):
                break
            top = anc
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
        after = False
        for s in body:
            if s is top:
                after = True
                continue
            if after and _plain_assign(s, name) and not _mentions(s.body[0].value, name):
                return self.span(s)[0]
        return float("inf")

    def _within(self, node, loop) -> bool:
        lo, hi = self.span(loop)
        return lo <= self.span(node)[0] < hi

    def _protected(self, load, loop, stmt, name) -> bool:
        """A load in `loop` before `stmt` still sees a fresh host value on every iteration:
        the loop's own target rebinds it, or a plain assignment on the way to `stmt` does
        before the load. (Only asked for the innermost enclosing loop of `stmt` holding `load`.)"""
        inner = next((lp for lp in self._loops_around(stmt, self._scope(stmt)) if self._within(load, lp)), None)
        if inner is not loop:
            return True  # judged for the innermost such loop
        if isinstance(loop, cst.For) and _mentions(loop.target, name):
            return True
        at = self.span(load)[0]
        child = stmt
        for anc in self.scopes.ancestors(stmt):
            if isinstance(anc, (cst.IndentedBlock, cst.Module)):
                for s in anc.body:
                    if s is child:
                        break
                    if stmt_binds(s, name) and self.span(s)[1] <= at:
                        return True
            if anc is loop:
                break
            child = anc
        return False

    # ------------------------------------------------------------------ dict entries

    def bind_entry(self, move: cst.Call, first: cst.Call) -> Plan | None:
        """`labels = batch["label"].to(d)` before the first of two identical moves of a
        string-keyed entry; the moves it reaches read `labels`."""
        recv = move.func.value
        key = _string_key(recv)
        scope = self._scope(move)
        if key is None or scope is None or self._scope(first) is not scope:
            return None
        base = recv.value.value
        text = self.code(move)
        devices = self._device_texts(move)
        if devices is None or self.code(first) != text or base in _roots(devices):
            return None
        stmt = self.statement_of(first)
        if stmt is None or not all(self._bound_at(stmt, n, first) for n in _roots([base, *devices])):
            return None
        local = self._fresh_name(scope, key)
        if local is None:
            return None
        start = self.span(stmt)[0]
        stop = self._first_change(scope, base, key, text, start)
        candidates = []
        for n in walk(scope.body if isinstance(scope, cst.FunctionDef) else scope):
            if isinstance(n, cst.Call) and self.code(n) == text and start <= self.span(n)[0] < stop:
                if self._dominated(n, stmt) and self._scope(n) is scope:
                    candidates.append(n)
        if move not in candidates or first not in candidates:
            return None
        return self._bind_once(scope, devices, stmt, candidates, local, text,
                               f"move `{self.code(recv)}` once (`{local} = {text}`) and use `{local}`")

    def _bind_once(self, scope, devices, stmt, moves: list, local: str, text: str, message: str) -> Plan | None:
        """The plan that binds `local = text` before `stmt` and reads `local` at each of
        `moves`; None where a device variable the move reads is written in between (the
        moves would then go to different devices)."""
        last = max(self.span(c)[1] for c in moves)
        if self._written_between(scope, devices, self.span(stmt)[0], last):
            return None
        parts = [(c, _to_name(local)) for c in moves]
        parts.append(Insert(stmt, f"{local} = {text}\n"))
        return Plan(message, parts)

    def _first_change(self, scope, base: str, key: str, text: str, start: int) -> float:
        """Where, after `start`, the entry `base[key]` may hold another value or be changed
        in place: a store of the name, of that entry or of an entry we cannot name, the dict
        or the entry handed to a call or a method that may write, any other use."""
        loads, stores, trouble = self.refs(scope, base)
        if trouble:
            return start
        at = [self.span(s)[0] for s in stores]
        for load in loads:
            if not self._reads_only(load, key, text):
                at.append(self.span(load)[0])
        later = [a for a in at if a >= start]
        return min(later) if later else float("inf")

    def _reads_only(self, load, key: str, text: str) -> bool:
        parent = self.parent(load)
        if isinstance(parent, cst.Arg) and parent.star == "**":
            return True  # `model(**batch)` unpacks a copy of the dict
        if isinstance(parent, cst.Attribute) and parent.value is load:
            return parent.attr.value in _READS and isinstance(self.parent(parent), cst.Call)
        if not (isinstance(parent, cst.Subscript) and parent.value is load):
            return False
        holder = self.parent(parent)
        if isinstance(holder, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
                isinstance(holder, cst.AnnAssign) and holder.target is parent):
            return _string_key(parent) not in (None, key)  # another entry stored: ours stays
        entry = _string_key(parent)
        if entry != key:
            return entry is not None
        if isinstance(holder, cst.Attribute) and holder.value is parent:
            call = self.parent(holder)
            if isinstance(call, cst.Call) and call.func is holder:
                return self.code(call) == text or not holder.attr.value.endswith("_")
        return False

    def _fresh_name(self, scope, key: str) -> str | None:
        """`labels` (or `label`) for the key "label": a name the module never uses."""
        plural = key if key.endswith("s") else key + "s"
        used = self._used_names()
        for name in dict.fromkeys((plural, key)):
            if (name.isidentifier() and not keyword.iskeyword(name) and not keyword.issoftkeyword(name)
                    and not hasattr(builtins, name) and name not in used
                    and name not in bound_names(self.module)
                    and (not isinstance(scope, cst.FunctionDef) or name not in bound_names(scope))):
                return name
        return None

    def _used_names(self) -> set:
        used = getattr(self, "_used", None)
        if used is None:
            used = self._used = set()
            stack = [(self.module, None)]
            while stack:
                n, parent = stack.pop()
                if isinstance(n, cst.Name) and not _not_a_reference(n, parent):
                    used.add(n.value)
                stack.extend((c, n) for c in child_nodes(n))
        return used

    # ------------------------------------------------------------------ parameters

    def from_callers(self, move: cst.Call) -> Plan | None:
        """A parameter moved on every iteration in each function it is handed to: move it
        once where every caller makes it. None unless the whole chain is seen and plain."""
        recv = move.func.value
        fn = self._scope(move)
        if not isinstance(recv, cst.Name) or not isinstance(fn, cst.FunctionDef) or self.parent(fn) is not self.module:
            return None
        text_of = {}  # FunctionDef -> (param, device param, the move's text)
        todo = [(fn, recv.value, move)]
        callers: dict = {}  # (caller scope, its variable) -> (definition statement, device name)
        while todo:
            f, param, sample = todo.pop()
            if f in text_of:
                if text_of[f][0] != param:
                    return None
                continue
            if len(text_of) >= _MAX_FUNCTIONS:
                return None
            device = self._param_device(f, param, sample)
            if device is None:
                return None
            text_of[f] = (param, device, self.code(sample))
            for call in self._calls_of(f):
                if call is None:
                    return None
                args = _bind_args(f, call)
                if args is None or not isinstance(args.get(param), cst.Name) or not isinstance(args.get(device), cst.Name):
                    return None
                var, dv = args[param].value, args[device].value
                caller = self._scope(call)
                if caller is None:
                    return None
                known = callers.get((caller, var))
                if known is not None:
                    if known[1] != dv:
                        return None
                    continue
                found = self._caller_definition(caller, var, dv)
                if found is None:
                    return None
                callers[(caller, var)] = found
                for other, other_param, other_move in found[2]:
                    todo.append((other, other_param, other_move))
        parts = []
        for f, (param, _device, text) in text_of.items():
            loads, _stores, _trouble = self.refs(f, param)
            parts.extend((self.move_of(load, text), _to_name(param)) for load in loads)
        for (_caller, _var), (definition, dv, _handed) in callers.items():
            value = definition.body[0].value
            parts.append((value, _moved_value(dv)))
        lines = sorted(self.line(c[0]) for c in callers.values())
        where = ", ".join(str(n) for n in lines)
        return Plan(f"move `{recv.value}` to `{_dv(callers)}` once where it is made (line{'s' if len(lines) > 1 else ''} "
                    f"{where}) and use it as it is in the functions it is handed to", parts)

    def _param_device(self, f: cst.FunctionDef, param: str, sample: cst.Call) -> str | None:
        """The device parameter of `f` when every use of its parameter `param` is the move
        `param.to(device)` (`non_blocking=` aside) with `device` another parameter neither
        rebinds; else None."""
        names = _params(f)
        if param not in names or sample.func.value.value != param:
            return None
        device = _sole_device_name(sample)
        if device is None or device not in names or device == param:
            return None
        text = self.code(sample)
        loads, stores, trouble = self.refs(f, param)
        if trouble or stores or not loads or any(self.move_of(load, text) is None for load in loads):
            return None
        _l, dstores, _t = self.refs(f, device)
        if dstores:
            return None
        return device

    def _calls_of(self, f: cst.FunctionDef) -> list:
        """Every call of the module-level function `f` in this file; a None among them when
        the name is used any other way (handed on, rebound, exported)."""
        name = f.name.value
        out = []
        stack = [(self.module, None)]
        while stack:
            n, parent = stack.pop()
            if isinstance(n, cst.Name) and n.value == name and n is not f.name and not _not_a_reference(n, parent):
                out.append(parent if isinstance(parent, cst.Call) and parent.func is n else None)
            elif isinstance(n, cst.SimpleString) and is_string(n) == name and _in_all(self.module, n, self.scopes):
                out.append(None)  # exported: callers we cannot see
            stack.extend((c, n) for c in child_nodes(n))
        if not out or any(s is not f and isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == name
                          for s in self.module.body):
            return [None]
        return out

    def _caller_definition(self, caller, var: str, dv: str):
        """(the statement `var = ...`, dv, the functions `var` is handed to) when `var` is
        made by one plain assignment in `caller` and only ever handed, with the device
        `dv`, to functions that move it; else None."""
        loads, stores, trouble = self.refs(caller, var)
        if trouble or len(stores) != 1:
            return None
        definition = self.statement_of(stores[0])
        if definition is None or not _plain_assign(definition, var) or _mentions(definition.body[0].value, var):
            return None
        if not self._bound_at(definition, dv):
            return None
        handed = []
        last = self.span(definition)[1]
        for load in loads:
            found = self._handed_to_mover(caller, definition, load, dv)
            if found is None:
                return None
            call, target, param, sample = found
            handed.append((target, param, sample))
            last = max(last, self.span(call)[1])
        if self._written_between(caller, [dv], self.span(definition)[0], last):
            return None
        return definition, dv, handed

    def _handed_to_mover(self, caller, definition, load, dv: str):
        """(the call, the function, its parameter, its move) when the use `load` hands the
        value, after `definition`, to a module-level function of this file that moves that
        parameter to the device parameter it is given `dv` for; else None."""
        arg = self.parent(load)
        call = self.parent(arg)
        if not (isinstance(arg, cst.Arg) and arg.value is load and isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)):
            return None
        target = next((s for s in self.module.body if isinstance(s, cst.FunctionDef)
                       and s.name.value == call.func.value), None)
        if target is None or not self._dominated(call, definition) or self._scope(call) is not caller:
            return None
        args = _bind_args(target, call)
        if args is None:
            return None
        param = next((p for p, v in args.items() if v is load), None)
        if param is None:
            return None
        sample = self._first_move(target, param)
        if sample is None:
            return None
        device = self._param_device(target, param, sample)
        if device is None or not (isinstance(args.get(device), cst.Name) and args[device].value == dv):
            return None
        return call, target, param, sample

    def _first_move(self, f, param: str):
        loads, _stores, _trouble = self.refs(f, param)
        for load in loads:
            attr = self.parent(load)
            call = self.parent(attr)
            if isinstance(attr, cst.Attribute) and attr.value is load and attr.attr.value == "to" and isinstance(call, cst.Call):
                return call
        return None


# ---------------------------------------------------------------------- helpers


def _sole_device_name(move: cst.Call) -> str | None:
    """`device` for `x.to(device)` or `x.to(device=device)` (`non_blocking=` aside); else None."""
    positional = [a for a in move.args if a.keyword is None]
    device_kws = [a for a in move.args if a.keyword is not None and a.keyword.value == "device"]
    extra = [a for a in move.args if a.keyword is not None and a.keyword.value != "device"]
    dev = positional[0] if len(positional) == 1 else next(iter(device_kws), None)
    if (dev is None or any(a.star for a in move.args) or not isinstance(dev.value, cst.Name)
            or len(positional) + len(device_kws) != 1
            or any(a.keyword.value != "non_blocking" for a in extra)):
        return None
    return dev.value.value


def _dv(callers) -> str:
    return " / ".join(sorted({c[1] for c in callers.values()}))


def _in_all(module, string, scopes) -> bool:
    """`string` sits in `__all__ = [...]`."""
    for anc in scopes.ancestors(string):
        if isinstance(anc, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
            return any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets)
    return False


def _target_ids(target) -> set:
    return {t.value for t in _flatten(target) if isinstance(t, cst.Name)}


def _transparent(w: cst.With) -> bool:
    """A `with` whose context managers never swallow an exception (grad mode, autocast,
    profiling): what follows it runs only after its whole body did."""
    for item in w.items:
        call = item.item
        func = call.func if isinstance(call, cst.Call) else call
        text = dotted(func) or ""
        if not text or text.rsplit(".", 1)[-1] not in kb.torch_core.TRANSPARENT_CONTEXTS:
            return False
    return True


def _binds_inside(stmt, name: str) -> bool:
    """The statement binds `name` itself (a walrus, an earlier `name = ...;` on the line)."""
    return any(isinstance(n, cst.NamedExpr) for n in walk(stmt)) or any(
        isinstance(t, cst.Name) and t.value == name for n in walk(stmt) for t in _store_targets(n))


def _roots(texts) -> set:
    return {t.split(".")[0] for t in texts}


def _to_name(name: str):
    return lambda _node: cst.Name(name)


def _moved_value(device: str):
    def edit(value):
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("to")), args=[cst.Arg(cst.Name(device))])
    return edit


def _string_key(node) -> str | None:
    """"label" for `batch["label"]` on a plain name."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    return is_string(index.value) if isinstance(index, cst.Index) else None


def _params(f: cst.FunctionDef) -> list:
    p = f.params
    return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]


def _bind_args(f: cst.FunctionDef, call: cst.Call) -> dict | None:
    """param name -> argument expression for a call of `f`; None for `*args` / `**kw` on
    either side or an argument that does not match."""
    p = f.params
    if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None or any(a.star for a in call.args):
        return None
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    keywords = {x.name.value for x in (*p.params, *p.kwonly_params)}
    out = {}
    index = 0
    for a in call.args:
        if a.keyword is None:
            if index >= len(positional):
                return None
            out[positional[index]] = a.value
            index += 1
        elif a.keyword.value in keywords and a.keyword.value not in out:
            out[a.keyword.value] = a.value
        else:
            return None
    return out


def _plain_assign(stmt, name: str) -> bool:
    """`name = value` and nothing else on the line."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name)


def _mentions(node, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(node))


def _free_read(n, name: str) -> bool:
    """The nested scope `n` may read the enclosing `name`: a function that does not bind it
    itself (a parameter `X` of a method shadows the notebook's `X`), a class body that reads
    it or holds such a method, any lambda or comprehension that mentions it; decorators,
    defaults and bases run outside and count too."""
    if isinstance(n, cst.FunctionDef):
        outside = [d.decorator for d in n.decorators] + [p.default for p in _all_params(n) if p.default is not None]
        if any(_mentions(x, name) for x in outside):
            return True
        return _mentions(n.body, name) and name not in bound_names(n)
    if isinstance(n, cst.ClassDef):
        if any(_mentions(x, name) for x in [*(d.decorator for d in n.decorators), *(a.value for a in n.bases)]):
            return True
        body = n.body.body if isinstance(n.body, cst.IndentedBlock) else n.body.body
        return any(_free_read(s, name) if isinstance(s, (cst.FunctionDef, cst.ClassDef)) else _mentions(s, name)
                   for s in body)
    return _mentions(n, name)


def _all_params(f: cst.FunctionDef) -> list:
    p = f.params
    out = [*p.posonly_params, *p.params, *p.kwonly_params]
    out += [x for x in (p.star_arg, p.star_kwarg) if isinstance(x, cst.Param)]
    return out


def _not_a_reference(n: cst.Name, parent) -> bool:
    """`obj.name`, `f(name=...)`, `import name`, a parameter's name: not the variable."""
    if isinstance(parent, cst.Attribute) and parent.attr is n:
        return True
    if isinstance(parent, (cst.Arg, cst.Param)) and (getattr(parent, "keyword", None) is n or getattr(parent, "name", None) is n):
        return True
    if isinstance(parent, (cst.ImportAlias, cst.ImportFrom, cst.FunctionDef, cst.ClassDef)):
        return True
    return False


def _store_targets(n) -> list:
    """The Name nodes (and attribute/subscript targets) that `n` writes to."""
    if isinstance(n, cst.Assign):
        out = []
        for t in n.targets:
            out.extend(_flatten(t.target))
        return out
    if isinstance(n, (cst.AnnAssign, cst.AugAssign)):
        return _flatten(n.target)
    if isinstance(n, (cst.For, cst.CompFor)):
        return _flatten(n.target)
    if isinstance(n, cst.WithItem) and n.asname is not None:
        return _flatten(n.asname.name)
    if isinstance(n, cst.ExceptHandler) and n.name is not None:
        return _flatten(n.name.name)
    if isinstance(n, cst.NamedExpr):
        return _flatten(n.target)
    if isinstance(n, cst.Del):
        return _flatten(n.target)
    if isinstance(n, (cst.Import, cst.ImportFrom)) and not isinstance(n.names, cst.ImportStar):
        out = []
        for alias in n.names:
            local = alias.asname.name if alias.asname else alias.name
            while isinstance(local, cst.Attribute):
                local = local.value
            out.append(local)
        return out
    return []


def _flatten(t) -> list:
    if isinstance(t, (cst.Tuple, cst.List)):
        out = []
        for el in t.elements:
            out.extend(_flatten(el.value))
        return out
    if isinstance(t, cst.StarredElement):
        return _flatten(t.value)
    return [t]
