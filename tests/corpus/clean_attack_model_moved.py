# source: https://github.com/NetoPedro/Universal-Adversarial-Perturbations-Pytorch/issues/1  (fixed version: the torchvision network is moved to the same device as the images and the perturbation)
# expect: clean
import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import FakeData

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torchvision.models.resnet18(weights=None).to(device).eval()
loader = DataLoader(FakeData(64, (3, 224, 224), transform=transforms.ToTensor()), batch_size=16, pin_memory=True)
v = torch.empty(1, 3, 224, 224, device=device).uniform_(-8 / 255, 8 / 255)

flips = []
with torch.no_grad():
    for images, _ in loader:
        images = images.to(device)
        clean = net(images).argmax(1)
        adv = net((images + v).clamp(0, 1)).argmax(1)
        flips.append((clean != adv).float().mean())
print("fooling rate", torch.stack(flips).mean().item())
