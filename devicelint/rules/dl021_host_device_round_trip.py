import libcst as cst

from devicelint.names import source_of
from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind

# Methods that keep a tensor's value as the move made it (the engine keeps `moved_at` through them).
_KEEP = ("detach", "float", "half", "long", "int", "contiguous")


class HostDeviceRoundTrip(Rule):
    """`y.to(device)` then `.cpu()` of it, with nothing done on the device in between.

    ## What it does
    Flags a move to the accelerator (`.to(device)`, `.cuda()`) of a tensor known to be on the
    host, whose result goes straight back to the host (`.cpu()`, `.to("cpu")`, `.item()`,
    `.tolist()`, also after `.detach()` or a cast) and is used nowhere else: the name it is
    bound to is read by nothing but that conversion, so no model, loss or operation runs on
    the device copy. A tensor moved, used by the model and then brought back is not flagged,
    nor is a move whose tensor may already be on the device, nor a module-level binding made
    outside the `if __name__ == "__main__":` block of a file that has one (the file is imported
    too, and its importers may use the copy). The tuple form `images, labels =
    images.to(device), labels.to(device)` is read as one assignment per line; a pair made
    any other way (`x, y = move(batch)`, a starred target) is not. Off by default: select `DL021`.

    A parameter or registered buffer moved to its module's own device in `forward`
    (`self.mask.to(x.device)`) is not flagged: it is already there, and `.to()` then returns
    the tensor itself, with no copy to save.

    ## Why is this bad?
    Each round trip is a host-to-device copy and a device-to-host copy that waits for the
    device (a synchronisation), for a value the host already had. Inside a loop that is two
    wasted copies and a stall per step.

    ## Example
    ```python
    for x, y in loader:
        logits = model(x.to(device))
        labels = y.to(device)
        all_labels.extend(labels.cpu().tolist())
    ```

    ## Use instead
    ```python
    for x, y in loader:
        logits = model(x.to(device))
        all_labels.extend(y.tolist())
    ```

    ## Fix safety
    No automatic fix. Reading the host tensor instead of the copy gives the same values, but
    `.cpu()` of a host tensor is the tensor itself, not a new one: code that then changes the
    result in place would change the original, which the round trip's copy kept apart. The
    move's other arguments (a dtype, `non_blocking=`) and the name it binds also need a
    reader's decision: drop the binding, or keep it for later code.
    """

    code = "DL021"
    name = "host-device-round-trip"
    default = False
    VALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2).to(device)
x = torch.randn(4, 8)
y = torch.randint(0, 2, (4,))
inputs = x.to(device)
logits = model(inputs)  # the device copy is used before it comes back
print(inputs.cpu().shape, logits.argmax(1).cpu().tolist())
labels = y.to(device)
loss = nn.functional.cross_entropy(logits, labels)
print(labels.cpu().tolist(), loss.item())
""",
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
def summarize(t):
    moved = t.to(device)  # t may already be on the device: nothing is known to be copied
    return moved.cpu().tolist()
""",
    )
    INVALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
targets = torch.randint(0, 10, (64,))
targets_gpu = targets.to(device)  # <--
print(targets_gpu.cpu().numpy().mean())
scores = torch.rand(64)
top = scores.cuda().detach().cpu().tolist()  # <--
""",
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 3).to(device)
preds, truth = [], []
for images, labels in [(torch.randn(4, 8), torch.randint(0, 3, (4,)))]:
    images, labels = images.to(device), labels.to(device)  # <--
    preds.append(model(images).argmax(1).cpu().numpy())
    truth.append(labels.cpu().numpy())
""",
    )

    def check(self, ctx):
        sources = _move_sources(ctx.facts.moves)
        uses = _UseIndex()
        seen = set()
        for back in ctx.facts.backs:
            move = back.move
            if id(move) in seen or sources.get(id(move)) is not True:
                continue
            if not _only_conversion_reads(back, uses, ctx.module):
                continue
            if back.func is None and _receiver_root(back.node) is not move and _for_importers(ctx, move):
                continue
            seen.add(id(move))
            yield Report(
                move,
                f"`{_short(move)}` is copied to the device and brought straight back by "
                f"`.{back.what}()` with nothing done on the device; use the host tensor",
            )


def _move_sources(moves) -> dict:
    """Move node -> True when every run of it that the engine knows moved a host tensor
    (a tensor on the host in some context, on the device or unknown-but-placed in none)."""
    out = {}
    for mv in moves:
        r = mv.recv
        host = r.kind is Kind.TENSOR and r.dev is Dev.CPU and not r.on_module
        placed = r.dev is Dev.ACCEL or r.on_module or r.kind is not Kind.TENSOR and r.kind is not Kind.UNKNOWN
        prev = out.get(id(mv.node))
        if placed or prev is False:
            out[id(mv.node)] = False
        elif host:
            out[id(mv.node)] = True
        else:
            out.setdefault(id(mv.node), None)
    return out


def _short(node) -> str:
    text = " ".join(source_of(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _receiver_root(call: cst.Call):
    """The expression the conversion's chain of value-keeping calls starts from."""
    n = call.func.value if isinstance(call.func, cst.Attribute) else None
    while isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _KEEP:
        n = n.func.value
    return n


def _for_importers(ctx, move) -> bool:
    """A module-level binding made outside the `if __name__ == "__main__":` block of a file
    that has one: the file is meant to be imported too (`from data import *`), and its
    importers may use the device copy that this file only reads back."""
    guards = [ctx.position(n) for n in ctx.module.body if isinstance(n, cst.If) and _is_main_test(n.test)]
    if not guards:
        return False
    line = ctx.line(move)
    return not any(g is not None and g.start.line <= line <= g.end.line for g in guards)


def _is_main_test(test) -> bool:
    """`__name__ == "__main__"` (either side)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 \
            or not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    return any(isinstance(n, cst.Name) and n.value == "__name__" for n in sides) and any(
        isinstance(n, cst.SimpleString) and n.evaluated_value == "__main__" for n in sides)


def _only_conversion_reads(back, uses, module) -> bool:
    """The move's result reaches the conversion with no other reader: the conversion is
    chained onto the move, or the move's result is bound to a name (`y_d = y.to(d)`) that
    the code of the function reads only in this conversion."""
    root = _receiver_root(back.node)
    if root is back.move:
        return True
    if not isinstance(root, cst.Name):
        return False
    scope = back.func if back.func is not None else module
    index = uses.of(scope)
    binding = index.bindings.get(id(back.move))
    if binding is None or binding[0] != root.value:
        return False
    name, bind_pos, bind_loops = binding
    for node, pos, loops in index.reads.get(name, ()):
        if node is root:
            continue
        if bind_pos[0] <= pos <= bind_pos[1]:
            continue  # the move's own receiver: `y = y.to(device)`
        if pos < bind_pos[0] and not (set(loops) & set(bind_loops)):
            continue  # read before the move, outside any loop around it: the host value
        return False
    return True


class _UseIndex:
    """Per function (or the module), where each name is read, in source order."""

    def __init__(self):
        self._cache = {}

    def of(self, scope):
        if id(scope) not in self._cache:
            finder = _Reads()
            # a function's body only: its parameters are bound by the caller, not read here
            (scope.body if isinstance(scope, cst.FunctionDef) else scope).visit(finder)
            self._cache[id(scope)] = finder
        return self._cache[id(scope)]


class _Reads(cst.CSTVisitor):
    """Name reads with their order and enclosing loops, and `name = <move>` bindings with the
    span of the statement's value. Stores (assignment and loop targets) are counted apart."""

    def __init__(self):
        self.pos = 0
        self.loops = []
        self.reads = {}
        self.stores = {}
        self.bindings = {}  # id(move call) -> (name, (first, last) position of the value, loops)
        self._store_ids = set()
        self._spans = []

    def _tick(self) -> int:
        self.pos += 1
        return self.pos

    def visit_For(self, node):
        self.loops.append(id(node))
        self._mark_stores(node.target)

    def leave_For(self, node):
        self.loops.pop()

    def visit_While(self, node):
        self.loops.append(id(node))

    def leave_While(self, node):
        self.loops.pop()

    def visit_Assign(self, node):
        for t in node.targets:
            self._mark_stores(t.target)
        pairs = _bound_pairs(node)
        if pairs:
            self._spans.append((node, pairs, self.pos + 1))

    def leave_Assign(self, node):
        if self._spans and self._spans[-1][0] is node:
            _, pairs, first = self._spans.pop()
            for name, value in pairs:
                while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                        and value.func.attr.value in _KEEP:
                    value = value.func.value  # `y = x.to(device).float()`
                self.bindings[id(value)] = (name, (first, self.pos), tuple(self.loops))

    def visit_AugAssign(self, node):
        self._mark_stores(node.target)

    def visit_WithItem(self, node):
        if node.asname is not None:
            self._mark_stores(node.asname.name)

    def _mark_stores(self, target):
        for n in _names_in(target):
            self._store_ids.add(id(n))
            self.stores[n.value] = self.stores.get(n.value, 0) + 1

    def visit_Name(self, node):
        pos = self._tick()
        if id(node) not in self._store_ids:
            self.reads.setdefault(node.value, []).append((node, pos, tuple(self.loops)))

    def visit_Attribute(self, node):
        node.value.visit(self)  # `a.b`: `a` is read, `b` is not a name
        return False


def _bound_pairs(node: cst.Assign) -> list:
    """(name, value) for each name one assignment binds to one value: `y = v`, and the tuple
    form `x, y = x.to(d), y.to(d)` element by element (as if written one per line). Nothing
    for chained targets, starred elements or a tuple value of another length (`a, b = pair`),
    where which value a name gets is not written down."""
    if len(node.targets) != 1:
        return []
    target, value = node.targets[0].target, node.value
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, (cst.Tuple, cst.List)):
        return []
    names, values = target.elements, value.elements
    if len(names) != len(values) or any(isinstance(e, cst.StarredElement) for e in (*names, *values)):
        return []
    if not all(isinstance(e.value, cst.Name) for e in names):
        return []
    return [(t.value.value, v.value) for t, v in zip(names, values)]


def _names_in(target):
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _names_in(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names_in(target.value)
