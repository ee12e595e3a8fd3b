# source: https://github.com/sksq96/pytorch-summary/issues/16
# seen: 2026-11-26
# style: script (slideCNN-train.py), library helper (torchsummary)
# expect: DL001 at 31, 32
# why: torchsummary.summary feeds CUDA inputs by default; the model is printed before it is moved
# also-ok: DL014 at 38
import torch
import torch.nn as nn
import torch.optim as optim
from torchsummary import summary
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SlideCNN(nn.Module):
    def __init__(self):
        super(SlideCNN, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 7 * 4, 2)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = x.view(x.size(0), -1)
        return self.fc(x)


model = SlideCNN()
print(summary(model, (3, 30, 16)))

model = model.to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=1e-3)
dataset = TensorDataset(torch.randn(512, 3, 30, 16), torch.randint(0, 2, (512,)))
loader = DataLoader(dataset, batch_size=32, shuffle=True)

for epoch in range(10):
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
