"""False-positive causes and misses of DL003 and DL017-DL021 found by the targeted first look
of 2026-11-26 (devicelint 6fe31cc, `benchmarks/firstlook/2026-11-26-newrules.json`), each as
a realistic program with its control: the same program with the bug put back must still be
flagged.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import textwrap

import pytest
from inference_cases import expected

from devicelint.engine import lint_source

RULES = ["DL003", "DL017", "DL018", "DL019", "DL020", "DL021"]


def found(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(code, "case.py", select=RULES)}


# yashbelhe/ASD `utils/finite_diff.py`: the colour limits of a gradient image are a 0-dim
# tensor on the default device; matplotlib reads `vmin`/`vmax` with `.item()`
# (`matplotlib.colors._sanitize_extrema`), it converts nothing to NumPy.
_COLOUR_LIMITS = """
import argparse
import matplotlib.pyplot as plt
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def finite_difference(f, params, eps=1e-3, size=64):
    grid = torch.stack(torch.meshgrid(torch.linspace(0, 1, size, device=device),
                                      torch.linspace(0, 1, size, device=device), indexing="ij"), -1)
    plus, minus = params.clone(), params.clone()
    plus[0] += eps
    minus[0] -= eps
    return (f(grid, plus) - f(grid, minus)) / (2 * eps)


def disc(grid, p):
    return ((grid - p[:2]).norm(dim=-1) < p[2]).float()


def plot(ours, fd, save_path=None, plot_error=False):
    vmax = fd.abs().max()
    if plot_error:
        fig, axs = plt.subplots(1, 3, figsize=(24, 8))
        axs[0].imshow(ours.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        axs[1].imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        axs[2].imshow((ours - fd).abs().detach().cpu(), cmap="viridis", vmax=vmax)
    else:
        plt.figure(figsize=(16, 8))
        plt.subplot(1, 2, 1)
        plt.imshow(ours.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        plt.subplot(1, 2, 2)
        plt.imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
    if save_path:
        plt.savefig(save_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    params = torch.tensor([0.5, 0.5, 0.25], device=device)
    fd = finite_difference(disc, params)
    plot(fd * 0.9, fd, args.out)
    plot(fd * 0.9, fd, plot_error=True)
"""


def test_colour_limits_read_with_item_are_not_a_numpy_conversion():
    assert found(_COLOUR_LIMITS) == set()


def test_the_image_itself_on_the_device_is_still_flagged():
    code = _COLOUR_LIMITS.replace(
        'plt.imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)',
        'plt.imshow(fd.detach(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)  # <- DL003')
    code = code.replace('axs[2].imshow((ours - fd).abs().detach().cpu(), cmap="viridis", vmax=vmax)',
                        'axs[2].imshow((ours - fd).abs().detach(), cmap="viridis", vmax=vmax)  # <- DL003')
    assert found(code) == expected(code)


# StarlitVienna/pytorch-notes `practice/circle_data_model/generateData.py`: the data module
# moves its tensors at import time and plots them under its own `__main__` guard; model.py
# does `from generateData import *` and main.py trains on the device copies. A module-level
# binding made outside the guard of a file that has one is meant for importers.
_DATA_MODULE = """
import torch
import matplotlib.pyplot as plt
from sklearn.datasets import make_circles
from sklearn.model_selection import train_test_split

device = "cuda" if torch.cuda.is_available() else "cpu"

N_SAMPLES = 100
SEED = 42

X, y = make_circles(n_samples=N_SAMPLES, noise=0.02, random_state=SEED)
X_train, X_test, Y_train, Y_test = train_test_split(X, y, train_size=0.8, shuffle=True, random_state=SEED)

X_train = torch.from_numpy(X_train).type(torch.float32).to(device)
X_test = torch.from_numpy(X_test).type(torch.float32).to(device)
Y_train = torch.from_numpy(Y_train).to(device)
Y_test = torch.from_numpy(Y_test).to(device)

if __name__ == "__main__":
    figure, axis = plt.subplots(1, 2)
    axis[0].scatter(X_train[:, 0].cpu(), X_train[:, 1].cpu(), c=Y_train.cpu(), cmap=plt.cm.RdYlBu)
    axis[1].scatter(X_test[:, 0].cpu(), X_test[:, 1].cpu(), c=Y_test.cpu(), cmap=plt.cm.RdYlBu)
    plt.show()
"""


def _dl021(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(code, "generateData.py", select=["DL021"])}


def test_a_data_module_meant_for_importers_is_not_a_round_trip():
    assert _dl021(_DATA_MODULE) == set()


def test_the_same_move_under_the_main_guard_is_still_flagged():
    code = _DATA_MODULE.replace(
        '    figure, axis = plt.subplots(1, 2)\n',
        '    labels = torch.from_numpy(y).to(device)  # <- DL021\n'
        '    print(labels.cpu().tolist()[:10])\n'
        '    figure, axis = plt.subplots(1, 2)\n')
    assert _dl021(code) == expected(code)


def test_a_script_without_a_main_guard_is_still_flagged():
    code = _DATA_MODULE.replace("if __name__ == \"__main__\":\n    ", "").replace("\n    ", "\n")
    code = code.replace("Y_train = torch.from_numpy(Y_train).to(device)", "Y_train = torch.from_numpy(Y_train).to(device)  # <- DL021")
    code = code.replace("Y_test = torch.from_numpy(Y_test).to(device)", "Y_test = torch.from_numpy(Y_test).to(device)  # <- DL021")
    assert _dl021(code) == expected(code)


# lzx1413/PytorchSSD: the loss and prior-box modules set the default tensor type when they are
# imported (`if torch.cuda.is_available(): torch.set_default_tensor_type(...)`), and the
# training scripts that import them iterate a shuffling loader built without `generator=`:
# the same failure as ssd.pytorch, with the setter in another file (3 silent misses).
_LOSS_MODULE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

GPU = False
if torch.cuda.is_available():
    GPU = True
    torch.set_default_tensor_type("torch.cuda.FloatTensor")


class MultiBoxLoss(nn.Module):
    def __init__(self, num_classes, overlap_thresh=0.5):
        super().__init__()
        self.num_classes = num_classes
        self.threshold = overlap_thresh

    def forward(self, predictions, targets):
        loc_data, conf_data = predictions
        return F.smooth_l1_loss(loc_data, targets[..., :4]) + F.cross_entropy(conf_data, targets[..., 4].long())
"""

_TRAIN_SCRIPT = """
import argparse

import torch
import torch.optim as optim
import torch.utils.data as data

from layers.modules import MultiBoxLoss

parser = argparse.ArgumentParser(description="Receptive Field Block Net Training")
parser.add_argument("--batch_size", default=32, type=int)
parser.add_argument("--num_workers", default=4, type=int)
parser.add_argument("--max_iter", default=1000, type=int)
args = parser.parse_args()


class Boxes(data.Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        return torch.randn(3, 32, 32), torch.rand(8, 5)


def train(net):
    criterion = MultiBoxLoss(21)
    optimizer = optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    dataset = Boxes()
    epoch_size = len(dataset) // args.batch_size
    for iteration in range(args.max_iter):
        if iteration % epoch_size == 0:
            batch_iterator = iter(data.DataLoader(dataset, args.batch_size, shuffle=True,  # <- DL019
                                                  num_workers=args.num_workers))
        images, targets = next(batch_iterator)
        loss = criterion(net(images.cuda()), targets.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def _project(root, loss_module):
    files = {"pyproject.toml": "", "layers/__init__.py": "",
             "layers/modules/__init__.py": "from .multibox_loss import MultiBoxLoss\n\n__all__ = ['MultiBoxLoss']\n",
             "layers/modules/multibox_loss.py": loss_module, "train_test.py": _TRAIN_SCRIPT}
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "train_test.py"


def _dl019(path) -> set:
    from devicelint.engine import lint_file

    return {(f.code, f.line) for f in lint_file(str(path)) if f.code == "DL019"}


def test_a_default_tensor_type_set_by_an_imported_module_is_seen(tmp_path):
    train = _project(tmp_path, _LOSS_MODULE)
    assert _dl019(train) == expected(train.read_text())


def test_a_default_set_inside_a_function_of_the_imported_module_is_not(tmp_path):
    lazy = _LOSS_MODULE.replace('GPU = False\nif torch.cuda.is_available():\n    GPU = True\n    torch',
                                'def use_gpu():\n    torch')
    assert "def use_gpu" in lazy
    assert _dl019(_project(tmp_path, lazy)) == set()


def test_an_imported_module_that_also_sets_the_host_default_leaves_it_unknown(tmp_path):
    both = _LOSS_MODULE.replace('    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n',
                                '    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'
                                'torch.set_default_tensor_type("torch.FloatTensor")\n')
    assert _dl019(_project(tmp_path, both)) == set()


# KaiyangZhou/deep-person-reid `tools/visualize_actmap.py`: the batch goes to the GPU under
# `if use_gpu:` and the outputs come back under the same `if use_gpu:`; after it they are on
# the host on both paths (with `use_gpu` false nothing was ever on the device).
_ACTMAP = """
import argparse
import os.path as osp

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


@torch.no_grad()
def visactmap(model, data_loader, save_dir, width, height, use_gpu):
    model.eval()
    for batch_idx, data in enumerate(data_loader):
        imgs, paths = data["img"], data["impath"]
        if use_gpu:
            imgs = imgs.cuda()
        outputs = model(imgs)
        outputs = (outputs**2).sum(1)
        b, h, w = outputs.size()
        outputs = F.normalize(outputs.view(b, h * w), p=2, dim=1).view(b, h, w)
        if use_gpu:
            imgs, outputs = imgs.cpu(), outputs.cpu()
        for j in range(outputs.size(0)):
            img_np = np.uint8(np.floor(imgs[j].numpy() * 255)).transpose((1, 2, 0))
            am = outputs[j, ...].numpy()
            am = cv2.resize(am, (width, height))
            am = np.uint8(np.floor(255 * (am - np.min(am)) / (np.max(am) - np.min(am) + 1e-12)))
            cv2.imwrite(osp.join(save_dir, osp.basename(paths[j]) + ".jpg"), np.concatenate([img_np, am[..., None].repeat(3, 2)], 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save-dir", default="log")
    args = parser.parse_args()
    use_gpu = torch.cuda.is_available()
    model = FeatureNet()
    if use_gpu:
        model = model.cuda()
    loader = [{"img": torch.rand(4, 3, 64, 32), "impath": ["a", "b", "c", "d"]}]
    visactmap(model, loader, args.save_dir, 128, 256, use_gpu)


if __name__ == "__main__":
    main()
"""


def test_outputs_brought_back_under_the_same_flag_are_on_the_host():
    assert found(_ACTMAP) == set()


def test_outputs_not_brought_back_are_still_flagged():
    code = _ACTMAP.replace("imgs, outputs = imgs.cpu(), outputs.cpu()", "imgs = imgs.cpu()")
    code = code.replace("am = outputs[j, ...].numpy()", "am = outputs[j, ...].numpy()  # <- DL003")
    assert found(code) == expected(code)
