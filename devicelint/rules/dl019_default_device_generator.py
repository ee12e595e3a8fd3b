import libcst as cst

from devicelint import knowledge as kb
from devicelint.names import child_bodies, dotted
from devicelint.rules.base import Report, Rule
from devicelint.flow.nodes import find, is_string, keyword_value
from devicelint.flow.splat import splat_keywords

_ERROR = "Expected a '{}' device type for generator but found 'cpu'"


class DefaultDeviceGenerator(Rule):
    """A shuffling DataLoader (or `random_split`) with no `generator=` under an accelerator default device.

    ## What it does
    Flags the `DataLoader(...)` call of a shuffling loader (`shuffle=True`, or a
    `RandomSampler` / `DistributedSampler` as its sampler) built without `generator=`, once
    however often it is iterated, when a `for` over it or an `iter(...)` of it runs where the
    default device is an accelerator (the message names the first such line), or it is handed
    to a class of another project file that keeps it and iterates it (`Trainer(net, optimizer,
    loader, args)` whose `train()` calls `iter(self.dataloader)`); and every
    `random_split(...)` without `generator=` that runs there. The default device is an
    accelerator where the file calls `torch.set_default_device("cuda")` (or the legacy
    `torch.set_default_tensor_type("torch.cuda.FloatTensor")`) and never sets another
    default, or a project module the file imports does so at module level (it runs on
    import), or the loop / split sits inside a `with torch.device("cuda"):` block. Silent
    when the default device is not known to be an accelerator
    (`torch.set_default_device(args.device)`).

    ## Why is this bad?
    `RandomSampler` draws its permutation with a generator it makes on the host
    (`torch.Generator()`, on the CPU), and `random_split` uses the host default generator.
    With an accelerator default device, `torch.randperm` runs on that device and refuses a
    host generator: the first iteration raises `RuntimeError: Expected a 'cuda' device type
    for generator but found 'cpu'` (reported from torch 1.9 to 2.x; on Apple silicon
    `'mps'`). It is not the loss or the model that fails, so the error is a puzzle: users
    often "fix" it with `shuffle=False`, which silently changes training.

    ## Example
    ```python
    torch.set_default_device("cuda")
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    for x, y in loader:
        ...
    ```

    ## Use instead
    ```python
    torch.set_default_device("cuda")
    loader = DataLoader(train_set, batch_size=64, shuffle=True,
                        generator=torch.Generator(device="cuda"))
    for x, y in loader:
        ...
    ```
    or keep the default device on the host and move the model and each batch with `.to(device)`.

    ## Fix safety
    No automatic fix. Which generator works depends on where the loader is *iterated*, not
    where it is built: a CUDA generator fails the other way round (the DataLoader draws its
    base seed on a host tensor) once the loop runs outside the default-device scope, and a
    new generator changes the shuffling order of a seeded run. Choose the generator's device
    (or move the loop out of the scope) by hand.
    """

    code = "DL019"
    name = "default-device-generator"
    VALID = (
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
torch.set_default_device("cuda")
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(data, batch_size=16, shuffle=True, generator=torch.Generator(device="cuda"))
for x, y in loader:
    pass
""",
        """
import argparse
import torch
from torch.utils.data import DataLoader, TensorDataset
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
args = parser.parse_args()
torch.set_default_device(args.device)
loader = DataLoader(TensorDataset(torch.randn(64, 8)), batch_size=16, shuffle=True)
for (x,) in loader:
    pass
""",
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
data = TensorDataset(torch.randn(64, 8))
with torch.device("cuda"):
    loader = DataLoader(data, batch_size=16, shuffle=True)
for (x,) in loader:
    pass
""",
        """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
torch.set_default_device("cuda")
model = nn.Linear(8, 2)
torch.set_default_device("cpu")
loader = DataLoader(TensorDataset(torch.randn(64, 8)), batch_size=16, shuffle=True)
for (x,) in loader:
    model(x.cuda())
""",
    )
    INVALID = (
        """
import argparse
import torch
import torch.utils.data as data
parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
if torch.cuda.is_available() and args.cuda:
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
else:
    torch.set_default_tensor_type("torch.FloatTensor")

def collate(batch):
    return torch.stack([b[0] for b in batch])

def train(dataset):
    loader = data.DataLoader(dataset, 16, shuffle=True, collate_fn=collate, num_workers=2)  # <--
    batches = iter(loader)
    for step in range(100):
        x = next(batches)
""",
        """
import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset, random_split
torch.set_default_device("cuda")
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
train_set, val_set = random_split(data, [48, 16])  # <--
loader = DataLoader(train_set, batch_size=16, shuffle=True)  # <--
val_loader = DataLoader(val_set, batch_size=16, sampler=RandomSampler(val_set))  # <--
for epoch in range(2):
    for x, y in loader:
        pass
    for i, (x, y) in enumerate(val_loader):
        pass
""",
        """
import torch
from torch.utils.data import DataLoader, TensorDataset
data = TensorDataset(torch.randn(64, 8))
loader = DataLoader(data, batch_size=16, shuffle=True)  # <--
with torch.device("cuda"):
    for (x,) in loader:
        pass
""",
    )

    def check(self, ctx):
        src = ctx.source
        # a setter's name in a comment or string (`# torch.set_default_tensor_type(...)` left
        # commented out) is no setter: the imported modules' default still holds
        own = b"set_default_" in src and _has_setter(ctx)
        default = _file_default(ctx) if own else None
        if not own and (b"DataLoader" in src or b"random_split" in src):
            default = _imported_default(ctx)
        if not default and (b"with" not in src or b"device(" not in src):
            return
        facts = ctx.facts
        seen = set()
        for call, scope in facts.random_splits:
            where = _where(default, ctx, scope)
            if where and id(call) not in seen and not _has_generator(ctx.module, call, 2):
                seen.add(id(call))
                yield Report(call, f"`random_split` uses the host default generator while the default device is "
                                   f"{where[1]}: it raises \"{_ERROR.format(where[0])}\"; pass "
                                   "`generator=torch.Generator(device=...)` on the default device", fix=None)
        for loader, site, where in _shuffling_loaders(ctx, default, facts.loader_loops):
            at = loader if ctx.position(loader) is not None else site
            yield Report(at, f"this DataLoader {_host_generator(ctx, loader)} with a host generator while the default "
                             f"device is {where[1]}: iterating it (line {ctx.line(site)}) raises "
                             f"\"{_ERROR.format(where[0])}\"; pass `generator=torch.Generator(device=...)` on the "
                             "default device, or build and iterate it outside that scope", fix=None)


def _shuffling_loaders(ctx, default, loops):
    """(DataLoader(...) call, where it is first iterated, the default device there) once per
    loader that shuffles with a host generator and is iterated under an accelerator default:
    the bug is in the call (that is where `generator=` goes), however often it is iterated
    (`iter(loader)` and again after StopIteration, or `for` over the iterator it made)."""
    seen = set()
    for site, loader, scope in loops:
        where = _where(default, ctx, scope)
        if where and id(loader) not in seen and _host_generator(ctx, loader) is not None:
            seen.add(id(loader))
            yield loader, site, where

def _where(default, ctx, scope):
    """(device type, how to name it) of the accelerator that is the default here, or None: the
    file's setters' one, or that of the innermost `with torch.device(...)` block around."""
    if default:
        return default, f"`{default}`"
    dev = _accel_device(ctx, scope) if scope is not None else None
    return (dev, f"`{dev}` (the `with torch.device(...)` block)") if dev not in (None, "cpu") else None


def _accel_device(ctx, node, depth: int = 0) -> str | None:
    """`"cuda"`, `torch.device("cuda:0")`, `"cuda" if cuda_ok else "cpu"`, or a name every
    assignment of the file binds to one of these: the accelerator type it names; "cpu" for
    the host; None when we cannot tell."""
    if isinstance(node, cst.Name) and depth < 3:
        values = {_accel_device(ctx, v, depth + 1) for v in _assigned(ctx, node.value)}
        return values.pop() if len(values) == 1 else None
    if isinstance(node, cst.IfExp):
        arms = {_accel_device(ctx, node.body, depth), _accel_device(ctx, node.orelse, depth)}
        accel = arms - {"cpu"}
        return accel.pop() if len(accel) == 1 and None not in accel else None
    if isinstance(node, cst.Call) and ctx.imports.qualname(node.func) in kb.torch_core.DEFAULT_DEVICE_SCOPES \
            and len(node.args) >= 1 and node.args[0].keyword is None:
        return _accel_device(ctx, node.args[0].value, depth)
    s = is_string(node)
    if s is None:
        return None
    where = kb.torch_core.parse_device_string(s)
    return None if where is None else "cpu" if where == "cpu" else s.split(":")[0].strip().lower()


def _assigned(ctx, name: str) -> list:
    """The values every `name = value` of the file assigns."""
    return [a.value for a in find(ctx.module, cst.Assign)
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)]


def _tensor_type_device(ctx, node) -> str | None:
    """`"torch.cuda.FloatTensor"` / `torch.cuda.FloatTensor` -> "cuda"; `torch.FloatTensor` -> "cpu"."""
    text = is_string(node) if is_string(node) is not None else ctx.imports.qualname(node) or dotted(node)
    return kb.torch_core.legacy_tensor_type_place(text) if text else None


def _file_default(ctx) -> str | None:
    """The accelerator the file's default-device setters name ("cuda"), or None. A setter
    naming the host is the other arm of a device choice (`if args.cuda: ...cuda... else:
    ...FloatTensor`) unless it sits in the same block as an accelerator setter, where it
    resets the default (build the model on the device, then go back): then, and where any
    setter's value is unknown (`torch.set_default_device(args.device)`), None."""
    found = []  # (device or None, the block of statements the setter is in)
    for block in [ctx.module, *find(ctx.module, cst.IndentedBlock)]:
        for stmt in block.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for call in find(stmt, cst.Call):
                dev = _setter_device(ctx, call)
                if dev is not False:
                    found.append((dev, id(block)))
    accel = {dev for dev, _ in found if dev not in (None, "cpu")}
    if len(accel) != 1 or any(dev is None for dev, _ in found):
        return None
    accel_blocks = {block for dev, block in found if dev != "cpu"}
    if any(dev == "cpu" and block in accel_blocks for dev, block in found):
        return None
    return accel.pop()


def _has_setter(ctx) -> bool:
    """The file calls a default-device or default-tensor-type setter."""
    return any(_setter_device(ctx, call) is not False for call in find(ctx.module, cst.Call))


def _imported_default(ctx) -> str | None:
    """The accelerator that the project modules this file imports at module level set as the
    default while they are imported (`layers/modules/loss.py`: `if torch.cuda.is_available():
    torch.set_default_tensor_type("torch.cuda.FloatTensor")`), or None: none, more than one,
    a host default among them (it may reset the other), or a value read at run time."""
    view = ctx.imports.project
    if view is None:
        return None
    found = []
    for stmt in _module_level(ctx.module.body):
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                found += view.import_defaults(view.path, 0, dotted(alias.name) or "")
        else:
            mod = (dotted(stmt.module) or "") if stmt.module is not None else ""
            names = [None] if isinstance(stmt.names, cst.ImportStar) else [a.name.value for a in stmt.names]
            for name in names:
                found += view.import_defaults(view.path, len(stmt.relative), mod, name)
    kinds = set(found)
    accel = kinds - {"cpu", "unknown"}
    return accel.pop() if len(accel) == 1 and not kinds & {"cpu", "unknown"} else None


def _module_level(body):
    """The import statements run when the file runs: its body's, and those of `if` / `try`
    blocks at module level (not inside functions or classes), as summary._module_body reads an
    imported module's."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from (small for small in stmt.body if isinstance(small, (cst.Import, cst.ImportFrom)))
        elif isinstance(stmt, (cst.If, cst.Try)):
            for block in child_bodies(stmt):  # the body, elif/else arms, handlers, finally
                yield from _module_level(block)


def _setter_device(ctx, call: cst.Call):
    """What a default-device setter sets ("cuda", "cpu", None: unknown); False for other calls."""
    q = ctx.imports.qualname(call.func)
    if q not in kb.torch_core.DEFAULT_DEVICE_SETTERS and q not in kb.torch_core.DEFAULT_TENSOR_TYPE_SETTERS:
        return False
    if len(call.args) != 1:
        return None
    arg = call.args[0].value
    return _accel_device(ctx, arg) if q in kb.torch_core.DEFAULT_DEVICE_SETTERS else _tensor_type_device(ctx, arg)


def _has_generator(module, call: cst.Call, position: int | None) -> bool:
    """`generator=` given (by keyword, by its position, or maybe through `**kwargs`: unless
    the splat is a dict of this file whose keys are known, as in `kwargs = {'num_workers': 1,
    'pin_memory': True} if use_cuda else {}`)."""
    if keyword_value(call, "generator") is not None:
        return True
    if any(a.star for a in call.args):
        keys = splat_keywords(module, call)
        if keys is None or "generator" in keys:
            return True
    return position is not None and len([a for a in call.args if a.keyword is None]) > position


def _is_false(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def _is_true(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _sampler_call(ctx, node):
    """The sampler's construction: the call itself, or the one call a name is bound to."""
    if isinstance(node, cst.Call):
        return node
    if not isinstance(node, cst.Name):
        return None

    values = [a.value for a in find(ctx.module, cst.Assign)
              if any(isinstance(t.target, cst.Name) and t.target.value == node.value for t in a.targets)]
    return values[0] if len(values) == 1 and isinstance(values[0], cst.Call) else None


def _host_generator(ctx, loader: cst.Call) -> str | None:
    """How a DataLoader(...) call shuffles with a host generator ("shuffles", "samples with
    `RandomSampler`"), or None when it does not or we cannot tell."""
    q = ctx.imports.qualname(loader.func)
    if q not in kb.data.DATALOADERS and q not in kb.pyg.TORCH_LOADER_SUBCLASSES:
        return None
    if _has_generator(ctx.module, loader, None):
        return None
    if keyword_value(loader, "batch_sampler") is not None:
        return None
    sampler = keyword_value(loader, "sampler")
    if sampler is not None:
        call = _sampler_call(ctx, sampler)
        q = ctx.imports.qualname(call.func) if call is not None else None
        if q not in kb.data.HOST_GENERATOR_SAMPLERS or _is_false(keyword_value(call, "shuffle")):
            return None
        takes = kb.data.HOST_GENERATOR_SAMPLERS[q]
        if takes is not None and _has_generator(ctx.module, call, None):
            return None
        return f"samples with `{q.rsplit('.', 1)[-1]}`"
    positional = [a for a in loader.args if a.keyword is None]
    shuffle = keyword_value(loader, "shuffle") or (positional[2].value if len(positional) > 2 else None)
    return "shuffles" if _is_true(shuffle) else None
