# source: https://github.com/wmyw96/FAST-NN/issues/1  ("Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_mm)" in a factor-augmented regression script)
# expect: DL002 at 39
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class FactorAugmentedNet(nn.Module):
    def __init__(self, p, r=4, width=64):
        super().__init__()
        self.diversified = nn.Linear(p, r, bias=False)
        self.mlp = nn.Sequential(nn.Linear(r + p, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, x):
        factors = self.diversified(x)
        return self.mlp(torch.cat([factors, x], dim=1)).squeeze(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--p", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)

    x_all = torch.randn(2000, args.p)
    y_all = x_all[:, :5].sum(dim=1) + 0.5 * torch.randn(2000)
    loader = DataLoader(TensorDataset(x_all, y_all), batch_size=64, shuffle=True, pin_memory=True)

    model = FactorAugmentedNet(args.p).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for x, y in loader:
            x = x.to(device)
            pred = model(x)
            loss = ((pred - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
