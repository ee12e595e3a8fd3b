# source: https://github.com/Unity-Technologies/Robotics-Object-Pose-Estimation/pull/52
# seen: 2026-11-26
# style: ROS service helper module (setup_and_run_model.py): a module-level `model = None` filled on first call through `global model`, a pre_process_image() helper that moves the image list to the device
# expect: DL001 at 117
# also-ok: DL004 at 117
# why: the image is moved to cuda:0 (in the helper and again before the call) but the PoseEstimationNetwork loaded from the checkpoint is never moved -> "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"; the fix adds model.to(device)
import numpy as np
import torch
import torchvision
from PIL import Image


def preload():
    '''pre-load VGG model weights, for transfer learning. Automatically cached for later use.'''
    torchvision.models.vgg16(pretrained=True)


class PoseEstimationNetwork(torch.nn.Module):
    """VGG16 backbone with a translation branch and a quaternion orientation branch."""

    def __init__(self, *, is_symetric):
        super(PoseEstimationNetwork, self).__init__()
        self.is_symetric = is_symetric
        self.model_backbone = torchvision.models.vgg16(pretrained=True)  # uses cache
        # remove the original classifier
        self.model_backbone.classifier = torch.nn.Identity()

        self.translation_block = torch.nn.Sequential(
            torch.nn.Linear(25088, 256),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(256, 64),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(64, 3),
        )
        self.orientation_block = torch.nn.Sequential(
            torch.nn.Linear(25088, 256),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(256, 64),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(64, 4),
            LinearNormalized(),
        )

    def forward(self, x):
        x = self.model_backbone(x)
        output_translation = self.translation_block(x)

        if (self.is_symetric == False):
            output_orientation = self.orientation_block(x)
            return output_translation, output_orientation

        return output_translation


class LinearNormalized(torch.nn.Module):
    """Normalizes the output of the orientation branch: a quaternion is a unit vector."""

    def __init__(self):
        super(LinearNormalized, self).__init__()

    def forward(self, x):
        return self._linear_normalized(x)

    def _linear_normalized(self, x):
        norm = torch.norm(x, p=2, dim=1).unsqueeze(0)
        for index in range(norm.shape[1]):
            if norm[0, index].item() == 0.0:
                norm[0, index] = 1.0
        x = torch.transpose(x, 0, 1)
        x = torch.div(x, norm)
        return torch.transpose(x, 0, 1)


def pre_process_image(path_image, device):
    image_origin = Image.open(path_image).convert("RGB")
    transform = get_transform()
    image = [transform(image_origin).unsqueeze(0)]
    image = list(img.to(device) for img in image)
    return image


def get_transform():
    """
    Apply a transform on the input image tensor
    Returns:
        https://pytorch.org/docs/stable/torchvision/transforms.html
    """
    transform = torchvision.transforms.Compose(
        [
            torchvision.transforms.Resize(
                (
                    224,
                    224,
                )
            ),
            torchvision.transforms.ToTensor(),
        ]
    )
    return transform


global model
model = None


def run_model_main(image_file_png, model_file_name):
    global model

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    if model is None:
        checkpoint = torch.load(model_file_name, map_location=device)
        model = PoseEstimationNetwork(is_symetric=False)
        model.load_state_dict(checkpoint["model"])
        model.eval()

    image = pre_process_image(image_file_png, device)
    output_translation, output_orientation = model(torch.stack(image).reshape(-1, 3, 224, 224).to(device))
    output_translation, output_orientation = output_translation.cpu().detach().numpy(), output_orientation.cpu().detach().numpy()
    return output_orientation, output_translation
