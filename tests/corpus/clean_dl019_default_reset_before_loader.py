# source: https://github.com/pytorch/pytorch/issues/110820  (workaround from the thread: set the device default only while building the model, back to the CPU for the data pipeline)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.set_default_device(device)
model = nn.Sequential(nn.Linear(8, 64), nn.GELU(), nn.Linear(64, 1))
torch.set_default_device("cpu")
model.to(device)  # already there; kept for readers who skip the default-device lines

inputs = torch.randn(512, 8)
targets = inputs.pow(2).sum(dim=1, keepdim=True)
with torch.device(device):
    # built under the device default, iterated outside it: the sampler runs on the host
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=64, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
