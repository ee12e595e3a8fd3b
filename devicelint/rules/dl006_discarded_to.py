import libcst as cst

from devicelint.rules.base import Report, Rule
from devicelint.values import Kind

# Receivers that are moved in place (modules), or that we cannot call tensors.
_NOT_TENSOR = (Kind.MODULE, Kind.OBJECT, Kind.SEQ, Kind.MAPPING, Kind.LOADER, Kind.DATASET, Kind.OTHER)


class DiscardedTo(Rule):
    """`t.to(device)` / `t.cuda()` / `t.cpu()` as a statement of its own on a tensor.

    ## What it does
    Flags a device move of a tensor whose result is thrown away: the call is a bare
    statement, so nothing holds the moved copy. Only receivers known to be tensors are
    flagged (a tensor factory's result, a batch from a loader, a model output...).
    `model.to(device)` is fine: modules move in place. When the code does not say what
    the receiver is, the rule stays silent.

    ## Why is this bad?
    `Tensor.to()`, `.cuda()` and `.cpu()` return a new tensor and leave the original where
    it was. The tensor is still on the host, so the next operation that meets device
    tensors fails with `RuntimeError: Expected all tensors to be on the same device`, and
    the copy was made for nothing. The crash happens on a later line, which makes the
    cause easy to miss.

    ## Example
    ```python
    x = torch.randn(8, 4)
    x.to(device)
    out = model(x)
    ```

    ## Use instead
    ```python
    x = torch.randn(8, 4)
    x = x.to(device)
    out = model(x)
    ```

    ## Fix safety
    Assigning the result back (`x = x.to(device)`) changes what `x` refers to from this
    line on: safe unless other names alias the old tensor and expect it on the device too.
    """

    code = "DL006"
    name = "discarded-to"
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2)
model.to(device)  # modules move in place
x = torch.randn(8, 4)
x = x.to(device)
out = model(x)
""",
        """
def prepare(batch, device):
    batch.to(device)  # we cannot tell what `batch` is: silent
    return batch
""",
        """
from torch.nn import Module
from lightning_fabric.strategies.strategy import Strategy

class SingleDeviceStrategy(Strategy):
    def module_to_device(self, module: Module) -> None:
        module.to(self.root_device)  # annotated as a module: moves in place
""",
    )
    INVALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)
x.to(device)  # <--
for xb, yb in zip(x.split(2), x.split(2)):
    xb.cuda()  # <--
    yb.to(device, non_blocking=True)  # <--
""",
    )

    def check(self, ctx):
        kinds: dict = {}
        moves: dict = {}
        for mv in ctx.facts.moves:
            if not mv.bare:
                continue
            # A function run in several contexts records one move per context.
            kinds.setdefault(id(mv.node), set()).add(mv.recv.kind)
            moves.setdefault(id(mv.node), mv)
        candidates = {
            key: mv for key, mv in moves.items() if Kind.TENSOR in kinds[key] and not kinds[key] & set(_NOT_TENSOR)
        }
        if not candidates:
            return
        # A parameter annotated with another type (`module: nn.Module`) contradicts the
        # inference: say nothing rather than trust it.
        annotated = _AnnotatedParams({id(mv.node) for mv in candidates.values()})
        ctx.module.visit(annotated)
        for key, mv in candidates.items():
            ann = annotated.found.get(key, {}).get(mv.recv_text)
            if ann is not None and "Tensor" not in ann:
                continue
            method = mv.node.func.attr.value
            what = f"`{mv.recv_text}`" if mv.recv_text else "the tensor"
            call = f"{mv.recv_text}.{method}(...)" if mv.recv_text else f".{method}(...)"
            fix = f"assign the result: `{mv.recv_text} = {call}`" if mv.recv_text else "use the result of the move"
            yield Report(
                mv.node,
                f"the result of `.{method}()` is discarded: tensors are not moved in place, so {what} "
                f"stays where it was and fails later beside device tensors",
                fix=fix,
            )


class _AnnotatedParams(cst.CSTVisitor):
    """For each wanted move node: the annotated parameters of its enclosing function."""

    def __init__(self, wanted: set):
        self.wanted = wanted
        self.stack: list = []
        self.found: dict = {}

    def visit_FunctionDef(self, node) -> None:
        params = {}
        p = node.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.annotation is not None:
                params[param.name.value] = cst.Module(body=()).code_for_node(param.annotation.annotation)
        self.stack.append(params)

    def leave_FunctionDef(self, node) -> None:
        self.stack.pop()

    def visit_Call(self, node) -> None:
        if id(node) in self.wanted and self.stack:
            self.found[id(node)] = self.stack[-1]
