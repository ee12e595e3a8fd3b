from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel

import libcst as cst

from devicelint.flow import _walk
from devicelint.names import dotted

_MOVE_HOOKS = {"_apply", "to", "cuda", "to_empty"}


class PlainTensorAttribute(Rule):
    """A tensor kept on an `nn.Module` as a plain attribute, used in `forward` with its inputs.

    ## What it does
    Flags the line in a module's method where a tensor assigned as a plain attribute
    (`self.mask = torch.ones(...)`, `self.pe = torch.zeros(...)`, not an `nn.Parameter` and
    not `register_buffer`) is combined with the method's inputs or a submodule's output.

    ## Why is this bad?
    `model.to(device)` / `model.cuda()` move parameters and buffers only. A plain tensor
    attribute stays on the CPU, so `forward` raises `RuntimeError: Expected all tensors to be
    on the same device` once the model is on the GPU. It is also missing from `state_dict()`.

    ## Example
    ```python
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=512):
            super().__init__()
            self.pe = torch.zeros(max_len, d_model)
        def forward(self, x):
            return x + self.pe[: x.size(1)]
    ```

    ## Use instead
    ```python
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=512):
            super().__init__()
            self.register_buffer("pe", torch.zeros(max_len, d_model))
        def forward(self, x):
            return x + self.pe[: x.size(1)]
    ```
    """

    code = "DL015"
    name = "plain-tensor-attribute"
    VALID = (
        """
import torch
import torch.nn as nn
class Masked(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.ones(n))
        self.scale = nn.Parameter(torch.ones(n))
        self.fc = nn.Linear(n, n)
    def forward(self, x):
        return self.fc(x) * self.mask * self.scale
""",
        """
import torch
import torch.nn as nn
class Masked(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.ones(n)
        self.fc = nn.Linear(n, n)
    def forward(self, x):
        return self.fc(x) * self.mask.to(x.device)
""",
    )
    INVALID = (
        """
import torch
import torch.nn as nn
class Masked(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.ones(n)
        self.fc = nn.Linear(n, n)
    def forward(self, x):
        return self.fc(x) * self.mask  # <--
""",
    )

    def check(self, ctx):
        facts = ctx.facts
        verdicts: dict = {}
        for mix in facts.mixes:
            if mix.cls is None:
                continue
            plain = [v for v in mix.operands if v.kind is Kind.TENSOR and v.fresh and v.attr and v.dev is Dev.CPU]
            if not plain:
                continue
            others = [v for v in mix.operands if not any(v is p for p in plain)]
            if not any(v.on_module or contents_on_accel(v) or (v.kind is Kind.MODULE and not v.param_free)
                       for v in others):
                continue
            attr = plain[0].attr
            key = (id(mix.cls), attr)
            if key not in verdicts:
                verdicts[key] = _only_set_in_init(mix.cls, attr)
            if verdicts[key]:
                yield Report(
                    mix.node,
                    f"`self.{attr}` is a plain tensor attribute: `model.to(device)` leaves it on the CPU; "
                    f"use `self.register_buffer(\"{attr}\", ...)` (or `nn.Parameter`)",
                )


def _only_set_in_init(cls: cst.ClassDef, attr: str) -> bool:
    """The attribute is assigned in `__init__` only, and the class does not move it itself."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        if stmt.name.value in _MOVE_HOOKS:
            return False
        if stmt.name.value == "__init__":
            continue
        for n in _walk(stmt):
            if isinstance(n, cst.AssignTarget) and dotted(n.target) == f"self.{attr}":
                return False
            if isinstance(n, (cst.AugAssign, cst.AnnAssign)) and dotted(n.target) == f"self.{attr}":
                return False
    return True
