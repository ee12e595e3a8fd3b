# tempts: DL001/DL012/DL009 in a DDP script: DDP(model.to(rank), device_ids=[rank]), torch.load(..., map_location=...), CPU fallback
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))

    def forward(self, x):
        return self.fc(x)


def main():
    rank = int(os.environ.get("LOCAL_RANK", 0))
    use_cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if use_cuda else "gloo")

    model = Net()
    if os.path.exists("init.pt"):
        model.load_state_dict(torch.load("init.pt", map_location="cpu"))

    if use_cuda:
        torch.cuda.set_device(rank)
        device = torch.device("cuda", rank)
        ddp_model = DDP(model.to(rank), device_ids=[rank])
    else:
        device = torch.device("cpu")
        ddp_model = DDP(model)

    dataset = TensorDataset(torch.randn(4000, 20), torch.randint(0, 5, (4000,)))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, pin_memory=True)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)

    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            loss = nn.functional.cross_entropy(ddp_model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    if dist.get_rank() == 0:
        torch.save(ddp_model.module.state_dict(), "final.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
