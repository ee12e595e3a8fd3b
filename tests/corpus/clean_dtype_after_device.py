# source: https://github.com/verl-project/verl/pull/565  (about redundant .to(device); here the second .to() changes the dtype, not the device, so nothing is redundant)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
half = torch.bfloat16 if device.type == "cuda" else torch.float32

model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8)).to(device).to(half)
loader = DataLoader(TensorDataset(torch.randint(0, 255, (512, 64), dtype=torch.uint8), torch.randint(0, 8, (512,))),
                    batch_size=64, pin_memory=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for raw, y in loader:
    x = raw.to(device, non_blocking=True).to(half).div(255)
    y = y.to(device, non_blocking=True)
    logits = model(x).float()
    loss = nn.functional.cross_entropy(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
