# tempts: DL001 with models built by library factories: torchvision resnet18(weights=None).to(device), timm.create_model(...).to(device)
import timm
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import FakeData

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

tfm = transforms.Compose([transforms.Resize(64), transforms.ToTensor()])
loader = DataLoader(FakeData(size=256, image_size=(3, 64, 64), num_classes=10, transform=tfm),
                    batch_size=32, shuffle=True, pin_memory=True)

resnet = torchvision.models.resnet18(weights=None).to(device)
resnet.fc = nn.Linear(resnet.fc.in_features, 10).to(device)
vit = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=64).to(device)

opt = torch.optim.AdamW(list(resnet.parameters()) + list(vit.parameters()), lr=1e-4)
criterion = nn.CrossEntropyLoss()

for images, labels in loader:
    images = images.to(device)
    labels = labels.to(device)
    logits = (resnet(images) + vit(images)) / 2
    loss = criterion(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
