from devicelint.rules.base import Report, Rule


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
    """

    code = "DL004"
    name = "redundant-to"
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
        for mv in ctx.facts.moves:
            if mv.reason is None:
                continue
            what = f"`{mv.recv_text}`" if mv.recv_text else "this value"
            if mv.reason == "already":
                msg = f"{what} is already on `{mv.target_text}` (since line {ctx.line(mv.prior)}); this move does nothing"
            elif mv.reason == "invariant":
                msg = f"{what} does not change inside the loop but is moved to `{mv.target_text}` on every iteration; move it once before the loop"
            else:
                msg = f"{what} was already copied to `{mv.target_text}` at line {ctx.line(mv.prior)}; reuse that result instead of copying again"
            yield Report(mv.node, msg)
