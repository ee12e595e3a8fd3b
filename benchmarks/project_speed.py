"""How fast project-wide inference answers on a synthetic 300-file project.

Usage:
    python benchmarks/project_speed.py [--files 300] [--rounds 5] [--jobs N] [--keep DIR]

Generates a training project in a temporary folder (layers, models with bases in other files,
datasets, helpers re-exported through `from .common import *`, training scripts importing
all of them with absolute and relative imports), then measures, with `python -m devicelint`
in a subprocess (wall clock and the CPU time of the run and its workers, medians; on a
shared machine the CPU time is the steadier figure):
  cold        the whole project, --no-cache
  fill        the whole project, filling the cache
  one warm    one training script alone (as pre-commit runs it) with the cache filled
  edit+rerun  after a new edit of one model factory that many scripts import (every round a
              content the cache has not seen; every other round drops its `.to(device)`): the
              whole project again with the cache, checked to report exactly what a --no-cache
              run reports
Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LAYER = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock{i}(nn.Module):
    """Conv -> BatchNorm -> ReLU, with an optional residual connection."""

    def __init__(self, cin, cout, residual=True):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.residual = residual and cin == cout

    def forward(self, x):
        out = F.relu(self.bn(self.conv(x)))
        return out + x if self.residual else out


def make_stage{i}(channels, depth=2):
    return nn.Sequential(*[ConvBlock{i}(channels, channels) for _ in range(depth)])
'''

BASE = '''import torch
import torch.nn as nn


class BaseNet(nn.Module):
    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())

    def freeze_backbone(self):
        for p in self.features.parameters():
            p.requires_grad_(False)
'''

MODEL = '''import torch
import torch.nn as nn

from ..layers.block{a} import ConvBlock{a}
from ..layers.block{b} import make_stage{b}
from .base import BaseNet


class Net{i}(BaseNet):
    def __init__(self, num_classes=10, width=16):
        super().__init__()
        self.features = nn.Sequential(ConvBlock{a}(3, width), make_stage{b}(width))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return self.head(x)


def build_net{i}(cfg, device):
    model = Net{i}(num_classes=cfg.num_classes, width=cfg.width)
    if cfg.freeze:
        model.freeze_backbone()
    return model.to(device)
'''

DATASET = '''import torch
from torch.utils.data import DataLoader, Dataset


class Synthetic{i}(Dataset):
    def __init__(self, n=256, num_classes=10, size=16):
        self.images = torch.randn(n, 3, size, size)
        self.labels = torch.randint(0, num_classes, (n,))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]


def make_loader{i}(cfg, train=True):
    dataset = Synthetic{i}(n=cfg.samples, num_classes=cfg.num_classes)
    return DataLoader(dataset, batch_size=cfg.batch_size, shuffle=train, num_workers=cfg.workers)
'''

DEVICE = '''import torch


def get_device(prefer_gpu=True):
    return torch.device("cuda" if prefer_gpu and torch.cuda.is_available() else "cpu")


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device(v, device) for v in batch]
    return batch
'''

COMMON = '''import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .device import get_device, to_device


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def cosine_lr(step, total, base):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))
'''

SCRIPT = '''import argparse

from proj.data.ds{d} import make_loader{d}
from proj.models.net{m} import Net{m}, build_net{m}
from proj.utils.common import *


def parse_args():
    parser = argparse.ArgumentParser(description="train Net{m}")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--batch-size", dest="batch_size", type=int, default=32)
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--num-classes", dest="num_classes", type=int, default=10)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--freeze", action="store_true")
    return parser.parse_args()


def train_one_epoch(model, loader, optimizer, device, epoch, total_steps, base_lr):
    model.train()
    running = 0.0
    for step, (images, labels) in enumerate(loader):
        {move}
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        for group in optimizer.param_groups:
            group["lr"] = cosine_lr(epoch * len(loader) + step, total_steps, base_lr)
        optimizer.step()
        running += loss.item()
    return running / max(1, len(loader))


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    for images, labels in loader:
        images, labels = to_device((images, labels), device)
        preds = model(images).argmax(dim=1)
        correct += (preds == labels).sum().item()
        total += labels.numel()
    return correct / max(1, total)


def main():
    args = parse_args()
    seed_everything(0)
    device = get_device()
    {build}
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    train_loader = make_loader{d}(args, train=True)
    val_loader = make_loader{d}(args, train=False)
    total_steps = args.epochs * len(train_loader)
    for epoch in range(args.epochs):
        loss = train_one_epoch(model, train_loader, optimizer, device, epoch, total_steps, args.lr)
        acc = evaluate(model, val_loader, device)
        print(f"epoch {{epoch}}: loss {{loss:.3f}} acc {{acc:.3f}}")


if __name__ == "__main__":
    main()
'''

EDITED_MODEL = 7  # the factory whose move the edit drops


def generate(root: Path, files: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    n_layers, n_models, n_data = files * 13 // 100, files * 20 // 100, files * 13 // 100
    n_scripts = files - n_layers - n_models - n_data - 10
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0.1"\n')
    pkg = root / "proj"
    for sub in ("", "layers", "models", "data", "utils"):
        (pkg / sub).mkdir(parents=True, exist_ok=True)
        (pkg / sub / "__init__.py").write_text("")
    for i in range(n_layers):
        (pkg / "layers" / f"block{i}.py").write_text(LAYER.format(i=i))
    (pkg / "models" / "base.py").write_text(BASE)
    for i in range(n_models):
        a, b = rng.randrange(n_layers), rng.randrange(n_layers)
        (pkg / "models" / f"net{i}.py").write_text(MODEL.format(i=i, a=a, b=b))
    (pkg / "models" / "__init__.py").write_text("".join(f"from .net{i} import Net{i}\n" for i in range(min(10, n_models))))
    for i in range(n_data):
        (pkg / "data" / f"ds{i}.py").write_text(DATASET.format(i=i))
    (pkg / "utils" / "device.py").write_text(DEVICE)
    (pkg / "utils" / "common.py").write_text(COMMON)
    scripts = root / "scripts"
    scripts.mkdir(exist_ok=True)
    for i in range(n_scripts):
        m = EDITED_MODEL if i % 10 == 0 else rng.randrange(n_models)
        factory = i % 2 == 0
        build = (f"model = build_net{m}(args, device)" if factory
                 else f"model = Net{m}(num_classes=args.num_classes, width=args.width)" + (".to(device)" if i % 7 else ""))
        move = "images, labels = to_device((images, labels), device)" if i % 5 else "images = images.to(device)"
        (scripts / f"train_{i:03d}.py").write_text(SCRIPT.format(m=m, d=rng.randrange(n_data), build=build, move=move))
    return root


def run(args, cwd) -> tuple[tuple, list]:
    """((wall seconds, CPU seconds of the process and its workers), findings)."""
    cmd = [sys.executable, "-m", "devicelint", *args, "--output-format", "json", "--exit-zero"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(out.stdout))
    return (wall, cpu), found


def edited_model(original: str, round_: int, nonce: str) -> str:
    """Round `round_`'s content of the edited model file, new to the cache every round (as a
    real edit is): a function of its own, named after the run and the round, changes the
    file's summary, so the file and every script that imports it are linted again; even
    rounds also drop the factory's `.to(device)` (the findings change), odd rounds keep it.
    Toggling between two contents would measure a cache hit from the third round on."""
    text = original.replace("return model.to(device)", "return model") if round_ % 2 == 0 else original
    return text + f"\n\ndef describe_{nonce}_{round_}():\n    return {round_!r}\n"


def measure(root: Path, files: int, jobs: int, rounds: int, run) -> dict:
    """The incremental case on a generated project. `run(args)` lints in `root` and gives
    (what it took, the findings). Returns the cold run, the cache-filling run, `rounds` runs
    of one script alone with the cache filled, `rounds` whole-project re-runs with the cache
    after editing one model factory that many scripts import (each round a new content:
    edited_model), and whether the filling run and every re-run reported exactly what a
    --no-cache run reports then."""
    generate(root, files)
    every = [".", "--jobs", str(jobs)]
    cold, cold_found = run(every + ["--no-cache"])
    fill, fill_found = run(every)
    ones = [run(["scripts/train_010.py"])[0] for _ in range(rounds)]
    model = root / "proj" / "models" / f"net{EDITED_MODEL}.py"
    original = model.read_text()
    assert "return model.to(device)" in original, "the project generator changed: nothing to edit"
    nonce = f"{os.getpid()}_{time.time_ns()}"  # a kept project's cache has not seen it either
    edits, same = [], True
    for r in range(rounds):
        model.write_text(edited_model(original, r, nonce))
        took, warm_found = run(every)
        edits.append(took)
        same &= warm_found == run(every + ["--no-cache"])[1]
    model.write_text(original)
    return {"files": sum(1 for _ in root.rglob("*.py")), "cold": cold, "cold_found": cold_found, "fill": fill,
            "fill_same": fill_found == cold_found, "ones": ones, "edits": edits, "edits_same": same}


def _median(pairs) -> str:
    wall = statistics.median(p[0] for p in pairs)
    cpu = statistics.median(p[1] for p in pairs)
    return f"{wall:6.2f} s wall, {cpu:5.2f} s CPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", help="generate the project here and keep it")
    opts = ap.parse_args()
    root = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="devicelint-project-"))
    try:
        m = measure(root, opts.files, opts.jobs, opts.rounds, lambda args: run(args, root))
        assert m["fill_same"], "a cache-filling run must report what a cold run reports"
        same = m["edits_same"]
        print(f"project: {m['files']} files, {len(m['cold_found'])} findings cold, jobs={opts.jobs}, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"cold (--no-cache), whole project   {_median([m['cold']])}")
        print(f"filling the cache, whole project   {_median([m['fill']])}")
        print(f"one file alone, warm cache         {_median(m['ones'])}  (median of {len(m['ones'])})")
        print(f"edit one file, re-run the project  {_median(m['edits'])}  (median of {len(m['edits'])}; "
              f"same findings as --no-cache: {same})")
        if not same:
            sys.exit(1)
    finally:
        if not opts.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
