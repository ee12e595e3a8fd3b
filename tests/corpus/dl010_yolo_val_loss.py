# source: https://github.com/bubbliiiing/yolo3-pytorch/issues/3  (total_loss += loss and val_loss += loss keep the graph; should be loss.item())
# expect: DL010 at 27, 36
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 5, 1)).to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
gen = DataLoader(TensorDataset(torch.randn(64, 3, 32, 32), torch.randn(64, 5, 32, 32)), batch_size=8, pin_memory=True)
gen_val = DataLoader(TensorDataset(torch.randn(32, 3, 32, 32), torch.randn(32, 5, 32, 32)), batch_size=8, pin_memory=True)


def fit_one_epoch(epoch):
    total_loss = 0
    val_loss = 0
    net.train()
    for iteration, (images, targets) in enumerate(gen):
        images = images.to(device)
        targets = targets.to(device)
        optimizer.zero_grad()
        outputs = net(images)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total_loss += loss

    net.eval()
    for iteration, (images_val, targets_val) in enumerate(gen_val):
        images_val = images_val.to(device)
        targets_val = targets_val.to(device)
        optimizer.zero_grad()
        outputs = net(images_val)
        loss = criterion(outputs, targets_val)
        val_loss += loss
    print(f"epoch {epoch}: {total_loss / len(gen)} / {val_loss / len(gen_val)}")


for epoch in range(2):
    fit_one_epoch(epoch)
