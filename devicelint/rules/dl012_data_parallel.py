import libcst as cst

from devicelint.knowledge.distributed import DATA_PARALLEL
from devicelint.rules.base import Report, Rule


class DataParallel(Rule):
    """`nn.DataParallel(model)`: use `DistributedDataParallel`, even on one machine.

    ## What it does
    Flags every construction of `torch.nn.DataParallel` (also spelled
    `torch.nn.parallel.DataParallel`), in any import style. `isinstance(m, nn.DataParallel)`
    checks and unwrapping code are not flagged.

    ## Why is this bad?
    PyTorch recommends `DistributedDataParallel` over `DataParallel` even on a single node:
    `DataParallel` is one process driving all GPUs from threads, so it is held back by the
    GIL, scatters the inputs and replicates the model on every forward pass, gathers all
    outputs on `cuda:0` (which runs out of memory first), and only works on one machine.
    It also renames every parameter with a `module.` prefix, so its `state_dict()` does not
    load into the bare model. On a single GPU it adds that cost and gains nothing.

    ## Example
    ```python
    model = nn.DataParallel(Net()).to(device)
    ```

    ## Use instead
    ```python
    # torchrun --nproc_per_node=NUM_GPUS train.py
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DistributedDataParallel(Net().to(local_rank), device_ids=[local_rank])
    ```

    ## Fix safety
    No automatic fix, on purpose: there is no local rewrite. `DistributedDataParallel`
    needs one process per GPU started by `torchrun` (or `mp.spawn`), `init_process_group`,
    a `DistributedSampler` so each process sees its own share of the data, and saving and
    logging from rank 0 only: changes to how the script is launched and to code far from
    the flagged line. Swapping the class name alone would fail at once (no process group).
    """

    code = "DL012"
    name = "data-parallel"
    VALID = (
        """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

def unwrap(model):
    return model.module if isinstance(model, (nn.DataParallel, DDP)) else model
""",
    )
    INVALID = (
        """
import torch
import torch.nn as nn
from torch.nn.parallel import DataParallel as DP
net = nn.Linear(4, 2)
model = nn.DataParallel(net)  # <--
other = DP(net, device_ids=[0, 1])  # <--
third = torch.nn.parallel.DataParallel(net)  # <--
""",
    )

    def check(self, ctx):
        if b"DataParallel" not in ctx.source:
            return
        finder = _Finder(ctx.imports)
        for call in ctx.calls:  # the engine's shared walk: no traversal of our own
            finder.visit_Call(call)
        for node in finder.found:
            yield Report(
                node,
                "`nn.DataParallel` is slower than `DistributedDataParallel` even on one machine and is "
                "no longer recommended; use `torch.nn.parallel.DistributedDataParallel`",
                fix=None,
            )


class _Finder(cst.CSTVisitor):
    def __init__(self, imports):
        self.imports = imports
        self.found = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.imports.qualname(node.func) in DATA_PARALLEL:
            self.found.append(node)
