# source: https://github.com/pytorch/pytorch/issues/40403 (the comment of Little-Podi, 2024-10-19)
# seen: 2026-11-27
# style: linear-probe training script on precomputed features: argparse, a FeatureDataset whose __init__ torch.load()s the feature and label tensors an extraction script saved from the GPU, a DataLoader with workers, a small head trained on the device with a per-epoch eval
# expect: DL009 at 19
# also-ok: DL017 at 27, 68, 69
# also-ok: DL014 at 45, 68, 69, 78
# also-ok: DL013 at 47, 83
# why: the features were saved while on CUDA, so torch.load without map_location restores them onto the GPU inside the dataset; the forked loader workers then index CUDA tensors -> "Cannot re-initialize CUDA in forked subprocess"; the commenter's fix: torch.load(..., map_location="cpu")
import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class FeatureDataset(Dataset):
    def __init__(self, root, split):
        blob = torch.load(os.path.join(root, f"{split}_features.pt"))
        self.features = blob["features"]
        self.labels = blob["labels"]

    def __len__(self):
        return self.features.shape[0]

    def __getitem__(self, idx):
        return self.features[idx], self.labels[idx]


class LinearHead(nn.Module):
    def __init__(self, dim, num_classes):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.fc(self.norm(x))


def evaluate(head, loader, device):
    head.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for feats, labels in loader:
            feats, labels = feats.to(device), labels.to(device)
            pred = head(feats).argmax(dim=1)
            correct += (pred == labels).sum().item()
            total += labels.numel()
    head.train()
    return correct / max(total, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="features/")
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--num-classes", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = FeatureDataset(args.root, "train")
    val_set = FeatureDataset(args.root, "val")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=args.workers)

    head = LinearHead(args.dim, args.num_classes).to(device)
    optimizer = torch.optim.AdamW(head.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        running = 0.0
        for feats, labels in train_loader:
            feats, labels = feats.to(device), labels.to(device)
            loss = criterion(head(feats), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        acc = evaluate(head, val_loader, device)
        print(f"epoch {epoch}: loss {running / len(train_loader):.4f} val acc {acc:.4f}")

    torch.save(head.state_dict(), os.path.join(args.root, "linear_head.pt"))


if __name__ == "__main__":
    main()
