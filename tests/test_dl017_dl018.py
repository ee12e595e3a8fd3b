"""DL017 (cuda-in-dataset) and DL018 (optimizer-state-before-move) on training scripts written
the way users write them: what each rule reads from the engine, and where it stays silent."""

import textwrap

import pytest

from devicelint.engine import lint_source

DATASET = '''
import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Subset, random_split


class Windows(Dataset):
    def __init__(self, series, device, window=16):
        self.series, self.device, self.window = series, device, window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i:i + self.window]
        return x.to(self.device), self.series[i + self.window].to(self.device)

'''


def _lines(code: str, rule: str) -> list:
    return sorted(f.line for f in lint_source(textwrap.dedent(code), "train.py", select=[rule]) if f.code == rule)


def _dl017(tail: str) -> list:
    return _lines(DATASET + textwrap.dedent(tail), "DL017")


def _at(code: str, marker: str) -> int:
    return next(i for i, line in enumerate((DATASET + textwrap.dedent(code)).splitlines(), 1) if marker in line)


ARGPARSE = '''
parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default={default})
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ds = Windows(torch.randn(1000), device)
loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=args.workers)  # the loader
for x, y in loader:
    pass
'''


def test_num_workers_from_an_argparse_default_above_zero_is_flagged():
    code = ARGPARSE.format(default=4)
    assert _dl017(code) == [_at(code, "# the loader")]


def test_num_workers_from_an_argparse_default_of_zero_is_silent():
    # single-process loading of device items works (serialised): not reported, not measured
    assert _dl017(ARGPARSE.format(default=0)) == []


def test_pin_memory_true_is_flagged_whatever_the_workers():
    code = '''
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train, val = random_split(Windows(torch.randn(1000), device), [900, 84])
    train_loader = DataLoader(train, batch_size=32, pin_memory=True)  # pinned
    val_loader = DataLoader(Subset(val, range(10)), batch_size=32)
    '''
    assert _dl017(code) == [_at(code, "# pinned")]


@pytest.mark.parametrize("loader", [
    "DataLoader(ds, batch_size=32, num_workers=workers)",  # a parameter: unknown
    "DataLoader(ds, batch_size=32, pin_memory=torch.cuda.is_available())",  # depends on the machine
    "DataLoader(ds, batch_size=32, **loader_kwargs)",  # the settings are elsewhere
    "DataLoader(ds, batch_size=32, num_workers=os.cpu_count())",  # not a value the linter knows
])
def test_settings_whose_value_is_unknown_stay_silent(loader):
    code = f'''
    import os
    loader_kwargs = {{"num_workers": 4, "pin_memory": True}}
    def make(ds, workers):
        return {loader}
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    make(Windows(torch.randn(100), device), 2)
    '''
    assert _dl017(code) == []


def test_a_dataset_given_the_host_device_is_silent():
    code = '''
    ds = Windows(torch.randn(1000), torch.device("cpu"))
    loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
    '''
    assert _dl017(code) == []


def test_a_placing_helper_the_loader_never_calls_is_silent_and_a_torchvision_subclass_is_read():
    code = '''
    from torchvision import datasets

    class Indexed(datasets.ImageFolder):
        def __getitem__(self, idx):
            img, _ = super().__getitem__(idx)
            return img.cuda(), idx

    class Host(Dataset):
        def __len__(self):
            return 10
        def __getitem__(self, i):
            return torch.zeros(3)
        def to_device(self, batch, device):
            return batch.to(device)

    a = DataLoader(Indexed("data/train"), batch_size=8, num_workers=8)  # indexed
    b = DataLoader(Host(), batch_size=8, num_workers=8, pin_memory=True)
    '''
    assert _dl017(code) == [_at(code, "# indexed")]


RESUME = '''
import argparse
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.body(x)

'''


def _dl018(tail: str) -> list:
    return _lines(RESUME + textwrap.dedent(tail), "DL018")


def _at18(code: str, marker: str) -> int:
    return next(i for i, line in enumerate((RESUME + textwrap.dedent(code)).splitlines(), 1) if marker in line)


def test_state_loaded_in_a_helper_called_before_the_move_is_flagged():
    # the call order is known: main calls the helper, then moves the model
    code = '''
    def load_checkpoint(path, model, optimizer):
        ckpt = torch.load(path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])  # the load
        return ckpt["epoch"]

    def main(args):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        start = load_checkpoint(args.resume, model, optimizer) if args.resume else 0
        model.to(device)
        for epoch in range(start, 10):
            optimizer.step()
    '''
    assert _dl018(code) == [_at18(code, "# the load")]


@pytest.mark.parametrize("body", [
    # created before the move, loaded after it: fine
    '''
    model = Net()
    optimizer = torch.optim.Adam(model.parameters())
    model.to(device)
    optimizer.load_state_dict(torch.load("opt.pt", map_location="cpu"))
    ''',
    # SGD without momentum keeps no state tensors
    '''
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer.load_state_dict(torch.load("opt.pt", map_location="cpu"))
    model.to(device)
    ''',
    # a schedule's state holds no tensors
    '''
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    scheduler.load_state_dict(torch.load("sched.pt", map_location="cpu"))
    ''',
    # never moved to the accelerator: everything stays on the host
    '''
    model = Net()
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.load_state_dict(torch.load("opt.pt", map_location="cpu"))
    model.to("cpu")
    ''',
    # moved on one path before the load, on the other not at all: the order is unclear
    '''
    model = Net()
    if torch.cuda.is_available():
        model.cuda()
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.load_state_dict(torch.load("opt.pt", map_location="cpu"))
    ''',
])
def test_orders_that_work_or_are_unclear_stay_silent(body):
    code = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n' + textwrap.dedent(body)
    assert _dl018(code) == []


def test_a_model_moved_in_another_function_with_no_known_order_is_silent():
    code = '''
    model = Net()
    optimizer = torch.optim.Adam(model.parameters())

    def resume(path):
        optimizer.load_state_dict(torch.load(path, map_location="cpu"))

    def to_gpu():
        model.cuda()
    '''
    assert _dl018(code) == []


def test_an_optimizer_over_parameter_groups_of_one_host_model_is_tied_to_it():
    code = '''
    def main(args):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        net = Net()
        optimizer = torch.optim.Adam([
            {"params": [p for n, p in net.named_parameters() if "bias" not in n]},
            {"params": [p for n, p in net.named_parameters() if "bias" in n], "weight_decay": 0},
        ], lr=1e-3)
        if args.resume:
            state = torch.load(args.resume, map_location="cpu")
            net.load_state_dict(state["net"])
            optimizer.load_state_dict(state["optimizer"])  # the load
        net = net.to(device)
    '''
    assert _dl018(code) == [_at18(code, "# the load")]


IMAGENET_STYLE = '''
import argparse
import torch
import torch.optim as optim
import models
from trainer import train_epoch

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="vgg")
parser.add_argument("--refine", default="")
parser.add_argument("--resume", default="")
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

if args.refine:
    checkpoint = torch.load(args.refine, map_location="cpu")
    model = models.__dict__[args.arch](depth=19, cfg=checkpoint["cfg"])
    model.load_state_dict(checkpoint["state_dict"])
else:
    model = models.__dict__[args.arch](depth=19)

optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)

if args.resume:
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer"])  # the load
if args.cuda:
    model.cuda()

for epoch in range(10):
    train_epoch(model, optimizer, epoch)
'''


def test_an_architecture_picked_by_name_from_a_package_we_cannot_read_is_a_host_model():
    # `models.__dict__[args.arch](...)` on either branch (network-slimming, the ImageNet example's
    # derivatives), handed to a training function of another module only after the load
    assert _lines(IMAGENET_STYLE, "DL018") == [_at_in(IMAGENET_STYLE, "# the load")]


def test_a_model_handed_to_code_we_cannot_see_before_the_load_stays_unknown():
    code = IMAGENET_STYLE.replace("optimizer = optim.SGD(", "model = convert_syncbn_model(model)\noptimizer = optim.SGD(")
    code = code.replace("from trainer import train_epoch", "from trainer import train_epoch, convert_syncbn_model")
    assert _lines(code, "DL018") == []


def test_a_model_from_an_unseen_builder_moved_only_by_this_function_is_on_the_host_until_then():
    code = '''
    import torch
    import torchvision_extra as tvx

    def main(resume):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = tvx.wide_resnet(depth=28)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        ckpt = torch.load(resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])  # the load
        model.to(device)
    '''
    assert _lines(code, "DL018") == [_at_in(textwrap.dedent(code), "# the load")]


def _at_in(code: str, marker: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(code).splitlines(), 1) if marker in line)
