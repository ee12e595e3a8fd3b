"""False-positive causes left by the fifth first look (benchmarks/firstlook/2026-11-26e.json,
devicelint 2d4e984), each as a realistic training script with its control: the same script with
the bug put back is still flagged. Each silence test fails on 6e0c97d and passes now; the
controls pass on both.
"""

import textwrap

from devicelint.engine import lint_source


def _lines(code: str, text: str, path: str = "evaluate.py") -> list:
    return sorted(f.line for f in lint_source(textwrap.dedent(text).lstrip("\n"), path, select=[code]))


# ---------------------------------------------------------------------------------------------
# 1. DL002: an item of a Dataset indexed directly (`x, t = raw_test_set[i]`) is not collated: its
# label is what `__getitem__` returns (a Python int, a NumPy scalar, at most a 0-dim tensor),
# which PyTorch takes as a number when it is compared with a device tensor
# (`(prediction == t).sum()`). Only a collated batch (a DataLoader's) makes it a 1-dim host
# tensor that cannot meet device data.

_ROTATIONS = """
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset


class DigitsDataset(Dataset):
    def __init__(self, path):
        data = np.loadtxt(path)
        self.images = torch.tensor(data[:, :-1].reshape(-1, 1, 28, 28).astype(np.float32))
        self.labels = data[:, -1].astype(np.int64)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.body(x)


parser = argparse.ArgumentParser()
parser.add_argument("--data", default="mnist/mnist_test.amat")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
raw_test_set = DigitsDataset(args.data)


def accuracy_under_rotation(model, n_rotations=8, limit=2000):
    model.eval()
    accuracies = []
    with torch.no_grad():
        for r in range(n_rotations):
            correct = 0
            for i in range(limit):
                x, t = raw_test_set[i]
                x = x.rot90(r % 4, dims=(1, 2)).unsqueeze(0){MOVE}
                y = model(x)
                _, prediction = torch.max(y, 1)
                correct += (prediction == t).sum().item()
            accuracies.append(100.0 * correct / limit)
    return accuracies


model = Net().to(device)
model.load_state_dict(torch.load("net.pt", map_location=device))
print(accuracy_under_rotation(model))
"""


def test_label_of_a_dataset_indexed_directly_compared_with_device_predictions_is_silent():
    assert _lines("DL002", _ROTATIONS.replace("{MOVE}", ".to(device)")) == []


def test_image_of_a_dataset_indexed_directly_fed_to_the_device_model_is_flagged():
    # control: the image itself left on the host still reaches the moved model
    assert _lines("DL002", _ROTATIONS.replace("{MOVE}", "")) != []


def test_label_of_a_loader_batch_compared_with_device_predictions_is_still_flagged():
    # control: a DataLoader's collate makes the labels a 1-dim host tensor
    text = _ROTATIONS.replace("{MOVE}", ".to(device)").replace(
        "            for i in range(limit):\n                x, t = raw_test_set[i]\n",
        "            for x, t in torch.utils.data.DataLoader(raw_test_set, batch_size=64):\n")
    assert "DataLoader(raw_test_set" in text
    assert _lines("DL002", text) != []
