import libcst as cst

from devicelint.contexts import host_only_class
from devicelint.names import dotted
from devicelint.rewrite import Scopes, device_var
from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, contents_on_accel, mid_parts


class ModelNotMoved(Rule):
    """A model that receives data on the accelerator but is never moved there.

    ## What it does
    Flags the call where an `nn.Module` built in this file (a local `nn.Module` subclass,
    an `nn.*` layer, a torchvision/timm/Hugging Face model) is called with tensors on the
    accelerator while the model itself is never moved: no `.to(device)`, no `.cuda()`, no
    `device=` at construction, and it is never handed to code that could move it. When
    the model reaches the call through a function of the same file
    (`train(model, loader, device)`), the flag is on the call that hands it over. It also
    flags `DistributedDataParallel(model, device_ids=[gpu])` on a model that, up to there, is
    on the host and was never handed to other code: DDP refuses a CPU module with
    `device_ids` (`ValueError: DistributedDataParallel device_ids and output_device arguments
    only work with single-device/multiple-device GPU modules or CPU modules`).

    Layers an `nn.Module` keeps in a plain list or dict (`self.blocks = [nn.Linear(d, d) for _
    in range(n)]`) are not registered: `model.to(device)` leaves them on the host (and
    `model.parameters()` leaves them out of training). Where `forward` calls one and this
    file moves the module to the device, or builds no instance of it at all (a library's
    module, moved by whoever uses it), the call is flagged; the fix wraps the container
    in `nn.ModuleList` / `nn.ModuleDict`.

    The parameters of a model that is never moved meeting tensors on the device are flagged
    too: an EMA or momentum copy (`ema = deepcopy(model)` taken before `model.to(device)`)
    updated with the moved model's parameters (`ema_p.mul_(d).add_(p.data)`), at the call
    that hands the copy to the update; the fix moves the copy where it is made.
    A model moved and then given a new layer (`model.fc = nn.Linear(512, 10)` or
    `vgg.classifier[6] = nn.Linear(4096, 2)` after `model.to(device)`, the usual way to
    fine-tune a pretrained network) is on the host again in that layer: the call is flagged
    with the layer named, and the fix moves the new layer.

    ## Why is this bad?
    The parameters stay on the CPU. The first forward pass fails with
    `RuntimeError: Expected all tensors to be on the same device` (or, for convolutions,
    `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same`).

    ## Example
    ```python
    model = Net()
    x = x.to(device)
    out = model(x)
    ```

    ## Use instead
    ```python
    model = Net().to(device)
    x = x.to(device)
    out = model(x)
    ```

    ## Fix safety
    Where the model is built (`Net()`, `nn.Sequential(...)`, `AutoModel.from_pretrained(...)`)
    and a device variable is certainly bound there (a name the inference knows holds a
    device, not just one called `device`), the fix appends `.to(<that variable>)` to the
    construction. That moves the model once, where it is made, to the device its data goes
    to. Unsafe (`--unsafe-fixes`): the parameters now live on the device from the start, so
    code between construction and the call that reads them on the host (an optimizer built
    from `model.parameters()` is fine; `.numpy()` on a weight is not) behaves differently,
    and the inference's idea of "the device" may not be the one the data was moved to. A
    model built inside a helper of this file with no device in scope there
    (`def build_model(args): return nn.Sequential(...)`) is moved where the helper is called
    (`model = build_model(args).to(device)`), when exactly one call of the helper, in the
    function that uses the model, has a proven device variable bound. No fix when no device
    variable is in scope, or when two calls of the helper could be the model (a teacher and
    a student built by one function). Layers in a plain list or dict written in place
    (`[nn.Linear(d, d) for _ in range(n)]`, `{t: nn.Linear(d, 2) for t in tasks}`) are wrapped in
    `nn.ModuleList` / `nn.ModuleDict`: unsafe too, since the layers are then moved, trained by
    an optimizer built from `model.parameters()`, and saved in `state_dict()` (a checkpoint
    written before no longer matches its keys).
    """

    code = "DL001"
    name = "model-not-moved"
    fixable = True
    fix_applicability = ("unsafe",)
    FIXES = (
        (
            """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(16, 4).to(device)
out = model(x)
""",
            """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
x = torch.randn(16, 4).to(device)
out = model(x)
""",
        ),
    )
    VALID = (
        """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
model.to(device)
out = model(torch.randn(8, 4).to(device))
""",
        """
import torch
model = torch.nn.Linear(4, 2)
out = model(torch.randn(8, 4))  # everything stays on the CPU
""",
        """
import torch
from torch import nn
device = torch.device("cuda")
model = nn.Linear(4, 2)
model = setup_model(model, device)  # a helper we cannot see may move it
out = model(torch.randn(8, 4, device=device))
""",
        """
import torch
from torch import nn
device = "cuda" if torch.cuda.is_available() else "cpu"
loss_fn = nn.CrossEntropyLoss()  # no parameters: nothing to move
logits = torch.randn(8, 3, device=device)
loss = loss_fn(logits, torch.randint(0, 3, (8,), device=device))
""",
    )
    INVALID = (
        """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(16, 4).to(device)
out = model(x)  # <--
""",
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

def train(model, loader, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)

def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net()
    loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
    train(model, loader, device)  # <--
""",
    )

    def check(self, ctx):
        facts = ctx.facts
        yield from _ddp_on_host(facts)
        scopes = []  # built once, on the first finding that needs it
        for pm in facts.param_mixes:
            report = _param_mix(ctx, facts, pm, scopes)
            if report is not None:
                yield report
        for call in facts.module_calls:
            report = _module_call(ctx, facts, call, scopes)
            if report is not None:
                yield report


def _scopes(ctx, scopes: list) -> Scopes:
    if not scopes:
        scopes.append(ctx.scopes)
    return scopes[0]


def _ddp_on_host(facts):
    for node, m, escaped_before in facts.gpu_wraps:
        if m.mid is None or m.param_free or m.dev is not Dev.CPU or escaped_before or any(
            mid in facts.model_moves for mid in mid_parts(m.mid) | {m.mid}
        ):
            continue
        shown = dotted(node.args[0].value) or "the model"
        yield Report(
            node,
            f"`DistributedDataParallel` is given `device_ids`, but `{shown}` is never moved to that GPU: "
            f"the wrapper needs the model there first; use `{shown}.cuda(gpu)` / `{shown}.to(device)` before wrapping",
        )


def _param_mix(ctx, facts, pm, scopes) -> Report | None:
    p = pm.param
    if _moved_or_handed_on(facts, p.mid):
        return None
    shown = p.name or "the model"
    if pm.blame is pm.node:
        msg = (f"the parameters of `{shown}` meet tensors on the device here, but `{shown}` is never moved "
               f"there; use `{shown}.to(device)`")
    else:
        callee = dotted(pm.blame.func) or "a function"
        msg = (f"the model passed to `{callee}()` is never moved to the device, but `{callee}()` combines its "
               f"parameters with tensors on the device (line {ctx.line(pm.node)})")
    return _move_where_built(facts, _scopes(ctx, scopes), p.mid, pm.blame, msg)


def _module_call(ctx, facts, call, scopes) -> Report | None:
    m = call.model
    if m.mid is None or m.param_free or m.dev is not Dev.CPU:
        return None
    # a library function that runs the model on its own device inputs (`summary(model, ...)`)
    # fails if the model is on the host right then, whatever moves it later
    if _handed_on(facts, m.mid) if call.runner is not None else _moved_or_handed_on(facts, m.mid):
        return None
    in_moved_module = m.attr is not None and call.cls is not None and _runs_on_device(ctx, facts, call.cls)
    if not any(contents_on_accel(a) or (in_moved_module and a.kind is Kind.TENSOR and a.on_module
                                        and a.dev is not Dev.CPU) for a in call.args):
        return None
    msg = _call_message(ctx, call, in_moved_module)
    if in_moved_module:
        wrap = _registering_container(ctx, m.src)
        return Report(
            call.blame,
            msg,
            fix=f"register the layers: `{wrap}(...)`" if wrap else None,
            edit=(lambda node, w=wrap: cst.Call(func=cst.parse_expression(w), args=[cst.Arg(node)])) if wrap else None,
            edit_node=m.src if wrap else None,
            applicability="unsafe",
        )
    # a layer replaced after the move: the model handed in was moved, so the finding is on the
    # call that runs the new layer, not on the call that hands the model in
    blame = call.node if m.replaced else call.blame
    return _move_where_built(facts, _scopes(ctx, scopes), m.mid, blame, msg, via_helper=True)


def _runs_on_device(ctx, facts, cls) -> bool:
    """A module class of this file whose `forward` runs on the device: an instance is moved
    there here, or no instance is built here at all (a library's module: whoever uses it moves
    it, as a module runs on its inputs' device), unless the program is host-only or every
    caller in the project hands its instances host data."""
    if cls in facts.accel_classes:
        return True
    if ctx.host_only or cls in facts.mid_class.values():
        return False
    return not host_only_class(ctx.imports.project, cls.name.value)


def _call_message(ctx, call, in_moved_module: bool) -> str:
    m = call.model
    func, method = call.node.func, call.method
    if method is not None and hasattr(func, "value"):
        func = func.value  # `model.generate(ids)`: the model is the receiver, not its method
    if call.runner is not None:
        func = call.node.args[0].value  # `summary(model, size)`: the model is the argument
    if call.handed is not None:
        func = call.handed  # `writer.add_graph(model=net, ...)`: the model is the argument, not the callee
    shown = dotted(func) or "the model"
    if in_moved_module:
        container = "dict" if isinstance(m.src, cst.Dict) else "list"
        return (f"`self.{m.attr}` keeps its layers in a plain {container}, which `model.to(device)` does not "
                f"move (and `model.parameters()` does not list): this layer is still on the CPU when the "
                f"module runs on the device; use `nn.Module{'Dict' if container == 'dict' else 'List'}`")
    if m.replaced:
        return (f"`{shown}.{m.replaced}` was replaced by a new layer on line {ctx.line(m.mid)}, after `{shown}` "
                f"was moved: the new layer is on the CPU while this call gives it tensors on the device; "
                f"move the new layer too")
    if call.runner is not None:
        return (f"`{call.runner}()` runs `{shown}` on inputs it makes on the device (`device=\"cuda\"` unless "
                f"told otherwise), but `{shown}` is not moved there yet; move it first (`{shown}.to(device)`) "
                f"or pass `device=\"cpu\"`")
    if call.via is not None:
        return (f"`{shown}()` runs the model `{call.via}` its object was built with on tensors on the device, "
                f"but `{call.via}` is never moved there; use `{call.via}.to(device)`")
    if isinstance(m.mid, cst.Param):
        # a model handed in by callers in other files (contexts.py): the fix is theirs
        return (f"`{shown}` is called with tensors on the device, but the model that callers in other "
                f"files of the project pass in as `{m.mid.name.value}` is never moved there; move it where "
                f"the caller builds it: `.to(device)`")
    if call.blame is call.node:
        if method:
            return (f"`{shown}.{method}()` is called with tensors on the device but `{shown}` is never "
                    f"moved there; use `{shown}.to(device)`")
        return f"`{shown}` is called with tensors on the device but is never moved there; use `{shown}.to(device)`"
    callee = dotted(call.blame.func) or "a function"
    return (f"the model passed to `{callee}()` is never moved to the device, but `{callee}()` "
            f"calls it with tensors on the device (line {ctx.line(call.node)})")


def _moved_or_handed_on(facts, mid) -> bool:
    """The model (or any model a join stands for) is moved somewhere in the file, or handed
    to code we cannot see: DL001 cannot say it stays on the host. A move that certainly lands
    on the host (`.to(torch.device("cpu"))`, `.cpu()`) is no such evidence: after it the model
    is still where DL001 says it is."""
    return any(m in facts.escaped or _moved_off_host(facts, m) for m in mid_parts(mid) | {mid})


def _handed_on(facts, mid) -> bool:
    return any(m in facts.escaped for m in mid_parts(mid) | {mid})


def _moved_off_host(facts, mid) -> bool:
    return any(d is not Dev.CPU for d, _ in facts.model_moves.get(mid, ()))


def _move_where_built(facts, scopes, mid, blame, msg: str, via_helper: bool = False) -> Report:
    """The report at `blame`, with a fix that moves the model where it is built (`Net()` ->
    `Net().to(device)`) when a device variable is certainly bound there; `via_helper`: else
    where the one file-local helper that builds it is called."""
    where, built, how = None, mid, "where it is built"
    if isinstance(mid, cst.Call) and mid in facts.build_scopes:
        where = device_var(scopes, mid, facts.build_scopes[mid])
        if where is None and via_helper:
            built, where = _helper_call(scopes, facts, mid, blame)
            how = "where the helper that builds it is called"
    return Report(
        blame,
        msg,
        fix=f"move the model {how}: `.to({where})`" if where else None,
        edit=(lambda node, w=where: _moved(node, w)) if where else None,
        edit_node=built if where else None,
        applicability="unsafe",
    )


def _registering_container(ctx, value) -> str | None:
    """`nn.ModuleList` / `nn.ModuleDict`, spelled as this file can reach it, for a list or dict
    written in place (`[nn.Linear(d, d) for _ in range(n)]`); None otherwise."""
    if isinstance(value, (cst.List, cst.ListComp, cst.Tuple)):
        kind = "ModuleList"
    elif isinstance(value, (cst.Dict, cst.DictComp)):
        kind = "ModuleDict"
    else:
        return None
    for spelling in (f"nn.{kind}", f"torch.nn.{kind}"):
        if ctx.imports.qualname(cst.parse_expression(spelling)) == f"torch.nn.{kind}":
            return spelling
    return None


def _helper_call(scopes, facts, mid, blame):
    """(the call of a file-local helper that returns the model built at `mid`, the device
    variable certainly bound there) when exactly one such call, in the function where the
    model is used, has one (`model = build_model(args)` in `main`); else (None, None)."""
    scope = scopes.scope_of(blame)
    found = []
    for helper, records in facts.helper_builds.items():
        if scopes.scope_of(helper) is not scope or any(built is not mid for built, _names in records):
            continue
        where = device_var(scopes, helper, [names for _built, names in records])
        if where is not None:
            found.append((helper, where))
    return found[0] if len(found) == 1 else (None, None)


def _moved(built: cst.Call, device: str) -> cst.Call:
    """`Net(...)` -> `Net(...).to(device)`."""
    return cst.Call(func=cst.Attribute(value=built, attr=cst.Name("to")), args=[cst.Arg(cst.Name(device))])
