import libcst as cst

from devicelint import knowledge as kb
from devicelint.contexts import host_only_class
from devicelint.flow import walk
from devicelint.flow.nodes import contains
from devicelint.rewrite import add_keyword, device_var
from devicelint.names import source_of
from devicelint.rules.base import Report, Rule
from devicelint.values import NCCL_GROUP, Dev, Kind, contents_on_accel, made_on_host


class NewTensorWrongDevice(Rule):
    """A tensor created without `device=` meets tensors on the device.

    ## What it does
    Follows tensors built by `torch.zeros/ones/randn/arange/tensor/...` without `device=`
    (an LSTM's `h0`, a mask, positions, class weights) and flags the operation or module
    call where one meets a tensor or a model on the accelerator: in a script, in any method
    of an `nn.Module` that this file moves to the device (or calls with device data), and in
    `forward` of every `nn.Module` (and the methods `forward` calls), and in the steps of a
    LightningModule (`training_step`...), which its trainer runs on the module's device, whatever the file moves:
    a module runs on its inputs' device, so its inputs, parameters and submodule outputs are
    all there (registered buffers and `nn.Parameter`s too: `.to()` moves them with the
    module). Not in a notebook or script that names no device and runs its own code: there
    no module is ever moved (a file of definitions may be imported by one that moves them,
    so it is checked; one whose `__main__` block runs it counts as a script when no other
    file of the project uses its classes or functions and the project code it hands them to
    never places anything), nor in a class whose every use in the project is known to hand its
    instances host tensors only (a demo's `one_hot(target)`). When the tensor meets the others inside a helper it is handed to
    (`extract(self.alphas, t, shape)` -> `a.gather(-1, t)`), the finding is at the call that
    hands it on, in the function that made it: the helper is right for its other callers.
    A `forward` that returns such a tensor beside outputs computed on the module's
    device (`return logits, torch.zeros(n, dtype=torch.long)`) is flagged at the `return`: the
    caller combines them (sequence lengths, meant for the host, are left alone). Methods that
    `__init__` calls (shape probes, before any move) are left alone,
    and so are 0-dim tensors such as `torch.tensor(2.0)`: eager CUDA accepts them. An empty
    placeholder (`torch.empty(0)`, `torch.tensor([])`) is flagged only where it is joined
    with device tensors (`all_preds = torch.cat([all_preds, preds])`: CUDA refuses it there,
    as `benchmarks/cross_device_ops.py` shows), not where it is replaced before use. A method
    of the model's own class that the script calls with no data
    (`hidden = model.init_hidden(batch_size)`) is followed for the tensors it builds.
    A `torch.distributed` collective (`all_reduce`, `broadcast`, `all_gather`, ...) handed
    such a tensor in code that runs on the GPU (a module's `forward`, a file that moves its
    model there) is flagged too, 0-dim ones included (`torch.tensor(correct)`): NCCL, the
    backend for GPUs, takes only GPU tensors ("Tensors must be CUDA and dense").

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

    ## Fix safety
    The fix adds `device=` to the factory call that made the tensor (followed through
    `h0 = torch.zeros(...)` and through operations on it such as `torch.arange(n) * k`):
    `device=<t>.device` when a plain name `t` of the flagged line is a tensor the factory
    call itself measures (`torch.zeros(n, x.size(0), h)` with `x` combined below), else
    `device=<variable>` when a variable the inference knows holds a device is certainly
    bound there. In `forward` (and the methods it calls) a measured input of the function
    counts too: the module runs on its inputs' device. The tensor is then created where it is used instead of being copied
    there or failing. Unsafe (`--unsafe-fixes`): every other use of that tensor now sees a
    device tensor too (a host-side `.numpy()` on it, or a use on another device, changes).
    No fix when neither is known, for a factory with `**kwargs`, or when two flagged
    tensors come from different factories in one expression that cannot both be reached;
    none either for a call that takes no `device=` (a legacy typed constructor such as
    `torch.FloatTensor(data)` raises "legacy constructor expects device type: cpu" when given
    one; `torch.from_numpy`): the message says to move the tensor with `.to(x.device)`.
    """

    code = "DL011"
    name = "new-tensor-wrong-device"
    fixable = True
    fix_applicability = ("unsafe",)
    FIXES = (
        (
            """
import torch
import torch.nn as nn

class Tagger(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(8, hidden, batch_first=True)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.hidden)
        return self.lstm(x, (h0, h0))[0]
""",
            """
import torch
import torch.nn as nn

class Tagger(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(8, hidden, batch_first=True)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.hidden, device=x.device)
        return self.lstm(x, (h0, h0))[0]
""",
        ),
    )
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
        """
import torch
import torch.nn as nn
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)
    def forward(self, x, mask):
        out, _ = self.rnn(x)
        lengths = torch.tensor([int(m.sum()) for m in mask])  # for pack_padded_sequence: host
        return out, lengths
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
        """
import torch
import torch.nn as nn
import torch.nn.functional as F
class ContrastiveHead(nn.Module):
    def __init__(self, dim=128, temperature=0.07):
        super().__init__()
        self.proj = nn.Linear(512, dim)
        self.t = temperature
    def forward(self, q, k):
        q, k = F.normalize(self.proj(q), dim=1), F.normalize(self.proj(k), dim=1)
        logits = q @ k.T / self.t
        labels = torch.arange(logits.shape[0])  # the positives are on the diagonal
        return logits, labels  # <--
""",
    )

    def check(self, ctx):
        scopes = []  # ctx.scopes, built on the first finding that needs it
        for mix in ctx.facts.mixes:
            fresh = _fresh_met_on_device(ctx, mix)
            if fresh:
                yield _report(ctx, mix, fresh[0].born, scopes)


def _fresh_met_on_device(ctx, mix) -> list:
    """The tensors made on the host without `device=` that `mix` combines with something on
    the device; empty when there are none, or nothing there is on the device."""
    func = getattr(mix.node, "func", None)
    method = getattr(getattr(func, "attr", None), "value", None)
    if func is not None and method in kb.torch_core.SHAPE_ONLY_METHODS:
        return []
    joins = method in kb.torch_core.JOINS
    collective = any(v is NCCL_GROUP for v in mix.operands)
    fresh = [v for v in mix.operands if made_on_host(v, joins, any_size=collective)]
    if not fresh:
        return []
    others = [v for v in mix.operands if not any(v is f for f in fresh)]
    return fresh if _others_on_device(ctx, mix, others) else []


def _others_on_device(ctx, mix, others) -> bool:
    """Something else the operation combines is on the device."""
    if any((v.kind is Kind.MODULE and v.dev is Dev.ACCEL and not v.param_free) or contents_on_accel(v) for v in others):
        return True
    if mix.cls is None or ctx.host_only or not (mix.in_forward or mix.cls in ctx.facts.accel_classes
                                                or _in_step_hook(ctx, mix)):
        return False
    if host_only_class(ctx.imports.project, mix.cls.name.value):
        return False  # every caller in the project hands its instances host data
    # a module runs on its inputs' device: in `forward` (or a Lightning step), whatever this file moves
    return any((v.on_module and v.dev is not Dev.CPU) or (v.kind is Kind.MODULE and not v.param_free) for v in others)


def _report(ctx, mix, born, scopes: list) -> Report:
    """The finding for a host tensor made at `born` (None: unknown) met on the device at `mix`."""
    where = _device_expr(ctx, mix, born, scopes)
    site = _handed_on(mix, born)
    made = ""
    if born is not None:
        # two such tensors can meet the device in one expression, or a call hands
        # on one made lines earlier: say which one
        made = f" (`{source_of(born.func)}(...)` on line {ctx.line(born)})"
    return Report(
        site,
        f"a tensor created without `device=`{made} is on the CPU but {_where_met(mix, site)}; {_advice(ctx, born)}",
        fix=f"create it with `device={where}`" if where else None,
        edit=(lambda call, w=where: add_keyword(call, "device", cst.parse_expression(w))) if where else None,
        edit_node=born if where else None,
        applicability="unsafe",
    )


def _advice(ctx, born) -> str:
    """What to do instead: `device=` where the call takes it; where it does not (a legacy typed
    constructor, `torch.from_numpy`) or the call is unknown, moving the tensor is what works."""
    name = ctx.imports.qualname(born.func) if born is not None else None
    if name is not None and kb.torch_core.takes_device_keyword(name):
        return "create it with `device=x.device` (or `x.new_zeros(...)`)"
    if name is not None and name.rpartition(".")[0] in ("torch", "torch.cuda"):
        return "move it with `.to(x.device)`: this constructor takes no `device=`"
    return "create it on the device (`device=x.device`, `x.new_zeros(...)`) or move it with `.to(x.device)`"


def _device_expr(ctx, mix, born, scopes: list) -> str | None:
    """The device expression the fix gives the factory call `born`, or None (no fix)."""
    facts = ctx.facts
    if born is None or any(a.star for a in born.args) or born not in facts.factory_scopes:
        return None
    name = ctx.imports.qualname(born.func)
    if name is not None and not kb.torch_core.takes_device_keyword(name):
        return None  # `torch.FloatTensor(data, device=device)` raises: no fix beats a broken one
    if not scopes:
        scopes.append(ctx.scopes)
    inputs = _inputs(scopes[0], born) if mix.in_forward else set()
    return _measured(born, mix.node, inputs) or device_var(scopes[0], born, facts.factory_scopes[born])


def _where_met(mix, site) -> str:
    """The message's account of where the tensor meets the device."""
    if isinstance(mix.node, cst.Return):
        return "is returned beside outputs on the module's device, and the caller combines them"
    collective = _collective(mix)
    if collective and site is mix.node:
        return f"`{collective}` with the NCCL backend (the one for GPUs) takes only tensors on the GPU"
    if site is mix.node:
        return "meets tensors on the device here"
    if not any(site is call for call, _caller, _callee in mix.calls):
        return "is returned from here and meets tensors on the device later"  # site: the factory call
    return "is handed to a function where it meets tensors on the device"


def _in_step_hook(ctx, mix) -> bool:
    """The mix is in a Lightning step (`training_step`, `validation_step`...) of a class deriving
    from a LightningModule: the trainer runs it with the module, and the batch it hands in, on
    the module's device, as a module's `forward` runs with its inputs."""
    cls = mix.cls
    if not _framework_class(ctx, cls, depth=0):
        return False
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    # in the step itself, or in what the step calls (`self(x, hidden)` runs `forward` there)
    callers = {id(caller) for _call, caller, _callee in mix.calls}
    return any(isinstance(fn, cst.FunctionDef) and fn.name.value in kb.lightning.STEP_HOOKS
               and (contains(fn, mix.node) or id(fn) in callers) for fn in body)


def _framework_class(ctx, cls: cst.ClassDef, depth: int) -> bool:
    """Does `cls` derive from a base that knowledge says a framework runs and places (Lightning's
    base list), directly or through a class of this file (`class Classifier(BaseModel)` with
    `class BaseModel(pl.LightningModule)`)?"""
    for b in cls.bases:
        q = ctx.imports.qualname(b.value)
        facts = kb.base_class(q, q.rsplit(".", 1)[-1], model_classes=False) if q else None
        if facts is not None and facts.framework:
            return True
        local = _file_class(ctx.module, b.value)
        if local is not None and local is not cls and depth < 4 and _framework_class(ctx, local, depth + 1):
            return True
    return False


def _file_class(module: cst.Module, node) -> cst.ClassDef | None:
    """The top-level class of the file that a base class names, if any."""
    if not isinstance(node, cst.Name):
        return None
    return next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == node.value), None)


def _collective(mix) -> str | None:
    """`all_reduce` for a torch.distributed collective handed the tensor (flow/api_calls)."""
    if any(v is NCCL_GROUP for v in mix.operands):
        return source_of(mix.node.func)
    return None


def _handed_on(mix, born):
    """Where to report: the mix itself, or, when the tensor was made by a caller of the helper
    the mix happens in (`t = torch.randint(...)` in `forward`, `a.gather(-1, t)` in
    `extract(a, t, shape)`), the call in the function that made it: the helper is right for
    its other callers."""
    if born is None:
        return mix.node
    if _returned_by_own_method(mix, born):
        return born
    if not mix.calls or contains(mix.calls[0][2], born):
        return mix.node
    for call, caller, _callee in mix.calls:
        if caller is not None and contains(caller, born):
            return call
    return mix.node


def _returned_by_own_method(mix, born) -> bool:
    """Made by a method of the mix's module class that returned it (`H = self._set_hidden_state(X,
    H)`) to the helper methods it meets the device in: the one place to fix is where it is made
    (a free function that made it, `text_to_token_ids()`, is right for its other callers; where
    `forward` itself meets it, `state = self.init_hidden(b)`, the finding stays there)."""
    if mix.cls is None or not mix.calls or not contains(mix.cls, born):
        return False
    body = mix.cls.body.body if isinstance(mix.cls.body, cst.IndentedBlock) else ()
    maker = next((fn for fn in body if isinstance(fn, cst.FunctionDef) and contains(fn, born)), None)
    return maker is not None and not contains(maker, mix.node) and not any(
        caller is maker for _call, caller, _callee in mix.calls)


def _inputs(scopes, node) -> set:
    """The parameters of the function around `node` (in `forward`, its inputs: where the
    module runs)."""
    func = scopes.function_of(node)
    if not func:
        return set()
    p = func.params
    return {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _measured(factory: cst.Call, mixed, inputs) -> str | None:
    """`t.device` for a plain name `t` that the factory's own arguments measure as a tensor
    (`t.size(0)`, `t.shape[1]`) and that the flagged expression combines with it, or, in
    `forward` and the methods it calls, that is an input of the function."""
    in_mix = {n.value for n in walk(mixed) if isinstance(n, cst.Name)} | inputs
    for n in walk(factory):
        if (isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.attr.value in ("size", "shape")
                and n.value.value in in_mix and n.value.value not in ("self", "torch")):
            return f"{n.value.value}.device"
    return None
