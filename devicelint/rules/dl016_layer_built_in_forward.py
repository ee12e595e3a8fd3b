import libcst as cst

from devicelint import torchapi as api
from devicelint.flow import _reachable, _walk
from devicelint.names import dotted
from devicelint.rules.base import Report, Rule

# torch.nn classes that are not layers with weights of their own.
_NOT_LAYERS = {"Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
               "ParameterDict", "Identity", "DataParallel"}


class LayerBuiltInForward(Rule):
    """A layer with weights built inside `forward`: `nn.Linear(...)(x)`, `nn.BatchNorm2d(c)(x)`.

    ## What it does
    Flags the construction of a `torch.nn` layer that has parameters or buffers (`Linear`,
    `Conv2d`, `BatchNorm2d`, `LayerNorm`, `Embedding`, `LSTM`, ...) inside `forward` of an
    `nn.Module`, or inside a method that `forward` calls, unless it is built with `device=` or
    moved right there. A layer kept in a local name is reported where it is called (where it
    fails); one built and applied at once, where it is built. Parameter-free layers (`nn.ReLU()`, `nn.Dropout()`, a loss without
    weights, and losses, whose only tensor is the `weight=` they are given) are left alone, and
    so are layers built in `__init__` and the methods it calls.

    ## Why is this bad?
    A layer made in `forward` gets fresh weights on the CPU at every call. On a GPU the
    forward pass fails (`RuntimeError: Input type (torch.cuda.FloatTensor) and weight type
    (torch.FloatTensor) should be the same`, or `Expected all tensors to be on the same
    device`): `model.to(device)` never saw the layer. Even on the CPU its weights are random
    at every step, missing from `model.parameters()` (so never trained) and from
    `state_dict()`.

    ## Example
    ```python
    class Block(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)

        def forward(self, x):
            return nn.BatchNorm2d(x.size(1))(self.conv(x)).relu()
    ```

    ## Use instead
    ```python
    class Block(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.bn = nn.BatchNorm2d(channels)

        def forward(self, x):
            return self.bn(self.conv(x)).relu()
    ```
    """

    code = "DL016"
    name = "layer-built-in-forward"
    VALID = (
        """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Head(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, classes)

    def forward(self, x):
        x = nn.Dropout(0.1)(F.gelu(self.norm(x)))  # no weights of its own
        extra = nn.Linear(x.size(-1), 1, device=x.device)  # placed where the input is
        loss_fn = nn.CrossEntropyLoss()
        return self.fc(x) + extra(x)
""",
    )
    INVALID = (
        """
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        h = self.conv(x)
        return self.norm(h).relu()

    def norm(self, h):
        bn = nn.BatchNorm2d(h.size(1))
        return bn(h)  # <--
""",
    )

    def check(self, ctx):
        if b"forward" not in ctx.source:
            return
        for cls in _module_classes(ctx):
            methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)} \
                if isinstance(cls.body, cst.IndentedBlock) else {}
            if "forward" not in methods:
                continue
            in_forward = _reachable(methods, "forward") - _reachable(methods, "__init__") - {"__init__"}
            for name in sorted(in_forward):
                yield from _layers_built(ctx, methods[name])


def _module_classes(ctx):
    """The file's nn.Module subclasses (through torch.nn bases, or a base class of this file
    that is one)."""
    classes = [n for n in _walk(ctx.module) if isinstance(n, cst.ClassDef)]
    modules, names = [], set()
    changed = True
    while changed:
        changed = False
        for c in classes:
            if c.name.value in names:
                continue
            for b in c.bases:
                q = ctx.imports.qualname(b.value) or ""
                if q.startswith("torch.nn.") or (dotted(b.value) or "") in names:
                    modules.append(c)
                    names.add(c.name.value)
                    changed = True
                    break
    return modules


def _layers_built(ctx, fn: cst.FunctionDef):
    moved = _moved_names(fn)
    for n in _walk(fn):
        if not isinstance(n, cst.Call):
            continue
        q = ctx.imports.qualname(n.func) or ""
        parts = q.split(".")
        if len(parts) != 3 or parts[:2] != ["torch", "nn"] or not parts[2][:1].isupper():
            continue
        layer = parts[2]
        if layer in _NOT_LAYERS or layer in api.PARAM_FREE_LAYERS or layer in api.WRAPPERS:
            continue
        if layer.endswith("Loss"):
            continue  # a loss holds at most the weight tensor it is given, wherever that is
        if any(a.keyword is not None and a.keyword.value == "device" for a in n.args):
            continue
        name = _assigned_name(n, fn)
        if _moved_in_place(n, fn) or name in moved:
            continue
        message = (f"`nn.{layer}(...)` is built inside `forward`: its weights are made on the CPU at every call, "
                   "never moved by `model.to(device)` and never trained; build it in `__init__`")
        # where it meets the data is where it fails: report the calls of `proj = nn.Linear(...)`
        uses = [c for c in _walk(fn) if isinstance(c, cst.Call) and name is not None and dotted(c.func) == name]
        for node in uses or [n]:
            yield Report(node, message if node is n else f"`{name}` is an `nn.{layer}` built in this call "
                         f"(line {ctx.line(n)}): its weights are made on the CPU each time, never moved by "
                         "`model.to(device)` and never trained; build it in `__init__`")


def _moved_in_place(call: cst.Call, fn) -> bool:
    """`nn.Linear(a, b).to(x.device)`: placed where it is built."""
    for n in _walk(fn):
        if (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.value is call
                and n.func.attr.value in ("to", "cuda", "type_as")):
            return True
    return False


def _assigned_name(call: cst.Call, fn):
    for n in _walk(fn):
        if isinstance(n, cst.Assign) and n.value is call and len(n.targets) == 1:
            return dotted(n.targets[0].target)
    return None


def _moved_names(fn) -> set:
    """Names (or `self.x`) moved somewhere in `fn`: `bn.to(x.device)`, `self.proj.cuda()`."""
    out = set()
    for n in _walk(fn):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
            text = dotted(n.func.value)
            if text:
                out.add(text)
    return out
