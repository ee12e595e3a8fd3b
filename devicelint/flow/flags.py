"""Path sensitivity on device flags: `if use_cuda:` / `if args.gpu is None:` /
`if torch.cuda.is_available():` branches are followed per path, and a value moved on the
GPU path only is "on the device whenever one exists"."""

from __future__ import annotations

import re

import libcst as cst

from devicelint import knowledge as kb
from devicelint.names import dotted
from devicelint.values import Dev, Kind, Val, made_on_host, on_device
from devicelint.flow.state import State
from devicelint.flow.nodes import is_string


# names of flags that say whether the accelerator is in use (`use_cuda`, `args.gpu`, `self.gpu_mode`,
# `args.no_cuda`), and those whose truth means the host (`no_cuda`, `cpu_only`)
_FLAG_NAME = re.compile(r"cuda|gpu|cpu|accel", re.IGNORECASE)

_CPU_FLAG = re.compile(r"no_?cuda|no_?gpu|cpu|disable_cuda", re.IGNORECASE)


def _unmoved(v: Val) -> bool:
    """On the host, or a value we cannot place that is no model of this file (a model's
    unknown placement may come from code that moved it)."""
    return v.dev is Dev.CPU or (v.dev is Dev.UNKNOWN and v.mid is None)


def flag_merge(merged: State, body: State, other: State, flag) -> None:
    """After `if F: x = x.cuda()`: x is on the accelerator exactly when F holds, not unknown."""
    for k, v in merged.vars.items():
        a, b = body.vars.get(k), other.vars.get(k)
        if a is None or b is None or a.kind is not b.kind:
            continue
        # the other path may leave it where we cannot tell (`images = Variable(images)`): on the
        # flag's path it is still on the accelerator, which is what meets the flag's model there
        if a.dev is Dev.ACCEL and _unmoved(b) and a.cond in (None, flag):
            merged.vars[k] = a.with_(cond=flag)
        elif b.dev is Dev.ACCEL and _unmoved(a) and b.cond in (None, (flag[0], not flag[1])):
            merged.vars[k] = b.with_(cond=(flag[0], not flag[1]))


def partial_move_merge(merged: State, before: State, body: State, other: State) -> None:
    """`if a: x = x.cuda(); y = y.cuda() else: x = x.cuda()`: a branch that moves one tensor
    of a batch to the accelerator but leaves another from the same loader on the host, which
    the other branch moves. That branch runs on the device, so the tensor it left behind is on
    the host where its partner is on the device: keep the host value, not an unknown join."""
    for k, v in merged.vars.items():
        a, b = body.vars.get(k), other.vars.get(k)
        if a is None or b is None or v.dev is not Dev.UNKNOWN:
            continue
        for moved, left, branch in ((a, b, other), (b, a, body)):
            if moved.dev is Dev.ACCEL and moved.moved_at is not None and left.host_batch and \
                    _moves_a_partner(before, branch, k, left.loader):
                merged.vars[k] = left
                break


def _moves_a_partner(before: State, branch: State, name: str, loader: str) -> bool:
    for j, was in before.vars.items():
        now = branch.vars.get(j)
        if j != name and was.loader == loader and was.host_batch and now is not None \
                and now.dev is Dev.ACCEL and now.moved_at is not None:
            return True
    return False


def number_to_tensor_merge(merged: State, name: str | None, body: State, other: State) -> None:
    """`if not torch.is_tensor(t): t = torch.tensor([t])`: a number a caller passed becomes a
    tensor on the host, where the other path's tensor is on the module's device (or the
    accelerator). Keep the host value: on the path that takes a number it is what runs on."""
    if name is None:
        return
    made, kept = body.vars.get(name), other.vars.get(name)
    if made is not None and kept is not None and made_on_host(made) and on_device(kept):
        merged.vars[name] = made


class DeviceFlags:
    def converted_number(self, test) -> str | None:
        """The name an `if` test asks to be a number or a list rather than a tensor:
        `not torch.is_tensor(t)`, `not isinstance(t, torch.Tensor)`, `isinstance(t, (int, float))`."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        call = test.expression if negated else test
        if not isinstance(call, cst.Call) or not call.args or not isinstance(call.args[0].value, cst.Name):
            return None
        name = call.args[0].value.value
        q = self.qual(call.func) or dotted(call.func)
        if negated and q == "torch.is_tensor" and len(call.args) == 1:
            return name
        if q != "isinstance" or len(call.args) != 2:
            return None
        kinds = call.args[1].value
        kinds = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        spelled = {self.qual(k) or dotted(k) for k in kinds}
        if negated:
            return name if spelled and spelled <= {"torch.Tensor"} else None
        return name if spelled and spelled <= {"int", "float", "list", "tuple"} else None

    def flag_of(self, test):
        """(flag, truth value the `if` body assumes) for a test on whether the accelerator is in
        use: `args.cuda`, `not use_gpu`, `args.gpu is None`, `device.type == "cuda"`,
        `torch.cuda.is_available()`; None for any other test."""
        pol = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, pol = test.expression, not pol
        if isinstance(test, cst.Call):
            q = self.qual(test.func)
            if q in kb.torch_core.FLAG_AVAILABILITY_TESTS:
                return (q, pol)
            return None
        if isinstance(test, (cst.Name, cst.Attribute)):
            text = dotted(test)
            if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
                return None
            return (text, pol != bool(_CPU_FLAG.search(text.rsplit(".", 1)[-1])))
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            op = test.comparisons[0].operator
            left, right = test.left, test.comparisons[0].comparator
            if isinstance(op, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
                text = dotted(left)
                if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
                    return None
                return (text, pol == isinstance(op, cst.IsNot))
            if isinstance(op, (cst.Equal, cst.NotEqual)):
                if is_string(left) is not None:
                    left, right = right, left
                s = is_string(right)
                where = kb.torch_core.parse_device_string(s) if s is not None else None
                if where is None:
                    return None
                if isinstance(left, cst.Attribute) and left.attr.value == "type":
                    left = left.value
                elif isinstance(left, cst.Call) and dotted(left.func) == "str" and len(left.args) == 1:
                    left = left.args[0].value
                v = self.eval(left)
                ident = ("key", v.key) if v.kind is Kind.DEVICE and v.key is not None else dotted(left)
                if ident is None:
                    return None
                return (ident, pol == ((where == "accel") == isinstance(op, cst.Equal)))
        return None

    def current_cond(self):
        return self.assumed[-1] if self.assumed else None

    def under(self, v: Val) -> Val:
        """v as seen under the device flags assumed here: a value moved only when a flag is
        set is on the host where the flag is known to be unset."""
        if v.dev is not Dev.ACCEL or not self.assumed:
            return v
        for ident, pol in reversed(self.assumed):
            if (v.cond is not None and v.cond[0] == ident) or (
                isinstance(ident, tuple) and v.key is not None and ident[1] == v.key
            ):
                expect = v.cond[1] if v.cond is not None and v.cond[0] == ident else True
                if pol == expect:
                    return v.with_(cond=None)
                return v.with_(dev=Dev.CPU, key=None, cond=None, moved_at=None)
        return v
