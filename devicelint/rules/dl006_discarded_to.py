import libcst as cst

from devicelint.names import source_of
from devicelint.rewrite import Scopes, bound_names
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
    `model.to(device)` is fine: modules move in place, and so do a tokenizer's
    `BatchEncoding`, a PyG `Data` / `Batch`, and the whole object a data loader yields (it may
    be such a batch). When the code does not say what the receiver is, the rule stays silent,
    and so it does for a tensor already on the very device it is sent to
    (`nn.Parameter(torch.zeros(n, device=device))` then `p.to(device)`): the move returns it
    unchanged, nothing stays behind (DL004 reports such a move where it is sure).

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
    The fix assigns the result back (`x = x.to(device)`), for a receiver that is a plain
    name or an attribute (`self.mask`). It is safe: the statement did nothing before, and
    from this line on `x` means the moved tensor, which is what the code below expects.
    Other names that alias the old tensor still see it on the host. No fix is offered where
    the assignment would change which variable the name means (a global read inside a
    function: assigning it there would make it local), for subscripts
    (`batch["x"].to(device)`), or for receivers that might move in place (modules).
    """

    code = "DL006"
    name = "discarded-to"
    fixable = True
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

    FIXES = (
        (
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)
x.cuda()
out = model(x)

def evaluate(model, loader):
    for xb, yb in loader:
        xb.to(device, non_blocking=True); yb.to(device)
        model(xb)
""",
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)
x = x.cuda()
out = model(x)

def evaluate(model, loader):
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True); yb = yb.to(device)
        model(xb)
""",
        ),
    )

    def check(self, ctx):
        kinds: dict = {}
        moves: dict = {}
        in_place = {id(mv.node) for mv in ctx.facts.moves if mv.in_place}
        # `self.logstd.to(device)` on a tensor made with `device=device`: nothing stays behind
        # (DL004 says the move is redundant where it is sure); a move of one context that is no
        # no-op still counts
        changes = {id(mv.node) for mv in ctx.facts.moves if not mv.noop}
        for mv in ctx.facts.moves:
            # `batch.to(device)` on a BatchEncoding / PyG batch / a loader's batch object moves it in place
            if not mv.bare or id(mv.node) in in_place or id(mv.node) not in changes:
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
        scopes = ctx.scopes
        for key, mv in candidates.items():
            ann = annotated.found.get(key, {}).get(mv.recv_text)
            if ann is not None and "Tensor" not in ann:
                continue
            edit, stmt = _assign_back(scopes, mv.node)
            method = mv.node.func.attr.value
            what = f"`{mv.recv_text}`" if mv.recv_text else "the tensor"
            call = f"{mv.recv_text}.{method}(...)" if mv.recv_text else f".{method}(...)"
            fix = f"assign the result: `{mv.recv_text} = {call}`" if mv.recv_text else "use the result of the move"
            yield Report(
                mv.node,
                f"the result of `.{method}()` is discarded: tensors are not moved in place, so {what} "
                f"stays where it was and fails later beside device tensors",
                fix=fix,
                edit=edit,
                edit_node=stmt,
            )


def _assign_back(scopes: Scopes, call: cst.Call):
    """(edit, the `Expr` statement to replace) for `x.to(d)` -> `x = x.to(d)`, or (None, None)."""
    stmt = scopes.parent(call)
    if not isinstance(stmt, cst.Expr) or stmt.value is not call:
        return None, None
    recv = call.func.value
    if recv.lpar:
        return None, None
    if isinstance(recv, cst.Name):
        if not _name_assignable(scopes, call, recv.value):
            return None, None
    elif isinstance(recv, cst.Attribute):
        if isinstance(recv.value, cst.Name) and recv.value.value == "self" and not _self_attr_assignable(scopes, call, recv.attr.value):
            return None, None
    else:
        return None, None

    def edit(expr: cst.Expr) -> cst.Assign:
        target = expr.value.func.value
        return cst.Assign(targets=[cst.AssignTarget(target=target)], value=expr.value, semicolon=expr.semicolon)

    return edit, stmt


def _name_assignable(scopes: Scopes, call: cst.Call, name: str) -> bool:
    """`name = name.to(d)` keeps `name` what it was: a local (or module) name, no Parameter."""
    fn = scopes.function_of(call)
    if fn is False or (fn is not None and name not in bound_names(fn)):
        return False  # a global or free name: assigning it here would make it local
    values = _assigned(fn if fn is not None else scopes.module, lambda t: isinstance(t, cst.Name) and t.value == name)
    # `p = nn.Parameter(...)`: `p = p.to(d)` would make it a plain tensor
    return not any(_is_parameter(v) for v in values)


def _self_attr_assignable(scopes: Scopes, call: cst.Call, attr: str) -> bool:
    """A registered parameter refuses a plain tensor: assign only attributes the class sets
    itself, to something that is not a Parameter."""
    cls = next((a for a in scopes.ancestors(call) if isinstance(a, cst.ClassDef)), None)
    if cls is None:
        return False
    values = _assigned(cls, lambda t: isinstance(t, cst.Attribute) and t.attr.value == attr
                       and isinstance(t.value, cst.Name) and t.value.value == "self")
    return bool(values) and not any(v is None or _is_parameter(v) for v in values) and not _registers(cls, attr)


def _assigned(scope, wanted) -> list:
    """The values assigned (`t = v`, `t: T = v`) to targets `wanted(t)` anywhere in `scope`."""
    from devicelint.flow import walk

    out = []
    for n in walk(scope):
        if isinstance(n, cst.Assign):
            out.extend(n.value for t in n.targets if wanted(t.target))
        elif isinstance(n, cst.AnnAssign) and wanted(n.target):
            out.append(n.value)
    return out


def _is_parameter(value) -> bool:
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name.endswith("Parameter")


def _registers(cls, attr: str) -> bool:
    """`self.register_parameter("attr", ...)` / `register_buffer` in the class."""
    from devicelint.flow import walk

    for n in walk(cls):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value.startswith("register_"):
            first = n.args[0].value if n.args else None
            if isinstance(first, cst.SimpleString) and first.value.strip("\'\"") == attr:
                return True
    return False


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
                params[param.name.value] = source_of(param.annotation.annotation)
        self.stack.append(params)

    def leave_FunctionDef(self, node) -> None:
        self.stack.pop()

    def visit_Call(self, node) -> None:
        if id(node) in self.wanted and self.stack:
            self.found[id(node)] = self.stack[-1]
