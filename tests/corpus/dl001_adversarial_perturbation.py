# source: https://github.com/NetoPedro/Universal-Adversarial-Perturbations-Pytorch/issues/1  (net(cur_img) failed with "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)": images were moved to CUDA, the torchvision net was not)
# expect: DL001 at 32
import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import ImageFolder


def fooling_rate(net, loader, v, device):
    fooled = torch.zeros((), device=device)
    total = 0
    with torch.no_grad():
        for images, _ in loader:
            images = images.to(device)
            clean = net(images).argmax(dim=1)
            perturbed = net((images + v).clamp(0, 1)).argmax(dim=1)
            fooled += (clean != perturbed).sum()
            total += images.size(0)
    return fooled / total


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tfm = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
    val = ImageFolder("imagenet/val", transform=tfm)
    loader = DataLoader(val, batch_size=32, num_workers=4, pin_memory=True)

    net = torchvision.models.vgg16(weights=torchvision.models.VGG16_Weights.IMAGENET1K_V1)
    net.eval()
    v = torch.zeros(1, 3, 224, 224, device=device).uniform_(-10 / 255, 10 / 255)
    rate = fooling_rate(net, loader, v, device)
    print(f"fooling rate: {rate.item():.3f}")
