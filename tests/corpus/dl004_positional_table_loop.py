# source: https://github.com/numenta/nupic.research/pull/249  ("Perf: Remove unnecessary GPU fetches inside loop": per-iteration tensor.to(device) calls had measurable overhead)
# expect: DL004 at 34
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def sinusoid_table(length, dim):
    pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)
    return table


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
seq_len, d_model = 128, 64
pe = sinusoid_table(seq_len, d_model)

encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, 4, 128, batch_first=True), num_layers=2).to(device)
head = nn.Linear(d_model, 1).to(device)
params = list(encoder.parameters()) + list(head.parameters())
optimizer = torch.optim.AdamW(params, lr=3e-4)
loader = DataLoader(TensorDataset(torch.randn(512, seq_len, d_model), torch.randn(512, 1)),
                    batch_size=32, shuffle=True, pin_memory=True)

for epoch in range(3):
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        h = encoder(x + pe.to(device))
        loss = nn.functional.mse_loss(head(h.mean(dim=1)), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
