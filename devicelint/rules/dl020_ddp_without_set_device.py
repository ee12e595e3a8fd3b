import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow.nodes import enclosing, find, is_string
from devicelint.names import dotted
from devicelint.rewrite import target_name_nodes
from devicelint.rules.base import Report, Rule


class DdpWithoutSetDevice(Rule):
    """Unindexed `"cuda"` placement in a distributed script that never picks each process's GPU.

    ## What it does
    In a file that starts a process group (`torch.distributed.init_process_group(...)`),
    flags every placement on the bare accelerator with no device index: `x.cuda()`,
    `x.to("cuda")`, `torch.device("cuda")`, `device = "cuda" if ... else "cpu"`,
    `torch.set_default_device("cuda")`, `torch.set_default_tensor_type(torch.cuda.HalfTensor)`, when the
    file never calls `torch.cuda.set_device(local_rank)` (nor `torch.accelerator.
    set_device_index`, `with torch.cuda.device(...)`, nor sets `CUDA_VISIBLE_DEVICES`).
    Placements indexed by the rank (`.cuda(local_rank)`, `.to(f"cuda:{rank}")`,
    `torch.device("cuda", local_rank)`) are never flagged, nor is the unindexed arm of an `if`
    whose other arm indexes by a value (`if local_rank is not None: cuda:{local_rank}` / `else:
    cuda`, the single-process path), nor a device bound to a name the file never reads (a
    leftover `device = torch.device("cuda")` places nothing), and files driven by a launcher that
    places each process's model and data itself (accelerate, Lightning, DeepSpeed, the
    transformers Trainer, TRL) are left alone, as are placements under a test of
    `torch.cuda.device_count()` (ranks sharing a GPU on purpose when there are too few).

    ## Why is this bad?
    `"cuda"` without an index means the *current* device, which is GPU 0 in every process
    until `torch.cuda.set_device` changes it. With `torchrun --nproc_per_node=8`, all eight
    ranks put their model and batches on GPU 0: NCCL refuses the group at its first
    collective (`Duplicate GPU detected : rank 1 and rank 0 both on CUDA device ...`), or,
    with a backend that accepts it, GPU 0 runs out of memory while the others idle.

    ## Example
    ```python
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = Net().cuda()
    model = DDP(model, device_ids=[local_rank])
    ```

    ## Use instead
    ```python
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = Net().cuda()
    model = DDP(model, device_ids=[local_rank])
    ```

    ## Fix safety
    No automatic fix: which variable holds the local rank (`LOCAL_RANK`, `args.local_rank`,
    `args.gpu`, the `rank` that `mp.spawn` passes) and where the process group starts are
    the script's own; inserting `torch.cuda.set_device(...)` needs both.
    """

    code = "DL020"
    name = "ddp-without-set-device"
    VALID = (
        """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = DDP(torch.nn.Linear(8, 2).cuda(), device_ids=[local_rank])
x = torch.randn(4, 8).cuda()
""",
        """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", local_rank)
model = DDP(torch.nn.Linear(8, 2).to(device), device_ids=[local_rank])
x = torch.randn(4, 8).cuda(local_rank)
""",
        """
import torch
model = torch.nn.Linear(8, 2).cuda()
x = torch.randn(4, 8).to("cuda")
""",
        """
import os
import torch
import torch.distributed as dist
def setup(world_size):
    dist.init_process_group("gloo")
    if torch.cuda.device_count() < world_size:
        device = torch.device("cuda")  # fewer GPUs than ranks: they share on purpose
    else:
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    return device
""",
        """
import torch
import torch.distributed as dist
def pick_device(local_rank=None):
    if local_rank is not None:
        device = torch.device("cuda:{}".format(local_rank))
    else:
        device = torch.device("cuda")  # no rank: the single-process path
    return device
def main(args, distributed):
    if distributed:
        dist.init_process_group("nccl")
    device = pick_device(args.local_rank if distributed else None)
    return torch.nn.Linear(8, 2).to(device)
""",
        """
import torch
import torch.distributed as dist
from accelerate import Accelerator
accelerator = Accelerator()
if not dist.is_initialized():
    dist.init_process_group("nccl")
model = torch.nn.Linear(8, 2).cuda()
model = accelerator.prepare(model)
""",
    )
    INVALID = (
        """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
model = DDP(torch.nn.Linear(8, 2).cuda(), device_ids=[local_rank])  # <--
x = torch.randn(4, 8).to("cuda")  # <--
""",
        """
import torch
import torch.distributed as dist
def main(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <--
    model = torch.nn.Linear(8, 2).to(device)
""",
    )

    def check(self, ctx):
        if b"init_process_group" not in ctx.source or b"cuda" not in ctx.source \
                or b"CUDA_VISIBLE_DEVICES" in ctx.source:
            return
        quals = [(call, ctx.imports.qualname(call.func)) for call in ctx.calls]
        if not any(q in kb.distributed.INIT_PROCESS_GROUP for _, q in quals):
            return
        if any(q in kb.distributed.SET_DEVICE and not _fixed_gpu(c) or _launcher(q) for c, q in quals) \
                or _imported_set_device(ctx):
            return
        sites = [call for call, q in quals if _unindexed(ctx, call, q)]
        sites += _device_assignments(ctx, {id(c) for c in sites})
        counted = _gpu_count_branches(ctx)
        read = _read_names(ctx.module)
        for node in sites:
            if not _moves_data(node) and _bound_to_unread_name(ctx, node, read):
                continue  # `device = torch.device("cuda")` that nothing reads places nothing
            if any(lo <= ctx.line(node) <= hi for lo, hi in counted):
                continue  # `if torch.cuda.device_count() < world_size:` ranks share a GPU on purpose
            if _beside_an_indexed_arm(ctx, node):
                continue  # `if local_rank is not None: cuda:{local_rank}` / `else: cuda`
            yield Report(node, "the process group is started but no `torch.cuda.set_device(local_rank)` picks this "
                               "process's GPU: unindexed `cuda` is GPU 0 in every rank; call "
                               "`torch.cuda.set_device(local_rank)` first, or index it by the local rank", fix=None)


def _fixed_gpu(call: cst.Call) -> bool:
    """`torch.cuda.set_device(0)`, `with torch.cuda.device(0):`, `set_device("cuda:0")`: a GPU
    written as a literal is the same GPU in every rank, so it does not pick each process's own
    (Cream's rank-0 FLOPs count under `with torch.cuda.device(0):`)."""
    args = [a for a in call.args if a.keyword is None and not a.star]
    if len(args) != 1 or len(call.args) != 1:
        return False
    value = args[0].value
    if isinstance(value, cst.Integer):
        return True
    s = is_string(value)
    return s is not None and s.strip().lower().startswith("cuda:") and s.strip()[5:].isdigit()


def _moves_data(node) -> bool:
    """`x.cuda()`, `t.to("cuda")`: the copy lands on GPU 0 (a CUDA context there in every
    rank) whether or not the result is read; only a device value is nothing until used."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value in ("cuda", "to")


def _bound_to_unread_name(ctx, node, read: set) -> bool:
    """The placement is the whole value of `name = ...` (every target a plain name) and the
    file never reads that name: a leftover `device = torch.device("cuda" if ... else "cpu")`
    of the single-GPU version puts nothing anywhere (nwangfw/nerf_ddp, whose workers place
    everything with the spawned index)."""
    around = enclosing(ctx.module, node)
    parent = around[-1] if around else None
    if not isinstance(parent, cst.Assign) or parent.value is not node:
        return False
    names = [t.target.value for t in parent.targets if isinstance(t.target, cst.Name)]
    return len(names) == len(parent.targets) and not read.intersection(names)


def _read_names(module) -> set:
    """The identifiers the file reads: every `Name` but the ones that only bind or label
    (assignment and `for` targets, parameters, definitions, imports, `global`) and the ones
    that name something else (`x.device`, the keyword of `device=...`)."""
    labels = set()
    for a in find(module, cst.Attribute):
        labels.add(id(a.attr))
    for arg in find(module, cst.Arg):
        if arg.keyword is not None:
            labels.add(id(arg.keyword))
    for t in find(module, cst.AssignTarget):
        labels.update(id(n) for n in target_name_nodes(t.target))
    for loop in find(module, cst.For):
        labels.update(id(n) for n in target_name_nodes(loop.target))
    for kind in (cst.Param, cst.FunctionDef, cst.ClassDef):
        labels.update(id(n.name) for n in find(module, kind))
    for alias in find(module, cst.ImportAlias):
        labels.update(id(n) for n in find(alias, cst.Name))
    for decl in [*find(module, cst.Global), *find(module, cst.Nonlocal)]:
        labels.update(id(item.name) for item in decl.names)
    return {n.value for n in find(module, cst.Name) if id(n) not in labels}


def _imported_set_device(ctx) -> bool:
    """A project module this file imports calls `torch.cuda.set_device` (3D-ResNets'
    `model.make_data_parallel(model, distributed, device)`): the GPU may be picked there, in
    code this rule does not follow, so it stays silent."""
    view = ctx.imports.project
    if view is None:
        return False
    for stmt in find(ctx.module, cst.ImportFrom):
        mod = (dotted(stmt.module) or "") if stmt.module is not None else ""
        names = [None] if isinstance(stmt.names, cst.ImportStar) else [a.name.value for a in stmt.names]
        if any(view.imports_set_device(view.path, len(stmt.relative), mod, n) for n in names):
            return True
    return any(view.imports_set_device(view.path, 0, dotted(a.name) or "")
               for stmt in find(ctx.module, cst.Import) for a in stmt.names)


def _launcher(q: str | None) -> bool:
    return bool(q) and any(q == root or q.startswith(root + ".") for root in kb.distributed.PLACEMENT_LAUNCHERS)


def _bare_cuda(node) -> bool:
    """`"cuda"` (not `"cuda:1"`), or `"cuda" if ... else "cpu"`."""
    if isinstance(node, cst.IfExp):
        arms = [_bare_cuda(node.body), _bare_cuda(node.orelse)]
        other = node.orelse if arms[0] else node.body
        return any(arms) and (all(arms) or is_string(other) == "cpu")
    s = is_string(node)
    return s is not None and s.strip().lower() == "cuda"


def _unindexed(ctx, call: cst.Call, q: str | None) -> bool:
    """`x.cuda()`, `x.to("cuda")`, `torch.device("cuda")`: the current device, no index."""
    positional = [a for a in call.args if a.keyword is None]
    if q in kb.torch_core.DEFAULT_DEVICE_SETTERS or q in kb.torch_core.DEFAULT_TENSOR_TYPE_SETTERS:
        return len(call.args) == 1 and bool(positional) and _bare_default(ctx, q, positional[0].value)
    if q in kb.torch_core.DEFAULT_DEVICE_SCOPES:  # torch.device(...)
        return len(call.args) == 1 and bool(positional) and _bare_cuda(positional[0].value)
    if not isinstance(call.func, cst.Attribute) or q is not None and q.startswith("torch."):
        return False
    return _unindexed_move(call, positional)


def _unindexed_move(call: cst.Call, positional: list) -> bool:
    """`x.cuda()` with no device, `x.to("cuda")`: a method moving to the current device."""
    method = call.func.attr.value
    if method == "cuda":
        device = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
        return not positional and device is None and not any(a.star for a in call.args)
    if method == "to":
        device = positional[0].value if positional else next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
        return device is not None and _bare_cuda(device)
    return False


def _bare_default(ctx, q: str, arg) -> bool:
    """`torch.set_default_device("cuda")`, `torch.set_default_tensor_type(torch.cuda.HalfTensor)`
    (or its string): every tensor made after it goes to the current device, GPU 0 in every rank
    until `set_device` (llama's example_cuda.py, pytorch-tpu/llama#21)."""
    if q in kb.torch_core.DEFAULT_DEVICE_SETTERS:
        return _bare_cuda(arg)
    text = is_string(arg) if is_string(arg) is not None else ctx.imports.qualname(arg) or dotted(arg)
    return bool(text) and kb.torch_core.legacy_tensor_type_place(text) == "cuda"


def _device_assignments(ctx, taken: set) -> list:
    """`device = "cuda" if torch.cuda.is_available() else "cpu"`: the string chosen as the
    device (a `torch.device(...)` around it is already a site)."""
    found = []
    for assign in find(ctx.module, cst.Assign):
        if isinstance(assign.value, (cst.IfExp, cst.SimpleString)) and _bare_cuda(assign.value) and any(
                isinstance(t.target, (cst.Name, cst.Attribute)) and _device_name(t.target) for t in assign.targets):
            found.append(assign.value)
    return [n for n in found if id(n) not in taken]


def _beside_an_indexed_arm(ctx, node) -> bool:
    """The placement sits in one arm of an `if` (or a conditional expression) whose other arm
    indexes the accelerator by a value (`torch.device("cuda:{}".format(local_rank))`,
    `f"cuda:{rank}"`, `torch.device("cuda", rank)`, `.cuda(rank)`): the author tells the
    process that has a rank from the one that has none, and the unindexed arm is the
    single-process path (`set_device(args.local_rank if distributed else None)`). Which arm
    runs under the process group is the script's own; stay silent rather than guess."""
    around = enclosing(ctx.module, node)
    for i, outer in enumerate(around):
        if not isinstance(outer, (cst.If, cst.IfExp)):
            continue
        inner = around[i + 1] if i + 1 < len(around) else node
        others = [a for a in (outer.body, outer.orelse) if a is not None and a is not inner]
        if len(others) == 1 and any(_indexed(ctx, n) for n in _placements(others[0])):
            return True
    return False


def _placements(arm) -> list:
    """The nodes of an arm that may index the accelerator: the arm itself and its calls,
    f-strings and `%` formats."""
    return [arm, *find(arm, cst.Call), *find(arm, cst.FormattedString), *find(arm, cst.BinaryOperation)]


def _indexed(ctx, node) -> bool:
    """A placement on the accelerator indexed by a value: `"cuda:{}".format(r)`, `f"cuda:{r}"`,
    `"cuda:%d" % r`, `torch.device("cuda", r)`, `x.cuda(r)`."""
    if isinstance(node, cst.FormattedString):
        head = node.parts[0] if node.parts else None
        return isinstance(head, cst.FormattedStringText) and head.value.strip().lower().startswith("cuda:") \
            and any(isinstance(p, cst.FormattedStringExpression) for p in node.parts)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        s = is_string(node.left)
        return s is not None and s.strip().lower().startswith("cuda:%")
    if not isinstance(node, cst.Call):
        return False
    f = node.func
    if isinstance(f, cst.Attribute) and f.attr.value == "format":
        s = is_string(f.value)
        return s is not None and s.strip().lower().startswith("cuda:{") and bool(node.args)
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if ctx.imports.qualname(f) in kb.torch_core.DEFAULT_DEVICE_SCOPES:
        return len(positional) == 2 and _bare_cuda(positional[0].value)
    return isinstance(f, cst.Attribute) and f.attr.value == "cuda" and bool(positional)


def _gpu_count_branches(ctx) -> list:
    """The line spans of `if` statements whose test counts the GPUs (`torch.cuda.device_count()`,
    or a name bound to it): code that chooses a placement knowing how many GPUs there are."""
    counts = {dotted(t.target) for a in find(ctx.module, cst.Assign) if _counts_gpus(ctx, a.value)
              for t in a.targets} - {None}
    spans = []
    for stmt in find(ctx.module, cst.If):
        parts = [stmt.test, *find(stmt.test, cst.Call), *find(stmt.test, cst.Name), *find(stmt.test, cst.Attribute)]
        if any(_counts_gpus(ctx, n) or dotted(n) in counts for n in parts):
            pos = ctx.position(stmt)
            if pos is not None:
                spans.append((pos.start.line, pos.end.line))
    return spans


def _counts_gpus(ctx, node) -> bool:
    return isinstance(node, cst.Call) and ctx.imports.qualname(node.func) in kb.distributed.GPU_COUNT


def _device_name(target) -> bool:
    from devicelint import naming

    name = target.value if isinstance(target, cst.Name) else target.attr.value
    return naming.looks_like_device_name(name)
