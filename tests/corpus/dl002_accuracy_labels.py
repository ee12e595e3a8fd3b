# source: https://github.com/jiawangbai/TA-LBF/issues/2  (accuracy computed by comparing CPU labels with CUDA predictions -> "Expected all tensors to be on the same device, cuda:0 and cpu"; fixed by using the CUDA copy of the labels)
# expect: DL002 at 18
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def evaluate(net, loader, device):
    net.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for images, labels in loader:
            images = images.to(device)
            logits = net(images)
            pred = logits.argmax(dim=1)
            correct += (pred == labels).sum()
            total += labels.size(0)
    return correct / total


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
    test_set = datasets.CIFAR10("data", train=False, download=True,
                                transform=transforms.Compose([transforms.ToTensor(), norm]))
    loader = DataLoader(test_set, batch_size=256, num_workers=4, pin_memory=True)
    net = models.resnet18(num_classes=10)
    net.load_state_dict(torch.load("resnet18_cifar10.pt", map_location="cpu"))
    net = net.to(device)
    acc = evaluate(net, loader, device)
    print(f"clean accuracy: {100 * acc.item():.2f}%")
