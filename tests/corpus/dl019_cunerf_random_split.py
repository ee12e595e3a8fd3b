# source: https://github.com/NarcissusEx/CuNeRF/issues/8  (training under a CUDA default device iterated a shuffling loader with no generator: "Expected a 'cuda' device type for generator but found 'cpu'" from RandomSampler's randperm)
# expect: DL019 at 36, 37
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="train")
    p.add_argument("--bs", type=int, default=1024)
    p.add_argument("--iters", type=int, default=200000)
    return p.parse_args()


class Field(nn.Module):
    def __init__(self, width=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, pts):
        return self.net(pts)


class Cfg:
    def __init__(self, args):
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        self.args = args
        self.model = Field()
        self.optim = torch.optim.Adam(self.model.parameters(), lr=5e-4)
        coords = torch.rand(100000, 3)
        values = coords.norm(dim=1, keepdim=True)
        full = TensorDataset(coords, values)
        self.trainset, self.valset = random_split(full, [90000, 10000])
        self.trainloader = DataLoader(self.trainset, batch_size=args.bs, shuffle=True)


def train(cfg):
    model = cfg.model
    loader = cfg.trainloader
    step = 0
    while step < cfg.args.iters:
        for pts, target in loader:
            loss = ((model(pts) - target) ** 2).mean()
            cfg.optim.zero_grad()
            loss.backward()
            cfg.optim.step()
            step += 1


if __name__ == "__main__":
    args = get_args()
    train(Cfg(args))
