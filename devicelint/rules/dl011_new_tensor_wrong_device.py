from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel

_SHAPE_ONLY = ("expand_as", "view_as", "reshape_as", "type_as", "new_zeros", "new_ones", "new_empty", "new_full")


class NewTensorWrongDevice(Rule):
    """A tensor created without `device=` meets tensors on the device.

    ## What it does
    Follows tensors built by `torch.zeros/ones/randn/arange/tensor/...` without `device=`
    (an LSTM's `h0`, a mask, positions, class weights) and flags the operation or module
    call where one meets a tensor or a model on the accelerator: in a script, in any method
    of an `nn.Module` that this file moves to the device (or calls with device data), and in
    `forward` of every `nn.Module` (and the methods `forward` calls), whatever the file moves:
    a module runs on its inputs' device, so its inputs, parameters and submodule outputs are
    all there. Methods that `__init__` calls (shape probes, before any move) are left alone,
    and so are 0-dim tensors such as `torch.tensor(2.0)`: eager CUDA accepts them.

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
class ConvNet(nn.Module):
    def __init__(self, in_shape):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(in_shape[0], 8, 3), nn.ReLU())
        # a shape probe while the module is still on the CPU
        self.fc = nn.Linear(self.feature_size(in_shape), 10)
    def feature_size(self, in_shape):
        return self.features(torch.zeros(1, *in_shape)).view(1, -1).size(1)
    def forward(self, x):
        return self.fc(self.features(x).flatten(1))
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
        """
import math
import torch
import torch.nn as nn
class SinusoidalPosEmb(nn.Module):  # never moved in this file: it runs wherever its input is
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(torch.arange(half) * -(math.log(10000) / (half - 1)))
        emb = t[:, None] * freqs[None, :]  # <--
        return torch.cat((emb.sin(), emb.cos()), dim=-1)
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
            if not on_dev and mix.cls is not None and (mix.in_forward or mix.cls in facts.accel_classes):
                # a module runs on its inputs' device: in `forward`, whatever this file moves
                on_dev = any((v.on_module and v.dev is not Dev.CPU) or (v.kind is Kind.MODULE and not v.param_free)
                             for v in others)
            if on_dev:
                yield Report(
                    mix.node,
                    "a tensor created without `device=` is on the CPU but meets tensors on the device here; "
                    "create it with `device=x.device` (or `x.new_zeros(...)`)",
                )


def _fresh_host(v) -> bool:
    return v.kind is Kind.TENSOR and v.fresh and v.dev is Dev.CPU and v.attr is None and v.loader is None
