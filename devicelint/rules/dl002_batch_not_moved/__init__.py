import libcst as cst

from devicelint.flow import walk
from devicelint.names import dotted
from devicelint.rewrite import device_var, target_name_nodes
from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel, host_batch_in


class BatchNotMoved(Rule):
    """A batch from a data loader meets the model or tensors on the device without being moved.

    ## What it does
    Follows the tensors a `DataLoader` (or any loader / dataset iterated in a loop) yields:
    tuples, dicts (`batch["input_ids"]`), `enumerate(...)` and `zip(...)` wrappers. Flags the
    call or operation where such a tensor, never moved with `.to(device)` / `.cuda()`, meets a
    model or a tensor that is on the device.

    ## Why is this bad?
    A DataLoader yields host tensors. Mixing them with device tensors raises
    `RuntimeError: Expected all tensors to be on the same device` on the first step.

    ## Example
    ```python
    model = Net().to(device)
    for x, y in loader:
        out = model(x)
    ```

    ## Use instead
    ```python
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
    ```

    ## Fix safety
    Where the flagged tensor is a loop variable of the `for` over the loader itself
    (`for x, y in loader`, `for step, (x, y) in enumerate(loader)`) and a device variable
    the inference trusts is certainly bound at the loop, the fix moves each such batch
    tensor at the top of the loop body, one `x = x.to(device)` line per name. Only names
    that the flagged line uses, that hold a host tensor (not a step counter, a dict or a
    list) and that the body neither moves already nor hands to NumPy (`.numpy()`, `np.*`)
    are moved. For a dict batch, the fix moves the string-keyed entries the flagged call
    takes, `batch["label"] = batch["label"].to(device)`, right after the code's own moves of
    the batch's other entries (in the loop or the step method it hands the batch to), to the
    device they use, else at the top of the loader loop; never a whole dict, an entry handed
    to NumPy or stored into. Unsafe (`--unsafe-fixes`): every later
    use of the name (or entry) in the body now sees the device tensor (host-side metrics or
    indexing with it change where they run), and the copy is made every step. No fix for
    batches that reach the device through a helper, or when no device variable is in scope.
    """

    code = "DL002"
    name = "batch-not-moved"
    fixable = True
    fix_applicability = ("unsafe",)
    FIXES = (
        (
            """
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
criterion = torch.nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
for step, (x, y) in enumerate(loader):
    out = model(x)
    loss = criterion(out, y)
""",
            """
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
criterion = torch.nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
for step, (x, y) in enumerate(loader):
    x = x.to(device)
    y = y.to(device)
    out = model(x)
    loss = criterion(out, y)
""",
        ),
        (
            """
import torch

class Trainer:
    def __init__(self, model, device):
        self.device = device
        self.model = model.to(device)

    def step(self, batch):
        inputs = batch["inputs"].to(self.device)
        return torch.nn.functional.cross_entropy(self.model(inputs), batch["label"])

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = torch.utils.data.DataLoader([{"inputs": torch.randn(4), "label": 1}] * 8, batch_size=4)
trainer = Trainer(torch.nn.Linear(4, 2), device)
losses = [trainer.step(batch) for batch in loader]
""",
            """
import torch

class Trainer:
    def __init__(self, model, device):
        self.device = device
        self.model = model.to(device)

    def step(self, batch):
        inputs = batch["inputs"].to(self.device)
        batch["label"] = batch["label"].to(self.device)
        return torch.nn.functional.cross_entropy(self.model(inputs), batch["label"])

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = torch.utils.data.DataLoader([{"inputs": torch.randn(4), "label": 1}] * 8, batch_size=4)
trainer = Trainer(torch.nn.Linear(4, 2), device)
losses = [trainer.step(batch) for batch in loader]
""",
        ),
    )
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
""",
        """
import torch
from torch.utils.data import DataLoader
def train(model, loader):
    for batch in loader:  # Lightning / accelerate place batches themselves
        loss = model(**batch).loss
""",
    )
    INVALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
criterion = torch.nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,))), batch_size=8)
for step, (x, y) in enumerate(loader):
    x = x.to(device)
    out = model(x)
    loss = criterion(out, y)  # <--
""",
    )

    def check(self, ctx):
        found = _unmoved_batches(ctx)
        fixes = _loop_fixes(ctx, [node for node, _msg in found]) if found and ctx.facts.batch_loops else {}
        binder = None
        for node, msg in found:
            loop, names, device = fixes.get(id(node), (None, None, None))
            if loop is None:
                # the dict-batch fix's machinery, imported only for a file that needs it
                from devicelint.rules.dl004_redundant_to.bindonce import Binder
                from devicelint.rules.dl002_batch_not_moved.dictbatch import entry_fix

                binder = binder or Binder(ctx.module, ctx.line, ctx.scopes)
                entries = entry_fix(ctx, binder, node)
                if entries is not None:
                    yield Report(node, msg, fix=entries[0], edit=_unchanged, edit_node=entries[1].before,
                                 more_edits=(entries[1],), applicability="unsafe")
                    continue
            yield Report(
                node,
                msg,
                fix=f"move {', '.join(f'`{n}`' for n in names)} to `{device}` at the top of the loop" if loop else None,
                edit=(lambda body, n=names, d=device: _prepend_moves(body, n, d)) if loop else None,
                edit_node=loop.body if loop else None,
                applicability="unsafe",
            )


def _unmoved_batches(ctx) -> list:
    """(node, message) for each place a host batch meets the device model or device tensors,
    once per line and loader."""
    found = []
    seen = set()
    for mix in ctx.facts.mixes:
        host = None
        for v in mix.operands:
            host = host or host_batch_in(v)
        if host is None:
            continue
        on_device = [
            v
            for v in mix.operands
            if (v.kind is Kind.MODULE and v.dev is Dev.ACCEL and not v.param_free) or contents_on_accel(v)
        ]
        if not on_device:
            continue
        if (ctx.line(mix.node), host.loader) in seen:
            # `(net(X).argmax(1) == y)`: the batch meets the model, then its output meets
            # the labels: one unmoved batch, reported once, where it first meets the device
            continue
        seen.add((ctx.line(mix.node), host.loader))
        what = "the model" if on_device[0].kind is Kind.MODULE else "tensors"
        shown = dotted(getattr(mix.node, "func", None)) if hasattr(mix.node, "func") else None
        where = f" in `{shown}(...)`" if shown else ""
        found.append((mix.node, f"a batch from `{host.loader}` is still on the host but meets {what} on the "
                      f"device{where}; move it with `.to(device)` first"))
    return found


def _loop_fixes(ctx, nodes) -> dict:
    """id(flagged node) -> (loop, names to move, device variable) for the flagged nodes that
    sit directly in the body of a `for` over a loader whose batch names can be moved there."""
    scopes = ctx.scopes
    by_loop: dict = {}
    for node in nodes:
        for anc in scopes.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                break
            if isinstance(anc, cst.For) and anc in ctx.facts.batch_loops:
                by_loop.setdefault(anc, []).append(node)
                break
    out = {}
    for loop, flagged in by_loop.items():
        if not isinstance(loop.body, cst.IndentedBlock) or not _plain_names(loop.target):
            continue
        contexts = ctx.facts.batch_loops[loop]
        device = device_var(scopes, loop, [names for names, _batch in contexts])
        if device is None:
            continue
        host = set.intersection(*(set(batch) for _names, batch in contexts))
        used = {n.value for node in flagged for n in walk(node) if isinstance(n, cst.Name)}
        names = [n for n in (t.value for t in target_name_nodes(loop.target))
                 if n in host & used and n != device and not _moved_or_numpy(loop.body, n) and not _used_as_dict(loop.body, n)]
        if names:
            for node in flagged:
                out[id(node)] = (loop, names, device)
    return out


def _plain_names(target) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _plain_names(e.value) for e in target.elements)
    return False


def _moved_or_numpy(body, name: str) -> bool:
    """The body moves `name` itself (`name.to(...)`, `.cuda()`), or hands it to NumPy."""
    for n in walk(body):
        if not isinstance(n, cst.Call):
            continue
        func = n.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name:
            if func.attr.value in ("to", "cuda", "numpy", "cpu"):
                return True
        head = dotted(func) or ""
        if head.split(".")[0] in ("np", "numpy") and any(
            isinstance(a.value, cst.Name) and a.value.value == name for a in n.args
        ):
            return True
    return False


def _unchanged(node):
    """The insertion is the whole fix: the statement it goes before stays as it is."""
    return node


def _used_as_dict(body, name: str) -> bool:
    """`name["input_ids"]`, `name.items()`, `**name`: a dict, whatever the inference guessed
    of a loader whose collate function it cannot see (`dict.to()` does not exist)."""
    for n in walk(body):
        if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == name:
            index = n.slice[0].slice if len(n.slice) == 1 else None
            if isinstance(index, cst.Index) and isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString)):
                return True
        elif isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == name:
            if n.attr.value in ("items", "keys", "values"):
                return True
        elif isinstance(n, cst.Arg) and n.star == "**" and isinstance(n.value, cst.Name) and n.value.value == name:
            return True
    return False


def _prepend_moves(body: cst.IndentedBlock, names, device: str) -> cst.IndentedBlock:
    moves = [cst.parse_statement(f"{n} = {n}.to({device})\n") for n in names]
    return body.with_changes(body=[*moves, *body.body])
