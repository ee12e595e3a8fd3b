# source: https://github.com/csguoh/MambaIR/issues/39  (launched with one process per GPU, every rank built its network on the default GPU; DDP's first collective failed with NCCL "Duplicate GPU detected : rank 2 and rank 0 both on CUDA device")
# expect: DL020 at 35, 44, 45
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class PatchPairs(Dataset):
    def __len__(self):
        return 2048

    def __getitem__(self, i):
        lq = torch.rand(3, 48, 48)
        return lq, nn.functional.interpolate(lq[None], scale_factor=2)[0]


def build_net():
    return nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 12, 3, padding=1), nn.PixelShuffle(2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    net = build_net().cuda()
    net = DistributedDataParallel(net, device_ids=[local_rank])
    dataset = PatchPairs()
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=2, pin_memory=True)
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-4)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for lq, gt in loader:
            lq = lq.cuda(non_blocking=True)
            gt = gt.cuda(non_blocking=True)
            loss = nn.functional.l1_loss(net(lq), gt)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            torch.save(net.module.state_dict(), f"net_{epoch}.pth")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
