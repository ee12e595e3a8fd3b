# source: https://github.com/yuta-hi/pytorch_similarity/issues/1
# seen: 2026-11-26
# style: script using a loss module (with conv filters) from a library
# expect: DL001 at 29, 38
# why: the GradientCorrelationLoss2d module holds Sobel filter weights and is called with CUDA tensors but never moved
# also-ok: DL014 at 32
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from torch_similarity.modules import GradientCorrelationLoss2d

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Registration(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(2, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 1, 3, padding=1),
        )

    def forward(self, moving, fixed):
        return moving + self.net(torch.cat([moving, fixed], dim=1))


model = Registration().to(device)
loss_fn = GradientCorrelationLoss2d()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
data = TensorDataset(torch.randn(64, 1, 64, 64), torch.randn(64, 1, 64, 64))
loader = DataLoader(data, batch_size=8)

for epoch in range(5):
    for moving, fixed in loader:
        moving, fixed = moving.to(device), fixed.to(device)
        warped = model(moving, fixed)
        loss = loss_fn(warped, fixed)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
