# source: https://github.com/facebookresearch/fairchem/issues/597  (the workaround given there: make each process see only its own GPU, so that "cuda" means that GPU)
# expect: clean
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn


def worker(rank, world_size):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29501", rank=rank, world_size=world_size)
    model = nn.Linear(32, 32).cuda()
    model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        x = torch.randn(64, 32, device="cuda")
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
