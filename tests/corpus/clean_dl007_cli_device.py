# source: https://github.com/uzh-rpg/rpg_e2vid/issues/15  (reconstruction script: the device comes from a --use_gpu style option, so CPU runs are possible)
# expect: clean
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="event reconstruction")
parser.add_argument("--device", default="cuda", help="cuda or cpu")
parser.add_argument("--steps", type=int, default=3)
args = parser.parse_args()

device = torch.device(args.device)
net = nn.Conv2d(5, 1, 3, padding=1).to(device)
for _ in range(args.steps):
    voxel = torch.randn(1, 5, 32, 32, device=device)
    frame = torch.sigmoid(net(voxel))
print(frame.shape)
