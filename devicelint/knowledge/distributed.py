"""torch.distributed and the data-parallel wrappers."""

from __future__ import annotations

LIBRARY = "torch.distributed"

# Wrappers that take a module and manage (or require) its placement themselves (last name part).
WRAPPERS = {"DataParallel", "DistributedDataParallel", "FullyShardedDataParallel"}
# Wrappers that leave the module where it is (unlike FSDP, which may place it): calling what
# they return scatters host inputs to the module's device.
KEEPS_PLACEMENT = frozenset({"DataParallel", "DistributedDataParallel"})
# The single-process multi-GPU wrapper DL012 asks to replace.
DATA_PARALLEL = frozenset({
    "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel",
})

# torch.distributed collectives whose tensors the NCCL backend (the one for GPUs) takes only
# on the GPU: "Tensors must be CUDA and dense" (the `*_object` ones place objects themselves)
COLLECTIVES = {"all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather", "scatter",
               "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send", "recv",
               "isend", "irecv"}


# DL020: starting a process group; picking each process's GPU; launchers that pick it themselves.
INIT_PROCESS_GROUP = frozenset({
    "torch.distributed.init_process_group",
    "torch.distributed.distributed_c10d.init_process_group",
})
# what makes an unindexed "cuda" mean this process's GPU (the current device)
SET_DEVICE = frozenset({
    "torch.cuda.set_device",
    "torch.accelerator.set_device_index",
    "torch.cuda.device",  # `with torch.cuda.device(local_rank):`
})
# launchers and trainers that place each process's model and data on its own GPU (accelerate's
# `Accelerator.prepare`, Lightning's strategies, DeepSpeed's engine, the HF trainers): what their
# calls' qualified names start with
PLACEMENT_LAUNCHERS = ("accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "deepspeed",
                       "colossalai", "horovod", "transformers.Trainer", "transformers.Seq2SeqTrainer", "trl")
# counting the GPUs: a placement chosen under `if torch.cuda.device_count() < world_size:` is deliberate
GPU_COUNT = frozenset({"torch.cuda.device_count", "torch.accelerator.device_count"})
