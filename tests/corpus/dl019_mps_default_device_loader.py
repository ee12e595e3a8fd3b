# source: https://github.com/pytorch/pytorch/issues/110820  ("Expected a 'mps:0' generator device but found 'cpu'" using shuffle=True on a DataLoader after torch.set_default_device("mps"))
# expect: DL019 at 25
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_default_device("mps")


class Squares(Dataset):
    def __init__(self, n=256):
        self.x = torch.linspace(-1, 1, n).unsqueeze(1)
        self.y = self.x ** 2

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
data_loader = DataLoader(Squares(), batch_size=8, shuffle=True)

print(next(iter(DataLoader(Squares(), batch_size=8))))

for epoch in range(20):
    epoch_loss = 0.0
    for x, y in data_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print(epoch, epoch_loss)
