# source: https://github.com/yyvhang/IAGNet/issues/4  (with --resume, model and optimizer states are loaded before `model = model.to(device)`; the first step fails with "Expected all tensors to be on the same device")
# expect: DL018 at 46
import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class AffordanceNet(nn.Module):
    def __init__(self, in_dim=3, hidden=128, classes=18):
        super().__init__()
        self.point_mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.head = nn.Linear(hidden, classes)

    def forward(self, points):
        return self.head(self.point_mlp(points).max(dim=1).values)


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--checkpoint", default="runs/best_seen.pt")
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--lr", type=float, default=1e-4)
    return parser.parse_args()


def main(opt):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    points = torch.randn(512, 256, 3)
    labels = torch.randint(0, 18, (512,))
    loader = DataLoader(TensorDataset(points, labels), batch_size=16, shuffle=True, pin_memory=True)

    model = AffordanceNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=opt.lr, betas=(0.9, 0.999), weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=opt.epochs)
    criterion = nn.CrossEntropyLoss()

    start_epoch = 0
    if opt.resume and os.path.exists(opt.checkpoint):
        print(f"resuming from {opt.checkpoint}")
        ckpt = torch.load(opt.checkpoint, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    model = model.to(device)

    for epoch in range(start_epoch, opt.epochs):
        model.train()
        for pts, lab in loader:
            pts, lab = pts.to(device, non_blocking=True), lab.to(device, non_blocking=True)
            loss = criterion(model(pts), lab)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch}, opt.checkpoint)


if __name__ == "__main__":
    main(parse())
