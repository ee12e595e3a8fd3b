# tempts: DL001 when the model is moved by a small helper (to_device) instead of a literal .to() call
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def to_device(obj, device):
    return obj.to(device)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.layers(x)


device = get_device()
model = MLP()
model = to_device(model, device)

data = TensorDataset(torch.randn(800, 8), torch.rand(800, 1))
loader = DataLoader(data, batch_size=40, pin_memory=True)
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(3):
    for xb, yb in loader:
        xb = to_device(xb, device)
        yb = to_device(yb, device)
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
