"""A parameter that defaults to None, filled in by the function itself:

    def forward(self, x, hidden=None):
        if hidden is None:
            hidden = torch.zeros(self.layers, x.size(0), self.size)

Run on its own, `hidden` is a guessed input (it lives wherever the module lives), and joining
that guess with the host zeros after the `if` leaves a tensor of unknown place. But the
path where the caller omits `hidden` is the one the default exists for, and on it the zeros
are what the code uses; what a caller passes instead we cannot see. So after such an `if`
(no `else`, the name rebound to tensors made on the host), the name holds the filled-in
value — only where it held a guess before, never a value a caller was seen to pass.

The same holds for a helper the function hands such a parameter to, inlined from it
(`H = self._set_hidden_state(X, H)` with `def _set_hidden_state(self, X, H): if H is None:
H = torch.zeros(...)`): the helper fills in the caller's default."""

from __future__ import annotations

import libcst as cst

from devicelint.values import Dev, Instance, Kind, Val, join, made_on_host
from devicelint.flow.nodes import find
from devicelint.flow.setup_order import is_self_attr


def _none_test(test) -> str | None:
    """`NAME is None` -> NAME."""
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1:
        c = test.comparisons[0]
        if isinstance(c.operator, cst.Is) and isinstance(c.comparator, cst.Name) and c.comparator.value == "None":
            return test.left.value
    return None


def _none_default_param(fn, name: str) -> bool:
    if fn is None:
        return False
    for p in (*fn.params.params, *fn.params.kwonly_params):
        if p.name.value == name:
            return isinstance(p.default, cst.Name) and p.default.value == "None"
    return False


def _guessed(v: Val | None) -> bool:
    """A parameter's standalone guess: nothing known, or an input of a module's method."""
    return v is not None and v.dev is Dev.UNKNOWN and v.mid is None and (
        v.kind is Kind.UNKNOWN or (v.kind is Kind.TENSOR and v.on_module))


def _host_made(v: Val | None) -> bool:
    """Tensors made here on the host: one, or a tuple/list of them (an LSTM's `(h0, c0)`)."""
    if v is None:
        return False
    if v.kind is Kind.SEQ:
        items = v.parts if v.parts else (v.elem,) if v.elem is not None else ()
        return bool(items) and all(_host_made(i) for i in items)
    return made_on_host(v)


def _argument_for(call: cst.Call, fn, name: str):
    """The expression `call` hands to `fn`'s parameter `name` (positional or keyword), or None."""
    params = list(fn.params.params)
    if isinstance(call.func, cst.Attribute) and params and params[0].name.value in ("self", "cls"):
        params = params[1:]  # `self.helper(x, h)`: the receiver is the first parameter
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    index = next((i for i, p in enumerate(params) if p.name.value == name), None)
    return positional[index].value if index is not None and index < len(positional) else None


def _handed_a_none_default(frame, name: str) -> bool:
    """`fn` runs inlined, and its caller hands `name` a parameter of its own that defaults to None."""
    call, parent = frame.call, frame.parent
    if not isinstance(call, cst.Call) or frame.func is None or parent is None:
        return False
    arg = _argument_for(call, frame.func, name)
    return isinstance(arg, cst.Name) and _none_default_param(parent.func, arg.value)


def filled_default(frame, stmt: cst.If, before, after_body) -> tuple | None:
    """(name, value) when `stmt` is `if NAME is None: NAME = <host tensors>` on a parameter of
    the frame's function that defaults to None (or is handed one by the caller it is inlined
    from) and held only a guess before; None otherwise."""
    if stmt.orelse is not None or after_body.dead:
        return None
    name = _none_test(stmt.test)
    if name is None or not _guessed(before.vars.get(name)) or not (
            _none_default_param(frame.func, name) or _handed_a_none_default(frame, name)):
        return None
    filled = after_body.vars.get(name)
    return (name, filled) if _host_made(filled) else None


# The same default kept on the object: `self.mask = mask` then `if self.mask is None:
# self.mask = torch.eye(n)` in `__init__` (pytorch-tabnet's group matrix). Run on its own, the
# attribute holds the parameter's guess; an object's attributes join every value they are given,
# so the host matrix joined with the guess would be a tensor of unknown place. In the arm where
# the test holds the attribute is None, so the body's value replaces it rather than joining it:
# after the `if` the attribute holds the filled-in host tensors, the path the default exists for.

def _self_attr_none_test(test) -> str | None:
    """`self.NAME is None` -> NAME."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and is_self_attr(test.left):
        c = test.comparisons[0]
        if isinstance(c.operator, cst.Is) and isinstance(c.comparator, cst.Name) and c.comparator.value == "None":
            return test.left.attr.value
    return None


def _attr_stores(node, name: str) -> list:
    """The `self.<name> = value` assignments inside `node` (None: none)."""
    if node is None:
        return []
    return [a for a in find(node, cst.Assign)
            if any(is_self_attr(t.target) and t.target.attr.value == name for t in a.targets)]


def _stores_none_default(fn, attr: str) -> bool:
    """`fn` has `self.<attr> = <a parameter of fn that defaults to None>`."""
    return any(isinstance(a.value, cst.Name) and _none_default_param(fn, a.value.value) for a in _attr_stores(fn, attr))


class AttrDefault:
    """`if self.NAME is None:` in a function that stores a None-default parameter in
    `self.NAME`, while the attribute holds only that guess (an `else` may run, but not rebind
    it). The body arm runs without the attribute (there it is None, so what the body gives it
    replaces it); the else arm with the guess; after both, the attribute holds the host tensors
    the body filled in, or (a body that left, or filled in something else) their join."""

    def __init__(self, inst: Instance, name: str, guess: Val):
        self.inst, self.name, self.guess, self.filled = inst, name, guess, None

    @classmethod
    def of(cls, frame, self_val: Val | None, stmt: cst.If):
        name = _self_attr_none_test(stmt.test)
        if name is None or self_val is None or not isinstance(self_val.ref, Instance) or _attr_stores(stmt.orelse, name):
            return None
        guess = self_val.ref.attrs.get(name)
        if not _guessed(guess) or not _stores_none_default(frame.func, name):
            return None
        return cls(self_val.ref, name, guess)

    def around(self, run):
        """The body arm's runner: the attribute is None there, then the guess again for the else arm."""
        def body():
            del self.inst.attrs[self.name]
            try:
                run()
            finally:
                self.filled = self.inst.attrs.get(self.name)
                self.inst.attrs[self.name] = self.guess
        return body

    def settle(self, after_body) -> None:
        filled = self.filled
        # made here on the host (as an attribute it carries its name: `made_on_host` asks for none)
        made = filled is not None and _host_made(filled.with_(attr=None))
        if after_body.dead or not made:
            self.inst.attrs[self.name] = self.guess if filled is None else join(self.guess, filled)
        else:
            self.inst.attrs[self.name] = filled
