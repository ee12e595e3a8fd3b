# tempts: DL009/DL001 when resuming: torch.load(path, map_location=device), load_state_dict, model moved before the optimizer is rebuilt
import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build(device):
    model = nn.Sequential(nn.Linear(30, 60), nn.ReLU(), nn.Linear(60, 2))
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return model, optimizer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default="last.pt")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)

    model, optimizer = build(device)
    start_epoch = 0
    if os.path.isfile(args.ckpt):
        state = torch.load(args.ckpt, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1

    loader = DataLoader(TensorDataset(torch.randn(500, 30), torch.randint(0, 2, (500,))),
                        batch_size=25, pin_memory=True)
    for epoch in range(start_epoch, start_epoch + 2):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, args.ckpt)


if __name__ == "__main__":
    main()
