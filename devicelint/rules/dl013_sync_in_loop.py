from devicelint.rules.base import Report, Rule


class SyncInLoop(Rule):
    """`.item()`, `.cpu()`, `.tolist()` or `print(t)` on a device tensor every training step.

    ## What it does
    Flags host synchronisations on tensors that are on the accelerator, made on every step
    of a training loop over a data loader (a loop that calls `backward()` or
    `optimizer.step()`), not under an `if` (logging every N steps is fine): `loss.item()`,
    `t.cpu()`, `t.tolist()`, `t.to("cpu")`, `print(t)`. Off by default: select `DL013`.

    ## Why is this bad?
    Each one waits for the GPU to finish all queued work and copies the value back, so the
    CPU cannot queue the next step ahead: the GPU idles between steps.

    Measured on an NVIDIA H200 (torch 2.11; `benchmarks/waste_cost.py`, a 64x3x224x224 image
    batch, median of 22 steps): `running += loss.item()` every step made the step 13.6 ms
    against 12.3 ms for `running += loss.detach()`, 1.1x, timed without added
    synchronization; timed with a synchronization at every step (which waits anyway) both
    take 12.5-12.8 ms. The loss is larger when the host has more to queue per step than this
    small CNN.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        running += loss.item()
    ```

    ## Use instead
    ```python
    running = torch.zeros((), device=device)
    for x, y in loader:
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        running += loss.detach()
    print(running.item())
    ```

    ## Fix safety
    No automatic fix, on purpose. The host value is what the code goes on to use: a float to
    format, log, compare in an `if` (early stopping, a NaN check) or append to a list of
    numbers. Keeping it on the device means a new accumulator created before the loop, read
    out after it or every N steps, and every use of the number rewritten for a tensor: a
    choice of how often to log that only the author can make, and a change of types the
    rest of the code may not take.
    """

    code = "DL013"
    name = "sync-in-loop"
    default = False
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
running = torch.zeros((), device=device)
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    loss.backward()
    opt.step()
    running += loss.detach()
    if step % 100 == 0:
        print(f"step {step}: {loss.item():.4f}")
print(running.item())
""",
    )
    INVALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
running = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    loss.backward()
    opt.step()
    running += loss.item()  # <--
""",
    )

    def check(self, ctx):
        for s in ctx.facts.syncs:
            what = f"print({s.val.name or 'tensor'})" if s.what == "print" else f".{s.what}()"
            yield Report(
                s.node,
                f"`{what}` on a device tensor every step waits for the GPU and copies to the host; "
                "keep the value on the device (e.g. `total += loss.detach()`) and read it after the loop",
            )
