# source: https://github.com/cfzd/Ultra-Fast-Lane-Detection-v2/issues/160  (the answer: keep the Dataset on the host and move each batch in the training loop; a to_device helper of the dataset is only called by the loop)
# expect: clean
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class PairsDataset(Dataset):
    def __init__(self, n=4096, dim=32):
        self.a = torch.randn(n, dim)
        self.b = self.a + 0.1 * torch.randn(n, dim)

    def __len__(self):
        return len(self.a)

    def __getitem__(self, idx):
        return {"a": self.a[idx], "b": self.b[idx]}

    @staticmethod
    def to_device(batch, device):
        return {k: v.to(device, non_blocking=True) for k, v in batch.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    dataset = PairsDataset()
    loader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=args.workers,
                        pin_memory=True, persistent_workers=args.workers > 0)
    encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)).to(device)
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for batch in loader:
            batch = PairsDataset.to_device(batch, device)
            za, zb = encoder(batch["a"]), encoder(batch["b"])
            loss = (1 - nn.functional.cosine_similarity(za, zb)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
