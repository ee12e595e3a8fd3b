# source: https://github.com/pytorch/ignite/pull/835  (fixed version: the model is moved once, before the loop, and only the batches are moved per step)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torchvision.models import resnet18

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = resnet18(num_classes=10)
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.rand(256, 3, 32, 32), torch.randint(0, 10, (256,))),
                    batch_size=32, shuffle=True, pin_memory=True)

for epoch in range(2):
    model.train()
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
