import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from condor_pytorch.losses import condor_negloglikeloss, logits_to_label


class WineQualityDataset(Dataset):
    def __init__(self, features, labels, num_classes):
        self.features = torch.tensor(features, dtype=torch.float32)
        self.labels = torch.tensor(labels, dtype=torch.long)
        self.num_classes = num_classes

    def __getitem__(self, idx):
        levels = (torch.arange(self.num_classes - 1) < self.labels[idx]).float()
        return self.features[idx], levels, self.labels[idx]

    def __len__(self):
        return self.labels.shape[0]


class OrdinalMLP(nn.Module):
    def __init__(self, in_features, num_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_features, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.out = nn.Linear(32, num_classes - 1)

    def forward(self, x):
        return self.out(self.body(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", default="winequality-red.csv")
    parser.add_argument("--epochs", type=int, default=50)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    data = np.genfromtxt(args.csv, delimiter=";", skip_header=1)
    x, y = data[:, :-1], data[:, -1].astype(int) - 3
    num_classes = int(y.max()) + 1
    loader = DataLoader(WineQualityDataset(x, y, num_classes), batch_size=64, shuffle=True)

    model = OrdinalMLP(x.shape[1], num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        model.train()
        for features, levels, labels in loader:
            features, levels, labels = features.to(device), levels.to(device), labels.to(device)
            logits = model(features)
            loss = condor_negloglikeloss(logits, levels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        mae = (logits_to_label(logits) - labels).abs().float().mean()
        print(f"epoch {epoch:03d} loss {loss.item():.4f} mae {mae.item():.3f}")


if __name__ == "__main__":
    main()
