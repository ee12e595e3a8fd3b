from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel

_SHAPE_ONLY = ("expand_as", "view_as", "reshape_as", "type_as", "new_zeros", "new_ones", "new_empty", "new_full")


class NewTensorWrongDevice(Rule):
    """A tensor created without `device=` meets tensors on the device.

    ## What it does
    Follows tensors built by `torch.zeros/ones/randn/arange/tensor/...` without `device=`
    (an LSTM's `h0`, a mask, positions, class weights) and flags the operation or module
    call where one meets a tensor or a model on the accelerator: in a script, or inside
    `forward` of an `nn.Module` that this file moves to the device (or calls with device
    data). 0-dim tensors such as `torch.tensor(2.0)` are left alone: eager CUDA accepts them.

    ## Why is this bad?
    Factories create tensors on the CPU (unless a default device is set). Combining one with
    CUDA tensors raises `RuntimeError: Expected all tensors to be on the same device`; the
    code works on a CPU-only machine and fails on the first GPU run.

    ## Example
    ```python
    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden)
        out, _ = self.lstm(x, h0)
    ```

    ## Use instead
    ```python
    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden, device=x.device)
        out, _ = self.lstm(x, h0)
    ```
    """

    code = "DL011"
    name = "new-tensor-wrong-device"
    VALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), 16, device=x.device)
        c0 = x.new_zeros(1, x.size(0), 16)
        return self.lstm(x * torch.tensor(2.0), (h0, c0))[0]
model = Tagger().to(device)
out = model(torch.randn(4, 5, 8, device=device))
""",
        """
import torch
import torch.nn as nn
class Tagger(nn.Module):  # never placed on a device in this file: we cannot tell
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), 16)
        return self.lstm(x, (h0, h0))[0]
""",
    )
    INVALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), 16)
        return self.lstm(x, (h0, h0))[0]  # <--
model = Tagger().to(device)
x = torch.randn(4, 5, 8).to(device)
mask = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
out = model(x) * mask.unsqueeze(-1)  # <--
""",
    )

    def check(self, ctx):
        facts = ctx.facts
        for mix in facts.mixes:
            func = getattr(mix.node, "func", None)
            if func is not None and getattr(getattr(func, "attr", None), "value", None) in _SHAPE_ONLY:
                continue
            fresh = [v for v in mix.operands if _fresh_host(v)]
            if not fresh:
                continue
            others = [v for v in mix.operands if not any(v is f for f in fresh)]
            on_dev = any((v.kind is Kind.MODULE and v.dev is Dev.ACCEL and not v.param_free) or contents_on_accel(v)
                         for v in others)
            if not on_dev and mix.cls is not None and mix.cls in facts.accel_classes:
                on_dev = any(v.on_module or (v.kind is Kind.MODULE and not v.param_free) for v in others)
            if on_dev:
                yield Report(
                    mix.node,
                    "a tensor created without `device=` is on the CPU but meets tensors on the device here; "
                    "create it with `device=x.device` (or `x.new_zeros(...)`)",
                )


def _fresh_host(v) -> bool:
    return v.kind is Kind.TENSOR and v.fresh and v.dev is Dev.CPU and v.attr is None and v.loader is None
