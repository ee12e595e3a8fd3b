# source: https://github.com/numenta/nupic.research/pull/249  (fixed version: loop-invariant tensors are put on the device once, outside the loop)
# expect: clean
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
seq_len, d_model = 64, 32
pos = torch.arange(seq_len, dtype=torch.float32).unsqueeze(1)
freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
table = torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], dim=1)
pe = table.to(device)

layer = nn.TransformerEncoderLayer(d_model, 4, 64, batch_first=True).to(device)
head = nn.Linear(d_model, 1).to(device)
optimizer = torch.optim.Adam([*layer.parameters(), *head.parameters()], lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(256, seq_len, d_model), torch.randn(256, 1)), batch_size=32, pin_memory=True)

for x, y in loader:
    x, y = x.to(device), y.to(device)
    out = head(layer(x + pe).mean(dim=1))
    loss = nn.functional.mse_loss(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
