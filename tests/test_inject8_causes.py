"""Causes of the misses of the inject8 first look at mutation recall on fresh scripts
(benchmarks/mutants_fresh8_firstlook.json): general shapes the engine missed, each as a
realistic program different from the mutated script, with a control that must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import textwrap

from devicelint.engine import lint_file
from inference_cases import expected, findings_at

RULES = ["DL001", "DL002", "DL003", "DL006", "DL011"]


def check(case: str, rules=RULES, path: str = "train.py") -> None:
    code = textwrap.dedent(case).lstrip("\n")
    got = findings_at(code, rules, path)
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


# --- 1. a handed-in model moved in place under the device flag ----------------------------------

# An evaluation helper of a research repository: it is handed the network and a `use_cuda` flag
# and moves the network in place (`net.cuda()`, no assignment) under the flag, then moves each
# batch under the same flag. The batch the flag's arm leaves on the host meets the network on
# the GPU whenever the flag is set. At 13e68f2 the in-place move typed the network a module on
# the flag's path while the other path kept the parameter untyped, so the flag's join gave up.
_EVAL_FLAG = '''
import argparse

import torch
import torch.nn.functional as F
from torch.autograd import Variable


def evaluate(model, loader, use_cuda=False):
    """Mean loss and accuracy of `model` over `loader`."""
    if use_cuda:
        model.cuda()
    model.eval()
    total_loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for step, (images, labels) in enumerate(loader):
            images, labels = Variable(images), Variable(labels)
            if use_cuda:
                labels = labels.cuda()
            logits = model(images)  # <- DL002
            total_loss += F.cross_entropy(logits, labels).item() * images.size(0)
            correct += logits.argmax(1).eq(labels).sum().item()
            total += images.size(0)
    return total_loss / total, correct / total


def evaluate_both(model, loader, use_cuda=False):
    if use_cuda:
        model.cuda()
    model.eval()
    correct = 0
    for images, labels in loader:
        if use_cuda:
            images, labels = images.cuda(), labels.cuda()
        correct += model(images).argmax(1).eq(labels).sum().item()
    return correct


def evaluate_else(model, loader, use_cuda=False):
    if use_cuda:
        model.cuda()
    else:
        model.cpu()
    for images, labels in loader:
        if use_cuda:
            images = images.cuda()
        print(model(images).shape)
'''


def test_a_model_moved_in_place_under_the_flag_meets_a_batch_the_flag_left_behind():
    check(_EVAL_FLAG)


# --- 2. a project helper that calls the model inside another call ------------------------------

# A segmentation course project: utils.py holds `check_accuracy`, which runs the model on moved
# batches inside `torch.sigmoid(model(x))`; train.py builds the UNet, checks it once before
# training and then trains it, but never moves it. At 13e68f2 the helper's summary said it
# hands `model` on (the name sits inside the argument `model(x)`), so the model "escaped" at
# the check and the training call that meets moved batches was silent.
_UTILS = '''
import torch
import torchvision


def check_accuracy(loader, model, device="cuda"):
    num_correct, num_pixels, dice_score = 0, 0, 0
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device)
            y = y.to(device).unsqueeze(1)
            preds = torch.sigmoid(model(x))
            preds = (preds > 0.5).float()
            num_correct += (preds == y).sum()
            num_pixels += torch.numel(preds)
            dice_score += (2 * (preds * y).sum()) / ((preds + y).sum() + 1e-8)
    print(f"acc {num_correct / num_pixels * 100:.2f} dice {dice_score / len(loader)}")
    model.train()


def save_predictions_as_imgs(loader, model, folder="saved_images/", device="cuda"):
    model.eval()
    for idx, (x, y) in enumerate(loader):
        x = x.to(device=device)
        with torch.no_grad():
            preds = torch.sigmoid(model(x))
            preds = (preds > 0.5).float()
        torchvision.utils.save_image(preds, f"{folder}/pred_{idx}.png")
    model.train()
'''

_MODEL = '''
import torch.nn as nn


class UNET(nn.Module):
    def __init__(self, in_channels=3, out_channels=1):
        super().__init__()
        self.down = nn.Conv2d(in_channels, 64, 3, padding=1)
        self.head = nn.Conv2d(64, out_channels, 1)

    def forward(self, x):
        return self.head(self.down(x).relu())
'''

_TRAIN = '''
import torch
import torch.nn as nn
import torch.optim as optim
from tqdm import tqdm

from model import UNET
from utils import check_accuracy, save_predictions_as_imgs

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def train_fn(loader, model, optimizer, loss_fn):
    loop = tqdm(loader)
    for data, targets in loop:
        data = data.to(device=DEVICE)
        targets = targets.float().unsqueeze(1).to(device=DEVICE)
        loss = loss_fn(model(data), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loop.set_postfix(loss=loss.item())


def main(train_loader, val_loader, epochs=3):
    model = UNET(in_channels=3, out_channels=1){move}
    loss_fn = nn.BCEWithLogitsLoss()
    optimizer = optim.Adam(model.parameters(), lr=1e-4)
    check_accuracy(val_loader, model, device=DEVICE)
    for epoch in range(epochs):
        train_fn(train_loader, model, optimizer, loss_fn)
        check_accuracy(val_loader, model, device=DEVICE)
        save_predictions_as_imgs(val_loader, model, folder="saved_images/", device=DEVICE)
'''


def _project(root, move: str):
    (root / "pyproject.toml").write_text("")
    for name, text in {"utils.py": _UTILS, "model.py": _MODEL,
                       "train.py": _TRAIN.replace("{move}", move)}.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())
    return root / "train.py"


def _dl001_lines(path) -> list:
    return sorted(f.line for f in lint_file(str(path)) if f.code == "DL001")


def test_a_model_run_inside_another_call_by_a_project_helper_does_not_escape_there(tmp_path):
    train = _project(tmp_path, "")
    lines = train.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines, 1) if "train_fn(train_loader, model" in ln)
    assert at in _dl001_lines(train)


def test_the_moved_model_is_clean(tmp_path):
    assert _dl001_lines(_project(tmp_path, ".to(DEVICE)")) == []


# --- 3. a model whose first stage is wrapped in DataParallel -----------------------------------

# The ImageNet recipe many repositories copy: AlexNet and VGG get only their convolutional
# `features` wrapped in DataParallel (the classifier is too large to replicate), every other
# network is wrapped whole. Either way the stage that sees the images first scatters host
# inputs onto the GPUs, so a validation loop that moves only the targets is correct. At
# 13e68f2 the wrapped part was forgotten and DL002 flagged the images: a false positive.
_IMAGENET = '''
import argparse

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms


def validate(val_loader, model, criterion):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i, (images, target) in enumerate(val_loader):
            target = target.cuda(non_blocking=True)
            output = model(images)
            loss = criterion(output, target)
            correct += output.argmax(1).eq(target).sum().item()
    return correct


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--arch", default="resnet18")
    args = parser.parse_args()
    model = models.__dict__[args.arch]()
    if args.arch.startswith("alexnet") or args.arch.startswith("vgg"):
        model.features = torch.nn.DataParallel(model.features)
        model.cuda()
    else:
        model = torch.nn.DataParallel(model).cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    val_loader = torch.utils.data.DataLoader(
        datasets.ImageFolder(args.data, transforms.ToTensor()), batch_size=256, num_workers=8)
    print(validate(val_loader, model, criterion))


def finetune_vgg(loader):
    model = models.vgg16(weights=None)
    model.features = nn.DataParallel(model.features)
    model.cuda()
    for images, target in loader:
        output = model(images)
        loss = nn.functional.cross_entropy(output, target.cuda())


def finetune_plain(loader):
    model = models.vgg16(weights=None)
    model.cuda()
    for images, target in loader:
        output = model(images)  # <- DL002
        loss = nn.functional.cross_entropy(output, target.cuda())
'''


def test_a_model_whose_features_are_data_parallel_takes_host_images():
    check(_IMAGENET, rules=["DL001", "DL002"])
