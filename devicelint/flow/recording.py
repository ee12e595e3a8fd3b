"""Where the interpreter stands (the module class, a forward pass, a loader loop) and the
facts it records there for the rules: tensors that meet, accumulations, host syncs."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import naming
from devicelint.names import dotted
from devicelint.values import Dev, Instance, Kind, Val, contents_on_accel
from devicelint.flow.classes import Classes
from devicelint.flow.facts import Accum, Back, Facts, Mix, ParamMix, Sync
from devicelint.flow.flags import DeviceFlags
from devicelint.flow.nodes import expr_text, find, text_root, walk
from devicelint.flow.state import Frame


class RecordingHost(Protocol):
    """What the recording part asks of the interpreter that holds it: the module and the frame
    being run (the calls that brought the analysis here), the facts being recorded, whether
    gradients are off, the loops over data loaders and the per-body cache, and the two parts
    it consults (the device flags: nothing meets the device where none exists; the class
    summaries: which classes are modules). It runs nothing."""

    module: cst.Module
    frame: Frame | None
    facts: Facts
    no_grad: int
    loader_loops: set
    body_cache: dict
    flags: DeviceFlags
    classes: Classes


class Recording:
    """A part of the interpreter (not a mixin): where the interpreter stands (the module class
    whose method runs, a forward pass, a loop over batches or training steps) and the facts
    it records there for the rules: tensors that meet, accumulations, host syncs, copies back,
    conversions to NumPy. It reaches the interpreter only through `RecordingHost`."""

    def __init__(self, host: RecordingHost):
        self.host = host

    def mod_cls(self):
        """The nn.Module class whose method runs in this frame (or calls the plain helper
        function running here: `extract(a, t, shape)` from `forward`), or None."""
        f = self.method_frame()
        sv = f.self_val if f is not None else None
        if sv is not None and sv.kind is Kind.OBJECT and isinstance(sv.ref, Instance):
            cls = sv.ref.cls
            if self.host.classes.class_of(cls)["module"]:
                return cls
        return None

    def record_mix(self, node, operands, in_forward: bool | None = None) -> None:
        """Tensors (or a model and its inputs) meeting at `node`, with the calls that brought
        the analysis here: a value made by a caller is reported where the caller hands it on."""
        if self.host.flags.no_device():
            return  # where no accelerator exists, nothing meets the device
        calls, f = [], self.host.frame
        while f is not None and f.call is not None and f.parent is not None:
            calls.append((f.call, f.parent.func, f.func))
            f = f.parent
        self.host.facts.mixes.append(Mix(node, operands, self._mix_cls(),
                                    self.in_forward() if in_forward is None else in_forward, tuple(calls)))
        if any(contents_on_accel(v) for v in operands):
            for v in operands:
                if v.kind is Kind.TENSOR and v.mid is not None and v.dev is Dev.CPU:
                    # `ema_p.mul_(d).add_(p.data)`: a host model's own parameter meets the device
                    blame, f = node, self.host.frame
                    while f.parent is not None and v.mid in f.param_mids:
                        blame, f = f.call, f.parent
                    self.host.facts.param_mixes.append(ParamMix(node, v, blame))

    def method_frame(self):
        """This frame, or for a plain helper function the nearest caller that is not one."""
        f = self.host.frame
        while f is not None and f.self_val is None and f.func is not None and f.parent is not None:
            f = f.parent
        return f

    def _mix_cls(self):
        """The module class a device mix happens in, for rules that ask whether that class runs on
        the accelerator; None in `__init__` and the methods it calls, which run before any move
        (`self.feature_size()` probing a layer's output shape with a host tensor)."""
        cls = self.mod_cls()
        func = self.method_frame().func if cls is not None else None
        if func is not None and (func.name.value == "__init__" or func.name.value in self.host.classes.class_of(cls)["init_only"]):
            return None
        return cls

    def in_forward(self) -> bool:
        """This frame runs `forward` of a module class or a method `forward` calls (and not
        one `__init__` calls), analysed on its own or inlined only from such methods: whatever
        device the module is on, its inputs are there too. A `forward` inlined from a script
        or a shape probe (`self.forward(torch.zeros(1, 3, 224, 224))`) sees real arguments."""
        f = self.host.frame
        while f is not None:
            sv = f.self_val
            if f.func is not None and sv is None and f.parent is not None:
                f = f.parent  # a plain helper (`extract(a, t, shape)`) called from a forward
                continue
            if f.func is None or sv is None or sv.kind is not Kind.OBJECT or not isinstance(sv.ref, Instance):
                return False
            info = self.host.classes.class_of(sv.ref.cls)
            name = f.func.name.value
            if not info["module"] or name not in info["forward_path"] or name in info["init_only"]:
                return False
            f = f.parent
        return True

    def _step_loop(self):
        """The innermost enclosing loop of this frame over batches or training steps (a loader, a
        backward or an optimizer step in its body): an inner loop over the keys of a step's dict of
        losses (`for k in loss: totals[k] += loss[k]`) runs inside the step, and the step decides."""
        for loop in reversed(self.host.frame.loops):
            if id(loop) in self.host.loader_loops or self._body_info(loop)["steps"]:
                return loop
        return None

    def _callers_step_loop(self, target: str):
        """`self.sum += val * n` in a method run inline from a step loop (`losses.update(loss)`)
        on an object made before that loop: the caller's loop, which the sum outlives (an object
        made afresh in the loop's body starts each step anew: none)."""
        f = self.host.frame
        call = f.call
        if text_root(target) != "self" or f.self_val is None or f.parent is None \
                or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return None
        receiver = expr_text(call.func.value)
        if isinstance(f.self_val.ref, Instance) and _differentiates_attr(f.self_val.ref.cls, target):
            return None  # `self.total += loss` in one method, `self.total.backward()` in another
        for loop in reversed(f.parent.loops):
            if id(loop) in self.host.loader_loops or self._body_info(loop)["steps"]:
                reset = _reset_every_iteration(loop)
                return None if receiver is None or text_root(receiver) in reset or receiver in reset else loop
        return None

    def _loader_loop(self):
        """The innermost enclosing loop of this frame that iterates a data loader, and the
        number of `if` branches between it and here; (None, 0) when there is none."""
        f = self.host.frame
        for i in range(len(f.loops) - 1, -1, -1):
            if id(f.loops[i]) in self.host.loader_loops:
                return f.loops[i], f.conds - f.loop_conds[i]
        return None, 0

    def _body_info(self, node) -> dict:
        """Cached facts about a loop or function body: what names assigned with `=` are
        computed from, whether it steps an optimizer / calls backward, and what it differentiates."""
        info = self.host.body_cache.get(id(node))
        if info is None:
            subjects, losses, deps, steps, backward = set(), set(), {}, False, False
            body = node.body if node is not None else self.host.module
            for n in find(body, cst.Assign):
                used = None
                for t in n.targets:
                    if isinstance(t.target, cst.Name):
                        if used is None:
                            used = {x.value for x in find(n.value, cst.Name)}
                        deps.setdefault(t.target.value, set()).update(used)
            for n in find(body, cst.Call):
                name = n.func.attr.value if isinstance(n.func, cst.Attribute) else dotted(n.func) or ""
                if name.endswith("backward"):
                    steps = backward = True
                    # what is differentiated: `X.backward()`, `scaler.scale(X).backward()`, `backward(X)`
                    parts = [n.func.value] if isinstance(n.func, cst.Attribute) else []
                    parts += [a.value for a in n.args]
                    if parts and isinstance(parts[0], cst.Call):
                        parts += [a.value for a in parts[0].args]
                    for part in parts:
                        subjects.update(x.value for x in find(part, cst.Name))
                    for part in parts[:1] + [a.value for a in n.args]:
                        losses |= _differentiated_names(part)
                elif name == "step" and isinstance(n.func, cst.Attribute):
                    steps = True
            info = self.host.body_cache[id(node)] = {"subjects": subjects, "losses": losses, "deps": deps,
                                                "steps": steps, "backward": backward}
        return info

    def note_forward_outputs(self, ret: cst.Return, value: Val) -> None:
        """`return logits, torch.zeros(n, dtype=torch.long)` in a module's `forward`: the outputs
        computed from the inputs live with the module, the freshly made one on the host; the
        caller gets both and combines them (`criterion(output, target)`). Lengths are meant to
        stay on the host (pack_padded_sequence)."""
        f = self.host.frame
        if (value.kind is not Kind.SEQ or not value.parts or f.func is None or f.func.name.value != "forward"
                or not isinstance(ret.value, cst.Tuple) or not self.in_forward()):
            return
        fresh, placed = [], []
        for el, part in zip(ret.value.elements, value.parts):
            text = expr_text(el.value) or ""
            if part.kind is Kind.TENSOR and part.fresh and part.dev is Dev.CPU and part.attr is None \
                    and part.loader is None and not naming.LENGTHS.search(text):
                fresh.append(part)
            elif part.kind is Kind.TENSOR and part.on_module and part.dev is not Dev.CPU:
                placed.append(part)
        if fresh and placed:
            self.record_mix(ret, fresh + placed, in_forward=True)

    def note_accum(self, node, target: str, value: Val) -> None:
        """`total += loss` inside a loop over a loader, unless the sum is meant to be
        differentiated (a backward outside the loop) or starts afresh every iteration."""
        if value.kind not in (Kind.TENSOR, Kind.UNKNOWN):
            return
        loop = self._step_loop() or self._callers_step_loop(target)
        if loop is None:
            return  # neither a loop over batches nor a training loop (backward / optimizer step)
        if not (value.kind is Kind.TENSOR and (value.grad or self.host.no_grad)):
            added = (node.value if isinstance(node, cst.AugAssign) else node.args[0].value if isinstance(node, cst.Call)
                     else getattr(node.value, "right", None))
            if not _differentiated(added, self._body_info(loop)["losses"]):
                return
            # `total_loss += loss` then `accelerator.backward(loss)` in the same step: a graph,
            # whoever made the loss (an unseen model's `outputs.loss` is still the tensor differentiated)
            value = value.with_(grad=True) if value.kind is Kind.TENSOR else Val(Kind.TENSOR, value.dev, grad=True)
        if isinstance(node, cst.Call) and not self._body_info(loop)["backward"]:
            # `outputs.append(model(x).cpu())` in a helper its caller runs under no_grad, an
            # episode's values kept for the update after it: only a step that differentiates
            # its own loss shows that the list keeps graphs nobody will use
            return
        reset = _reset_every_iteration(loop)
        if target in reset or text_root(target) in reset:
            return  # `totals = {}` at the top of the step starts `totals[k]` afresh too
        fn = self._body_info(self.host.frame.func)
        root = text_root(target)
        if root in fn["subjects"] or any(root in fn["deps"].get(x, ()) for x in fn["subjects"]):
            return  # the sum is differentiated: summing the graphs is the point
        self.host.facts.accums.append(Accum(node, value, self.host.no_grad > 0))

    def note_numpy(self, conv) -> None:
        """A conversion to NumPy, unless it runs where no accelerator exists or converts what a
        move of named attributes may have left on the host (`data.y` after `data.to(d, "x")`)."""
        if not self.host.flags.no_device() and not conv.val.partial:
            self.host.facts.numpy.append(conv)

    def note_back(self, node, what: str, val: Val) -> None:
        """A tensor brought back to the host while it is still a move's result, unchanged."""
        if val.kind is Kind.TENSOR and val.dev is Dev.ACCEL and isinstance(val.moved_at, cst.Call) \
                and not self.host.flags.no_device():
            self.host.facts.backs.append(Back(node, what, val.moved_at, self.host.frame.func))

    def note_sync(self, node, what: str, val: Val) -> None:
        if not contents_on_accel(val) or self.host.flags.no_device():
            return
        loop, conds = self._loader_loop()
        if loop is None or conds or not self._body_info(loop)["steps"]:
            return
        self.host.facts.syncs.append(Sync(node, what, val))


def _differentiates_attr(cls: cst.ClassDef, target: str) -> bool:
    """A method of `cls` runs a backward through the attribute `target` sums into (`self.total`
    of `self.total[k] += loss`): the sum is the loss of a later step, not a statistic."""
    attr = target.split("[", 1)[0]
    for n in find(cls, cst.Call):
        name = n.func.attr.value if isinstance(n.func, cst.Attribute) else dotted(n.func) or ""
        if name.rsplit(".", 1)[-1] == "backward" and any(expr_text(x) == attr for x in walk(n)):
            return True
    return False


def _differentiated_names(expr) -> set:
    """The names that hold the value a backward differentiates: all those of `loss`,
    `outputs.loss`, `loss["total"]`, `loss_a + loss_b`; through a call, only its one argument
    (`scaler.scale(loss)`, `sum(losses)`) or its receiver (`torch.stack(losses).mean()`). The
    arguments of a call given several (`compute_td_loss(states, actions, rewards).backward()`)
    are what the loss is made from, not the loss: a reward summed beside it keeps no graph."""
    while isinstance(expr, cst.Call):
        args = [a for a in expr.args if not a.star]
        if len(expr.args) == 1 and args and args[0].keyword is None:
            expr = args[0].value
        elif not expr.args and isinstance(expr.func, cst.Attribute):
            expr = expr.func.value
        else:
            return set()
    return {x.value for x in find(expr, cst.Name)}


def _differentiated(added, subjects: set) -> bool:
    """Whether what a sum adds is what the step differentiates: `loss` with `loss.backward()` /
    `accelerator.backward(loss)`, or `loss[k]` of a dict of losses with `loss["total"].backward()`
    (the sum over its keys takes in the differentiated one)."""
    if isinstance(added, cst.Subscript):
        added = added.value
    return isinstance(added, cst.Name) and added.value in subjects


def _reset_every_iteration(loop) -> set:
    """Names the loop body binds with `=` on every iteration: at its top level or in a `with`
    there, not under an `if` (`if step % log_every == 0: running_loss = 0` keeps the graphs of
    every step in between)."""
    out = set()
    todo = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else [loop.body]
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, cst.With):
            todo.extend(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body])
        elif isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    value = small.value
                    for t in targets:
                        text = expr_text(t)
                        if text and not (isinstance(value, cst.BinaryOperation) and expr_text(value.left) == text):
                            out.add(text)
    return out

