# tempts: DL001 in a script with a GPU section for one model and a CPU-only baseline model that is never moved (and never sees device data)
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

X = torch.randn(1500, 8)
Y = (X[:, :2].sum(1, keepdim=True) > 0).float()

# --- CPU baseline: logistic regression, deliberately kept on the CPU ---
baseline = nn.Linear(8, 1)
base_opt = torch.optim.LBFGS(baseline.parameters(), max_iter=50)


def closure():
    base_opt.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(baseline(X), Y)
    loss.backward()
    return loss


base_opt.step(closure)
with torch.no_grad():
    base_acc = ((baseline(X) > 0).float() == Y).float().mean().item()
    base_weights = baseline.weight.detach().numpy()
print("baseline acc", base_acc, "weights", np.round(base_weights, 2))

# --- GPU section: a deeper model trained on the accelerator ---
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
deep = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
opt = torch.optim.Adam(deep.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(X, Y), batch_size=100, shuffle=True, pin_memory=True)
for epoch in range(10):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = nn.functional.binary_cross_entropy_with_logits(deep(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
