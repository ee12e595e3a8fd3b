"""DL019 (default-device-generator) when the loader is built in one file and iterated by a
Trainer class of another project file (sunsmarterjie/SDL-Skeleton, its issue #9; the two misses
of the second targeted first look, `benchmarks/firstlook/2026-11-26-newrules2.json`). The
project summary says which constructor arguments a class iterates; anything else stays silent.
"""

import textwrap

from inference_cases import expected

from devicelint.engine import lint_file

TRAINER = '''
import logging
import time

import torch


class Trainer(object):
    def __init__(self, network, optimizer, dataloader, args):
        self.network = network
        self.optimizer = optimizer
        self.dataloader = dataloader
        self.args = args

    def train(self):
        self.network.train()
        dataiter = iter(self.dataloader)
        for step in range(self.args.resume_iter, self.args.max_step):
            self.optimizer.zero_grad()
            try:
                data, target = next(dataiter)
            except StopIteration:
                dataiter = iter(self.dataloader)
                data, target = next(dataiter)
            data, target = data.cuda(), target.cuda()
            loss = self.network(data, target)
            loss.backward()
            self.optimizer.step()
            if step % self.args.disp_interval == 0:
                logging.info("%s iter=%d loss=%.4f", time.strftime("%H:%M:%S"), step, loss.item())
'''

TRAIN = '''
import argparse

import torch
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

from engines.trainer import Trainer
from model import Network

parser = argparse.ArgumentParser(description="TRAIN SKLARGE")
parser.add_argument("--gpu_id", default=0, type=int)
parser.add_argument("--lr", default=1e-6, type=float)
parser.add_argument("--max_step", default=80000, type=int)
parser.add_argument("--disp_interval", default=100, type=int)
parser.add_argument("--resume_iter", default=0, type=int)
args = parser.parse_args()


def train_model(dataloader, args):
    net = Network().cuda(args.gpu_id)
    optimizer = optim.Adam(net.parameters(), lr=args.lr)
    trainer = Trainer(net, optimizer, dataloader, args)
    return trainer.train()


if __name__ == "__main__":
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
    torch.cuda.set_device(args.gpu_id)
    dataset = TensorDataset(torch.randn(512, 3, 64, 64), torch.randint(0, 2, (512, 1, 64, 64)))
    dataloader = DataLoader(dataset, shuffle=True)  # <- DL019
    train_model(dataloader, args)
'''

MODEL = '''
import torch.nn as nn


class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, x, target):
        return nn.functional.binary_cross_entropy_with_logits(self.body(x), target.float())
'''


def _project(root, train=TRAIN, trainer=TRAINER):
    files = {"pyproject.toml": "", "engines/__init__.py": "", "engines/trainer.py": trainer,
             "model.py": MODEL, "train.py": train}
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "train.py"


def _lint(path) -> set:
    return {(f.code, f.line) for f in lint_file(str(path)) if f.code == "DL019"}


def test_a_loader_iterated_by_a_trainer_of_another_file_is_flagged(tmp_path):
    path = _project(tmp_path)
    assert _lint(path) == expected(path.read_text())


def test_a_loader_with_a_generator_on_the_device_is_silent(tmp_path):
    fixed = TRAIN.replace("DataLoader(dataset, shuffle=True)  # <- DL019",
                          'DataLoader(dataset, shuffle=True, generator=torch.Generator(device="cuda"))')
    assert _lint(_project(tmp_path, train=fixed)) == set()


def test_a_trainer_that_only_keeps_the_loader_is_silent(tmp_path):
    keeps = TRAINER.replace("iter(self.dataloader)", "iter([])")
    assert _lint(_project(tmp_path, trainer=keeps)) == set()


def test_a_trainer_iterating_another_argument_is_silent(tmp_path):
    other = TRAINER.replace("iter(self.dataloader)", "iter(self.args.batches)")
    assert _lint(_project(tmp_path, trainer=other)) == set()
