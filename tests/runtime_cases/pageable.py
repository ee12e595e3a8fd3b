import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = TensorDataset(torch.randn(32, 4))
for (x,) in DataLoader(data, batch_size=8):
    x.to(device)
for (x,) in DataLoader(data, batch_size=8, pin_memory=True):
    x.to(device, non_blocking=True)
pinned = torch.randn(4).pin_memory()
for _ in range(3):
    pinned.to(device)
    torch.randn(4).cuda()
