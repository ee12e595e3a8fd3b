# tempts: DL002 when the batch is moved inside if/else, on both branches (channels_last for images, plain .to otherwise)
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
channels_last = device.type == "cuda"

model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 2))
if channels_last:
    model = model.to(device, memory_format=torch.channels_last)
else:
    model = model.to(device)

loader = DataLoader(TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 2, (128,))),
                    batch_size=16, pin_memory=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for images, target in loader:
    if channels_last:
        images = images.to(device, memory_format=torch.channels_last, non_blocking=True)
    else:
        images = images.to(device)
    target = target.to(device)
    loss = nn.functional.cross_entropy(model(images), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
