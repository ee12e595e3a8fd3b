"""The fixes of DL006, DL008, DL009, DL010 and DL014 on training-script code: what each
rewrites, what it refuses to touch, its safety class, and that a second `--fix` is a no-op."""

import textwrap

import pytest
from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import analyse, lint_source
from devicelint.fix import fix_source


def fix(code: str, rule: str, unsafe: bool = False) -> str:
    src = textwrap.dedent(code).lstrip("\n")
    new, _count = fix_source(src.encode(), "train.py", select=[rule], unsafe=unsafe)
    again, count = fix_source(new, "train.py", select=[rule], unsafe=unsafe)
    assert (again, count) == (new, 0), "a second --fix changed the file again"
    return new.decode()


def reports(code: str, rule: str):
    src = textwrap.dedent(code).lstrip("\n")
    return [(f, r) for f, r in analyse(src, "train.py", select=[rule])[0] if f.code == rule]


def changed_lines(before: str, after: str) -> list:
    b, a = textwrap.dedent(before).lstrip("\n").splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(b, a) if x != y]


# ----------------------------------------------------------------------------- DL006

TRAINER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 2)
        self.weight = nn.Parameter(torch.ones(2))
        self.scale = torch.ones(2)

    def forward(self, x):
        self.scale.to(x.device)
        self.weight.to(x.device)
        return self.proj(x) * self.scale * self.weight


features = torch.randn(64, 8)


def evaluate(model, device):
    features.to(device)
    batch = {"x": torch.randn(4, 8)}
    batch["x"].to(device)
    probe = torch.randn(4, 8)
    probe.to(device)
    return model(probe)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Scaler().to(device)
    loader = DataLoader(TensorDataset(features, torch.randint(0, 2, (64,))), batch_size=16)
    for x, y in loader:
        x.to(device); y.to(device)
        model(x)
    evaluate(model, device)


main()
"""


def test_dl006_assigns_back_names_and_plain_attributes_only():
    after = fix(TRAINER, "DL006")
    assert changed_lines(TRAINER, after) == [
        ("        self.scale.to(x.device)", "        self.scale = self.scale.to(x.device)"),
        ("    probe.to(device)", "    probe = probe.to(device)"),
        ("        x.to(device); y.to(device)", "        x = x.to(device); y = y.to(device)"),
    ]
    # untouched, each for its reason: a registered Parameter refuses a plain tensor; a global
    # read in a function would become local; a subscript is not a name or attribute
    for kept in ("        self.weight.to(x.device)", "    features.to(device)", '    batch["x"].to(device)'):
        assert kept in after
    fixable = [r for _f, r in reports(TRAINER, "DL006") if r.edit is not None]
    assert fixable and all(r.applicability == "safe" for r in fixable)


# ----------------------------------------------------------------------------- DL008

LM = """
import argparse

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seq-len", type=int, default=16)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gen = torch.Generator().manual_seed(0)
    for step in range(10):
        positions = torch.arange(args.seq_len).unsqueeze(0).to(device)
        mask = torch.full((args.seq_len, args.seq_len), float("-inf")).triu(1).to(device)
        eye = torch.eye(4).to(device=device, dtype=torch.float16)
        ones = torch.ones(4, 4).cuda()
        noise = torch.randn(4, 8).to(device)
        half = torch.zeros(4).to(device, torch.float16)
        async_copy = torch.zeros(4).to(device, non_blocking=True)
        seeded = torch.rand(4, generator=gen).to(device)
        second_gpu = torch.ones(4).cuda(1)
        grid = torch.linspace(0, 1, 5).to(device, dtype=torch.float16)
        leaf = torch.zeros(4, requires_grad=True).to(device)


main()
"""


def test_dl008_passes_the_device_to_the_factory():
    after = fix(LM, "DL008")
    assert changed_lines(LM, after) == [
        ("        positions = torch.arange(args.seq_len).unsqueeze(0).to(device)",
         "        positions = torch.arange(args.seq_len, device=device).unsqueeze(0)"),
        ('        mask = torch.full((args.seq_len, args.seq_len), float("-inf")).triu(1).to(device)',
         '        mask = torch.full((args.seq_len, args.seq_len), float("-inf"), device=device).triu(1)'),
        ("        eye = torch.eye(4).to(device=device, dtype=torch.float16)",
         "        eye = torch.eye(4, device=device, dtype=torch.float16)"),
        ("        ones = torch.ones(4, 4).cuda()", '        ones = torch.ones(4, 4, device="cuda")'),
    ]


def test_dl008_random_factories_only_with_unsafe_fixes():
    after = fix(LM, "DL008", unsafe=True)
    assert "        noise = torch.randn(4, 8, device=device)" in after
    by_line = {f.line: r for f, r in reports(LM, "DL008")}
    assert by_line[17].applicability == "unsafe" and by_line[14].applicability == "safe"
    # a positional dtype, non_blocking, a host generator, a named GPU, a dtype on an inexact
    # factory, requires_grad: no fix at all
    for line in (18, 19, 20, 21, 22, 23):
        assert by_line[line].edit is None, line


# ----------------------------------------------------------------------------- DL009

RESUME = """
import os

import torch
import torch.nn as nn


def load_weights(model, path, device):
    model.load_state_dict(torch.load(path))
    return model.to(device)


def load_for_rank(path, local_rank):
    state = torch.load(path)
    torch.cuda.set_device(local_rank)
    return state


def restore(path):
    ckpt = torch.load(path, weights_only=True)
    device = torch.device("cuda")
    return ckpt, device


def never_called(path, device):
    return torch.load(path)


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = load_weights(nn.Linear(2, 2), "w.pt", dev)
    load_for_rank("x.pt", int(os.environ.get("LOCAL_RANK", 0)))
    restore("y.pt")
"""


def test_dl009_uses_the_device_only_when_proven_and_bound():
    after = fix(RESUME, "DL009")
    assert changed_lines(RESUME, after) == [
        # every caller passes a torch.device: use it
        ("    model.load_state_dict(torch.load(path))", "    model.load_state_dict(torch.load(path, map_location=device))"),
        # an int rank is not a device
        ("    state = torch.load(path)", '    state = torch.load(path, map_location="cpu")'),
        # `device` is bound only after the load (it would be an UnboundLocalError)
        ("    ckpt = torch.load(path, weights_only=True)", '    ckpt = torch.load(path, weights_only=True, map_location="cpu")'),
        # a device only by its name, with no caller to prove it
        ("    return torch.load(path)", '    return torch.load(path, map_location="cpu")'),
    ]
    assert all(r.applicability == "safe" and r.edit is not None for _f, r in reports(RESUME, "DL009"))


def test_dl009_module_level_device_and_multiline_call():
    code = """
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)


    class Trainer:
        def restore(self, path):
            state = torch.load(
                path,
                weights_only=True,
            )
            model.load_state_dict(state)
    """
    after = fix(code, "DL009")
    assert "            weights_only=True,\n            map_location=device,\n        )" in after


# ----------------------------------------------------------------------------- DL010

EVAL = """
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger(__name__)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
criterion = nn.MSELoss()
per_sample = nn.MSELoss(reduction="none")
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)


def validate():
    val_loss = 0.0
    for x, y in loader:
        loss = criterion(model(x.to(device)), y.to(device))
        val_loss += loss
    val_loss /= len(loader)
    log.info("val loss %.4f", val_loss)
    if val_loss < 1.0:
        print(f"good: {val_loss:.3f}")


def weighted():
    total, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += F.mse_loss(model(x), y) * x.size(0)
        seen += x.size(0)
    return (total / seen).item()


def returned():
    total = 0
    for x, y in loader:
        total += criterion(model(x.to(device)), y.to(device))
    return total / len(loader)


def per_example():
    errors = 0.0
    for x, y in loader:
        errors += per_sample(model(x.to(device)), y.to(device))
    print(errors)


validate()
weighted()
returned()
per_example()
"""


def test_dl010_item_for_a_number_total_detach_otherwise():
    after = fix(EVAL, "DL010")
    assert changed_lines(EVAL, after) == [
        # starts at 0.0, a loss, only logged / compared / formatted: a number
        ("        val_loss += loss", "        val_loss += loss.item()"),
        # `.item()` is called on the total later: it must stay a tensor
        ("        total += F.mse_loss(model(x), y) * x.size(0)", "        total += (F.mse_loss(model(x), y) * x.size(0)).detach()"),
        # returned: the caller may use it as a tensor
        ("        total += criterion(model(x.to(device)), y.to(device))",
         "        total += criterion(model(x.to(device)), y.to(device)).detach()"),
        # reduction="none": not one number, `.item()` would raise
        ("        errors += per_sample(model(x.to(device)), y.to(device))",
         "        errors += per_sample(model(x.to(device)), y.to(device)).detach()"),
    ]
    assert all(r.applicability == "safe" for _f, r in reports(EVAL, "DL010"))


# ----------------------------------------------------------------------------- DL014

def test_dl014_pins_each_loader_once():
    code = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = DataLoader(
        TensorDataset(torch.randn(64, 4), torch.randn(64, 1)),
        batch_size=8,
        shuffle=True,
    )
    val_loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=8, pin_memory=False)
    for x, y in train_loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    for (x,) in val_loader:
        x = x.to(device)
    """
    assert len(reports(code, "DL014")) == 3
    after = fix(code, "DL014")
    assert "    shuffle=True,\n    pin_memory=torch.cuda.is_available(),\n)" in after
    assert "batch_size=8, pin_memory=torch.cuda.is_available())" in after
    assert after.count("pin_memory") == 2


def test_dl014_true_without_a_torch_name():
    code = """
    from torch import device as Device
    from torch.utils.data import DataLoader

    def run(dataset, **kw):
        dev = Device("cuda")
        for x in DataLoader(dataset, **kw):
            x = x.to(dev)
        for x in DataLoader(dataset, batch_size=4):
            x = x.to(dev)

    run(None)
    """
    # the **kw loader is not flagged (kw may pin), the other is, and `torch` is no name here
    assert [f.line for f, _r in reports(code, "DL014")] == [9]
    after = fix(code, "DL014")
    assert "DataLoader(dataset, **kw)" in after
    assert "DataLoader(dataset, batch_size=4, pin_memory=True)" in after


# ----------------------------------------------------------------------------- CLI


def test_cli_unsafe_fixes_flag(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lm.py").write_text(textwrap.dedent(LM).lstrip("\n"))
    r = CliRunner().invoke(cli, ["lm.py", "--fix", "--no-cache", "--select", "DL008", "--output-format", "concise"])
    assert "noise = torch.randn(4, 8).to(device)" in (tmp_path / "lm.py").read_text()
    assert r.exit_code == 1  # the unfixed findings remain
    r = CliRunner().invoke(cli, ["lm.py", "--fix", "--unsafe-fixes", "--no-cache", "--select", "DL008"])
    assert "noise = torch.randn(4, 8, device=device)" in (tmp_path / "lm.py").read_text()
    left = lint_source((tmp_path / "lm.py").read_text(), "lm.py", select=["DL008"])
    assert sorted(f.line for f in left) == [18, 19, 20, 21, 22, 23]


@pytest.mark.parametrize("code, rule", [(TRAINER, "DL006"), (LM, "DL008"), (RESUME, "DL009"), (EVAL, "DL010")])
def test_fixed_code_no_longer_flags_what_was_fixed(code, rule):
    after = fix(code, rule, unsafe=True)
    left = [(f, r) for f, r in analyse(after, "train.py", select=[rule])[0] if f.code == rule]
    assert all(r.edit is None for _f, r in left)
