import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow import child_nodes, reachable, walk
from devicelint.flow.nodes import find
from devicelint.names import dotted
from devicelint.rules.base import Report, Rule


class LayerBuiltInForward(Rule):
    """A layer with weights built inside `forward`: `nn.Linear(...)(x)`, `nn.BatchNorm2d(c)(x)`.

    ## What it does
    Flags the construction of a `torch.nn` layer that has parameters or buffers (`Linear`,
    `Conv2d`, `BatchNorm2d`, `LayerNorm`, `Embedding`, `LSTM`, ...) inside `forward` of an
    `nn.Module` (or a Lightning / Hugging Face model), or inside a method that `forward` calls,
    such as a lazy `self.head = nn.Linear(...)`. A layer kept in a name is reported where it is
    called (where it fails); one built and applied at once, where it is built.

    It stays silent when the layer is placed where it is made: built with `device=`, moved
    right there (`nn.Linear(a, b).to(x.device)`, `head.to(x.device)`, a container holding it
    moved, `self.to(x.device)` after a lazy build), built under `with torch.device(...)` or
    `torch.set_default_device(...)`, or given its tensors right there (`conv.weight.data = k`). Layers with no tensor of their own are left alone:
    `nn.ReLU()`, `nn.Dropout()`, losses (whose only tensor is the `weight=` they are given),
    and norms with their affine weights and running statistics switched off
    (`nn.InstanceNorm2d(c)`, `nn.LayerNorm(d, elementwise_affine=False)`); so are layers built
    in `__init__` and the methods it calls.

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

    ## Fix safety
    No automatic fix, on purpose. The layer belongs in `__init__`, but its sizes there are
    often read from the input in `forward` (`x.size(1)`), which `__init__` does not have; it
    needs a new attribute name; and the move changes what the model is: the layer's weights
    join `model.parameters()` (the optimizer now trains them) and `state_dict()` (old
    checkpoints no longer load strictly). Adding `.to(x.device)` in place would silence the
    failure but keep the untrained random weights, which is worse than the error.
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
        """
import torch.nn as nn

class Probe(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone, self.num_classes, self.head = backbone, num_classes, None

    def forward(self, images):
        feats = self.backbone(images)
        if self.head is None:  # sized on first use, then placed with the features
            self.head = nn.Linear(feats.size(-1), self.num_classes).to(feats.device)
        return self.head(nn.LayerNorm(feats.size(-1), elementwise_affine=False)(feats))
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
        """
import torch.nn as nn

class Probe(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone, self.num_classes, self.head = backbone, num_classes, None

    def forward(self, images):
        feats = self.backbone(images)
        if self.head is None:  # sized on first use, left on the CPU
            self.head = nn.Linear(feats.size(-1), self.num_classes)
        return self.head(feats)  # <--
""",
    )

    def check(self, ctx):
        if b"forward" not in ctx.source:
            return
        if b"set_default_device" in ctx.source and any(
                isinstance(n, cst.Call) and ctx.imports.qualname(n.func) == "torch.set_default_device"
                for n in walk(ctx.module)):
            return  # every layer is made on the chosen device
        for cls in _module_classes(ctx):
            methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)} \
                if isinstance(cls.body, cst.IndentedBlock) else {}
            if "forward" not in methods:
                continue
            in_forward = reachable(methods, "forward") - reachable(methods, "__init__") - {"__init__"}
            # `self.proj.to(x.device)` or `self.to(x.device)` in any of them places a lazily built `self.proj`
            self_moved = set().union(*(_moved_names(methods[m]) for m in in_forward)) if in_forward else set()
            self_moved = {n for n in self_moved if n == "self" or n.startswith("self.")}
            for name in sorted(in_forward):
                yield from _layers_built(ctx, methods[name], self_moved)


def _module_classes(ctx):
    """The file's nn.Module subclasses (through torch.nn bases, Lightning or Hugging Face model
    bases, or a base class of this file that is one)."""
    classes = find(ctx.module, cst.ClassDef)
    modules, names = [], set()
    changed = True
    while changed:
        changed = False
        for c in classes:
            if c.name.value in names:
                continue
            for b in c.bases:
                if _is_module_base(ctx, b.value) or (dotted(b.value) or "") in names:
                    modules.append(c)
                    names.add(c.name.value)
                    changed = True
                    break
    return modules


def _is_module_base(ctx, base) -> bool:
    q = ctx.imports.qualname(base) or ""
    last = q.rsplit(".", 1)[-1]
    lib = kb.base_class(q, last)
    return lib is not None and lib.module


def _has_weights(layer: str, call: cst.Call) -> bool:
    """Whether `nn.<layer>(...)` surely makes a parameter or buffer; unsure -> False."""
    if layer in kb.nn.NOT_LAYERS or layer in kb.nn.PARAM_FREE_LAYERS or layer in kb.distributed.WRAPPERS:
        return False
    if kb.nn.is_loss(layer):
        return False  # a loss holds at most the weight tensor it is given, wherever that is
    switches = kb.nn.NORM_SWITCHES.get(layer)
    if switches is None:
        return True
    return any(_switch(call, name, pos, default) is True for name, pos, default in switches)


def _switch(call: cst.Call, name: str, pos: int, default: bool):
    """A boolean argument's literal value (None when it is not a literal)."""
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
    if arg is None:
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional):
            return None
        arg = positional[pos] if pos < len(positional) else None
    if arg is None:
        return default
    if isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
        return arg.value.value == "True"
    return None


def _layers_built(ctx, fn: cst.FunctionDef, self_moved: set):
    moved = _moved_names(fn) | self_moved
    parents = _parents(fn)
    placed = _under_torch_device(ctx, fn)
    reported: set = set()
    tensors_set = _tensors_replaced(fn)
    for n in find(fn, cst.Call):
        layer = _nn_layer(ctx, n)
        if layer is None or not _has_weights(layer, n) or id(n) in placed:
            continue
        owner = _owner(ctx, n, parents)  # the container it is built into, or itself
        if any(_has_device_arg(c) for c in _chain(n, owner, parents)):
            continue
        name = _assigned_name(owner, parents)
        if _moved_in_place(owner, parents) or name in moved or (name or "").startswith("self.") and "self" in moved:
            continue
        if name is not None and name in tensors_set:
            continue  # `blur.weight.data = kernel`: its tensors are replaced, wherever `kernel` lives
        yield from _reports(ctx, fn, n, layer, owner, name, reported)


def _nn_layer(ctx, call: cst.Call) -> str | None:
    """`Linear` for a call of the class `torch.nn.Linear`; None for anything else."""
    parts = (ctx.imports.qualname(call.func) or "").split(".")
    if len(parts) != 3 or parts[:2] != ["torch", "nn"] or not parts[2][:1].isupper():
        return None
    return parts[2]


def _reports(ctx, fn, n: cst.Call, layer: str, owner, name, reported: set):
    """The findings for layer `n` (inside `owner`, assigned to `name`) built in `fn`: at the
    calls of `name`, where it meets the data and fails, else at the layer itself."""
    what = f"`nn.{layer}`" if owner is n else f"`nn.{_last(ctx, owner)}` holding an `nn.{layer}`"
    uses = [c for c in walk(fn) if isinstance(c, cst.Call) and name is not None and dotted(c.func) == name]
    inside = "inside `forward`" if fn.name.value == "forward" else f"in `{fn.name.value}`, which `forward` calls,"
    for node in uses or [n]:
        if id(node) in reported:
            continue
        reported.add(id(node))
        where = f"`nn.{layer}(...)` is built {inside}".rstrip(",") if node is n else \
            f"`{name}` is an {what} built {inside} (line {ctx.line(n)})".replace(", (", " (")
        if (name or "").startswith("self."):  # a lazy build: made once, but after `model.to(device)` ran
            yield Report(node, f"{where}: its weights are made on the CPU after `model.to(device)` has run; "
                         "build it in `__init__`, or place it with `.to(x.device)` where it is built")
        else:
            yield Report(node, f"{where}: its weights are made on the CPU at every call, never moved by "
                         "`model.to(device)` and never trained; build it in `__init__`")


def _last(ctx, call: cst.Call) -> str:
    return (ctx.imports.qualname(call.func) or "").rsplit(".", 1)[-1]


def _tensors_replaced(fn) -> set:
    """Names whose weight or bias is assigned in `fn`: `conv.weight = nn.Parameter(k)`, `conv.weight.data = k`."""
    out = set()
    for n in walk(fn):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                text = dotted(t.target) or ""
                for attr in (".weight", ".bias"):
                    if attr in text:
                        out.add(text.split(attr, 1)[0])
    return out


def _parents(fn) -> dict:
    out = {}
    for n in walk(fn):
        for c in child_nodes(n):
            out[id(c)] = n
    return out


# nodes a layer passes through on its way into a container's arguments
_PASS_THROUGH = (cst.Arg, cst.List, cst.Tuple, cst.Dict, cst.Element, cst.DictElement, cst.StarredElement,
                 cst.ListComp, cst.GeneratorExp, cst.DictComp)


def _owner(ctx, call: cst.Call, parents: dict) -> cst.Call:
    """`nn.Sequential(nn.Linear(..), ...)`: the outermost container `call` is built into."""
    owner, n = call, call
    while True:
        p = parents.get(id(n))
        if p is None:
            return owner
        if isinstance(p, cst.Call) and n is not p.func:
            q = ctx.imports.qualname(p.func) or ""
            if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in kb.nn.CONTAINERS:
                owner = p
            else:
                return owner
        elif not isinstance(p, _PASS_THROUGH):
            return owner
        n = p


def _chain(call, owner, parents):
    """The calls from `call` up to its container `owner`, both included."""
    out, n = [], call
    while n is not None:
        if isinstance(n, cst.Call):
            out.append(n)
        if n is owner:
            break
        n = parents.get(id(n))
    return out


def _has_device_arg(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "device" for a in call.args)


def _under_torch_device(ctx, fn) -> set:
    """Calls made inside `with torch.device(...):`, which makes every new tensor on that device."""
    out = set()
    for n in walk(fn):
        if isinstance(n, cst.With) and any(
                isinstance(i.item, cst.Call) and ctx.imports.qualname(i.item.func) == "torch.device" for i in n.items):
            out.update(id(c) for c in walk(n.body) if isinstance(c, cst.Call))
    return out


_MOVES = ("to", "cuda", "xpu", "to_empty", "type_as")


def _moved_in_place(call: cst.Call, parents: dict) -> bool:
    """`nn.Linear(a, b).to(x.device)`: placed where it is built."""
    p = parents.get(id(call))
    return isinstance(p, cst.Attribute) and p.value is call and p.attr.value in _MOVES \
        and isinstance(parents.get(id(p)), cst.Call)


def _assigned_name(call: cst.Call, parents: dict):
    p = parents.get(id(call))
    if isinstance(p, cst.Assign) and p.value is call and len(p.targets) == 1:
        return dotted(p.targets[0].target)
    return None


def _moved_names(fn) -> set:
    """Names (or `self.x`, or `self`) moved somewhere in `fn`: `bn.to(x.device)`, `self.proj.cuda()`."""
    out = set()
    for n in walk(fn):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _MOVES[:-1]:
            text = dotted(n.func.value)
            if text:
                out.add(text)
    return out
