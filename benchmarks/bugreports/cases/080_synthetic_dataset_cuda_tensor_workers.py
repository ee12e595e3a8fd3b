# source: https://github.com/pytorch/pytorch/issues/1494 (comment of 2020-06-22)
# seen: 2026-11-26
# style: synthetic-data benchmark launched with torch.distributed.launch: argparse --local_rank, set_device + init_process_group, a DummyDataset that creates its one image on the GPU in __init__, DistributedSampler and DataLoader workers
# expect: DL017 at 23, 59
# also-ok: DL007 at 23
# why: __getitem__ returns a CUDA tensor built in __init__; with num_workers > 0 the forked workers touch CUDA -> "Cannot re-initialize CUDA in forked subprocess"
import argparse
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as data
import torchvision.models as models
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler


class DummyDataset(data.Dataset):
    def __init__(self, num_classes):
        super(DummyDataset, self).__init__()
        # Create tensor on GPU
        self.tensor = torch.randn(3, 224, 224, device=torch.device("cuda"))
        self.num_classes = num_classes

    def __getitem__(self, index):
        torch.manual_seed(index)
        target = torch.randint(0, self.num_classes, (1,)).item()
        return self.tensor, target

    def __len__(self):
        return 1281167


def parse_args():
    parser = argparse.ArgumentParser(description="synthetic ImageNet throughput")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--iters", type=int, default=200)
    return parser.parse_args()


def main():
    args = parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    device = torch.device("cuda", args.local_rank)

    model = models.__dict__[args.arch]().to(device)
    model = DDP(model, device_ids=[args.local_rank], output_device=args.local_rank)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    train_dataset = DummyDataset(num_classes=1000)
    train_sampler = DistributedSampler(train_dataset)
    train_loader = data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=False,
                                   num_workers=args.workers, pin_memory=True, sampler=train_sampler)

    model.train()
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 20 == 0 and args.local_rank == 0:
            print("iter {} loss {:.3f} {:.1f} img/s".format(i, loss.item(), 20 * args.batch_size / (time.time() - end)))
            end = time.time()
        if i == args.iters:
            break


if __name__ == "__main__":
    main()
