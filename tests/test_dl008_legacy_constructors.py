"""DL008 and the legacy typed constructors: `torch.FloatTensor(x.size()).uniform_(-eps,
eps).cuda()` allocates on the host each step and copies to the device, as `torch.zeros(...)`
then `.cuda()` would. Flagged when the constructor is visibly given sizes, with no fix (it
takes no `device=`: the message names the `torch.empty` to write). Given data
(`torch.FloatTensor(class_weights)`, `torch.LongTensor([0, 1])`), or what may be data (a
gym space's `.shape` is a plain tuple: `torch.Tensor(space.shape)` holds those numbers), it
stays silent, as `torch.tensor(data)` does.
"""

import textwrap

from devicelint.engine import lint_source

ADVERSARIAL = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    parser = argparse.ArgumentParser(description="adversarial training")
    parser.add_argument("--eps", type=float, default=8 / 255)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128)
    return parser.parse_args()


def train(model, loader, optimizer, args, class_weights):
    criterion = nn.CrossEntropyLoss(weight=torch.FloatTensor(class_weights).cuda())
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            inputs, targets = inputs.cuda(), targets.cuda()
            delta = torch.FloatTensor(inputs.size()).uniform_(-args.eps, args.eps).cuda()
            delta.requires_grad_(True)
            loss = criterion(model(inputs + delta), targets)
            grad, = torch.autograd.grad(loss, delta)
            adv = (inputs + args.eps * grad.sign()).clamp(0, 1)
            batch_size = inputs.size(0)
            flips = torch.LongTensor(inputs.size(0)).random_(0, 2).cuda()
            noise = torch.FloatTensor(batch_size, 10).normal_().cuda()
            pairs = torch.LongTensor([[0, 1], [1, 0]]).cuda()
            optimizer.zero_grad()
            out = model(adv)
            loss = criterion(out + noise, targets) + F.mse_loss(flips.float(), pairs[0, 0].float().expand_as(flips))
            loss.backward()
            optimizer.step()
'''


def _dl008(code: str) -> dict:
    return {f.line: f for f in lint_source(textwrap.dedent(code), "adv_train.py") if f.code == "DL008"}


def test_legacy_constructors_given_sizes_are_flagged_without_a_fix():
    found = _dl008(ADVERSARIAL)
    lines = ADVERSARIAL.splitlines()
    at = {i: line.strip() for i, line in enumerate(lines, start=1)}
    flagged = sorted(at[n].split(" = ")[0] for n in found)
    assert flagged == ["delta", "flips", "noise"]
    for f in found.values():
        assert f.fix is None  # `torch.FloatTensor(3, device="cuda")` raises: no edit to make
    delta = next(f for n, f in found.items() if at[n].startswith("delta"))
    assert "torch.empty(size, dtype=torch.float32, device=\"cuda\")" in delta.message
    flips = next(f for n, f in found.items() if at[n].startswith("flips"))
    assert "dtype=torch.int64" in flips.message


def test_legacy_constructors_given_data_stay_silent():
    code = '''
import torch

weights = [0.2, 0.8]
labels = [0, 1, 1, 0]
class_weights = torch.FloatTensor(weights).cuda()
targets = torch.LongTensor(labels).cuda()
lengths = torch.LongTensor(sizes).cuda()
table = torch.FloatTensor([1.0, 2.0]).cuda()
rows = torch.FloatTensor([1.0, 2.0], [3.0, 4.0]).cuda()
target_entropy = -torch.prod(torch.Tensor(envs.single_action_space.shape).to(device)).item()
crop = torch.FloatTensor(img_size).cuda()
tail = torch.FloatTensor(obs.shape[1:]).cuda()
'''
    assert _dl008(code) == {}
