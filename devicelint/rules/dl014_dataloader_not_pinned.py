import libcst as cst

from devicelint.flow.nodes import enclosing, find
from devicelint.rewrite import add_keyword, set_keyword
from devicelint.rules.base import Report, Rule


class DataloaderNotPinned(Rule):
    """Batches copied to the device from a DataLoader built without `pin_memory=True`.

    ## What it does
    Flags the `.to(device)` / `.cuda()` copies of batches that come from a `DataLoader` built
    in this file without `pin_memory=` (or with `pin_memory=False`). Any other value, such
    as `pin_memory=torch.cuda.is_available()`, counts as set. Off by default: select `DL014`.
    Not one batch drawn from a fresh iterator (`x, y = next(iter(loader))`) and moved once,
    outside any loop of its function (a plotting helper's sample): there is no next batch to
    pin while it is used, so pinning would add a host copy and overlap nothing.

    ## Why is this bad?
    A copy from pageable host memory goes through a staging buffer and blocks the host;
    `non_blocking=True` cannot overlap it with compute. Pinned (page-locked) batches are
    copied by DMA, faster and asynchronously.

    Measured on an NVIDIA H200 (torch 2.11; `benchmarks/waste_cost.py`, a 64x3x224x224 image
    batch, median of 22 steps): a small CNN's training step took 17.3 ms from a pageable
    loader and 12.2 ms from a pinned one, 1.4x.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=64, shuffle=True, pin_memory=torch.cuda.is_available())
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    ```

    ## Fix safety
    The fix adds `pin_memory=torch.cuda.is_available()` to the DataLoader call (or turns
    `pin_memory=False` into it); `pin_memory=True` where the file has no `torch` name to
    spell that with. It is safe: the batches hold the same values, only in page-locked
    memory, and on a machine without CUDA nothing is pinned. No fix is offered for a
    DataLoader that takes `**kwargs` (they may set `pin_memory` too).
    """

    code = "DL014"
    name = "dataloader-not-pinned"
    default = False
    fixable = True
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8, pin_memory=device.type == "cuda")
for (x,) in loader:
    x = x.to(device, non_blocking=True)
""",
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8)
for (x,) in loader:  # stays on the CPU
    print(x.sum())
""",
    )
    INVALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8, shuffle=True)
for x, y in loader:
    x = x.to(device, non_blocking=True)  # <--
    y = y.to(device)  # <--
""",
    )

    FIXES = (
        (
            """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_loader = DataLoader(
    TensorDataset(torch.randn(32, 4), torch.randn(32, 1)),
    batch_size=8,
    shuffle=True,
)
val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=8, pin_memory=False)
for x, y in train_loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
for x, y in val_loader:
    x = x.to(device)
""",
            """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_loader = DataLoader(
    TensorDataset(torch.randn(32, 4), torch.randn(32, 1)),
    batch_size=8,
    shuffle=True,
    pin_memory=torch.cuda.is_available(),
)
val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=8, pin_memory=torch.cuda.is_available())
for x, y in train_loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
for x, y in val_loader:
    x = x.to(device)
""",
        ),
    )

    def check(self, ctx):
        loaders = ctx.facts.loaders
        for mv in ctx.facts.loader_moves:
            state = loaders.get(mv.loader)
            if state not in ("missing", "false") or _one_draw(ctx, mv.node):
                continue
            built = ctx.line(mv.loader)
            value = _pin_value(ctx)
            edit = None
            if not any(a.star == "**" for a in mv.loader.args):
                if state == "missing":
                    edit = lambda call, v=value: add_keyword(call, "pin_memory", cst.parse_expression(v))  # noqa: E731
                else:
                    edit = lambda call, v=value: set_keyword(call, "pin_memory", cst.parse_expression(v))  # noqa: E731
            yield Report(
                mv.node,
                f"this batch comes from the DataLoader on line {built}, built without `pin_memory=True`: "
                "the copy from pageable memory is slow and cannot overlap compute",
                fix=f"pass `pin_memory={value}` to the DataLoader on line {built}",
                edit=edit,
                edit_node=mv.loader,
            )


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _one_draw(ctx, move: cst.Call) -> bool:
    """`imgs, labels = next(iter(loader))` then `imgs.to(device)`, neither in a loop of their
    function: one batch from a fresh iterator, copied once. There is no next batch for the
    loader to pin while this one is used, so pinning adds a host copy and overlaps nothing."""
    recv = move.func.value if isinstance(move.func, cst.Attribute) else None
    if not isinstance(recv, cst.Name):
        return False
    around = enclosing(ctx.module, move)
    scopes = [i for i, n in enumerate(around) if isinstance(n, _SCOPES)]
    scope = around[scopes[-1]] if scopes else ctx.module
    if any(isinstance(n, _LOOPS) for n in around[(scopes[-1] if scopes else 0):]):
        return False
    # `imgs = imgs.to(device)` rebinds the name to the copy itself: not where the batch came from
    binds = [a for a in find(scope, cst.Assign) if _binds(a, recv.value) and not any(n is move for n in find(a, cst.Call))]
    return bool(binds) and all(_fresh_draw(a.value) and not _in_loop(scope, a) for a in binds) \
        and not _rebound_otherwise(scope, recv.value)


def _binds(a: cst.Assign, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for t in a.targets for n in _target_names(t.target))


def _target_names(t) -> list:
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in _target_names(el.value)]
    return [t]


def _fresh_draw(value) -> bool:
    """`next(iter(x))`: the first batch of a new iterator."""
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "next"
            and len(value.args) == 1 and isinstance(value.args[0].value, cst.Call)
            and isinstance(value.args[0].value.func, cst.Name) and value.args[0].value.func.value == "iter")


def _in_loop(scope, node) -> bool:
    return any(isinstance(n, _LOOPS) for n in enclosing(scope, node))


def _rebound_otherwise(scope, name: str) -> bool:
    """Bound by a loop target, `with ... as`, `:=` or augmented assignment: not one draw."""
    for n in find(scope, cst.For) + find(scope, cst.AugAssign) + find(scope, cst.NamedExpr) + find(scope, cst.AsName):
        target = n.name if isinstance(n, cst.AsName) else n.target
        if any(isinstance(t, cst.Name) and t.value == name for t in _target_names(target)):
            return True
    return False


def _pin_value(ctx) -> str:
    """`torch.cuda.is_available()` where `torch` names the torch module here, else `True`."""
    if ctx.imports.qualname(cst.Name("torch")) == "torch":
        return "torch.cuda.is_available()"
    return "True"
