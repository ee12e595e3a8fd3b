"""A plain `devicelint FILE` runs without click (issue 21, "One file, fast"): cli.fast_options
takes only the command lines click would hand to `check` unchanged, and the run then behaves
exactly as through click. Each command line below runs both ways in a fresh interpreter
(`python -m devicelint`, and click's group called directly as the entry point did before),
and the exit code, stdout and stderr must be the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from devicelint import checking, cli, commands

ROOT = Path(__file__).resolve().parent.parent

# A training script the way users write them: argparse, a model class, a loop over dict
# batches. The model is never moved (DL001), the loss is accumulated with its graph (DL010),
# the checkpoint is loaded without map_location (DL009), and the AMP API is the old one (DL005).
TRAIN = '''\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 16)
        self.y = torch.randint(0, 4, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i]}


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        return self.body(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--resume", default=None)
    args = ap.parse_args()
    device = torch.device("cuda")
    model = Net(args.hidden)
    if args.resume:
        model.load_state_dict(torch.load(args.resume))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    total = 0.0
    for batch in DataLoader(Pairs(256), batch_size=32):
        x, y = batch["x"].to(device), batch["y"].to(device)
        with torch.cuda.amp.autocast():
            loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        total += loss
    print(total / 8)


if __name__ == "__main__":
    main()
'''

CLICK_ENTRY = ("import sys\nfrom devicelint.stop import install\ninstall()\n"
               "from devicelint.commands import cli\ncli(prog_name='devicelint')\n")


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.zeros(3)\nprint(x.sum())\n")
    (tmp_path / "a_file").write_text("not a folder\n")
    return tmp_path


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "DEVICELINT_PROGRESS")}


def _both(cwd, args: list) -> tuple:
    fast = subprocess.run([sys.executable, "-m", "devicelint", *args], cwd=cwd, capture_output=True, text=True,
                          env=_env(), timeout=300, stdin=subprocess.DEVNULL)
    slow = subprocess.run([sys.executable, "-c", CLICK_ENTRY, *args], cwd=cwd, capture_output=True, text=True,
                          env=_env(), timeout=300, stdin=subprocess.DEVNULL)
    return (fast.returncode, fast.stdout, fast.stderr), (slow.returncode, slow.stdout, slow.stderr)


# command lines the fast path takes
PLAIN = [
    ["train.py"],
    ["--no-cache", "train.py"],
    ["--no-cache", "--output-format=concise", "--exit-zero", "."],
    ["train.py", "--no-cache", "--select", "DL001,dl009", "--select", "DL010", "--statistics"],
    ["--no-cache", "--ignore", "DL005", "--extend-select", "DL013", "--output-format", "github", "train.py", "clean.py"],
    ["--cache-dir", "cachehere", "--output-format", "json", "train.py"],
    ["--no-cache", "--diff", "train.py"],
    ["--no-cache", "missing_dir_but_option_first"],
]
# command lines click must read: help, subcommands, usage errors, options it checks itself
CLICK = [
    [], ["--help"], ["-h"], ["--version"], ["rules"], ["check", "train.py"], ["explian", "DL001"], ["DL001"],
    ["train.py", "--select", "DL999"], ["train.py", "--output-format", "yaml"], ["train.py", "--output-format"],
    ["train.py", "--cache-dir", "a_file"], ["train.py", "--no-cache=1"], ["train.py", "--jobs", "1"],
    ["train.py", "--bogus"], ["-", "--no-cache"], ["train.py", "--", "clean.py"], ["train.py", "--select", "-x"],
    ["train.py", "--output-format", "json", "--output-format", "full"], ["train.py", "--explain", "DL001"],
]


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_plain_command_lines_run_without_click_and_say_the_same(proj, args, monkeypatch):
    monkeypatch.chdir(proj)
    assert cli.fast_options(args) is not None
    fast, slow = _both(proj, args)
    assert fast == slow
    assert fast[0] in (0, 1) and (fast[1] or fast[2])


def test_other_command_lines_go_through_click(proj, monkeypatch):
    monkeypatch.chdir(proj)
    assert [args for args in CLICK if cli.fast_options(args) is not None] == []


@pytest.mark.parametrize("args", [["explian", "DL001"], ["train.py", "--select", "DL999"], ["--help"]], ids=" ".join)
def test_the_entry_point_hands_them_to_click(proj, args):
    fast, slow = _both(proj, args)
    assert fast == slow and fast[0] in (0, 2)


def test_a_missing_first_path_is_left_to_clicks_typo_check(proj, monkeypatch):
    monkeypatch.chdir(proj)
    assert cli.fast_options(["missing.py"]) is None  # it may be a mistyped command
    assert cli.fast_options(["train.py", "missing.py"]) is not None  # a later one is the run's to report


def test_a_plain_lint_imports_no_click(proj):
    code = ("import sys\nsys.argv = ['devicelint', '--no-cache', 'train.py']\nfrom devicelint.cli import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n    print('exit', e.code, 'click' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=proj, capture_output=True, text=True, env=_env(), timeout=300)
    assert done.stdout.splitlines()[-1] == "exit 1 False", done.stderr
    assert "DL001" in done.stdout


def test_fast_options_are_checks_options_with_its_defaults():
    # what click hands `check` for a command line that gives no option
    assert commands.check.make_context("check", []).params == checking.DEFAULTS
    params = {p.name: p for p in commands.check.params}
    spelled = {opt: p for p in params.values() for opt in p.opts}
    for opt, name in cli._FLAGS.items():
        assert spelled[opt].name == name and spelled[opt].is_flag, opt
    for opt, name in cli._CODE_LISTS.items():
        assert spelled[opt].name == name and spelled[opt].multiple, opt
    for opt, name in cli._VALUES.items():
        assert spelled[opt].name == name and not spelled[opt].is_flag and not spelled[opt].multiple, opt
    assert isinstance(spelled["--cache-dir"].type, click.Path) and not spelled["--cache-dir"].type.file_okay
    assert list(spelled["--output-format"].type.choices) == list(checking.report.FORMATS)


def test_the_fast_path_knows_every_command():
    assert sorted(cli.COMMANDS) == sorted(commands.cli.commands)


def test_cli_module_still_offers_the_click_objects():
    assert cli.cli is commands.cli and cli.check is commands.check
    with pytest.raises(AttributeError):
        cli.no_such_name  # noqa: B018


def test_a_broken_pipe_ends_quietly_with_exit_1(proj):
    """`devicelint . | head -1`: as click's standalone mode does, exit 1, no traceback."""
    big = "\n".join(f"m{i} = torch.nn.Linear(4, 4)\nm{i}(torch.randn(2, 4).cuda())" for i in range(400))
    (proj / "many.py").write_text("import torch\n" + big + "\n")
    for entry in (["-m", "devicelint"], ["-c", CLICK_ENTRY]):
        p = subprocess.Popen([sys.executable, *entry, "--no-cache", "many.py"], cwd=proj, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=_env())
        p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait(timeout=300) == 1 and "Traceback" not in err and "Exception ignored" not in err, (entry, err)


def test_a_stream_closed_before_the_exit_ends_quietly_with_the_run_s_code():
    """An editor client that ends the language server leaves its stdout closed: the exit must
    not print a traceback from flushing it (`ValueError: I/O operation on closed file`)."""
    code = ("import sys\nfrom devicelint import cli\n"
            "def main():\n    sys.stdout.close()\n    raise SystemExit(0)\n"
            "cli.main = main\ncli.entry()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "ValueError" not in done.stderr, done.stderr
