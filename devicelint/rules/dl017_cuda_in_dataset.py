import libcst as cst

from devicelint.flow.nodes import keyword_value
from devicelint.rules.base import Report, Rule


class CudaInDataset(Rule):
    """A `Dataset` that moves its items to the device, loaded by worker processes or pinned.

    ## What it does
    Flags a `DataLoader(...)` over a dataset of this file whose `__getitem__` (or a method it
    calls through `self.`) puts what it returns on the accelerator (`x.to(device)`, `.cuda()`,
    `torch.tensor(..., device=device)`), or reads a tensor its `__init__` put there
    (`self.x = torch.randn(..., device="cuda")`), when the loader has `num_workers > 0` or
    `pin_memory=True`. `num_workers` is read from a literal, a variable set once, or an
    argparse default; when its value is unknown (a parameter, `os.cpu_count()`), nothing is
    reported. With `num_workers=0` and no `pin_memory` the loader works: the items are moved
    one by one in the main process (one host-to-device copy per item instead of one per batch,
    and `default_collate` stacks them on the device), so loading is serialised with the
    training step. Whether that costs enough to report was to be decided from a measurement;
    none has been made (no GPU was available when the rule was written, and a simulated copy
    count is not a cost), so the rule stays silent there, as devicelint does when unsure. A
    timing of that loader against one moving the collated batch, at a real batch size and
    item size (as `benchmarks/waste_cost.py` times the other wastes), would decide it.

    ## Why is this bad?
    Worker processes are forked (the default start method on Linux), and once the main
    process has used CUDA (the model is already on the GPU) a forked child cannot use it:
    the first batch raises `RuntimeError: Caught RuntimeError in DataLoader worker process
    0 ... Cannot re-initialize CUDA in forked subprocess`. With `pin_memory=True` the loader pins every batch, and a CUDA tensor
    cannot be pinned: `RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU
    tensors can be pinned`.

    ## Example
    ```python
    class Pairs(Dataset):
        def __getitem__(self, i):
            return self.x[i].to(device), self.y[i].to(device)

    loader = DataLoader(Pairs(x, y), batch_size=32, num_workers=4, pin_memory=True)
    for xb, yb in loader:
        ...
    ```

    ## Use instead
    ```python
    class Pairs(Dataset):
        def __getitem__(self, i):
            return self.x[i], self.y[i]

    loader = DataLoader(Pairs(x, y), batch_size=32, num_workers=4, pin_memory=True)
    for xb, yb in loader:
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        ...
    ```

    ## Fix safety
    No automatic fix. The repair takes the move out of the dataset and puts it in every loop
    that reads the loader (and in any other code that indexes the dataset and expects device
    tensors): that is not one local edit the linter can make reliably.
    """

    code = "DL017"
    name = "cuda-in-dataset"
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, Dataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i], self.y[i]
loader = DataLoader(Pairs(torch.randn(64, 8), torch.randn(64)), batch_size=8, num_workers=2, pin_memory=True)
for xb, yb in loader:
    xb, yb = xb.to(device), yb.to(device)
""",
        """
import torch
from torch.utils.data import DataLoader, Dataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i].to(device), self.y[i].to(device)
loader = DataLoader(Pairs(torch.randn(64, 8), torch.randn(64)), batch_size=8, num_workers=0)
for xb, yb in loader:
    pass
""",
    )
    INVALID = (
        """
import torch
from torch.utils.data import DataLoader, Dataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i].to(device), self.y[i].to(device)
loader = DataLoader(Pairs(torch.randn(64, 8), torch.randn(64)), batch_size=8, num_workers=2)  # <--
for xb, yb in loader:
    pass
""",
        """
import torch
from torch.utils.data import DataLoader, Dataset
class Tokens(Dataset):
    def __init__(self, ids):
        self.ids = ids
    def __len__(self):
        return len(self.ids)
    def load(self, i):
        return self.ids[i].cuda()
    def __getitem__(self, i):
        return self.load(i)
loader = DataLoader(Tokens(torch.arange(64)), batch_size=8, pin_memory=True)  # <--
""",
    )

    def check(self, ctx):
        loaders = {}
        for fact in ctx.facts.placing_loaders:
            loaders.setdefault(fact.node, fact)
        if not loaders:
            return
        values = _Settings(ctx)
        for node, fact in loaders.items():
            why = _why_it_fails(node, fact.scope, values)
            if why is None:
                continue
            yield Report(
                node,
                f"`{fact.items.cls.name.value}.__getitem__` returns items placed on the device (line {ctx.line(fact.items.place)}) "
                f"and this DataLoader {why}: move the batch to the device in the loop instead",
            )


class _Settings:
    """Values of `num_workers=` / `pin_memory=` expressions: a literal, a name set once, an
    argparse default (DL007's cpu_run.py, built only for files that need it); None when the
    value is unknown or depends on the machine (`torch.cuda.is_available()`)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._run = None

    def value(self, node, scope):
        if isinstance(node, cst.Integer):
            return int(node.value)
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return node.value == "True"
        if self._run is None:
            from devicelint.rules.dl007_hardcoded_cuda.cpu_run import CpuRun

            self._run = CpuRun(self.ctx.module, self.ctx.imports, self.ctx.calls)
        where = scope if scope is not None else self.ctx.module
        try:
            if self._run.about_device(node, where):
                return None  # `pin_memory=torch.cuda.is_available()`: true on the GPU run only
            found = self._run.value(node, where)
        except (KeyError, RecursionError):  # a scope the walk never collected
            return None
        return found.value if found is not None else None


def _why_it_fails(call: cst.Call, scope, values: _Settings) -> str | None:
    """`has num_workers=4` / `pins memory`, or None when it runs (or we cannot tell)."""
    if any(a.star for a in call.args):
        return None  # `**loader_kwargs`: the settings are elsewhere
    pin = keyword_value(call, "pin_memory")
    if pin is not None and values.value(pin, scope) is True:
        return "pins memory (`pin_memory=True`), and a CUDA tensor cannot be pinned"
    workers = keyword_value(call, "num_workers")
    if workers is None:
        return None
    n = values.value(workers, scope)
    if isinstance(n, int) and not isinstance(n, bool) and n > 0:
        return (f"loads in worker processes (`num_workers={cst.Module([]).code_for_node(workers)}`), "
                "where CUDA cannot be re-initialised after fork")
    return None
