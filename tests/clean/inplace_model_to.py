# tempts: DL006/DL001 with `model.to(device)` as a bare statement: modules move in place, so nothing is discarded
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = nn.GRU(input_size=6, hidden_size=24, batch_first=True)
head = nn.Linear(24, 1)
model.to(device)
head.to(device)

series = torch.randn(256, 30, 6)
target = torch.randn(256, 1)
loader = DataLoader(TensorDataset(series, target), batch_size=16, shuffle=True, pin_memory=True)
params = list(model.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)

for epoch in range(4):
    for seq, tgt in loader:
        seq = seq.to(device)
        tgt = tgt.to(device)
        out, h_n = model(seq)
        pred = head(h_n[-1])
        loss = nn.functional.l1_loss(pred, tgt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
