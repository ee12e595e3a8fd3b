"""A DataLoader over a plain Python list of the script's own tensors (`DataLoader(list(zip(x,
y)))`, as course notebooks build one from `make_blobs` data): the default collate stacks each
position where its tensors already are, so tensors moved before the list is built give batches
on the device. Found by the fourth first look (benchmarks/firstlook/2026-11-26d.json: 6 false
DL002 in one course). The first test fails on c6b75c6, the host control passes before and after; the last one
records a silence this change chose (flagged before, for both lines)."""

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


def test_control_one_position_moved_leaves_the_other_unknown_not_host(tmp_path):
    # the labels stay on the host, but the list's second position is only unknown here (as for
    # `TensorDataset(x.to(device), y)`): silence rather than a guess. The loss line would fail on
    # a GPU; a known host position is the next step (benchmarks/README §11)
    assert _dl002(tmp_path, ".to(device)", "") == []
