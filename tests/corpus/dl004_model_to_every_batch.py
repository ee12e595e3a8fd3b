# source: https://github.com/pytorch/ignite/pull/835  (proposal to move the model at every iteration because .to() "is a no-op"; the profiling in the thread showed model.to(device) per step costs ~2 ms for resnet101)
# expect: DL004 at 35
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10
from torchvision.models import resnet50
from torchvision.transforms import ToTensor


def create_supervised_step(model, optimizer, loss_fn, device):
    def update(batch):
        model.train()
        x, y = batch
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()
    return update


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(CIFAR10("data", download=True, transform=ToTensor()), batch_size=128,
                        shuffle=True, num_workers=4, pin_memory=True)
    model = resnet50(num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step = create_supervised_step(model, optimizer, nn.CrossEntropyLoss(), device)
    history = []
    for epoch in range(2):
        for batch in loader:
            model.to(device)
            history.append(step(batch))
    print(torch.stack(history).mean().item())
