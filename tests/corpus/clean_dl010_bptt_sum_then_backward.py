# source: https://github.com/dmlc/dgl/issues/5302  (summing losses is fine when the sum is what gets differentiated, or when it is detached)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
cell = nn.GRUCell(8, 16).to(device)
readout = nn.Linear(16, 8).to(device)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(32, 12, 8)), batch_size=8, pin_memory=True)

epoch_loss = torch.zeros((), device=device)
for (seq,) in loader:
    seq = seq.to(device)
    h = torch.zeros(seq.size(0), 16, device=device)
    loss = 0.0
    for t in range(seq.size(1) - 1):
        h = cell(seq[:, t], h)
        loss += nn.functional.mse_loss(readout(h), seq[:, t + 1])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    epoch_loss += loss.detach()


def full_batch_objective(loader):
    total = 0.0
    for (seq,) in loader:
        seq = seq.to(device)
        h = cell(seq[:, 0], torch.zeros(seq.size(0), 16, device=device))
        total += nn.functional.mse_loss(readout(h), seq[:, 1])
    objective = total / len(loader)
    objective.backward()


full_batch_objective(loader)
print(epoch_loss.item())
