# source: https://github.com/JieyuZ2/wrench/issues/4  (fixed version: both features and targets are moved before cross_entropy)
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def fit(model, loader, device, epochs=5):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for epoch in range(epochs):
        model.train()
        for features, targets in loader:
            features = features.to(device, non_blocking=True)
            targets = targets.to(device, non_blocking=True)
            loss = F.cross_entropy(model(features), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss.detach())
    return torch.stack(history)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(300, 128), nn.ReLU(), nn.Linear(128, 4)).to(device)
    loader = DataLoader(TensorDataset(torch.randn(2000, 300), torch.randint(0, 4, (2000,))),
                        batch_size=64, shuffle=True, pin_memory=True)
    print(fit(model, loader, device)[-10:].mean().item())
