import libcst as cst

from devicelint.rewrite import add_keyword, set_keyword
from devicelint.rules.base import Report, Rule


class DataloaderNotPinned(Rule):
    """Batches copied to the device from a DataLoader built without `pin_memory=True`.

    ## What it does
    Flags the `.to(device)` / `.cuda()` copies of batches that come from a `DataLoader` built
    in this file without `pin_memory=` (or with `pin_memory=False`). Any other value, such
    as `pin_memory=torch.cuda.is_available()`, counts as set. Off by default: select `DL014`.

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
            if state not in ("missing", "false"):
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


def _pin_value(ctx) -> str:
    """`torch.cuda.is_available()` where `torch` names the torch module here, else `True`."""
    if ctx.imports.qualname(cst.Name("torch")) == "torch":
        return "torch.cuda.is_available()"
    return "True"
