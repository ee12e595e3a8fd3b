"""Python statements: blocks, assignments and unpacking, loops, with, try, and the
branches of `if` (device-flag branches are in flags.py)."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import contexts
from devicelint import knowledge as kb
from devicelint import limits
from devicelint import naming
from devicelint.names import dotted, source_of
from devicelint.values import (OTHER, SCATTERS, UNKNOWN, Dev, Instance, Kind, Val, host_batch_in, join, keyed_batch, made_on_host, ndarray_dims,
                               on_device)
from devicelint.flow import containers, defaults
from devicelint.flow.classes import Classes
from devicelint.flow.facts import Facts, NumpyConv
from devicelint.flow.recording import Recording
from devicelint.flow.state import Frame, State
from devicelint.flow.nodes import const_key, expr_text, find, mentions_no_grad, text_root, walk
from devicelint.flow.flags import DeviceFlags, flag_merge, number_to_tensor_merge, partial_move_merge


def _iter_source(node) -> str:
    """`enumerate(tqdm(train_loader))` -> "train_loader"."""
    while isinstance(node, cst.Call) and node.args:
        node = node.args[0].value
    return dotted(node) or ""


def _host_layer(v) -> bool:
    """A layer with weights built here and not moved: what a plain container may hold."""
    return v is not None and v.kind is Kind.MODULE and v.mid is not None and v.dev is Dev.CPU and not v.param_free


def _carried_host(merged: State, before: State, body: State) -> State:
    """`next_obs = torch.Tensor(next_obs)` at the end of a loop whose first round got it on
    the device: every later round starts with the host tensor, so the second round sees that
    one rather than an unknown join (after the loop, the join stands)."""
    carried = None
    for k, v in body.vars.items():
        was = before.vars.get(k)
        if was is not None and made_on_host(v) and on_device(was):
            carried = carried or merged.copy()
            carried.vars[k] = v
    return carried or merged


def _accumulated(after: State, before: State, body: State, loop) -> State:
    """`total_error = 0` then `total_error += torch.sum(hyp != y)` in the loop: after a loop
    that ran, the number started with is a tensor where the sums are (the join of a number and
    a tensor would forget that). Only names the loop adds to with `+=`."""
    turned = {k: v for k, v in body.vars.items() if v.kind is Kind.TENSOR and k in before.vars
              and before.vars[k].kind is Kind.OTHER and ndarray_dims(before.vars[k]) == -1}
    if not turned:
        return after  # the common case: no walk of the body
    out = None
    for name in _added_to(loop) & set(turned):
        out = out or after.copy()
        out.vars[name] = turned[name]
    return out or after


def _added_to(loop) -> set:
    return {n.target.value for n in find(loop.body, cst.AugAssign)
            if type(n.operator) is cst.AddAssign and type(n.target) is cst.Name}


def _stores_several(target: cst.Subscript, ndim: int | None) -> bool:
    """Does `arr[...] = t` store into more than one element of a NumPy array of `ndim`
    dimensions (-1: no NumPy array)? A store into ONE element converts the tensor with
    `float()` (`.item()`, fine on the device; measured with numpy 1.26 and 2.4, see
    benchmarks/README.md §7, round 4); a row or a slice converts it with `__array__`, which
    fails on the device. A slice, `...` or `None` in the index stores several; plain indices
    do when fewer than the array's dimensions; with the dimensions unknown, stay silent."""
    if ndim == -1:
        return False
    idx = [e.slice for e in target.slice]
    if any(isinstance(s, cst.Slice) or (isinstance(s, cst.Index) and _widens(s.value)) for s in idx):
        return True
    return ndim is not None and len(idx) < ndim


def _widens(expr) -> bool:
    """`...` or `None` in an index keeps (or adds) a dimension."""
    return isinstance(expr, cst.Ellipsis) or (isinstance(expr, cst.Name) and expr.value == "None")


# The Statements method that runs each kind of simple statement (`del`, `pass`, `global`,
# `nonlocal` change nothing we follow).
_SMALL_STATEMENTS = {
    cst.Assign: "_exec_assign",
    cst.AnnAssign: "_exec_annassign",
    cst.AugAssign: "_exec_augassign",
    cst.Expr: "_exec_expr",
    cst.Return: "_exec_return",
    cst.Raise: "_exec_raise",
    cst.Break: "_exec_jump",
    cst.Continue: "_exec_jump",
    cst.Assert: "_exec_assert",
    cst.Import: "_exec_import",
    cst.ImportFrom: "_exec_import",
}


def _wrapper_call(value) -> str | None:
    """The last name of the class a call builds (`torch.nn.DataParallel(...)` -> `DataParallel`)."""
    text = dotted(value.func) if isinstance(value, cst.Call) else None
    return text.rsplit(".", 1)[-1] if text else None


def _count_item(target, v: Val) -> Val:
    """`for batch_size, images, targets in loader`: an item of a loader's batch that the code
    names as one count or size (singular: not `lengths`) is that number (a collate's
    `len(batch)`), no host tensor that could meet the device."""
    if v.kind is Kind.TENSOR and v.loader is not None and isinstance(target, cst.Name) \
            and not target.value.lower().endswith("s") and naming.NUMBER_NAME.search(target.value):
        return OTHER
    return v


class StatementHost(Protocol):
    """What the statement part asks of the interpreter that holds it: the module, the frames
    being run (this one and the module's), the facts being recorded, the run's counters
    (statements run, expressions evaluated and their limit), gradients off and the
    `with torch.device(...)` scopes, the value node being bound (`assigning`, `assigning_to`,
    which it sets) and the latest binary operation, the loops over data loaders and the
    per-body cache, the three parts it consults (device flags of a branch, class summaries,
    what is recorded where the run stands), and the expression side: evaluating an expression
    or a call, what a binary operation gives, an iterable's element, the device names, and a
    qualified name."""

    module: cst.Module
    frame: Frame | None
    module_frame: Frame | None
    facts: Facts
    steps: int
    work: int
    work_limit: int | None
    no_grad: int
    device_scopes: list
    assigning: object
    assigning_to: object
    last_binop: tuple | None
    loader_loops: set
    body_cache: dict
    flags: DeviceFlags
    classes: Classes
    recording: Recording

    def eval(self, node) -> Val: ...

    def eval_call(self, node: cst.Call, bare: bool = False) -> Val: ...

    def combine(self, node, vals: list) -> Val: ...

    def iter_elem(self, v: Val) -> Val: ...

    def device_names(self) -> dict: ...

    def qual(self, node) -> str | None: ...


class Statements:
    """A part of the interpreter (not a mixin): statements run in order over the frame's state
    (assignments and what a binding does to names, attributes and subscripts; branches, loops,
    `with`, `try`), and the facts recorded where they run (loops over loaders, accumulations,
    returns). It reaches the interpreter only through `StatementHost`."""

    def __init__(self, host: StatementHost):
        self.host = host

    def exec_body(self, body) -> None:
        for stmt in body:
            if self.host.frame.state.dead:
                return
            self.host.steps += 1
            if self.host.work_limit is not None and self.host.work > self.host.work_limit:
                raise limits.over_budget(self.host.work_limit)
            self.exec_stmt(stmt)

    def exec_suite(self, suite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self.exec_body(suite.body)
        else:  # SimpleStatementSuite: `if x: return y`
            for small in suite.body:
                if not self.host.frame.state.dead:
                    self.exec_small(small)

    def exec_stmt(self, stmt) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if self.host.frame.state.dead:
                    return
                self.exec_small(small)
        elif isinstance(stmt, cst.If):
            self.exec_if(stmt)
        elif isinstance(stmt, (cst.For, cst.While)):
            self.exec_loop(stmt)
        elif isinstance(stmt, cst.With):
            self.exec_with(stmt)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self.exec_try(stmt)
        elif isinstance(stmt, cst.FunctionDef):
            for d in stmt.decorators:
                self.host.eval(d.decorator)
            self.host.frame.state.vars[stmt.name.value] = Val(Kind.FUNC, ref=(stmt, self.host.frame), name=stmt.name.value)
        elif isinstance(stmt, cst.ClassDef):
            self.host.frame.state.vars[stmt.name.value] = Val(Kind.CLASS, ref=stmt, name=stmt.name.value)
        elif isinstance(stmt, cst.Match):
            self.host.eval(stmt.subject)
            before = self.host.frame.state
            out = None
            for case in stmt.cases:
                self.host.frame.state = before.copy()
                self.exec_suite(case.body)
                out = self.host.frame.state if out is None else State.merge(out, self.host.frame.state)
            self.host.frame.state = State.merge(before, out) if out is not None else before

    def exec_small(self, small) -> None:
        run = _SMALL_STATEMENTS.get(type(small))  # `del x`, `pass`, `global`: nothing to follow
        if run is not None:
            # the state the statement starts in: a return or jump ends that one
            getattr(self, run)(small, self.host.frame.state)

    def _exec_assign(self, small: cst.Assign, st: State) -> None:
        value = self.host.eval(small.value)
        if (
            len(small.targets) == 1
            and isinstance(small.value, cst.BinaryOperation)
            and isinstance(small.value.operator, cst.Add)
            and self.host.frame.loops
        ):
            self._note_spelled_accumulation(small)
        self.host.assigning = small.value  # the value's code, for what a binding remembers
        # the one target that value goes to whole (not unpacked): `arr[i] = t`
        self.host.assigning_to = small.targets[0].target if len(small.targets) == 1 else None
        try:
            for t in small.targets:
                self.bind(t.target, value)
        finally:
            self.host.assigning = self.host.assigning_to = None
        if value.kind in (Kind.UNKNOWN, Kind.SEQ) and isinstance(small.value, cst.Call):
            # `train_dl, valid_dl, vocab = get_data(opts)`: a tuple of unknowns from another file too
            self.guess_unknown_loaders(small)

    def _note_spelled_accumulation(self, small: cst.Assign) -> None:
        """`total = total + loss` in a loop: the sum DL010 asks about (as `+=`)."""
        target = expr_text(small.targets[0].target)
        if target is not None and expr_text(small.value.left) == target:
            binop = self.host.last_binop
            if binop is not None and binop[0] is small.value:
                self.host.recording.note_accum(small, target, binop[2])

    def _exec_annassign(self, small: cst.AnnAssign, st: State) -> None:
        if small.value is not None:
            self.bind(small.target, self.host.eval(small.value))

    def _exec_augassign(self, small: cst.AugAssign, st: State) -> None:
        left = self.host.eval(small.target)
        right = self.host.eval(small.value)
        # in a loop, or in a method run inline from one (`self.sum += val` of a meter's `update`)
        frame = self.host.frame
        if isinstance(small.operator, cst.AddAssign) and (frame.loops or frame.self_val is not None):
            target = expr_text(small.target) or _slot_text(small.target)
            if target is not None:
                self.host.recording.note_accum(small, target, right)
        if isinstance(small.target, cst.Subscript):
            base = self.host.eval(small.target.value)
            if base.kind is Kind.TENSOR and base.fresh:
                # `mask[idx[k]] += m[k]`: an in-place update of a part of a host tensor made
                # here; the part is 0-dim, but an in-place op keeps its host output, so a
                # device operand fails there as it does for `mask += m`
                self.host.combine(small, [base, right])
        self.bind(small.target, self.host.combine(small, [left, right]))

    def _exec_expr(self, small: cst.Expr, st: State) -> None:
        v = small.value
        if isinstance(v, cst.Call):
            self.host.eval_call(v, bare=True)
        else:
            self.host.eval(v)

    def _exec_return(self, small: cst.Return, st: State) -> None:
        if small.value is not None:
            value = self.host.eval(small.value)
            self.host.frame.returns.append(value)
            self.host.recording.note_forward_outputs(small, value)
        else:
            self.host.frame.returns.append(OTHER)
        st.dead = True

    def _exec_raise(self, small: cst.Raise, st: State) -> None:
        if small.exc is not None:
            self.host.eval(small.exc)
        st.dead = True

    def _exec_jump(self, small, st: State) -> None:
        st.dead = True  # `break`, `continue`: the rest of this path does not run

    def _exec_assert(self, small: cst.Assert, st: State) -> None:
        self.host.eval(small.test)

    def _exec_import(self, small, st: State) -> None:
        """An import rebinds its names to what we cannot see."""
        names = small.names if not isinstance(small.names, cst.ImportStar) else ()
        for alias in names:
            local = alias.asname.name if alias.asname else alias.name
            if isinstance(local, cst.Name):
                st.vars.pop(local.value, None)

    def exec_if(self, stmt: cst.If) -> None:
        self.host.eval(stmt.test)
        live = contexts.constant_test(self.host, stmt.test)
        if live is True:  # a flag every caller sets the same way: only that arm runs
            self.exec_suite(stmt.body)
            return
        if live is False:
            self._exec_orelse(stmt.orelse)
            return
        flag = self.host.flags.flag_of(stmt.test)
        self.host.flags.note_place_test(stmt, flag)
        before = self.host.frame.state
        frame = self.host.frame
        filling = defaults.AttrDefault.of(frame, frame.self_val, stmt)  # `if self.mask is None: self.mask = ...`
        body = lambda: self.exec_suite(stmt.body)  # noqa: E731
        frame.conds += 1
        try:
            body_entry, after_body = self.run_arm(before, stmt.test, True, filling.around(body) if filling else body)
            else_entry, other = self.run_arm(before, stmt.test, False, lambda: self._exec_orelse(stmt.orelse))
        finally:
            frame.conds -= 1
        if filling is not None:
            filling.settle(after_body)
        merged = State.merge(after_body, other)
        _keep_untouched(merged, before, ((body_entry, after_body), (else_entry, other)))
        filled = defaults.filled_default(self.host.frame, stmt, before, after_body)
        if filled is not None:
            merged.vars[filled[0]] = filled[1]  # `if hidden is None: hidden = torch.zeros(...)`
        if not after_body.dead and not other.dead:
            if flag is not None:
                flag_merge(merged, after_body, other, flag)
            elif stmt.orelse is not None:
                partial_move_merge(merged, before, after_body, other)
            number_to_tensor_merge(merged, self.host.flags.converted_number(stmt.test), after_body, other)
        self.host.frame.state = merged

    def _exec_orelse(self, orelse) -> None:
        if isinstance(orelse, cst.If):
            self.exec_if(orelse)
        elif isinstance(orelse, cst.Else):
            self.exec_suite(orelse.body)

    def run_arm(self, before: State, test, truth: bool, run) -> tuple:
        """Run one arm of a branch on `test` from the state `before`, with what the test being
        `truth` says there assumed (device flags) and applied (narrowed names, values seen under
        the flags): (the state it started from, the state it ends in)."""
        flags, narrowings = self.host.flags.facts_of(test, truth)
        self.host.flags.assumed.extend(flags)
        try:
            entry = self.arm_entry(before, narrowings)
            self.host.frame.state = entry.copy()
            run()
            return entry, self.host.frame.state
        finally:
            del self.host.flags.assumed[len(self.host.flags.assumed) - len(flags):]

    def arm_entry(self, before: State, narrowings) -> State:
        """`before` as one arm of a branch sees it: under its device flags (a tensor moved only
        when the flag is set is on the host where it is not), with its narrowings applied
        (`net` is no module where `isinstance(net, nn.Module)` is false)."""
        entry = before.copy()
        if self.host.flags.assumed:
            entry.vars = {k: self.host.flags.under(v) for k, v in entry.vars.items()}
        for name, how in narrowings:
            v = self.host.frame.lookup(name)
            if v is not None:
                entry.vars[name] = self.host.flags.narrow(v, how)
        return entry

    def exec_loop(self, stmt) -> None:
        is_for = isinstance(stmt, cst.For)
        it = self.host.eval(stmt.iter) if is_for else None
        elem = self.host.iter_elem(it) if is_for else None
        if not is_for:
            self.host.eval(stmt.test)
        elif it.kind in (Kind.LOADER, Kind.DATASET) or host_batch_in(elem) is not None:
            self.host.loader_loops.add(id(stmt))
        if is_for:
            self._note_loop_over_loader(stmt, it)
        before = self.host.frame.state
        self.host.frame.loops.append(stmt)
        self.host.frame.loop_conds.append(self.host.frame.conds)
        state = before.copy()
        # Two rounds: the second sees values carried around the back edge.
        for round_ in range(2):
            self.host.frame.state = state
            if is_for:
                self.bind(stmt.target, elem)
                if round_ == 0 and id(stmt) in self.host.loader_loops:
                    self._note_batch_loop(stmt)
            self.exec_suite(stmt.body)
            body_out = self.host.frame.state
            body_out.dead = False
            state = State.merge(before, body_out)
            if round_ == 0:
                state = _carried_host(state, before, body_out)
        self.host.frame.loops.pop()
        self.host.frame.loop_conds.pop()
        self.host.frame.state = _accumulated(state, before, body_out, stmt)
        if stmt.orelse is not None:
            self.exec_suite(stmt.orelse.body)

    def _note_loop_over_loader(self, stmt: cst.For, it: Val) -> None:
        """`for x, y in enumerate(tqdm(train_loader))`: the loader iterated (through the
        wrappers that hand its items on)."""
        if it.kind is not Kind.LOADER:
            inner = _iter_source(stmt.iter)
            it = self.host.frame.lookup(inner) if inner and "." not in inner else None
        if it is not None:
            self.note_loader_iteration(stmt, it)

    def note_loader_iteration(self, site, it: Val) -> None:
        """A `for` over a loader, or `iter(loader)`: where its sampler draws the permutation,
        recorded when we know the DataLoader(...) call that built it."""
        if it.kind is Kind.LOADER and isinstance(it.src, cst.Call):
            scope = self.host.device_scopes[-1] if self.host.device_scopes else None
            self.host.facts.loader_loops.append((site, it.src, scope))

    def _note_batch_loop(self, stmt: cst.For) -> None:
        names = set()
        for n in walk(stmt.target):
            if isinstance(n, cst.Name):
                v = self.host.frame.state.vars.get(n.value)
                if v is not None and v.kind is Kind.TENSOR and v.host_batch:
                    names.add(n.value)
        self.host.facts.batch_loops.setdefault(stmt, []).append((self.host.device_names(), names))

    def exec_with(self, stmt: cst.With) -> None:
        sets_default = False
        scopes = len(self.host.device_scopes)
        no_grad = any(mentions_no_grad(item.item) for item in stmt.items)
        for item in stmt.items:
            v = self.host.eval(item.item)
            if isinstance(item.item, cst.Call) and self.host.qual(item.item.func) in ("torch.device", "torch.cuda.device"):
                sets_default = True
            if isinstance(item.item, cst.Call) and self.host.qual(item.item.func) in kb.torch_core.DEFAULT_DEVICE_SCOPES:
                self.host.device_scopes.append(item.item)
            if item.asname is not None:
                self.bind(item.asname.name, v if v.kind is not Kind.UNKNOWN else UNKNOWN)
        if sets_default:
            self.host.frame.default_device_unknown += 1
        self.host.no_grad += no_grad
        try:
            self.exec_suite(stmt.body)
        finally:
            self.host.no_grad -= no_grad
            del self.host.device_scopes[scopes:]
            if sets_default:
                self.host.frame.default_device_unknown -= 1

    def exec_try(self, stmt) -> None:
        before = self.host.frame.state
        self.host.frame.state = before.copy()
        self.exec_suite(stmt.body)
        if stmt.orelse is not None:
            self.exec_suite(stmt.orelse.body)
        out = self.host.frame.state
        for handler in stmt.handlers:
            self.host.frame.state = State.merge(before, out)
            self.host.frame.state.dead = False
            if handler.name is not None:
                self.bind(handler.name.name, OTHER)
            self.exec_suite(handler.body)
            out = State.merge(out, self.host.frame.state)
        self.host.frame.state = out
        if stmt.finalbody is not None:
            dead = out.dead
            out.dead = False
            self.exec_suite(stmt.finalbody.body)
            self.host.frame.state.dead = self.host.frame.state.dead or dead

    def _replaces_layer(self, target, value: Val) -> bool:
        """`model.fc = nn.Linear(512, 10)` or `model.classifier[6] = nn.Linear(4096, 2)` after
        `model.to(device)`: the new layer's weights are on the host, so the model as a whole
        is not on the device any more. Rebinds the model so, and says whether it did."""
        root = target
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name) or not _host_layer(value):
            return False
        model = self.host.frame.state.vars.get(root.value)
        if model is None or model.kind is not Kind.MODULE or model.dev is not Dev.ACCEL or model.moved_at is None \
                or model.cond is not None:
            return False
        layer = source_of(target)
        self.rebind_text(root, model.with_(dev=Dev.CPU, moved_at=None, key=None, mid=value.mid,
                                           replaced=layer[len(root.value) + 1:]))
        return True

    def bind(self, target, value: Val) -> None:
        if isinstance(target, cst.Name):
            self.forget_moves(target.value)
            if value.kind in (Kind.LOADER, Kind.DATASET) and value.name is None:
                value = value.with_(name=target.value)
            self.host.frame.state.vars[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            for i, el in enumerate(elements):
                if isinstance(el, cst.StarredElement):
                    self.bind(el.value, Val(Kind.SEQ, elem=self.unpack(value, None)))
                else:
                    self.bind(el.value, _count_item(el.value, self.unpack(value, None if starred else (i, len(elements)))))
        elif isinstance(target, cst.Attribute):
            self.bind_attribute(target, value)
        elif isinstance(target, cst.Subscript):
            self.bind_subscript(target, value)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, Val(Kind.SEQ, elem=self.unpack(value, None)))

    def rebind_text(self, node, value: Val) -> None:
        """`node` (a name, or an attribute of an object of this file) holds `value` now: what a
        move in place, a load or a helper did to it, with no `=` statement to bind."""
        if isinstance(node, cst.Name):
            self.host.frame.state.vars[node.value] = value
        elif isinstance(node, cst.Attribute):
            base = self.host.eval(node.value)
            if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
                base.ref.attrs[node.attr.value] = value

    def bind_attribute(self, target: cst.Attribute, value: Val) -> None:
        text = dotted(target)
        if text is not None:
            self.forget_moves(text)
        base = self.host.eval(target.value)
        if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
            self.bind_instance_attr(base.ref, target, text, value)
        elif base.kind is Kind.MODULE and value.kind is Kind.MODULE and (
                value.ref == SCATTERS or _wrapper_call(self.host.assigning) in kb.distributed.KEEPS_PLACEMENT):
            # `model.features = nn.DataParallel(model.features)`: the part that may see the inputs
            # first copies host ones to the device itself (which part runs first we cannot tell)
            self.rebind_text(target.value, base.with_(ref=SCATTERS))
        elif self._replaces_layer(target, value):
            pass
        elif base.kind in (Kind.MODULE, Kind.OBJECT) and base.moved_at is not None and not (
            value.kind is Kind.MODULE and value.dev is base.dev and value.key == base.key
        ):
            # `pipe.unet = PeftModel.from_pretrained(pipe.unet, ...)` after `pipe.to(device)`:
            # the new part may be anywhere, so moving the whole again is no longer redundant
            self.rebind_text(target.value, base.with_(moved_at=None, key=None, dev=Dev.UNKNOWN))

    def bind_instance_attr(self, inst: Instance, target: cst.Attribute, text, value: Val) -> None:
        """`self.x = value` on an object of a class of this file: what the attribute holds
        joins what it held (it may be set on several paths, in several methods)."""
        value = self.attribute_value(inst, target.attr.value, value)
        if value.kind in (Kind.LOADER, Kind.DATASET) and value.name is None and text is not None:
            value = value.with_(name=text)  # `self.train_loader`, for messages
        old = inst.attrs.get(target.attr.value)
        # `self.model = self.model.to(device)`: the same model, now moved
        same = old is not None and old.mid is not None and old.mid is value.mid
        inst.attrs[target.attr.value] = value if old is None or same else join(old, value)

    def attribute_value(self, inst: Instance, attr: str, value: Val) -> Val:
        """What an attribute of `inst` holds when given `value`: on an `nn.Module`, what
        registering it as a submodule (or not) makes of it."""
        info = self.host.classes.class_of(inst.cls)
        if (info["module"] or info["opaque"]) and value.kind is Kind.MODULE:
            # a submodule follows its parent: its own placement means nothing
            # (a class of this file stays known: what its forward does with its inputs),
            # except a move to the device the object is given (`self.trunk =
            # nn.Sequential(...).to(device)`): the class places its parts itself, and
            # its methods meet that submodule there
            placed = value.dev is Dev.ACCEL and value.moved_at is not None
            return Val(Kind.MODULE, value.dev if placed else Dev.UNKNOWN,
                       key=value.key if placed else None, cond=value.cond if placed else None,
                       param_free=value.param_free, name=value.name,
                       ref=value.ref if isinstance(value.ref, cst.ClassDef) else None)
        if not info["module"]:
            return value
        if value.kind in (Kind.SEQ, Kind.MAPPING) and _host_layer(value.elem) and not info["registers_modules"] \
                and attr not in containers.lists_handed_on(self.host, inst.cls):
            # `self.blocks = [nn.Linear(d, d) for _ in range(n)]`: a plain list, which
            # `model.to()` never reaches; its layers remember where they are kept
            return value.with_(elem=value.elem.with_(attr=attr, src=value.src or self.host.assigning))
        if isinstance(self.host.assigning, (cst.List, cst.Dict)) and containers.elements(value) is None:
            # `self.layers = []`, filled by `self.layers.append(...)` later: where the
            # plain list was written, for DL001's `nn.ModuleList` fix
            return value.with_(src=self.host.assigning)
        if value.kind is Kind.TENSOR and value.fresh:
            # `self.mask = torch.ones(...)`: a plain attribute, which `.to()` does not move
            return value.with_(attr=attr)
        return value

    def bind_subscript(self, target: cst.Subscript, value: Val) -> None:
        st = self.host.frame.state
        base_text = dotted(target.value)
        if base_text:
            self.forget_moves(base_text)
        base = self.host.eval(target.value)
        if self.host.assigning is not None and self.host.assigning_to is target and _stores_several(target, ndarray_dims(base)):
            # `g_loss[i] = loss.data` into a row of `np.zeros((n, 1))`: ndarray.__setitem__
            # converts the tensor to NumPy
            self.host.recording.note_numpy(NumpyConv(target, value, arg=self.host.assigning))
        if isinstance(target.value, cst.Attribute) and self._replaces_layer(target, value):
            return
        if base.kind is Kind.SEQ and isinstance(target.value, (cst.Name, cst.Attribute)):
            # `self.grid[i] = self._make_grid(...)`: the list may now hold either
            elem = join(base.elem, value) if base.elem is not None else value
            for p in base.parts or ():
                elem = join(elem, p)
            self.bind(target.value, Val(Kind.SEQ, elem=elem))
        elif isinstance(target.value, cst.Name):
            if base.kind is Kind.MAPPING:
                # batch["x"] = batch["x"].to(device): the dict now holds mixed values
                st.vars[target.value.value] = base.with_(elem=join(base.elem, value) if base.elem else value)
            elif (base.loader is not None or base.keyed is not None) and not value.host_batch:
                # batch["text"] = batch["text"].to(device): that key's item moved, the others
                # not; batch[k] = ...: which items moved, we cannot tell
                key = const_key(target)
                if key is None:
                    st.vars[target.value.value] = Val(Kind.TENSOR)
                else:
                    rest, keys = base.keyed if base.keyed is not None else (base, ())
                    st.vars[target.value.value] = keyed_batch(rest, (*((k, v) for k, v in keys if k != key), (key, value)))

    def guess_unknown_loaders(self, small: cst.Assign) -> None:
        """`train_loader, test_loader = get_loaders(args)` from code we cannot see: host loaders,
        when this file's own loops move what such loaders yield (so they are not device-aware);
        never for what a framework prepares (accelerate, Fabric)."""
        if not any(isinstance(n, cst.Name) and naming.looks_like_loader_name(n.value)
                   for t in small.targets for n in walk(t.target)):
            return
        if not self._unseen_loader_factory(small.value):
            return
        st = self.host.frame.state
        for t in small.targets:
            for n in walk(t.target):
                if isinstance(n, cst.Name) and naming.looks_like_loader_name(n.value):
                    v = st.vars.get(n.value)
                    if v is not None and v.kind is Kind.UNKNOWN and v.dev is Dev.UNKNOWN and v.mid is None:
                        st.vars[n.value] = Val(Kind.LOADER, Dev.CPU, name=n.value)

    def _unseen_loader_factory(self, call: cst.Call) -> bool:
        """A function we cannot see, in a file that moves its batches, given no device: what it
        returns is taken for host loaders."""
        callee = dotted(call.func) or "?"
        if kb.frameworks.FRAMEWORK_CALL.search(callee) or callee.rsplit(".", 1)[-1][:1].isupper() or not self._file_moves_batches():
            return False  # a loader class we do not model (NeighborLoader) may well hold device data
        if isinstance(call.func, cst.Name) and (
            self.host.frame.lookup(callee) is not None
            or (self.host.module_frame is not None and callee in self.host.module_frame.state.vars)
        ):
            return False  # a function of this file: what it returns was followed, not guessed
        for a in call.args:
            v = self.host.frame.lookup(a.value.value) if isinstance(a.value, cst.Name) else None
            if v is not None and (v.kind is Kind.DEVICE or v.dev is Dev.ACCEL):
                return False  # built from device data, or told the device
        return True

    def _file_moves_batches(self) -> bool:
        found = self.host.body_cache.get("moves_batches")
        if found is None:
            found = False
            for n in find(self.host.module, cst.For):
                if naming.looks_like_loader_name(_iter_source(n.iter)):
                    targets = {x.value for x in find(n.target, cst.Name)}
                    for m in find(n.body, cst.Call):
                        if (isinstance(m.func, cst.Attribute)
                                and m.func.attr.value in ("to", "cuda")
                                and text_root(expr_text(m.func.value) or "?") in targets):
                            found = True
                            break
                if found:
                    break
            self.host.body_cache["moves_batches"] = found
        return found

    def unpack(self, value: Val, pos) -> Val:
        if value.parts is not None and pos is not None and len(value.parts) == pos[1]:
            return value.parts[pos[0]]
        if value.kind is Kind.TENSOR:
            return value.with_(fresh=False, inplace=False)  # rows / tuple outputs of a tensor stay where it is
        if value.kind in (Kind.SEQ, Kind.MAPPING):
            if value.elem is not None:
                return value.elem
            if value.parts:
                out = value.parts[0]
                for p in value.parts[1:]:
                    out = join(out, p)
                return out
        if value.kind is Kind.OTHER:
            return OTHER
        if value.kind is Kind.OBJECT and value.ref in kb.consumers.ITEMS_ARE_ITSELF:
            return value  # `fig, (ax1, ax2) = plt.subplots(1, 2)`
        return UNKNOWN

    def forget_moves(self, text: str) -> None:
        versions = self.host.frame.versions
        versions[text] = versions.get(text, 0) + 1
        moves = self.host.frame.state.moves
        if moves:
            for k in [k for k in moves if k[0] == text or k[0].startswith((text + ".", text + "["))]:
                del moves[k]


def _keep_untouched(merged: State, before: State, arms) -> None:
    """A name neither arm of a branch rebinds holds after it what it held before: the arms'
    views of it (narrowed, seen under a flag) say where it is on their path only. A name that
    one arm rebinds joins that arm's value with the other arm's view, which is where it is on
    that path (`if use_gpu: p = p.cpu()` leaves `p` on the host on both)."""
    for k in list(merged.vars):
        if all(out.dead or out.vars.get(k) is entry.vars.get(k) for entry, out in arms):
            if k in before.vars:
                merged.vars[k] = before.vars[k]
            else:
                del merged.vars[k]


def _slot_text(node) -> str | None:
    """`hist[epoch]`, `losses["val"][step]`: a slot of a container picked by a value that
    changes (`hist[...]`, `losses["val"][...]`): the container is what keeps the sums."""
    if isinstance(node, cst.Subscript):
        base = expr_text(node.value) or _slot_text(node.value)
        return f"{base}[...]" if base is not None else None
    return None
