"""Several simulated GPUs and the NCCL rule that one process group may not put two ranks on
one GPU, for fixtures launched as several ranks (the `ranks: N` header, runtime/ranks.py).

What real CUDA and NCCL do, and what is simulated here for the same reason:

* `"cuda"` with no index (`.cuda()`, `.to("cuda")`, `torch.device("cuda")`) is the *current*
  device, GPU 0 in every process until `torch.cuda.set_device(i)` changes it. The simulator
  keeps a current index per process (`DEVICELINT_SIM_GPUS` GPUs, default 1) and resolves
  unindexed devices with it.
* NCCL builds its communicator at the group's first collective, on the GPU of that
  collective's tensors; when two ranks bring the same GPU it fails on every rank with
  `DistBackendError: ... ncclInvalidUsage ... Duplicate GPU detected : rank 1 and rank 0
  both on CUDA device <bus id>`. A CPU build has no NCCL: a `"nccl"` group runs on gloo here,
  and at its first collective (DDP's construction, `barrier`, `all_reduce`...) the ranks
  exchange, over gloo, the index of the GPU their tensors are on, raising NCCL's error (with
  the device index where NCCL prints the bus id) when two are the same.

Not simulated: NCCL's speed, its other checks, several processes sharing one real GPU's memory.
"""

from __future__ import annotations

import contextlib
import os

import torch

DUPLICATE = ("NCCL error in: ProcessGroupNCCL.cpp (simulated by devicelint), invalid usage, NCCL version "
             "(simulated)\nncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\n"
             "Duplicate GPU detected : rank {} and rank {} both on CUDA device {}")
INVALID_ORDINAL = "CUDA error: invalid device ordinal"
# the collectives whose first call builds an NCCL communicator (positional tensor first)
_COLLECTIVES = ("all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
                "reduce_scatter_tensor", "all_to_all_single", "gather", "scatter", "barrier")


def gpu_count() -> int:
    try:
        return max(1, int(os.environ.get("DEVICELINT_SIM_GPUS", "1")))
    except ValueError:
        return 1


class Gpus:
    """The simulated GPUs of this process: how many, and which one is current."""

    def __init__(self) -> None:
        self.count = gpu_count()
        self.current = 0
        self.nccl_checked = False
        self.nccl = False  # the default group asked for NCCL (and runs on gloo here)

    def set_device(self, device) -> None:
        index = device if isinstance(device, int) else torch.device(device).index
        index = self.current if index is None else index
        if not 0 <= index < self.count:
            raise RuntimeError(INVALID_ORDINAL)
        self.current = index

    @contextlib.contextmanager
    def device_scope(self, device):
        """`with torch.cuda.device(i):`"""
        before = self.current
        if device is not None and device != -1:
            self.set_device(device)
        try:
            yield
        finally:
            self.current = before


def patches(gpus: Gpus, device_str) -> list:
    """(module, name, value) stand-ins for torch.distributed and DDP; `device_str(t)` is the
    simulator's logical device of a tensor ("cuda:1")."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    if not dist.is_available():
        return []
    init = dist.init_process_group

    def init_process_group(*args, **kwargs):
        backend = kwargs.get("backend", args[0] if args else None)
        if backend is not None and "nccl" in str(backend).lower():
            gpus.nccl = True
            if args:
                args = ("gloo", *args[1:])
            else:
                kwargs["backend"] = "gloo"
        return init(*args, **kwargs)

    def first_use(index: int) -> None:
        if not gpus.nccl or gpus.nccl_checked or not dist.is_initialized():
            return
        gpus.nccl_checked = True
        seen: list = [None] * dist.get_world_size()
        dist.all_gather_object(seen, index)  # over gloo (the real one, not the patched collective)
        rank = dist.get_rank()
        other = next((r for r, i in enumerate(seen) if i == index and r != rank), None)
        if other is not None:
            raise dist.DistBackendError(DUPLICATE.format(max(rank, other), min(rank, other), index))

    def index_of(tensor) -> int:
        dev = device_str(tensor) if isinstance(tensor, torch.Tensor) else ""
        return int(dev.split(":")[1]) if dev.startswith("cuda:") else gpus.current

    def collective(name):
        real = getattr(dist, name)

        def wrapped(*args, **kwargs):
            first_use(index_of(args[0] if args else kwargs.get("tensor")))
            return real(*args, **kwargs)

        wrapped.__name__ = name
        return wrapped

    ddp_init = DistributedDataParallel.__init__

    def ddp(self, module, *args, **kwargs):
        param = next(iter(module.parameters()), None)
        first_use(index_of(param))
        ddp_init(self, module, *args, **kwargs)

    out = [(dist, "init_process_group", init_process_group), (DistributedDataParallel, "__init__", ddp)]
    out += [(dist, name, collective(name)) for name in _COLLECTIVES if hasattr(dist, name)]
    return out
