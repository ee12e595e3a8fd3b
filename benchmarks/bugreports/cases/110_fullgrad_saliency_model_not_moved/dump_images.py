# source: https://github.com/idiap/fullgrad-saliency/pull/5
# seen: 2026-11-26
# style: two-file project: dump_images.py (loads a pretrained VGG from the project's models package, a DataLoader over a sample folder, a FullGrad explainer object, saves saliency maps) and saliency/fullgrad.py (the explainer class that runs the model it was given)
# expect: DL001 at 51
# why: the data is moved to cuda when it is available but the model built by vgg16_bn(pretrained=True) is never moved; FullGrad runs it on the CUDA image -> "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same" (the PR moves the model to the device)
import os

import torch
from torchvision import datasets, transforms, utils

from models.vgg import vgg16_bn
from saliency.fullgrad import FullGrad

# PATH variables
PATH = os.path.dirname(os.path.abspath(__file__)) + "/"
dataset = PATH + "dataset/"

batch_size = 4

cuda = torch.cuda.is_available()
device = torch.device("cuda" if cuda else "cpu")

# Dataset loader for sample images
sample_loader = torch.utils.data.DataLoader(
    datasets.ImageFolder(
        dataset,
        transform=transforms.Compose([
            transforms.Resize((224, 224)),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        ]),
    ),
    batch_size=batch_size,
    shuffle=False,
)

# Use pretrained VGG-16 with batch normalization
model = vgg16_bn(pretrained=True)

# Initialize FullGrad object
fullgrad = FullGrad(model)

save_path = PATH + "results/"


def compute_saliency_and_save():
    for batch_idx, (data, target) in enumerate(sample_loader):
        data, target = data.to(device).requires_grad_(), target.to(device)

        # Compute saliency maps for the input data
        saliency_map = fullgrad.saliency(data)

        # Save saliency maps
        for i in range(data.size(0)):
            filename = save_path + str((batch_idx + 1) * (i + 1))
            image = unnormalize(data[i, :, :, :].cpu())
            utils.save_image(image, filename + "_image.jpg")
            utils.save_image(saliency_map[i, :, :, :].cpu(), filename + "_saliency.jpg")


def unnormalize(image):
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    return image * std + mean


if __name__ == "__main__":
    # Create folder to saliency maps
    os.makedirs(save_path, exist_ok=True)
    compute_saliency_and_save()
    print("Saliency maps saved.")
