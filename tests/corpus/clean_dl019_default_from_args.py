# source: https://github.com/pytorch/pytorch/issues/118084  (set_default_device chosen at run time; whether the loader's generator clashes depends on a value the linter cannot see)
# expect: clean
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
torch.set_default_device(args.device)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 3))

    def forward(self, x):
        return self.body(x)


data = TensorDataset(torch.randn(300, 10), torch.randint(0, 3, (300,)))
loader = DataLoader(data, batch_size=30, shuffle=True)
model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(args.epochs):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
