"""Causes of misses found by the fifth round of the blind bug-report set (2026-11-26, cases
109-131 scored at 2d4e984, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its controls where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import re

import pytest

from devicelint.engine import lint_source


def _marked(src: str) -> set:
    return {(i, m.group(1)) for i, line in enumerate(src.splitlines(), 1) if (m := re.search(r"# <- (DL\d{3})", line))}


def _found(src: str, rules: list) -> set:
    return {(f.line, f.code) for f in lint_source(src, "train.py", select=rules)}


# --- DL019: loader settings splatted from a dict the script spells out ---

# The PyTorch MNIST example as users adapt it: a CUDA default tensor type when CUDA is used,
# the loaders' extra settings in `kwargs` (a dict literal or an empty dict), splatted into
# shuffling DataLoaders. The dict cannot pass `generator=`, so the loaders shuffle with a host
# generator under a CUDA default.
_MNIST_KWARGS = '''
import argparse

import torch
import torch.nn.functional as F
from torchvision import datasets, transforms

from net import Net


def train(model, device, train_loader, optimizer):
    model.train()
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--no-cuda', action='store_true', default=False)
    args = parser.parse_args()
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")
    if use_cuda:
        torch.set_default_tensor_type('torch.cuda.FloatTensor')

    KWARGS_LINE
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = torch.utils.data.DataLoader(  MARK
        datasets.MNIST('../data', train=True, download=True, transform=tf),
        batch_size=args.batch_size, shuffle=True, **kwargs)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(10):
        train(model, device, train_loader, optimizer)


if __name__ == '__main__':
    main()
'''


def _mnist(kwargs_line: str, flagged: bool) -> str:
    mark = "# <- DL019" if flagged else ""
    return _MNIST_KWARGS.replace("KWARGS_LINE", kwargs_line).replace("MARK", mark)


@pytest.mark.parametrize("kwargs_line", [
    "kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}",
    "kwargs = dict(num_workers=1, pin_memory=True)",
    "kwargs = {'num_workers': 1}\n    if use_cuda:\n        kwargs.update({'pin_memory': True})",
    "kwargs = {}\n    kwargs['num_workers'] = 2",
])
def test_splatted_dict_of_known_keys_is_no_generator(kwargs_line):
    src = _mnist(kwargs_line, flagged=True)
    assert _found(src, ["DL019"]) == _marked(src)


@pytest.mark.parametrize("kwargs_line", [
    # the dict passes a generator: the loader is right
    "kwargs = {'num_workers': 1, 'generator': torch.Generator(device='cuda')}",
    "kwargs = {'num_workers': 1}\n    kwargs['generator'] = torch.Generator(device='cuda')",
    # keys the file does not spell: it may pass one
    "kwargs = loader_settings(args)",
    "kwargs = {'num_workers': 1, **extra_settings}",
    "kwargs = {'num_workers': 1}\n    add_generator(kwargs)",
    "kwargs = {'num_workers': 1}\n    kwargs.update(extra_settings)",
])
def test_splatted_dict_that_may_pass_a_generator_stays_silent(kwargs_line):
    src = _mnist(kwargs_line, flagged=False)
    assert _found(src, ["DL019"]) == set()


def test_splatted_parameter_stays_silent():
    # `**loader_kwargs` handed in by the caller: what it holds is the caller's business
    src = '''
import torch
from torch.utils.data import DataLoader

torch.set_default_device("cuda")


def make_loader(dataset, **loader_kwargs):
    return DataLoader(dataset, batch_size=32, shuffle=True, **loader_kwargs)


def run(dataset, model):
    for x, y in make_loader(dataset, num_workers=2):
        model(x)
'''
    assert _found(src, ["DL019"]) == set()
