"""Causes found by the sixth targeted first look of issue 23's rules (2026-11-27, devicelint at
13e68f2, `benchmarks/firstlook/2026-11-27-newrules6.json`), each as a realistic project in the
shape the audited repository writes it.

A tensor filled by element stores in a helper of another file
(Ramhamer/Satellite_Segmentation's `utils/data_utils.rebuild_image`: `output = torch.zeros(...)`,
then `output[:, y:y+h, x:x+w] = patches[i]` in a loop, `return output`). An element store copies
into the tensor's own storage: the buffer keeps its device, whatever device the stored value
has. The same code in one file was read right; across files the module summary let the stored
name escape (`output[...] = ...` read as "handed to code we cannot see"), the return became
unknown, and the caller fell back to the device of the arguments: a host mask read as a device
tensor (DL003 on `.numpy()`), and a device buffer given host arguments read as nothing.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import textwrap

from inference_cases import expected

from devicelint.engine import lint_file

DATA_UTILS = '''
import math

import torch


def split_image(image, target_size=(512, 512)):
    """Cut a (C, H, W) image into zero-padded patches of target_size."""
    channels, height, width = image.shape
    num_x = math.ceil(width / target_size[0])
    num_y = math.ceil(height / target_size[1])
    patches = torch.zeros((num_x * num_y, channels, target_size[1], target_size[0]))
    i = 0
    for y in range(0, height, target_size[1]):
        for x in range(0, width, target_size[0]):
            tile = image[:, y:y + target_size[1], x:x + target_size[0]]
            patches[i, :, :tile.shape[1], :tile.shape[2]] = tile
            i += 1
    return patches


def rebuild_image(patches, original_size):
    """Stitch patches back into one (C, H, W) image of original_size."""
    num_patches = patches.shape[0]
    channels = patches.shape[1]
    patch_height, patch_width = patches.shape[2:]
    grid_y = math.ceil(original_size[1] / patch_height)
    grid_x = math.ceil(original_size[2] / patch_width)
    output = torch.zeros((channels, grid_y * patch_height, grid_x * patch_width))
    i = 0
    for y in range(0, grid_y * patch_height, patch_height):
        for x in range(0, grid_x * patch_width, patch_width):
            if i >= num_patches:
                break
            output[:, y:y + patch_height, x:x + patch_width] = patches[i]
            i += 1
    output = output[:, :original_size[1], :original_size[2]]
    return output
'''

INFERENCE = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torchvision import transforms

from utils.data_utils import rebuild_image, split_image


class TinySegNet(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, n_classes, 1))

    def forward(self, x):
        return self.body(x)


def predict(model, image, device):
    preprocess = transforms.Compose([transforms.ToTensor(),
                                     transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
    image_tensor = preprocess(image)
    patches = split_image(image_tensor)
    pred_tensor = torch.zeros(patches.shape[0], 1, patches.shape[2], patches.shape[3]).to(device)
    with torch.no_grad():
        for i in range(patches.shape[0]):
            logits = model(patches[i].unsqueeze(0).to(device))
            pred_tensor[i] = logits.argmax(dim=1)
    return rebuild_image(pred_tensor, image_tensor.shape)


def save_mask(image_path, rebuilt_tensor):
    mask = rebuilt_tensor.squeeze(0).numpy().astype(np.uint8)
    Image.fromarray(mask).save(image_path.replace(".png", "_mask.png"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="models/segnet_best.pth")
    parser.add_argument("--image", default="inference_images/tile.png")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinySegNet()
    model.load_state_dict(torch.load(args.weights, map_location=device))
    model.to(device)
    model.eval()
    pred = predict(model, Image.open(args.image).convert("RGB"), device)
    save_mask(args.image, pred)


if __name__ == "__main__":
    main()
'''

# The mirror image: a scoring helper that fills a buffer it places on the accelerator itself,
# given host values. What it returns is that device buffer, so `.numpy()` on it fails.
METRICS = '''
import torch


def per_image_scores(masks, device):
    """One foreground fraction per mask, gathered in one tensor."""
    scores = torch.zeros(len(masks)).to(device)
    for i, mask in enumerate(masks):
        scores[i] = float((mask > 0).sum()) / mask.numel()
    return scores
'''

REPORT = '''
import argparse
import glob

import numpy as np
import torch
from PIL import Image

from utils.metrics import per_image_scores


def load_masks(folder):
    masks = []
    for path in sorted(glob.glob(folder + "/*_mask.png")):
        masks.append(torch.from_numpy(np.array(Image.open(path))))
    return masks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--masks", default="inference_images")
    parser.add_argument("--out", default="scores.npy")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    scores = per_image_scores(load_masks(args.masks), device)
    np.save(args.out, scores.numpy())  # <- DL003


if __name__ == "__main__":
    main()
'''


def _project(root, files: dict) -> None:
    (root / "utils").mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "utils" / "__init__.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


def _dl003(path) -> set:
    return {(f.code, f.line) for f in lint_file(str(path)) if f.code == "DL003"}


def test_a_host_buffer_filled_by_element_stores_in_another_file_stays_on_the_host(tmp_path):
    _project(tmp_path, {"utils/data_utils.py": DATA_UTILS, "inference.py": INFERENCE})
    assert _dl003(tmp_path / "inference.py") == set()


def test_a_device_buffer_filled_in_another_file_from_host_values_is_on_the_device(tmp_path):
    _project(tmp_path, {"utils/metrics.py": METRICS, "report.py": REPORT})
    path = tmp_path / "report.py"
    assert _dl003(path) == expected(path.read_text())
