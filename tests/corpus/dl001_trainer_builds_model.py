# source: https://github.com/PacktPublishing/Mastering-PyTorch/pull/9  (images and labels of each mini-batch were moved to the device but the model was not; the fix moved the model to the current device)
# expect: DL001 at 37
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class Trainer:
    def __init__(self, train_loader: DataLoader, lr: float = 0.01, device: str = None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = LeNet()
        self.optimizer = torch.optim.Adadelta(self.model.parameters(), lr=lr)
        self.train_loader = train_loader

    def train_epoch(self, epoch):
        self.model.train()
        epoch_loss = torch.zeros((), device=self.device)
        for batch_idx, (data, target) in enumerate(self.train_loader):
            data = data.to(self.device)
            target = target.to(self.device)
            self.optimizer.zero_grad()
            output = self.model(data)
            loss = F.cross_entropy(output, target)
            loss.backward()
            self.optimizer.step()
            epoch_loss += loss.detach()
        return epoch_loss / len(self.train_loader)

    def fit(self, epochs):
        for epoch in range(1, epochs + 1):
            avg = self.train_epoch(epoch)
            print(f"Train Epoch: {epoch}\tLoss: {avg.item():.6f}")
