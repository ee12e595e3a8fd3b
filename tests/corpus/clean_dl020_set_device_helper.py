# source: https://github.com/Peterande/D-FINE/issues/289  (the fix the thread settled on: each process picks its own GPU before building the model, as the repository's own init code does)
# expect: clean
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def init_distributed_mode():
    if "RANK" not in os.environ:
        return False
    dist.init_process_group(backend="nccl", init_method="env://")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.barrier()
    return True


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.box = nn.Linear(16, 4)

    def forward(self, x):
        return self.box(self.backbone(x))


def main():
    distributed = init_distributed_mode()
    model = Detector().cuda()
    if distributed:
        model = DDP(model, device_ids=[torch.cuda.current_device()])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(50):
        images = torch.randn(8, 3, 64, 64, device="cuda")
        boxes = torch.rand(8, 4, device="cuda")
        loss = nn.functional.smooth_l1_loss(model(images), boxes)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
