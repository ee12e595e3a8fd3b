# source: https://github.com/constantinpape/torch-em/pull/357  (non_blocking=True only helps when the loader pins memory; pin_memory was not set)
# expect: DL014 at 19, 20
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_data_loader(dataset, batch_size, **loader_kwargs):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Conv2d(1, 2, 3, padding=1).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
loader = get_data_loader(TensorDataset(torch.randn(32, 1, 64, 64), torch.randn(32, 2, 64, 64)), batch_size=4)

for epoch in range(2):
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
