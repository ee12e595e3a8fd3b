"""A DataLoader over a plain Python list of the script's own tensors (`DataLoader(list(zip(x,
y)))`, as course notebooks build one from `make_blobs` data): the default collate stacks each
position where its tensors already are, so tensors moved before the list is built give batches
on the device. Found by the fourth first look (benchmarks/firstlook/2026-11-26d.json: 6 false
DL002 in one course). The first test fails on c6b75c6, the host control passes before and after.
A position whose tensors are known to be on the host stays on the host (review of 2026-11-26:
it was unknown, silent): the labels of `list(zip(x_dev, y_host))` meet the device predictions
in the loss."""

from devicelint.engine import lint_file

SCRIPT = '''\
import argparse
import math

import torch
from sklearn.datasets import make_blobs
from torch import nn
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    inputs, targets = make_blobs(n_samples=1000, n_features=2, centers=3, random_state=0)
    # put the whole (small) dataset in GPU memory once
    x_train = torch.from_numpy(inputs).float(){MOVE_X}
    y_train = torch.from_numpy(targets).long(){MOVE_Y}
    train_dataloader = DataLoader(list(zip(x_train, y_train)), batch_size=args.batch_size, shuffle=True)
    n_batches = math.ceil(len(x_train) / args.batch_size)

    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        epoch_loss = 0.0
        for x_batch, y_batch in train_dataloader:
            y_pred = model(x_batch)
            loss = criterion(y_pred, y_batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch + 1}: loss {epoch_loss / n_batches:.4f}")


if __name__ == "__main__":
    main()
'''


def _dl002(tmp_path, move_x: str, move_y: str) -> list:
    path = tmp_path / "train_blobs.py"
    path.write_text(SCRIPT.replace("{MOVE_X}", move_x).replace("{MOVE_Y}", move_y))
    lines = path.read_text().splitlines()
    return sorted(lines[f.line - 1].strip() for f in lint_file(str(path), select=["DL002"]))


def test_a_loader_over_a_list_of_tensors_moved_before_gives_batches_on_the_device(tmp_path):
    assert _dl002(tmp_path, ".to(device)", ".to(device)") == []


def test_control_a_loader_over_a_list_of_host_tensors_still_gives_host_batches(tmp_path):
    assert _dl002(tmp_path, "", "") == ["loss = criterion(y_pred, y_batch)", "y_pred = model(x_batch)"]


def test_one_position_moved_keeps_the_other_on_the_host(tmp_path):
    # the features are on the device, the labels stay on the host: the default collate stacks
    # the labels on the host, and the loss meets the device predictions with them (a GPU
    # fails there); the model call gets only device data
    assert _dl002(tmp_path, ".to(device)", "") == ["loss = criterion(y_pred, y_batch)"]


def test_the_host_position_is_reported_as_the_loaders_batch(tmp_path):
    path = tmp_path / "train_blobs.py"
    path.write_text(SCRIPT.replace("{MOVE_X}", ".to(device)").replace("{MOVE_Y}", ""))
    [finding] = lint_file(str(path), select=["DL002"])
    assert "train_dataloader" in finding.message


def test_control_a_host_position_never_used_with_device_data_is_not_flagged(tmp_path):
    # the labels are only counted on the host: no device data meets them
    code = SCRIPT.replace("{MOVE_X}", ".to(device)").replace("{MOVE_Y}", "").replace(
        "            loss = criterion(y_pred, y_batch)\n",
        "            correct = (y_batch == y_batch).sum()\n            loss = y_pred.logsumexp(1).mean()\n")
    path = tmp_path / "train_blobs.py"
    path.write_text(code)
    assert [f.line for f in lint_file(str(path), select=["DL002"])] == []


TENSOR_DATASET = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    features = torch.randn(512, 20)
    labels = torch.randint(0, 4, (512,))
    train_set = TensorDataset(features.to(device), labels)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.epochs):
        for xb, yb in train_loader:
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
"""


def test_a_tensor_dataset_keeps_its_host_position_on_the_host(tmp_path):
    path = tmp_path / "train_tensors.py"
    path.write_text(TENSOR_DATASET)
    lines = path.read_text().splitlines()
    found = [lines[f.line - 1].strip() for f in lint_file(str(path), select=["DL002"])]
    assert found == ["loss = nn.functional.cross_entropy(logits, yb)"]


def test_control_a_tensor_dataset_of_device_tensors_gives_device_batches(tmp_path):
    path = tmp_path / "train_tensors.py"
    path.write_text(TENSOR_DATASET.replace("TensorDataset(features.to(device), labels)",
                                           "TensorDataset(features.to(device), labels.to(device))"))
    assert lint_file(str(path), select=["DL002"]) == []
