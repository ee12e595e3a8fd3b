# tempts: DL001/DL007 with .cuda() calls that are all guarded by torch.cuda.is_available()
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

use_cuda = torch.cuda.is_available()


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(self.body(x).flatten(1))


model = TinyCNN()
if torch.cuda.is_available():
    model = model.cuda()

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

images = torch.randn(512, 3, 16, 16)
classes = torch.randint(0, 5, (512,))
loader = DataLoader(TensorDataset(images, classes), batch_size=32, shuffle=True, pin_memory=use_cuda)

for epoch in range(3):
    for inputs, targets in loader:
        if use_cuda:
            inputs = inputs.cuda(non_blocking=True)
            targets = targets.cuda(non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
