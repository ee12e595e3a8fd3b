# source: https://github.com/openai/gpt-oss/pull/267  (bind each distributed worker to its node-local CUDA device: the device index comes from LOCAL_RANK)
# expect: clean
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def setup():
    dist.init_process_group("nccl")
    local_rank = int(os.environ.get("LOCAL_RANK", os.environ.get("RANK", 0)))
    return local_rank, torch.device(f"cuda:{local_rank}")


def main():
    local_rank, device = setup()
    model = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, batch_first=True), num_layers=2).to(device)
    model = DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)
    head = nn.Linear(64, 10).cuda(local_rank)
    optimizer = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=3e-4)
    for step in range(100):
        tokens = torch.randn(16, 32, 64, device=device)
        target = torch.randint(0, 10, (16,), device=device)
        loss = nn.functional.cross_entropy(head(model(tokens).mean(dim=1)), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
