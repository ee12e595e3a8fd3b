# source: https://github.com/mrdbourke/pytorch-deep-learning/pull/369  (train_step/test_step moved X and y to the target device but the model passed in was never moved)
# expect: DL001 at 45
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class TinyVGG(nn.Module):
    def __init__(self, hidden=10, classes=10):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(1, hidden, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(hidden * 7 * 7, classes))

    def forward(self, x):
        return self.classifier(self.block2(self.block1(x)))


def train_step(model, dataloader, loss_fn, optimizer, device):
    model.train()
    train_loss = 0.0
    for X, y in dataloader:
        X, y = X.to(device), y.to(device)
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss.detach()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return train_loss / len(dataloader)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_data = datasets.FashionMNIST("data", train=True, download=True, transform=transforms.ToTensor())
    train_loader = DataLoader(train_data, batch_size=32, shuffle=True, pin_memory=True)

    torch.manual_seed(42)
    model_2 = TinyVGG()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model_2.parameters(), lr=0.1)

    for epoch in range(3):
        avg = train_step(model_2, train_loader, loss_fn, optimizer, device)
        print(f"epoch {epoch} | train loss {avg.item():.4f}")


if __name__ == "__main__":
    main()
