from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel

import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow import walk
from devicelint.names import dotted


class PlainTensorAttribute(Rule):
    """A tensor kept on an `nn.Module` as a plain attribute, used in `forward` with its inputs.

    ## What it does
    Flags the line in a module's method where a tensor assigned as a plain attribute
    (`self.mask = torch.ones(...)`, `self.pe = torch.zeros(...)`, not an `nn.Parameter` and
    not `register_buffer`) is combined with the method's inputs or a submodule's output.
    Not in a notebook or script that names no device and runs its own code (the module is
    never moved there), unless the combination meets device data itself.

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

    ## Fix safety
    The fix turns the one `self.<name> = tensor` of `__init__` (after `super().__init__()`)
    into `self.register_buffer("<name>", tensor, persistent=False)`: `model.to(device)` then
    moves it, and, not persistent, it stays out of `state_dict()`, so saved checkpoints still
    load. A buffer is also cast by `model.half()` / `.to(dtype)` and listed by `buffers()`,
    which the plain attribute was not: unsafe (`--unsafe-fixes`). Not fixed: an attribute
    assigned more than once or before `super().__init__()`, or in a tuple assignment.
    """

    code = "DL015"
    name = "plain-tensor-attribute"
    fixable = True
    fix_applicability = ("unsafe",)
    FIXES = (
        (
            """
import torch
import torch.nn as nn

class Masked(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return self.fc(x) * self.mask
""",
            """
import torch
import torch.nn as nn

class Masked(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return self.fc(x) * self.mask
""",
        ),
    )
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
            if not any(contents_on_accel(v) or (not ctx.host_only and (
                    v.on_module or (v.kind is Kind.MODULE and not v.param_free))) for v in others):
                continue  # in a program that runs on the host only, the module is never moved
            attr = plain[0].attr
            key = (id(mix.cls), attr)
            if key not in verdicts:
                verdicts[key] = _only_set_in_init(mix.cls, attr)
            if verdicts[key]:
                assign = _init_assignment(mix.cls, attr)
                yield Report(
                    mix.node,
                    f"`self.{attr}` is a plain tensor attribute: `model.to(device)` leaves it on the CPU; "
                    f"use `self.register_buffer(\"{attr}\", ...)` (or `nn.Parameter`)",
                    fix=f"register `{attr}` as a non-persistent buffer" if assign is not None else None,
                    edit=_to_buffer if assign is not None else None,
                    edit_node=assign,
                    applicability="unsafe",
                )


def _to_buffer(assign: cst.Assign) -> cst.Expr:
    """`self.pe = torch.zeros(...)` -> `self.register_buffer("pe", torch.zeros(...), persistent=False)`
    (not persistent: `state_dict()` stays as it was, so saved checkpoints still load)."""
    attr = assign.targets[0].target.attr.value
    call = cst.Call(
        func=cst.parse_expression("self.register_buffer"),
        args=[
            cst.Arg(cst.SimpleString(f'"{attr}"'), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(assign.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(cst.Name("False"), keyword=cst.Name("persistent"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))),
        ],
    )
    return cst.Expr(call, semicolon=assign.semicolon)


def _is_super_init(n) -> bool:
    if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "__init__"):
        return False
    owner = n.func.value
    if isinstance(owner, cst.Call):
        return dotted(owner.func) == "super"
    return dotted(owner) in ("nn.Module", "torch.nn.Module")


def _init_assignment(cls: cst.ClassDef, attr: str):
    """The one `self.<attr> = value` statement of `__init__`, after `super().__init__()` (a
    buffer needs the Module set up), or None."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    init = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return None
    found, super_seen = [], False
    for stmt in init.body.body if isinstance(init.body, cst.IndentedBlock) else ():
        nodes = list(walk(stmt))
        for n in nodes:
            if isinstance(n, cst.Assign) and any(dotted(t.target) == f"self.{attr}" for t in n.targets):
                found.append((n, super_seen))
        super_seen = super_seen or any(_is_super_init(n) for n in nodes)
    if len(found) != 1:
        return None
    assign, after_super = found[0]
    if not after_super or len(assign.targets) != 1:
        return None
    return assign


def _only_set_in_init(cls: cst.ClassDef, attr: str) -> bool:
    """The attribute is assigned in `__init__` only, and the class does not move it itself."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        if stmt.name.value in kb.nn.MOVE_HOOKS:
            return False
        if stmt.name.value == "__init__":
            continue
        for n in walk(stmt):
            if isinstance(n, cst.AssignTarget) and dotted(n.target) == f"self.{attr}":
                return False
            if isinstance(n, (cst.AugAssign, cst.AnnAssign)) and dotted(n.target) == f"self.{attr}":
                return False
    return True
