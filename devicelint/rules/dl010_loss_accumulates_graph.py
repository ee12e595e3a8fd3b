from devicelint.rules.base import Report, Rule


class LossAccumulatesGraph(Rule):
    """`total += loss` keeps every step's autograd graph alive.

    ## What it does
    Flags `total += loss` and `total = total + loss` inside a loop over a data loader when
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
    """

    code = "DL010"
    name = "loss-accumulates-graph"
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

    def check(self, ctx):
        accums = ctx.facts.accums
        blocked = {id(a.node) for a in accums if a.no_grad}
        for a in accums:
            if a.no_grad or id(a.node) in blocked or not a.value.grad:
                continue
            yield Report(
                a.node,
                "the running total keeps the autograd graph of every step alive; add `loss.item()` "
                "(or `loss.detach()`), or run the loop under `torch.no_grad()`",
            )
