"""Path sensitivity on device flags: `if use_cuda:` / `if args.gpu is None:` /
`if torch.cuda.is_available():` branches are followed per path, and a value moved on the
GPU path only is "on the device whenever one exists"."""

from __future__ import annotations

import re
from typing import Protocol

import libcst as cst

from devicelint import knowledge as kb
from devicelint.names import dotted
from devicelint.values import UNKNOWN, Dev, Instance, Kind, Val, made_on_host, on_device
from devicelint.flow.state import Frame, State
from devicelint.flow.nodes import is_string


# names of flags that say whether the accelerator is in use (`use_cuda`, `args.gpu`, `self.gpu_mode`,
# `args.no_cuda`), and those whose truth means the host (`no_cuda`, `cpu_only`)
_FLAG_NAME = re.compile(r"cuda|gpu|cpu|accel", re.IGNORECASE)

_CPU_FLAG = re.compile(r"no_?cuda|no_?gpu|cpu|disable_cuda", re.IGNORECASE)

# the tests that ask whether an accelerator exists at all; where CUDA's is false, nothing is
# on CUDA (a `.cuda()` there would have failed first), unless another kind of device is known
# to exist on that path
AVAILABILITY = kb.torch_core.FLAG_AVAILABILITY_TESTS  # an arm assuming one of these false runs on the host
_CUDA = "torch.cuda.is_available"

# what `isinstance(x, T)` being false says x is not: a module, a tensor
_NOT_A = {"torch.nn.Module": Kind.MODULE, "torch.Tensor": Kind.TENSOR}


def on_host(v: Val) -> Val:
    """v on a path where it cannot be on the accelerator."""
    return v.with_(dev=Dev.CPU, key=None, cond=None, moved_at=None) if v.dev is Dev.ACCEL else v


def not_a(v: Val, kind: Kind) -> Val:
    """v where `isinstance(v, kind)` is false: a value of that kind (or a model candidate from
    code we cannot see) is something we cannot tell; anything else stays what it was."""
    # (an unknown value moved with `.to()` is called as a module)
    unknown_module = v.kind is Kind.UNKNOWN and (v.mid is not None or v.dev is not Dev.UNKNOWN)
    if v.kind is kind or (kind is Kind.MODULE and unknown_module):
        return UNKNOWN
    return v


def _unmoved(v: Val) -> bool:
    """On the host, or a value we cannot place that is no model of this file (a model's
    unknown placement may come from code that moved it)."""
    return v.dev is Dev.CPU or (v.dev is Dev.UNKNOWN and v.mid is None)


def flag_merge(merged: State, body: State, other: State, flag) -> None:
    """After `if F: x = x.cuda()`: x is on the accelerator exactly when F holds, not unknown."""
    for k, v in merged.vars.items():
        out = flag_join(body.vars.get(k), other.vars.get(k), flag)
        if out is not None:
            merged.vars[k] = out


def flag_join(a: Val | None, b: Val | None, flag) -> Val | None:
    """The value that is `a` where `flag` holds and `b` where it does not, when one of them is
    on the accelerator and the other not: on the accelerator exactly when the flag says so."""
    if a is None or b is None or not _same_kind(a, b):
        return None
    # the other path may leave it where we cannot tell (`images = Variable(images)`): on the
    # flag's path it is still on the accelerator, which is what meets the flag's model there
    for accel, host, cond in ((a, b, flag), (b, a, (flag[0], not flag[1]))):
        if accel.dev is Dev.ACCEL and _unmoved(host) and accel.cond in (None, cond):
            if not cond[1] and host.dev is Dev.CPU:
                # `if use_gpu: out = out.cpu()`: brought back on the path that uses the device,
                # and never on it on the path that does not: on the host after the `if`
                return host
            return accel.with_(cond=cond)
    return None


def _same_kind(a: Val, b: Val) -> bool:
    """Could `a` and `b` be one value on the two paths? A bare `net.cuda()` under the flag makes
    a value we could not type a module (only modules are moved bare), while the other path
    keeps it untyped: still the same object, one path moved and the other not."""
    return a.kind is b.kind or (
        {a.kind, b.kind} == {Kind.MODULE, Kind.UNKNOWN}
        and (a if a.kind is Kind.UNKNOWN else b).mid is None
    )


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


def _flag_of_none_test(test: cst.Comparison, op, pol: bool):
    """`if args.gpu is None:` / `is not None`: a device flag left unset or set."""
    right = test.comparisons[0].comparator
    if not (isinstance(right, cst.Name) and right.value == "None"):
        return None
    text = dotted(test.left)
    if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
        return None
    return (text, pol == isinstance(op, cst.IsNot))


# words for the place that are no torch device strings (`self.processor == "GPU"`)
_PLACE_WORDS = {"gpu": "accel"}


def place_word_test(test) -> bool | None:
    """`self.processor == "GPU"`: True (holds where the accelerator is used), `!= "GPU"`:
    False; None for any other test."""
    pol = True
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, pol = test.expression, not pol
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    op = test.comparisons[0].operator
    s = is_string(test.comparisons[0].comparator) or is_string(test.left)
    if not isinstance(op, (cst.Equal, cst.NotEqual)) or s is None or _PLACE_WORDS.get(s.strip().lower()) != "accel":
        return None
    return pol == isinstance(op, cst.Equal)


class FlagHost(Protocol):
    """What the device-flag part asks of the interpreter that holds it: the frames to look
    names up in, and how a node is evaluated or named."""

    frame: Frame | None
    module_frame: Frame | None
    facts: object  # flow.facts.Facts: where a place test is recorded for the rules

    def eval(self, node) -> Val: ...

    def qual(self, node) -> str | None: ...


class DeviceFlags:
    """A part of the interpreter (not a mixin): the device flags assumed on the path being run
    and the devices the code chose by a flag, with what they say about a value there. It
    reaches the interpreter only through `FlagHost`; the statement and expression walks push
    and pop `assumed` around an `if` arm or a conditional expression."""

    def __init__(self, host: FlagHost):
        self.host = host
        # device flags the statement being run sits under: `if args.cuda:` body -> ("args.cuda", True)
        self.assumed: list = []
        # device key -> (flag, truth value): devices chosen by a flag (`"cuda" if args.cuda else "cpu"`)
        self.device_flags: dict = {}

    def note_place_test(self, branch, flag) -> None:
        """Record, for the rules, which arm of `branch` (an `if` or a conditional expression
        whose test gave `flag`, flag_of's answer) runs where the accelerator is used."""
        accel = flag[1] if flag is not None else place_word_test(branch.test)
        if accel is not None:
            self.host.facts.note_place_test(branch, accel)

    def facts_of(self, test, truth: bool) -> tuple:
        """What a test being `truth` says on the path it guards: (device flags as (flag, truth
        value), narrowings as (name, how)), where `how` is a Kind the name is not, or Dev.CPU for
        a tensor known to be on the host (`not x.is_cuda`). `a and b` true says both, `a or b`
        false says both; anything else that is not itself a device test says nothing."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, truth = test.expression, not truth
        if isinstance(test, cst.BooleanOperation):
            both = (isinstance(test.operator, cst.And) and truth) or (isinstance(test.operator, cst.Or) and not truth)
            if not both:
                return (), ()
            fl, nl = self.facts_of(test.left, truth)
            fr, nr = self.facts_of(test.right, truth)
            return fl + fr, nl + nr
        narrowed = self._narrowing(test, truth)
        flag = self.flag_of(test)
        flags = ((flag[0], flag[1] == truth),) if flag is not None else ()
        return flags, (narrowed,) if narrowed is not None else ()

    def _narrowing(self, test, truth: bool):
        """`isinstance(net, nn.Module)` false -> ("net", Kind.MODULE); `x.is_cuda` false ->
        ("x", Dev.CPU)."""
        if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda" and isinstance(test.value, cst.Name):
            return (test.value.value, Dev.CPU) if not truth else None
        if truth or not isinstance(test, cst.Call) or len(test.args) != 2 or not isinstance(test.args[0].value, cst.Name):
            return None
        if (self.host.qual(test.func) or dotted(test.func)) != "isinstance":
            return None
        kinds = test.args[1].value
        kinds = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        for k in kinds:
            kind = _NOT_A.get(self.host.qual(k) or dotted(k) or "")
            if kind is not None:
                return (test.args[0].value.value, kind)
        return None

    def narrow(self, v: Val, how) -> Val:
        return on_host(v) if how is Dev.CPU else not_a(v, how)

    def stored(self, node) -> Val | None:
        """What a name or a `self` attribute holds, looked up without running anything."""
        if isinstance(node, cst.Name):
            v = self.host.frame.lookup(node.value)
            if v is None and self.host.module_frame is not None:
                v = self.host.module_frame.state.vars.get(node.value)
            if v is None and node.value == "self":
                v = self.host.frame.self_val
            return v
        if isinstance(node, cst.Attribute):
            base = self.stored(node.value)
            if base is not None and base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
                return base.ref.attrs.get(node.attr.value)
        return None

    def flagged_device(self, v: Val) -> Val:
        """A device the code chose by a flag (`flag` set on it: the accelerator exactly when the
        flag has that truth value): what is moved to it is on the host where the flag says so."""
        if v.flag is not None and v.key is not None:
            self.device_flags[v.key] = v.flag
        return v

    def no_device(self) -> bool:
        """The path being run assumes CUDA is not available (and no other accelerator is)."""
        if not any(ident == _CUDA and not pol for ident, pol in self.assumed):
            return False
        return not any(ident in AVAILABILITY and pol for ident, pol in self.assumed)

    def converted_number(self, test) -> str | None:
        """The name an `if` test asks to be a number or a list rather than a tensor:
        `not torch.is_tensor(t)`, `not isinstance(t, torch.Tensor)`, `isinstance(t, (int, float))`."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        call = test.expression if negated else test
        if not isinstance(call, cst.Call) or not call.args or not isinstance(call.args[0].value, cst.Name):
            return None
        name = call.args[0].value.value
        q = self.host.qual(call.func) or dotted(call.func)
        if negated and q == "torch.is_tensor" and len(call.args) == 1:
            return name
        if q != "isinstance" or len(call.args) != 2:
            return None
        kinds = call.args[1].value
        kinds = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        spelled = {self.host.qual(k) or dotted(k) for k in kinds}
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
            q = self.host.qual(test.func)
            if q in AVAILABILITY:
                return (q, pol)
            return None
        if isinstance(test, (cst.Name, cst.Attribute)):
            return self._flag_of_name(test, pol)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            op = test.comparisons[0].operator
            if isinstance(op, (cst.Is, cst.IsNot)):
                return _flag_of_none_test(test, op, pol)
            if isinstance(op, (cst.Equal, cst.NotEqual)):
                return self._flag_of_device_string(test, op, pol)
        return None

    def _flag_of_name(self, test, pol: bool):
        """`if train_on_gpu:` (set from a test we know), `if args.cuda:`, `if not use_cpu:`."""
        known = self.stored(test)
        if known is not None and known.flag is not None and known.kind is Kind.OTHER:
            # `train_on_gpu = torch.cuda.is_available()`: the test it was set from
            return (known.flag[0], pol == known.flag[1])
        text = dotted(test)
        if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
            return None
        return (text, pol != bool(_CPU_FLAG.search(text.rsplit(".", 1)[-1])))

    def _flag_of_device_string(self, test: cst.Comparison, op, pol: bool):
        """`device.type == "cuda"`, `str(device) != "cpu"`, `args.device == "cuda:0"`."""
        left, right = test.left, test.comparisons[0].comparator
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
        v = self.host.eval(left)
        ident = ("key", v.key) if v.kind is Kind.DEVICE and v.key is not None else dotted(left)
        if ident is None:
            return None
        return (ident, pol == ((where == "accel") == isinstance(op, cst.Equal)))

    def current_cond(self):
        return self.assumed[-1] if self.assumed else None

    def under(self, v: Val) -> Val:
        """v as seen under the device flags assumed here: a value moved only when a flag is
        set is on the host where the flag is known to be unset, and anything is where no
        accelerator exists."""
        if v.dev is not Dev.ACCEL or not self.assumed:
            return v
        if self.no_device():
            return on_host(v)
        placed_by = self.device_flags.get(v.key) if v.key is not None and v.cond is None else None
        for ident, pol in reversed(self.assumed):
            if (v.cond is not None and v.cond[0] == ident) or (
                isinstance(ident, tuple) and v.key is not None and ident[1] == v.key
            ):
                expect = v.cond[1] if v.cond is not None and v.cond[0] == ident else True
                if pol == expect:
                    return v.with_(cond=None)
                return v.with_(dev=Dev.CPU, key=None, cond=None, moved_at=None)
            if placed_by is not None and placed_by[0] == ident:
                # moved to `torch.device("cuda" if args.cuda else "cpu")`, seen under `args.cuda`
                return v if pol == placed_by[1] else on_host(v)
        return v
