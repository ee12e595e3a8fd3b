"""False positives issue 20 records on real repositories (2026-11-26 session), each as a
realistic training script with its control, which must still be flagged (or stay silent).

- a. DL011 in a module class whose only callers (another file, a demo) hand it host tensors
  (gordicaleksa transformer `OneHotDistribution`, used only by `playground.py`);
- c. NVIDIA apex: `amp.initialize` and apex's DDP hand back the model where it is (a model
  moved before is on the device: bug-report case 057 was a false DL001; one never moved
  stays on the host: DL001, which apex's own error confirms);
- e. a class named `DataLoader` that is not torch's (a project's own, fastai's): by the import;
- b. DL003 on the result of a project function we cannot see that was handed a loader
  (`train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer, device)`
  from an `engine.py` not in the checkout): such a loop answers
  with whatever it chooses, so its result is unknown, not a tensor on the device. A helper
  handed a model and device tensors still answers on the device (it runs the model on them).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from devicelint import summary
from devicelint.engine import lint_file


def _project(tmp_path: Path, files: dict) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))


def _found(path: Path, rules: list) -> list:
    return [(f.line, f.code) for f in lint_file(str(path), select=rules)]


def _line(path: Path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


# ----------------------------------------------------------------------------- b. unseen drivers

UNSEEN_ENGINE = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader

from engine import evaluate, train_one_epoch
from models import build_model
import utils


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-path", default="./data")
    parser.add_argument("--arch", default="resnet18")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = torchvision.datasets.CIFAR10(args.data_path, train=True, download=True, transform=T.ToTensor())
    val_set = torchvision.datasets.CIFAR10(args.data_path, train=False, download=True, transform=T.ToTensor())
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=2)
    val_loader = DataLoader(val_set, batch_size=256, num_workers=2)
    model = build_model(args.arch, num_classes=10).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    history = []
    for epoch in range(args.epochs):
        train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer, device)
        val_loss, val_acc = evaluate(model, val_loader, criterion, device)
        history.append([train_loss.numpy(), train_acc.numpy(), val_loss.numpy(), val_acc.numpy()])
        print(f"epoch {epoch}: train {train_loss:.4f} / {train_acc:.3f}, val {val_loss:.4f} / {val_acc:.3f}")
    FEATURES
    np.save("history.npy", np.array(history))


if __name__ == "__main__":
    main()
'''


def test_the_result_of_an_unseen_training_loop_handed_the_loader_is_not_taken_for_device_tensors(tmp_path):
    # `engine.py` is not in the checkout: what its loops return (floats, host tensors) is unknown
    _project(tmp_path, {"pyproject.toml": "", "train.py": UNSEEN_ENGINE.replace("FEATURES", "")})
    assert _found(tmp_path / "train.py", ["DL003"]) == []


def test_control_an_unseen_helper_handed_the_model_and_device_tensors_answers_on_the_device(tmp_path):
    # `diffusion.training_losses(model, x, t)`-like: it runs the model on the tensors it is given
    code = UNSEEN_ENGINE.replace(
        "FEATURES", 'x = torch.randn(2, 3, 32, 32, device=device)\n'
        '    np.save("denoised.npy", utils.run_denoiser(model, x).numpy())')
    _project(tmp_path, {"pyproject.toml": "", "train.py": code})
    path = tmp_path / "train.py"
    assert _found(path, ["DL003"]) == [(_line(path, "utils.run_denoiser(model, x).numpy()"), "DL003")]


# ----------------------------------------------------------------------------- e. DataLoader by its import

TEXT_LOADER = '''import argparse

import torch
import torch.nn as nn

from utils.data import DataLoader, build_vocab


class Classifier(nn.Module):
    def __init__(self, vocab_size, n_classes):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, 64)
        self.fc = nn.Linear(64, n_classes)

    def forward(self, text, offsets):
        return self.fc(self.embed(text, offsets))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/ag_news.csv")
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    vocab = build_vocab(args.data)
    loader = DataLoader(args.data, vocab, batch_size=64, device=device)
    model = Classifier(len(vocab), 4).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for label, text, offsets in loader:
            optimizer.zero_grad()
            loss = criterion(model(text, offsets), label)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
'''


def _dl002(code: str) -> list:
    from devicelint.engine import lint_source
    return [f.line for f in lint_source(code, "train.py", select=["DL002"])]


def test_a_projects_own_dataloader_class_is_not_taken_for_a_host_loader():
    # `utils.data.DataLoader(..., device=device)` builds batches where it is told: unknown to us
    assert _dl002(TEXT_LOADER) == []


def test_another_librarys_dataloader_is_not_taken_for_a_host_loader():
    # fastai's DataLoader moves its batches to its device itself
    code = TEXT_LOADER.replace("from utils.data import DataLoader, build_vocab",
                               "from fastai.data.load import DataLoader\nfrom utils.data import build_vocab")
    assert _dl002(code) == []


def test_control_torchs_dataloader_still_gives_host_batches():
    code = TEXT_LOADER.replace("from utils.data import DataLoader, build_vocab",
                               "from torch.utils.data import DataLoader\nfrom utils.data import build_vocab").replace(
        "DataLoader(args.data, vocab, batch_size=64, device=device)", "DataLoader(build_vocab(args.data), batch_size=64)")
    assert _dl002(code) == [next(i for i, ln in enumerate(code.splitlines(), 1) if "loss = criterion(model(" in ln)]


def test_control_a_pyg_dataloader_a_torch_subclass_still_gives_host_batches():
    code = TEXT_LOADER.replace("from utils.data import DataLoader, build_vocab",
                               "from torch_geometric.loader import DataLoader\nfrom utils.data import build_vocab").replace(
        "DataLoader(args.data, vocab, batch_size=64, device=device)", "DataLoader(build_vocab(args.data), batch_size=64)")
    assert _dl002(code) == [next(i for i, ln in enumerate(code.splitlines(), 1) if "loss = criterion(model(" in ln)]


# ----------------------------------------------------------------------------- c. NVIDIA apex

APEX_MNIST = '''import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from apex import amp
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt-level", default="O1")
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device("cuda")
    train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    model = Net()
    MOVE
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model, optimizer = amp.initialize(model, optimizer, opt_level=args.opt_level)
    for epoch in range(args.epochs):
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(F.log_softmax(model(data), 1), target)
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
'''


def _mission(code: str) -> list:
    from devicelint.engine import lint_source
    return [(f.line, f.code) for f in lint_source(code, "train.py", select=["DL001", "DL002", "DL003", "DL011"])]


APEX_IMAGENET = '''
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms
from apex import amp
from apex.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser(description="ImageNet training with apex")
parser.add_argument("data")
parser.add_argument("--epochs", default=90, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--opt-level", default="O1")
parser.add_argument("--local_rank", default=0, type=int)
args = parser.parse_args()


def main():
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    model = models.resnet50()
    MOVE
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    model, optimizer = amp.initialize(model, optimizer, opt_level=args.opt_level)
    model = DDP(model, delay_allreduce=True)
    criterion = nn.CrossEntropyLoss().cuda()
    train_dataset = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
    loader = torch.utils.data.DataLoader(train_dataset, batch_size=64, sampler=sampler, num_workers=4, pin_memory=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        end = time.time()
        for i, (images, target) in enumerate(loader):
            images = images.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            loss = criterion(model(images), target)
            optimizer.zero_grad()
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
        print(epoch, loss.item(), time.time() - end)


if __name__ == "__main__":
    main()
'''


def test_a_model_moved_before_amp_initialize_and_apex_ddp_is_on_the_device_after_them():
    # apex hands back the model it was given, where it is, and its DDP moves nothing
    # (bug-report case 057 was flagged DL001 here)
    assert _mission(APEX_IMAGENET.replace("MOVE", "model = model.cuda()")) == []


def test_control_the_imagenet_script_never_moving_its_model_is_flagged():
    code = APEX_IMAGENET.replace("    MOVE\n", "")
    assert _mission(code) == [(next(i for i, ln in enumerate(code.splitlines(), 1) if "model(images)" in ln), "DL001")]


def test_a_model_never_moved_before_amp_initialize_stays_on_the_host():
    # apex requires the model on CUDA before initialize and moves nothing itself
    code = APEX_MNIST.replace("    MOVE\n", "")
    assert _mission(code) == [(next(i for i, ln in enumerate(code.splitlines(), 1) if "model(data)" in ln), "DL001")]


def test_control_amp_initialize_with_the_model_alone_returns_it_where_it_is():
    code = APEX_MNIST.replace("    MOVE", "    model.to(device)").replace(
        "model, optimizer = amp.initialize(model, optimizer, opt_level=args.opt_level)",
        "model = amp.initialize(model, opt_level=args.opt_level)")
    assert _mission(code) == []


# ----------------------------------------------------------------------------- a. class contexts

DISTRIBUTIONS = """
import torch
import torch.nn as nn


class LabelSmoothingDistribution(nn.Module):
    def __init__(self, smoothing_value, pad_token_id, trg_vocab_size, device):
        super(LabelSmoothingDistribution, self).__init__()
        self.confidence_value = 1.0 - smoothing_value
        self.smoothing_value = smoothing_value
        self.pad_token_id = pad_token_id
        self.trg_vocab_size = trg_vocab_size
        self.device = device

    def forward(self, trg_token_ids_batch):
        batch_size = trg_token_ids_batch.shape[0]
        smooth = torch.zeros((batch_size, self.trg_vocab_size), device=self.device)
        smooth.fill_(self.smoothing_value / (self.trg_vocab_size - 2))
        smooth.scatter_(1, trg_token_ids_batch, self.confidence_value)
        smooth[:, self.pad_token_id] = 0.
        return smooth


class OneHotDistribution(nn.Module):
    def __init__(self, pad_token_id, trg_vocab_size):
        super(OneHotDistribution, self).__init__()
        self.pad_token_id = pad_token_id
        self.trg_vocab_size = trg_vocab_size

    def forward(self, trg_token_ids_batch):
        batch_size = trg_token_ids_batch.shape[0]
        one_hot_distribution = torch.zeros((batch_size, self.trg_vocab_size))
        one_hot_distribution.scatter_(1, trg_token_ids_batch, 1.)
        one_hot_distribution.masked_fill_(trg_token_ids_batch == self.pad_token_id, 0.)
        return one_hot_distribution
"""

PLAYGROUND = """
import argparse

import matplotlib.pyplot as plt
import torch

from utils.distributions import LabelSmoothingDistribution, OneHotDistribution


def visualize_label_smoothing(pad_token_id=0, trg_vocab_size=4):
    smooth = LabelSmoothingDistribution(0.1, pad_token_id, trg_vocab_size, device="cpu")
    one_hot = OneHotDistribution(pad_token_id=pad_token_id, trg_vocab_size=trg_vocab_size)
    target = torch.tensor([[1], [2], [3], [0]])
    smooth_targets = smooth(target)
    one_hot_targets = one_hot(target)
    fig, axes = plt.subplots(1, 2)
    axes[0].imshow(one_hot_targets.numpy())
    axes[1].imshow(smooth_targets.numpy())
    plt.show()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=4)
    visualize_label_smoothing(trg_vocab_size=parser.parse_args().vocab)
"""


def _class_project(tmp_path: Path, playground: str) -> Path:
    (tmp_path / "utils").mkdir()
    _project(tmp_path, {"pyproject.toml": "", "utils/__init__.py": "", "utils/distributions.py": DISTRIBUTIONS,
                        "playground.py": playground})
    return tmp_path / "utils" / "distributions.py"


def _one_hot_lines(path: Path) -> list:
    return [(_line(path, "one_hot_distribution.scatter_("), "DL011"),
            (_line(path, "one_hot_distribution.masked_fill_("), "DL011")]


def test_a_module_class_only_ever_called_with_host_tensors_is_not_taken_to_run_on_the_device(tmp_path):
    # gordicaleksa/pytorch-original-transformer: OneHotDistribution is used only by playground.py
    path = _class_project(tmp_path, PLAYGROUND)
    assert _found(path, ["DL011"]) == []


def test_control_a_caller_handing_it_a_device_tensor_keeps_the_finding(tmp_path):
    code = PLAYGROUND.replace("torch.tensor([[1], [2], [3], [0]])", "torch.tensor([[1], [2], [3], [0]]).cuda()")
    path = _class_project(tmp_path, code)
    assert _found(path, ["DL011"]) == _one_hot_lines(path)


def test_control_an_instance_moved_or_handed_on_is_not_known_to_stay_on_the_host(tmp_path):
    code = PLAYGROUND.replace("    one_hot_targets = one_hot(target)",
                              "    one_hot = one_hot.to('cuda')\n    one_hot_targets = one_hot(target)")
    path = _class_project(tmp_path, code)
    assert _found(path, ["DL011"]) == _one_hot_lines(path)


def test_control_a_class_nobody_calls_keeps_todays_finding(tmp_path):
    code = PLAYGROUND.replace("    one_hot = OneHotDistribution(pad_token_id=pad_token_id, trg_vocab_size=trg_vocab_size)\n",
                              "").replace("one_hot_targets = one_hot(target)", "one_hot_targets = target")
    path = _class_project(tmp_path, code)
    assert _found(path, ["DL011"]) == _one_hot_lines(path)


def _lint_with_store(path: Path, cache_dir: Path) -> list:
    from devicelint.engine import lint_source, project_view
    from devicelint.project import Store

    view = project_view(str(path), Store(str(cache_dir)))  # a fresh store: summaries from the cache folder
    return [(f.line, f.code) for f in lint_source(path.read_text(), str(path), select=["DL011"], project=view)]


def _summaries_only(monkeypatch) -> list:
    """From here on a summary must come from the cache folder (making one fails); what is
    parsed with `ast` is listed: the caller's facts must be what its cached summary says."""
    import ast

    def refuse(*_a, **_k):
        raise RuntimeError("summarized again")

    parsed, parse = [], ast.parse

    def listed(source, *a, **k):
        parsed.append(source)
        return parse(source, *a, **k)

    monkeypatch.setattr(summary, "summarize", refuse)
    monkeypatch.setattr(ast, "parse", listed)
    return parsed


def test_the_callers_facts_come_from_its_cached_summary(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    project = tmp_path / "repo"
    project.mkdir()
    path = _class_project(project, PLAYGROUND)
    assert _lint_with_store(path, cache) == []  # cold: summaries made and written
    parsed = _summaries_only(monkeypatch)
    assert _lint_with_store(path, cache) == []  # warm: the same verdict
    assert len(parsed) == 0  # no file parsed again


def test_control_a_cached_caller_handing_a_device_tensor_keeps_the_finding(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    project = tmp_path / "repo"
    project.mkdir()
    code = PLAYGROUND.replace("torch.tensor([[1], [2], [3], [0]])", "torch.tensor([[1], [2], [3], [0]]).cuda()")
    path = _class_project(project, code)
    assert _lint_with_store(path, cache) == _one_hot_lines(path)
    parsed = _summaries_only(monkeypatch)
    assert _lint_with_store(path, cache) == _one_hot_lines(path)
    assert len(parsed) == 0


def test_an_instance_of_the_module_body_called_inside_a_function_is_not_known_to_stay_on_the_host(tmp_path):
    # the function's calls are its own call sites, not the module body's: one of them hands
    # the instance a device tensor, so the module-level host call proves nothing
    code = PLAYGROUND.replace("if __name__ == \"__main__\":", (
        "encoder = OneHotDistribution(pad_token_id=0, trg_vocab_size=4)\n"
        "sample = encoder(torch.tensor([[1], [2]]))\n\n\n"
        "def on_gpu(target):\n"
        "    return encoder(target.cuda())\n\n\n"
        "if __name__ == \"__main__\":"))
    path = _class_project(tmp_path, code)
    assert _found(path, ["DL011"]) == _one_hot_lines(path)
