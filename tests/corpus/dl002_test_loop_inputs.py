# source: https://github.com/pytorch/tutorials/pull/1657  (quickstart test loop did not place the evaluation data on the device -> "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu")
# expect: DL002 at 53
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import ToTensor

device = "cuda" if torch.cuda.is_available() else "cpu"

training_data = datasets.FashionMNIST(root="data", train=True, download=True, transform=ToTensor())
test_data = datasets.FashionMNIST(root="data", train=False, download=True, transform=ToTensor())
train_dataloader = DataLoader(training_data, batch_size=64, pin_memory=True)
test_dataloader = DataLoader(test_data, batch_size=64, pin_memory=True)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512), nn.ReLU(),
            nn.Linear(512, 512), nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork().to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)


def train(dataloader, model, loss_fn, optimizer):
    model.train()
    for X, y in dataloader:
        X, y = X.to(device), y.to(device)
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def test(dataloader, model, loss_fn):
    model.eval()
    num_batches = len(dataloader)
    losses, correct = [], 0
    with torch.no_grad():
        for X, y in dataloader:
            y = y.to(device)
            pred = model(X)
            losses.append(loss_fn(pred, y))
            correct += (pred.argmax(1) == y).type(torch.float).sum()
    test_loss = (torch.stack(losses).sum() / num_batches).item()
    accuracy = (correct / len(dataloader.dataset)).item()
    print(f"Test Error: Accuracy: {(100 * accuracy):>0.1f}%, Avg loss: {test_loss:>8f}")


for t in range(5):
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
