# source: https://github.com/facebookresearch/fairchem/issues/597  (multi-GPU training on one node failed with NCCL "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device"; the maintainers pointed at processes being assigned the same GPU)
# expect: DL020 at 23
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class EnergyModel(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, pos):
        return self.mlp(pos).sum(dim=1)


def worker(rank, world_size):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29500", rank=rank, world_size=world_size)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DDP(EnergyModel().to(device))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(100):
        pos = torch.randn(32, 20, 3, device=device)
        energy = model(pos)
        loss = energy.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(worker, args=(n,), nprocs=n)
