import libcst as cst

from devicelint.flow import child_nodes, walk
from devicelint.flow.nodes import find
from devicelint.names import dotted, source_of
from devicelint.rewrite import Scopes, method_call
from devicelint.rules.base import Report, Rule


class LossAccumulatesGraph(Rule):
    """`total += loss` keeps every step's autograd graph alive.

    ## What it does
    Flags `total += loss`, `total = total + loss` and `losses.append(loss)` inside a loop
    over a data loader (or a training loop) when
    `loss` carries autograd history: a model's output, or anything computed from one, with
    gradients enabled (not under `torch.no_grad()` / `torch.inference_mode()`, not
    `.item()`, `.detach()` or `float(...)`). Sums that are differentiated afterwards (a
    `backward()` after the loop) are left alone.

    ## Why is this bad?
    The running total is itself a tensor that records every addition, so it holds on to the
    graph of every step: the activations saved for backward (when `backward()` is never
    called on them, as in an evaluation loop) and the graph nodes. Memory grows step after
    step until the process runs out of it.

    ## Example
    ```python
    val_loss = 0.0
    for x, y in val_loader:
        loss = criterion(model(x.to(device)), y.to(device))
        val_loss += loss
    ```

    ## Use instead
    ```python
    val_loss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            loss = criterion(model(x.to(device)), y.to(device))
            val_loss += loss.item()
    ```

    ## Fix safety
    The fix adds `.item()` to what is summed when the running total is clearly a number:
    a plain name that starts as a number literal, is only printed, formatted, logged,
    compared or used in arithmetic whose result is used the same way, and sums a scalar
    (the output of a loss or criterion, a full `.mean()`/`.sum()`, or one of those times a
    count). Everywhere else it adds `.detach()`, which keeps the total a tensor on the same
    device with the same values, only without the graph. Both are safe: the sum is not
    differentiated (the rule does not fire when it is).
    """

    code = "DL010"
    name = "loss-accumulates-graph"
    fixable = True
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
total = 0.0
with torch.no_grad():
    for x, y in loader:
        total += torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
running = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    loss.backward()
    running += loss.item()
""",
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
def full_batch_loss(loader):
    total = 0.0
    for x, y in loader:  # summed on purpose: differentiated below
        total += torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    total.backward()
""",
    )
    INVALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
criterion = torch.nn.MSELoss()
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
model.eval()
val_loss = 0.0
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    val_loss += loss  # <--
print(val_loss / len(loader))
""",
    )

    FIXES = (
        (
            """
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

def evaluate(model, loader, device):
    total, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        total += loss * x.size(0)
        seen += x.size(0)
    avg = total / seen
    print(f"val loss {avg:.4f}")
    return seen

def train_epoch(model, loader, optimizer, device):
    running = 0.0
    for x, y in loader:
        loss = F.mse_loss(model(x.to(device)), y.to(device))
        running = running + loss
    return running.cpu()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
evaluate(model, loader, device)
train_epoch(model, loader, None, device)
""",
            """
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

def evaluate(model, loader, device):
    total, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        total += (loss * x.size(0)).item()
        seen += x.size(0)
    avg = total / seen
    print(f"val loss {avg:.4f}")
    return seen

def train_epoch(model, loader, optimizer, device):
    running = 0.0
    for x, y in loader:
        loss = F.mse_loss(model(x.to(device)), y.to(device))
        running = running + loss.detach()
    return running.cpu()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
evaluate(model, loader, device)
train_epoch(model, loader, None, device)
""",
        ),
    )

    def check(self, ctx):
        accums = ctx.facts.accums
        blocked = {id(a.node) for a in accums if a.no_grad}
        scopes = None
        seen = set()
        for a in accums:
            if a.no_grad or id(a.node) in blocked or not a.value.grad or id(a.node) in seen:
                continue
            seen.add(id(a.node))
            scopes = scopes or ctx.scopes
            added = _added(a.node)
            method = _method(scopes, a.node, added) if added is not None else None
            if isinstance(a.node, cst.Call):
                shown = source_of(a.node.func)
                msg = (f"`{shown}(...)` keeps the autograd graph of every step alive in the list; append "
                       "`loss.item()` (or `loss.detach()`), or run the loop under `torch.no_grad()`")
            else:
                msg = ("the running total keeps the autograd graph of every step alive; add `loss.item()` "
                       "(or `loss.detach()`), or run the loop under `torch.no_grad()`")
            yield Report(
                a.node,
                msg,
                fix=f"add `.{method}()` to what is summed" if method else None,
                edit=(lambda e, m=method: method_call(e, m)) if method else None,
                edit_node=added,
            )


def _added(node):
    """What `total += X` / `total = total + X` / `totals.append(X)` adds: X."""
    if isinstance(node, cst.Call):
        return node.args[0].value
    if isinstance(node, cst.AugAssign):
        return node.value
    if isinstance(node, cst.Assign) and isinstance(node.value, cst.BinaryOperation):
        return node.value.right
    return None


def _target(node):
    return node.target if isinstance(node, cst.AugAssign) else node.targets[0].target


def _method(scopes: Scopes, node, added) -> str:
    if isinstance(node, cst.Call):
        return "detach"  # the list keeps tensors: whatever reads it later still gets one
    target = _target(node)
    if isinstance(target, cst.Name):
        scope = scopes.scope_of(node)
        if (
            isinstance(scope, (cst.FunctionDef, cst.Module))
            and _scalar(added, scope, scopes.module)
            and _starts_as_number(scope, target.value, node)
            and _used_as_number(scopes, scope, target.value, node, depth=2)
        ):
            return "item"
    return "detach"


_NUMBER = (cst.Integer, cst.Float)


def _is_number(expr) -> bool:
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    return isinstance(expr, _NUMBER)


def _assigned_values(scope, name: str):
    """(statement, value) for every `name = value` (also `a, name = x, value`) in `scope`,
    nested scopes left out; value None when it cannot be told apart."""
    for n in _own_nodes(scope):
        kind = type(n)  # exact types, as in _own_nodes
        if kind is cst.Assign:
            for t in n.targets:
                if isinstance(t.target, cst.Name) and t.target.value == name:
                    yield n, n.value
                elif isinstance(t.target, cst.Tuple) and isinstance(n.value, cst.Tuple):
                    for el, val in zip(t.target.elements, n.value.elements):
                        if isinstance(el.value, cst.Name) and el.value.value == name:
                            yield n, val.value
                elif name in {x.value for x in walk(t.target) if isinstance(x, cst.Name)}:
                    yield n, None
        elif kind is cst.AnnAssign or kind is cst.For or kind is cst.WithItem:
            target = n.asname.name if kind is cst.WithItem and n.asname else getattr(n, "target", None)
            if target is not None and name in {x.value for x in walk(target) if isinstance(x, cst.Name)}:
                yield n, getattr(n, "value", None)


def _own_nodes(scope):
    """The nodes of `scope` outside nested functions, classes, lambdas and comprehensions."""
    stack = list(child_nodes(scope.body if isinstance(scope, cst.FunctionDef) else scope))
    while stack:
        n = stack.pop()
        yield n
        if type(n) not in _NESTED_SCOPES:  # exact types: an isinstance on LibCST's classes calls into ABCMeta
            stack.extend(child_nodes(n))


_NESTED_SCOPES = frozenset((cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                            cst.GeneratorExp))


def _starts_as_number(scope, name: str, accum) -> bool:
    """Every binding of `name` other than the accumulation is a number literal."""
    values = [(stmt, v) for stmt, v in _assigned_values(scope, name) if stmt is not accum]
    return bool(values) and all(v is not None and _is_number(v) for _stmt, v in values)


# Calls that take a number as well as a tensor and do the same with both.
_NUMBER_SINKS = {"print", "str", "float", "int", "round", "format", "repr", "abs", "min", "max"}
_LOG_METHODS = {"info", "debug", "warning", "log", "add_scalar", "set_postfix", "write"}


def _used_as_number(scopes: Scopes, scope, name: str, accum, depth: int) -> bool:
    """Every read of `name` in `scope` would work the same with a Python number."""
    own = set()
    for n in _own_nodes(scope):
        own.add(id(n))
    for n in find(scope, cst.Name):
        if n.value != name:
            continue
        if id(n) not in own:
            return False  # read by a nested function or comprehension: not followed
        parent = scopes.parent(n)
        if _stored(scopes, n) or (isinstance(parent, cst.AugAssign) and parent.target is n):
            continue
        if isinstance(parent, cst.BinaryOperation) and parent.left is n and _accum_of(scopes, parent) is accum:
            continue  # `total = total + loss` itself
        if not _number_context(scopes, scope, n, depth):
            return False
    return True


def _stored(scopes: Scopes, name) -> bool:
    """`name` is (part of) an assignment target: `total = ...`, `total, seen = ...`."""
    node = scopes.parent(name)
    while isinstance(node, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        node = scopes.parent(node)
    return isinstance(node, cst.AssignTarget)


def _accum_of(scopes: Scopes, binop):
    parent = scopes.parent(binop)
    return parent if isinstance(parent, cst.Assign) else None


def _number_context(scopes: Scopes, scope, expr, depth: int) -> bool:
    parent = scopes.parent(expr)
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
        expr, parent = parent, scopes.parent(parent)
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.FormattedString, cst.FormattedStringExpression)):
        return True
    if isinstance(parent, cst.Arg):
        call = scopes.parent(parent)
        if isinstance(call, cst.Call):
            name = call.func.attr.value if isinstance(call.func, cst.Attribute) else dotted(call.func) or ""
            return name in _NUMBER_SINKS or name in _LOG_METHODS
        return False
    if isinstance(parent, cst.Assign) and depth > 0 and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return _used_as_number(scopes, scope, target.value, None, depth - 1)
    return False


_LOSS_WORDS = ("loss", "criterion", "cross_entropy", "kl_div")


def _scalar(expr, scope, module, seen: frozenset = frozenset()) -> bool:
    """A 0-dim tensor by its spelling: a loss or criterion call (not `reduction="none"`), a
    full `.mean()`/`.sum()`, a name bound only to those, or one of them times a count."""
    if isinstance(expr, cst.Call):
        func = expr.func
        last = func.attr.value if isinstance(func, cst.Attribute) else dotted(func) or ""
        if last in ("mean", "sum") and isinstance(func, cst.Attribute):
            return not expr.args
        if any(w in last.lower() for w in _LOSS_WORDS):
            if isinstance(func, cst.Name):
                # `criterion = nn.MSELoss(reduction="none")` anywhere: per-sample losses
                built = _assigned_anywhere(module, func.value)
                if any(not isinstance(v, cst.Call) or _unreduced(v) for v in built):
                    return False
            return not _unreduced(expr)
        return False
    if isinstance(expr, cst.Attribute):
        return "loss" in expr.attr.value.lower()  # `outputs.loss` of a Hugging Face model
    if isinstance(expr, cst.Name):
        if expr.value in seen:  # `loss = loss / accumulate_steps`: judged by its other bindings
            return True
        seen = seen | {expr.value}
        values = [v for _stmt, v in _assigned_values(scope, expr.value)]
        return bool(values) and all(v is not None and _scalar(v, scope, module, seen) for v in values)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.Divide)):
        return (_scalar(expr.left, scope, module, seen) and _count(expr.right)) or (
            isinstance(expr.operator, cst.Multiply) and _count(expr.left) and _scalar(expr.right, scope, module, seen)
        )
    return False


def _unreduced(call: cst.Call) -> bool:
    """A `reduction=` other than "mean" / "sum": the loss may be a tensor of many values."""
    return any(
        a.keyword is not None and a.keyword.value == "reduction"
        and not (isinstance(a.value, cst.SimpleString) and a.value.value.strip("'\"") in ("mean", "sum"))
        for a in call.args
    )


def _assigned_anywhere(module, name: str) -> list:
    """Values bound to `name` in the whole file (a criterion is usually built elsewhere)."""
    return [n.value for n in find(module, cst.Assign)
            for t in n.targets if isinstance(t.target, cst.Name) and t.target.value == name]


def _count(expr) -> bool:
    """A plain number: a literal, `len(...)`, `x.size(0)`, `x.shape[0]`, `x.numel()`."""
    if _is_number(expr):
        return True
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Name) and expr.func.value == "len":
            return True
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("size", "numel", "dim"):
            return bool(expr.args) or expr.func.attr.value != "size"
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        return True
    return False
