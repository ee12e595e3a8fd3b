import re

import libcst as cst

from devicelint.names import dotted
from devicelint.rules.base import Report, Rule

_REPLACEMENTS = {
    "torch.cuda.amp.autocast": 'torch.amp.autocast("cuda", ...)',
    "torch.cuda.amp.autocast_mode.autocast": 'torch.amp.autocast("cuda", ...)',
    "torch.cuda.amp.GradScaler": 'torch.amp.GradScaler("cuda", ...)',
    "torch.cuda.amp.grad_scaler.GradScaler": 'torch.amp.GradScaler("cuda", ...)',
    "torch.cuda.amp.custom_fwd": 'torch.amp.custom_fwd(device_type="cuda", ...)',
    "torch.cuda.amp.custom_bwd": 'torch.amp.custom_bwd(device_type="cuda")',
    "torch.cuda.amp.autocast_mode.custom_fwd": 'torch.amp.custom_fwd(device_type="cuda", ...)',
    "torch.cuda.amp.autocast_mode.custom_bwd": 'torch.amp.custom_bwd(device_type="cuda")',
    "torch.cpu.amp.autocast": 'torch.amp.autocast("cpu", ...)',
    "torch.cpu.amp.autocast_mode.autocast": 'torch.amp.autocast("cpu", ...)',
    "torch.cpu.amp.GradScaler": 'torch.amp.GradScaler("cpu", ...)',
    "torch.cpu.amp.grad_scaler.GradScaler": 'torch.amp.GradScaler("cpu", ...)',
}
# A branch chosen by the torch version is a compatibility shim: the old API runs only where
# it is not deprecated.
_VERSION_TEST = re.compile(r"version|TORCH_(GREATER|LESS|VERSION)|torch_(greater|less|version)|hasattr\(\s*torch", re.IGNORECASE)
# Cheap text test before walking the tree: every import style of these APIs spells one of these.
_MENTION = re.compile(rb"(cuda|cpu)\s*\.\s*amp\b|from\s+torch\.(cuda|cpu)\s+import\b|from\s+torch\s+import\b[^\n]*\b(cuda|cpu)\b")


class DeprecatedCudaAmp(Rule):
    """`torch.cuda.amp.*` / `torch.cpu.amp.autocast`, deprecated in favour of `torch.amp`.

    ## What it does
    Flags every use of `torch.cuda.amp.autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`
    and `torch.cpu.amp.autocast`, in any import style (`import torch.cuda.amp as amp`,
    `from torch.cuda.amp import autocast`, `from torch.cuda import amp`, ...). The import
    line itself is not flagged: the uses are, since that is where PyTorch warns.

    ## Why is this bad?
    Since PyTorch 2.4 each use emits `FutureWarning: torch.cuda.amp.autocast(args...) is
    deprecated. Please use torch.amp.autocast('cuda', args...) instead.`, and the old names
    will be removed.

    ## Example
    ```python
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():
        loss = model(x)
    ```

    ## Use instead
    ```python
    scaler = torch.amp.GradScaler("cuda")
    with torch.amp.autocast("cuda"):
        loss = model(x)
    ```
    """

    code = "DL005"
    name = "deprecated-cuda-amp"
    VALID = (
        """
import torch
scaler = torch.amp.GradScaler("cuda")
with torch.autocast(device_type="cuda", dtype=torch.float16):
    pass
""",
        """
from torch.amp import autocast
with autocast("cuda"):
    pass
""",
        """
import torch
from packaging import version
TORCH_GREATER_EQUAL_2_4 = version.parse(torch.__version__) >= version.parse("2.4")
scaler = torch.amp.GradScaler("cuda") if TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()  # old torch only
if hasattr(torch, "amp"):
    ctx = torch.amp.autocast("cuda")
else:
    ctx = torch.cuda.amp.autocast()
""",
    )
    INVALID = (
        """
import torch
from torch.cuda.amp import autocast, GradScaler
scaler = GradScaler()  # <--
with autocast():  # <--
    pass
with torch.cuda.amp.autocast(dtype=torch.bfloat16):  # <--
    pass
""",
        """
import torch.cuda.amp as amp
from torch.cuda import amp as cuda_amp

@cuda_amp.custom_fwd  # <--
def forward(ctx, x):
    return x

with amp.autocast(enabled=True):  # <--
    pass
""",
    )

    def check(self, ctx):
        if not _MENTION.search(ctx.source):
            return
        finder = _Finder(ctx.imports, ctx.module)
        ctx.module.visit(finder)
        for node, q in finder.found:
            replacement = _REPLACEMENTS[q]
            call = finder.calls.get(id(node))
            edit = _edit(ctx, node, q, call)
            yield Report(
                node,
                f"`{q}` is deprecated; use `{replacement}`",
                fix=f"use `{replacement}`",
                edit=edit,
                edit_node=call if call is not None and edit is not None else node,
            )


def _edit(ctx, node, q: str, call):
    """Rewrite `torch.cuda.amp.X(...)` spelled through the torch module itself; a name
    imported from torch.cuda.amp would need its import rewritten too: no fix then."""
    text = dotted(node)
    if text is None or "." not in text or ctx.imports.qualname(cst.Name(text.split(".")[0])) != "torch":
        return None
    head, device, leaf = text.split(".")[0], q.split(".")[1], q.rsplit(".", 1)[-1]
    func = cst.parse_expression(f"{head}.amp.{leaf}")
    device_arg = cst.Arg(value=cst.SimpleString(f'"{device}"'))
    device_kw = cst.Arg(keyword=cst.Name("device_type"), value=cst.SimpleString(f'"{device}"'), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if leaf in ("custom_fwd", "custom_bwd"):
        if call is None:  # a bare decorator
            return lambda _old: cst.Call(func=func, args=[device_kw])
        return lambda c: c.with_changes(func=func, args=[*c.args, device_kw])
    if call is None or any(a.keyword is None for a in call.args):
        return None  # positional arguments shift meaning between the old and new signatures
    return lambda c: c.with_changes(func=func, args=[device_arg, *c.args])


class _Finder(cst.CSTVisitor):
    def __init__(self, imports, module):
        self.imports = imports
        self.module = module
        self.found = []
        self.calls = {}  # id(func node) -> the call it is the callee of
        self.shim_depth = 0

    def _version_guard(self, test) -> bool:
        return bool(_VERSION_TEST.search(self.module.code_for_node(test)))

    def visit_If(self, node) -> bool:
        if self._version_guard(node.test):
            self.shim_depth += 1
        return True

    def leave_If(self, node) -> None:
        if self._version_guard(node.test):
            self.shim_depth -= 1

    def visit_IfExp(self, node) -> bool:
        if self._version_guard(node.test):
            self.shim_depth += 1
        return True

    def leave_IfExp(self, node) -> None:
        if self._version_guard(node.test):
            self.shim_depth -= 1

    def visit_Call(self, node: cst.Call) -> bool:
        self.calls[id(node.func)] = node
        return True

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        q = self.imports.qualname(node)
        if q in _REPLACEMENTS:
            if not self.shim_depth:
                self.found.append((node, q))
            return False
        node.value.visit(self)  # never the `.attr` name itself
        return False

    def visit_Name(self, node: cst.Name) -> bool:
        q = self.imports.qualname(node)
        if q in _REPLACEMENTS and not self.shim_depth:
            self.found.append((node, q))
        return False
