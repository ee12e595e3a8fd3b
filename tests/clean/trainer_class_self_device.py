# tempts: DL001/DL002 through attributes: self.model and self.device are set in __init__ and used in train_epoch/evaluate
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(32 * 7 * 7, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class Trainer:
    def __init__(self, train_loader: DataLoader, val_loader: DataLoader, lr: float = 1e-3):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = ConvNet().to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.train_loader = train_loader
        self.val_loader = val_loader

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for images, labels in self.train_loader:
            images = images.to(self.device)
            labels = labels.to(self.device)
            self.optimizer.zero_grad()
            outputs = self.model(images)
            loss = self.criterion(outputs, labels)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / max(len(self.train_loader), 1)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = 0
        seen = 0
        for images, labels in self.val_loader:
            images, labels = images.to(self.device), labels.to(self.device)
            preds = self.model(images).argmax(dim=1)
            correct += (preds == labels).sum().item()
            seen += labels.size(0)
        return correct / max(seen, 1)

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            acc = self.evaluate()
            print(f"[{epoch}] loss={train_loss:.3f} acc={acc:.3f}")
