# tempts: DL002/DL004 via `x, y = x.to(..., non_blocking=True), y.to(...)` tuple assignment and a device taken from argparse
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    parser = argparse.ArgumentParser(description="Train a small regressor")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=128)
    return parser.parse_args()


class Regressor(nn.Module):
    def __init__(self, in_dim=16, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x))).squeeze(-1)


def main():
    args = parse_args()
    device = torch.device(args.device)

    xs = torch.randn(4096, 16)
    ys = xs.sum(dim=1) + 0.1 * torch.randn(4096)
    loader = DataLoader(TensorDataset(xs, ys), batch_size=args.batch_size, shuffle=True,
                        pin_memory=True, num_workers=2)

    model = Regressor().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        running = 0.0
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            pred = model(x)
            loss = F.mse_loss(pred, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.item() * x.size(0)
        print(f"epoch {epoch} mse {running / len(loader.dataset):.5f}")


if __name__ == "__main__":
    main()
