# tempts: DL002/DL004 when the Dataset's __getitem__ already returns tensors on the device (so the loop must not move them again)
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class OnDeviceDataset(Dataset):
    """Small dataset that is kept entirely in accelerator memory."""

    def __init__(self, n, device):
        self.x = torch.randn(n, 10, device=device)
        self.y = (self.x.sum(dim=1) > 0).float()

    def __len__(self):
        return self.x.size(0)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = OnDeviceDataset(2000, device)
# num_workers=0 and no pinning: the samples already live on the device
loader = DataLoader(dataset, batch_size=100, shuffle=True, num_workers=0)

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 1)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
bce = nn.BCEWithLogitsLoss()

for epoch in range(5):
    for features, label in loader:
        logits = model(features).squeeze(1)
        loss = bce(logits, label)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
