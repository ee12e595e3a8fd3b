# source: https://github.com/rulixiang/afa/issues/26  ("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device" when launching with torch.distributed.launch)
# expect: DL020 at 26, 32
import argparse

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel


class SegHead(nn.Module):
    def __init__(self, classes=21):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU())
        self.classifier = nn.Conv2d(64, classes, 1)

    def forward(self, x):
        out = self.classifier(self.backbone(x))
        return F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)


def train(args):
    dist.init_process_group(backend=args.backend)
    model = SegHead()
    model.to("cuda")
    model = DistributedDataParallel(model, device_ids=[args.local_rank], find_unused_parameters=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for it in range(args.iters):
        images = torch.randn(4, 3, 128, 128)
        labels = torch.randint(0, 21, (4, 128, 128))
        images, labels = images.to("cuda"), labels.to("cuda")
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--backend", default="nccl")
    parser.add_argument("--iters", type=int, default=20000)
    train(parser.parse_args())
