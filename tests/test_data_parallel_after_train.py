"""Review of first-look round 7's DataParallel case (`benchmarks/firstlook/2026-11-27b.json`,
clovaai/CutMix-PyTorch): a model wrapped as `nn.DataParallel(Net()).cuda()` and handed to
`validate(model, loader)` takes host batches (the wrapper scatters them to its GPUs), so
`model(input)` is rightly silent there, whether the epoch's `train(...)` before it is a bare
statement or assigned. The silence comes from the wrapper, not from the call before it: the
same script with a plain `Net().cuda()` is flagged at `model(input)`, and with the wrapper a
target left on the host still meets the gathered output (on the first GPU) and is flagged.
"""

import textwrap

import pytest

from devicelint.engine import lint_source

SCRIPT = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3)
        self.fc = nn.Linear(16 * 26 * 26, 10)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


def train(model, loader, optimizer, epoch):
    model.train()
    total = 0.0
    for data, target in loader:
        data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def validate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            target = target.cuda()
            output = model(data)
            correct += (output.argmax(1) == target).sum().item()
    return correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    tf = transforms.ToTensor()
    train_loader = DataLoader(datasets.MNIST("data", train=True, download=True, transform=tf), batch_size=64)
    val_loader = DataLoader(datasets.MNIST("data", train=False, transform=tf), batch_size=256)
    model = MODEL
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(args.epochs):
        TRAIN
        acc = validate(model, val_loader)
        print(epoch, acc)


if __name__ == "__main__":
    main()
'''

TRAIN_CALLS = ["train(model, train_loader, optimizer, epoch)", "loss = train(model, train_loader, optimizer, epoch)"]
WRAPPED = ["nn.DataParallel(Net()).cuda()", "nn.DataParallel(Net().cuda())", "torch.nn.DataParallel(Net()).to('cuda')"]


def _flagged(model: str, train: str, keep_target: bool = True) -> list:
    code = textwrap.dedent(SCRIPT).replace("MODEL", model).replace("TRAIN", train)
    if not keep_target:
        code = code.replace("            target = target.cuda()\n", "")
    lines = code.splitlines()
    return [(f.code, lines[f.line - 1].strip()) for f in lint_source(code, "mnist_dp.py")
            if f.code in ("DL001", "DL002", "DL011")]


@pytest.mark.parametrize("train", TRAIN_CALLS)
@pytest.mark.parametrize("model", WRAPPED)
def test_a_wrapped_model_handed_to_validate_takes_host_batches(model, train):
    assert _flagged(model, train) == []


@pytest.mark.parametrize("train", TRAIN_CALLS)
def test_control_a_plain_moved_model_handed_to_validate_meets_the_host_batch(train):
    assert _flagged("Net().cuda()", train) == [("DL002", "output = model(data)")]


@pytest.mark.parametrize("train", TRAIN_CALLS)
@pytest.mark.parametrize("model", WRAPPED)
def test_a_host_target_meets_the_wrapper_gathered_output(model, train):
    assert _flagged(model, train, keep_target=False) == [
        ("DL002", "correct += (output.argmax(1) == target).sum().item()")]
