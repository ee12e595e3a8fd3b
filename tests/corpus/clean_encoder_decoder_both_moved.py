# source: https://github.com/ML4ITS/mtad-gat-pytorch/issues/23  (fixed version: every sub-model, including the reconstruction decoder, is moved to the device)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
encoder = nn.GRU(12, 32, batch_first=True).to(device)
decoder = nn.GRU(32, 32, batch_first=True)
decoder = decoder.to(device)
proj = nn.Linear(32, 12).to(device)
params = [*encoder.parameters(), *decoder.parameters(), *proj.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(320, 40, 12)), batch_size=32, shuffle=True, pin_memory=True)

for epoch in range(4):
    for (x,) in loader:
        x = x.to(device)
        _, h = encoder(x)
        z = h[-1].unsqueeze(1).expand(-1, x.size(1), -1)
        y, _ = decoder(z)
        loss = nn.functional.mse_loss(proj(y), x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
