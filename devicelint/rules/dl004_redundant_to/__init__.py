import libcst as cst

from devicelint.rules.base import Report, Rule
from devicelint.values import Kind

_MOVES = ("to", "cuda")
# arguments whose text names the same value each time it is evaluated
_PLAIN = (cst.Name, cst.Attribute, cst.SimpleString, cst.Integer)


def _same_move_inside(call, module):
    """The inner call of `x.to(a).to(a)` / `x.cuda().cuda()` (same method, same plain
    arguments), or None."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in _MOVES and isinstance(func.value, cst.Call)):
        return None
    inner = func.value
    if not (isinstance(inner.func, cst.Attribute) and inner.func.attr.value == func.attr.value):
        return None
    if len(call.args) != len(inner.args) or any(not isinstance(a.value, _PLAIN) or a.star for a in call.args):
        return None
    texts = [(a.keyword.value if a.keyword else None, module.code_for_node(a.value)) for a in call.args]
    again = [(a.keyword.value if a.keyword else None, module.code_for_node(a.value)) for a in inner.args]
    return inner if texts == again else None


def _receiver(call: cst.Call):
    """`x.to(d)` -> `x` (parenthesised as the call's own receiver was)."""
    return call.func.value


class RedundantTo(Rule):
    """A `.to()` that repeats work: already moved, moved twice, or moved on every iteration.

    ## What it does
    Flags a device move that changes nothing or repeats a copy:
    - `x.to(d).to(d)`, or moving a value that this code already moved to the same device;
    - moving the same host tensor to the same device a second time instead of reusing the
      first result;
    - moving a tensor that does not change inside a loop (class weights, a mask, a table),
      or the model, on every iteration.

    ## Why is this bad?
    Each move of a host tensor is a host-to-device copy, often a synchronisation too. In a
    training loop that is one wasted copy per step; moving the model every step walks every
    parameter.

    Measured on an NVIDIA H200 (torch 2.11; `benchmarks/waste_cost.py`, a 64x3x224x224 image
    batch, median of 22 steps): moving the same pinned batch a second time per step (input
    and reconstruction target) cost nothing measurable, 12.3 vs 12.1 ms, in a loop bound by
    its host-side loader; the 38 MB copy is GPU time that a GPU-bound loop pays in full.

    ## Example
    ```python
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device), weight=class_weights.to(device))
    ```

    ## Use instead
    ```python
    class_weights = class_weights.to(device)
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device), weight=class_weights)
    ```

    ## Fix safety
    `x.to(d).to(d)` becomes `x.to(d)`: the second move returns its input unchanged, so the fix
    is safe. A tensor moved again to where this code already put it (`model(x.to(device))`
    after `x = x.to(device)`) becomes the tensor itself; `.to()` returns the tensor as it is
    when it is already there, so the fix is right wherever the inference is, but it rests on
    that inference: unsafe (`--unsafe-fixes`).

    A tensor copied again and again is moved once and the copies read the moved value
    (unsafe, `--unsafe-fixes`):
    - a name moved twice: `x = x.to(device)` goes before the statement of the first move,
      and the moves that statement and the rest of its block make become `x`;
    - a name moved on every iteration of a loop that changes neither it nor the device:
      `x = x.to(device)` goes before the outermost such loop (where the device is bound);
    - a dict entry moved twice (`batch["label"].to(self.device)`): a new local named after
      the key (`labels`, else `label`; only a name the file uses nowhere) is bound before
      the first move and read by the moves after it, up to anything that may change the
      entry (a store, an in-place method, the dict handed to other code);
    - a parameter moved on every iteration in each function it is handed to
      (`train_epoch(..., device, class_weights)`), when every caller makes it with one plain
      assignment and hands it, with the device, only to such functions: the caller moves it
      there (`class_weights = compute_class_weights(...).to(device)`) and the functions use
      it as it is. Not for a function in `__all__` or used other than by calls in this file
      (callers we cannot see may pass a host tensor): that one moves it before its loop.

    Every use that the new binding reaches must be the same move, spelled the same way: a
    use that needs the host tensor (`.numpy()`, an in-place change, a helper it is handed
    to), a store to the name or the device in between, or a nested function or lambda that
    reads the name means no fix. What changes: the moved tensor is made once and shared by
    its uses, so an in-place change through one use would now be seen by the others, and a
    move hoisted out of a loop that runs zero times is still made once. A move whose result
    is thrown away (a bare `model.to(device)`), a module's moves (they happen in place) and
    attributes (`self.weights.to(device)`) are not fixed.
    """

    code = "DL004"
    name = "redundant-to"
    fixable = True
    fix_applicability = ("safe", "unsafe")
    FIXES = (
        (
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
weights = torch.tensor([1.0, 3.0]).to(device).to(device)
x = torch.randn(8, 4).to(device)
out = model(x.to(device))
""",
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
weights = torch.tensor([1.0, 3.0]).to(device)
x = torch.randn(8, 4).to(device)
out = model(x)
""",
        ),
        (
            """
import torch
import torch.nn.functional as F

def train_epoch(model, loader, optimizer, device, class_weights):
    for x, y in loader:
        logits = model(x.to(device))
        loss = F.cross_entropy(logits, y.to(device), weight=class_weights.to(device))
        acc = (logits.argmax(-1) == y.to(device)).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return acc.item()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 3).to(device)
labels = torch.randint(0, 3, (32,))
loader = [(torch.randn(8, 4), labels[i:i + 8]) for i in range(0, 32, 8)]
class_weights = 1.0 / torch.bincount(labels, minlength=3).float().clamp(min=1)
train_epoch(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), device, class_weights)
""",
            """
import torch
import torch.nn.functional as F

def train_epoch(model, loader, optimizer, device, class_weights):
    for x, y in loader:
        logits = model(x.to(device))
        y = y.to(device)
        loss = F.cross_entropy(logits, y, weight=class_weights)
        acc = (logits.argmax(-1) == y).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return acc.item()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 3).to(device)
labels = torch.randint(0, 3, (32,))
loader = [(torch.randn(8, 4), labels[i:i + 8]) for i in range(0, 32, 8)]
class_weights = (1.0 / torch.bincount(labels, minlength=3).float().clamp(min=1)).to(device)
train_epoch(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), device, class_weights)
""",
        ),
    )
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
weights = torch.tensor([1.0, 2.0]).to(device)
for x, y in [(torch.randn(4, 2), torch.randint(0, 2, (4,)))]:
    x, y = x.to(device), y.to(device)
    loss = torch.nn.functional.cross_entropy(x, y, weight=weights)
""",
        """
import torch
devices = [torch.device("cuda:0"), torch.device("cuda:1")]
x = torch.randn(3)
copies = [x.to(d) for d in devices]
for d in devices:
    y = x.to(d)  # a different device each time
""",
    )
    INVALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
mask = torch.ones(4, 2)
x = torch.randn(4, 2).to(device).to(device)  # <--
for step in range(10):
    y = x * mask.to(device)  # <--
""",
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 2).to(device)
for step in range(10):
    inputs = torch.randn(4, 2)
    out = model(inputs.to(device))
    err = (out - inputs.to(device)).abs().mean()  # <--
""",
    )

    def check(self, ctx):
        reported = set()
        for report in self._from_facts(ctx):
            reported.add(id(report.node))
            yield report
        # `m.to(d).to(d)` / `m.cuda().cuda()` repeat a move whatever `m` is (a tensor, a
        # model, a batch object whose `.to()` works in place): no inference needed
        for call in ctx.calls:
            inner = _same_move_inside(call, ctx.module)
            if inner is not None and id(call) not in reported:
                shown = ctx.module.code_for_node(inner)
                yield Report(call, f"`{shown}` already moved this value; the second "
                                   f"`.{call.func.attr.value}(...)` does nothing",
                             fix=f"drop the second `.{call.func.attr.value}(...)`", edit=_receiver)

    def _from_facts(self, ctx):
        for mv in ctx.facts.moves:
            if mv.reason is None:
                continue
            what = f"`{mv.recv_text}`" if mv.recv_text else "this value"
            if mv.reason == "already":
                msg = f"{what} is already on `{mv.target_text}` (since line {ctx.line(mv.prior)}); this move does nothing"
                if _same_move_inside(mv.node, ctx.module) is not None:
                    yield Report(mv.node, msg, fix=f"drop the second `.{mv.node.func.attr.value}(...)`", edit=_receiver)
                elif not mv.bare and mv.recv.kind is Kind.TENSOR and isinstance(mv.node.func, cst.Attribute):
                    # the value of `x.to(d)` is `x` itself when x is already there: use it
                    yield Report(mv.node, msg, fix=f"use {what} as it is", edit=_receiver, applicability="unsafe")
                else:
                    yield Report(mv.node, msg)
                continue
            elif mv.reason == "invariant":
                msg = f"{what} does not change inside the loop but is moved to `{mv.target_text}` on every iteration; move it once before the loop"
            else:
                msg = f"{what} was already copied to `{mv.target_text}` at line {ctx.line(mv.prior)}; reuse that result instead of copying again"
            plan = self._plan(ctx, mv)
            if plan is None:
                yield Report(mv.node, msg)
                continue
            primary, *rest = plan.parts
            yield Report(mv.node, msg, fix=plan.message, edit=primary[1], edit_node=primary[0],
                         more_edits=tuple(rest), applicability="unsafe")

    def _plan(self, ctx, mv):
        """The fix binding a repeated or loop-invariant move once (bindonce.py, beside this module):
        for tensors only (a module's `.to()` moves it in place), never for a bare move."""
        if mv.bare or mv.recv.kind is not Kind.TENSOR or not isinstance(mv.node.func, cst.Attribute):
            return None
        binder = getattr(ctx, "_bindonce", None)
        if binder is None:
            from devicelint.rules.dl004_redundant_to.bindonce import Binder

            binder = ctx._bindonce = Binder(ctx.module, ctx.line, ctx.scopes)
        recv = mv.node.func.value
        if mv.reason == "repeated" and isinstance(recv, cst.Name):
            plan = binder.rebind(mv.node, mv.prior)
        elif mv.reason == "repeated":
            plan = binder.bind_entry(mv.node, mv.prior)
        elif isinstance(recv, cst.Name):
            plan = binder.from_callers(mv.node) or binder.rebind(mv.node, None)
        else:
            plan = None
        if plan is None:
            return None
        # the flagged move itself is the fix's first part: `[*]` and the JSON point at it
        parts = sorted(plan.parts, key=lambda p: not (isinstance(p, tuple) and p[0] is mv.node))
        if not (isinstance(parts[0], tuple) and parts[0][0] is mv.node):
            return None
        plan.parts = tuple(parts)
        return plan
