from devicelint.names import dotted
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
    """

    code = "DL002"
    name = "batch-not-moved"
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
            what = "the model" if on_device[0].kind is Kind.MODULE else "tensors"
            shown = dotted(getattr(mix.node, "func", None)) if hasattr(mix.node, "func") else None
            where = f" in `{shown}(...)`" if shown else ""
            yield Report(
                mix.node,
                f"a batch from `{host.loader}` is still on the host but meets {what} on the device{where}; "
                "move it with `.to(device)` first",
            )
