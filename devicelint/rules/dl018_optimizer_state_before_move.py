from devicelint.rules.base import Report, Rule


class OptimizerStateBeforeMove(Rule):
    """An optimizer's state loaded while its model is still on the host, the model moved after.

    ## What it does
    Flags `optimizer.load_state_dict(...)` when the optimizer was built from the parameters of
    a model of this file (`model.parameters()`, parameter groups, or a list made from them
    such as `params = [p for p in model.parameters() if p.requires_grad]`; the model built
    here or returned by a factory function of the file, `model = create_model(args)`), that
    model is still on the host at this point, and the same code moves it to the accelerator
    afterwards (`model.to(device)` further down). An optimizer
    *created* before `model.to(device)` is fine and never flagged: only loading its state
    before the move is. Silent when the order is not known: the load and the move in
    different functions with no call between them that the linter follows, the model handed
    to code it cannot see before the load (which may have moved it), or an optimizer without
    state (`SGD` without `momentum=`). A model built by code it cannot see
    (`models.__dict__[args.arch]()`, `timm.create_model(...)`) counts as on the host until
    this function moves it, when only this function does.

    ## Why is this bad?
    `Optimizer.load_state_dict` casts every state tensor (Adam's `exp_avg`, SGD's
    `momentum_buffer`) to the device of its parameter *at that moment*: the host. Moving the
    model afterwards moves the parameters but not the optimizer's state, so the first
    `optimizer.step()` of the resumed run fails with `RuntimeError: Expected all tensors to
    be on the same device, but found at least two devices, cpu and cuda:0!`.

    ## Example
    ```python
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ckpt = torch.load("last.pt", map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    model.to(device)
    ```

    ## Use instead
    ```python
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ckpt = torch.load("last.pt", map_location="cpu")
    model.load_state_dict(ckpt["model"])
    model.to(device)
    optimizer.load_state_dict(ckpt["optimizer"])
    ```

    ## Fix safety
    No automatic fix. The repair moves `model.to(device)` above the load (or the load below
    the move); what lies between them (a `DataParallel` wrap, `torch.compile`, code that
    expects the model on the host) decides whether that is safe, which the linter cannot
    know.
    """

    code = "DL018"
    name = "optimizer-state-before-move"
    VALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model.to(device)
ckpt = torch.load("last.pt", map_location=device)
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
""",
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
ckpt = torch.load("last.pt", map_location="cpu")
optimizer.load_state_dict(ckpt["optimizer"])
model.to(device)
""",
    )
    INVALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
ckpt = torch.load("last.pt", map_location="cpu")
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])  # <--
model.to(device)
""",
    )

    def check(self, ctx):
        seen = set()
        for load in ctx.facts.optimizer_loads:
            if load.node in seen:
                continue
            seen.add(load.node)
            shown = load.model_text
            yield Report(
                load.node,
                f"the optimizer's state is loaded while `{shown}` is still on the host and moved to the "
                "device only afterwards: the state stays on the host and `optimizer.step()` fails; "
                "move the model first, then load the optimizer's state",
            )
