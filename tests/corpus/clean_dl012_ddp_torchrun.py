# source: https://github.com/pytorch/examples/pull/1390  ("DDP is recommended instead of DataParallel": the DCGAN example moved to DistributedDataParallel under torchrun)
# expect: clean
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    netG = nn.Sequential(nn.ConvTranspose2d(100, 64, 4), nn.ReLU(), nn.ConvTranspose2d(64, 3, 4), nn.Tanh()).to(device)
    netG = DDP(netG, device_ids=[local_rank] if device.type == "cuda" else None)
    noise = torch.randn(8, 100, 1, 1, device=device)
    print(netG(noise).shape)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
