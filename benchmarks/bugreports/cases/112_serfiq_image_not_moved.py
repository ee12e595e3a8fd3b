# source: https://github.com/jankolf/ser-fiq-pytorch/issues/2
# seen: 2026-11-26
# style: inference entry point (main.py): an image loader helper, an iresnet backbone from the project built and moved to the chosen device, weights loaded with map_location, a model method scoring the image
# expect: DL002 at 41
# also-ok: DL007 at 29
# why: the reporter set torch_device to cuda; the backbone is moved there but the image from load_image() stays on the CPU -> "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same" inside calculate_serfiq
# Imports: Project
from backbones.iresnet import iresnet18

# Imports: Python
from pathlib import Path

# Imports: Installed Packages
import torch

from torchvision import io
from torchvision import transforms


def load_image(img_path: str) -> torch.Tensor:
    image: torch.Tensor = io.read_image(img_path)
    image = image.type(torch.FloatTensor) / 255.0
    image = normalize(image)
    return image


if __name__ == "__main__":

    torch_device = torch.device("cuda")
    normalize = transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])

    resnet = iresnet18(dropout=0.4, num_features=512, use_se=False).to(torch_device)
    resnet.load_state_dict(
        torch.load("checkpoints/resnet18.pth", map_location=torch_device)
    )
    resnet.eval()

    for img_file in sorted(Path("images").glob("*.jpg")):
        image = load_image(str(img_file)).unsqueeze(dim=0)

        scores = resnet.calculate_serfiq(image, T=10, scaling=5.0)

        print(f"{img_file.name}: SER-FIQ Score: {scores[0].item():.8f}")
