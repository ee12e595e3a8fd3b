"""Nothing silent for the linter's own bugs across files (crossfile.py). A damaged project
summary (a cache entry of an unexpected shape) stays quiet: the file lints as it would
without the project's facts. A programming error of the interpreter met while it evaluates a
call into another project file (a renamed method is an AttributeError) is the lint's
"internal error while linting FILE" line and exit code 2, as every other internal error is;
it used to be caught with the damaged-summary errors and became a silent UNKNOWN.
"""

import glob
import json
import textwrap

import pytest
from click.testing import CliRunner

from devicelint import project
from devicelint.cli import cli
from devicelint.engine import lint_file
from devicelint.flow.models import Models

MODELS = '''
import torch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10, width=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def build_model(num_classes=10, width=32):
    return SmallCNN(num_classes=num_classes, width=width)
'''

TRAIN = '''
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models import build_model


def parse_args():
    parser = argparse.ArgumentParser(description="CIFAR-10 training")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--batch-size", type=int, default=128)
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda")
    train_set = datasets.CIFAR10("./data", train=True, download=True, transform=transforms.ToTensor())
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)
    model = build_model(num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        model.train()
        for batch in loader:
            images, labels = batch[0].to(device), batch[1].to(device)
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
'''


def _project(tmp_path, with_models=True):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'cifar'\n")
    if with_models:
        (tmp_path / "models.py").write_text(textwrap.dedent(MODELS))
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent(TRAIN))
    return train


def _found(path) -> list:
    return sorted((f.code, f.line) for f in lint_file(str(path)))


def _without_project_facts(tmp_path) -> list:
    alone = tmp_path / "alone"
    alone.mkdir()
    return _found(_project(alone, with_models=False))


def _damage(s: dict, how: str) -> dict:
    s = json.loads(json.dumps(s))
    if how == "params":
        s["functions"]["build_model"]["params"] = 5
    elif how == "function":
        s["functions"]["build_model"] = ["not", "a", "mapping"]
    elif how == "class":
        s["classes"]["SmallCNN"]["bases"] = None
    elif how == "everything":
        s["functions"], s["classes"] = [], 3
    return s


def test_the_project_facts_find_the_host_model(tmp_path):
    """The control: with models.py's summary, `build_model()` is a model built on the host
    (DL001 where it meets the moved images); without it, nothing is known."""
    with_facts = _found(_project(tmp_path))
    assert any(code == "DL001" for code, _ in with_facts)
    assert not any(code == "DL001" for code, _ in _without_project_facts(tmp_path))


@pytest.mark.parametrize("how", ["params", "function", "class", "everything"])
def test_a_damaged_summary_lints_as_without_project_facts(tmp_path, monkeypatch, how):
    train = _project(tmp_path)
    expected = _without_project_facts(tmp_path)
    real = project.FileView.summary

    def damaged(self, path):
        s = real(self, path)
        return _damage(s, how) if s is not None and path.endswith("models.py") else s

    monkeypatch.setattr(project.FileView, "summary", damaged)
    assert _found(train) == expected


@pytest.mark.parametrize("fact", [["module", "moved"], ["module"], ["seq", 5], ["seq", [["param"]]],
                                  ["tensor", ["param"]], ["moved_param", ["unhashable"], "accel"], "module", 3])
def test_a_return_fact_of_a_damaged_shape_is_no_fact(tmp_path, monkeypatch, fact):
    """What the view makes of a damaged return descriptor: the call's value is as if the
    summary told nothing of what the function returns."""
    train = _project(tmp_path)
    monkeypatch.setattr(project.FileView, "returns", lambda self, path, name: None)
    expected = _found(train)
    monkeypatch.setattr(project.FileView, "returns", lambda self, path, name: fact)
    assert _found(train) == expected


def test_a_damaged_cache_entry_is_quiet(tmp_path, monkeypatch):
    """The summary cache on disk holds an entry of the right version whose contents are
    damaged: the run says nothing about it and reports what it would without the facts."""
    train = _project(tmp_path)
    cache = tmp_path / ".cache"
    args = ["--output-format", "json", "--cache-dir", str(cache), "--jobs", "1", str(train)]
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 1 and '"DL001"' in first.stdout
    entries = glob.glob(str(cache / "**" / "summaries" / "**" / "*.json"), recursive=True)
    assert entries
    for entry in entries:
        with open(entry, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("s") and "build_model" in data["s"]["functions"]:
            data["s"] = _damage(data["s"], "everything")
            data["h"] = "damaged"  # so that the result cache, keyed by the summaries, misses
            with open(entry, "w", encoding="utf-8") as f:
                json.dump(data, f)
    monkeypatch.setattr(project, "_stores", {})  # this process read the entry once already: read it again
    second = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert "internal error" not in second.output
    codes = sorted((d["code"], d["line"]) for d in json.loads(second.stdout))
    assert codes == _without_project_facts(tmp_path)


def test_an_interpreter_error_in_a_cross_file_call_is_an_internal_error(tmp_path, monkeypatch):
    """`build_model(num_classes=10)` returns a host model (summary fact ["module", "host"]):
    the interpreter builds it with Models.new_model. A bug there (here: a method that is not
    there any more) must be said, not lost with the DL001 it would have found."""
    train = _project(tmp_path)

    def renamed(self, *args, **kwargs):
        return self.host.new_model_renamed_away(*args, **kwargs)  # AttributeError

    monkeypatch.setattr(Models, "new_model", renamed)
    result = CliRunner().invoke(cli, ["--no-cache", "--jobs", "1", str(train)], catch_exceptions=False)
    assert result.exit_code == 2
    assert "internal error while linting" in result.stderr and "train.py" in result.stderr
    assert "AttributeError" in result.stderr


# --- names.Imports and flow.program: the same split, for their own reads of the summaries ---

DATA = '''
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(n=256, steps=20, batch_size=32):
    xs = torch.randn(n, steps, 8)
    ys = torch.randint(0, 2, (n,))
    return DataLoader(TensorDataset(xs, ys), batch_size=batch_size, shuffle=True)
'''

# a CPU-only script: its classifier builds its LSTM state on the host in forward, which is
# right here, since nothing in the file (or the project code it calls) ever places anything
CPU_SCRIPT = '''
import argparse

import torch
import torch.nn as nn

from data import make_loader


class SequenceClassifier(nn.Module):
    def __init__(self, features=8, hidden=32, classes=2):
        super().__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.hidden)
        c0 = torch.zeros(1, x.size(0), self.hidden)
        out, _ = self.lstm(x, (h0, c0))
        return self.head(out[:, -1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    model = SequenceClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = make_loader()
    for epoch in range(args.epochs):
        for xs, ys in loader:
            loss = nn.functional.cross_entropy(model(xs), ys)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def _cpu_project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'seq'\n")
    (tmp_path / "data.py").write_text(textwrap.dedent(DATA))
    script = tmp_path / "train_cpu.py"
    script.write_text(textwrap.dedent(CPU_SCRIPT))
    return script


def _lint_cli(path):
    return CliRunner().invoke(cli, ["--no-cache", "--jobs", "1", str(path)], catch_exceptions=False)


def test_the_cpu_script_lints_clean(tmp_path):
    """The control for the two tests below: linted as it is (flow.program asks the project
    whether the script runs on the host only), the script has no finding and no error."""
    assert _lint_cli(_cpu_project(tmp_path)).exit_code == 0


def test_a_damaged_summary_under_a_host_only_script_is_quiet(tmp_path, monkeypatch):
    """data.py's summary is damaged: the script is not known to be host-only, and nothing is
    said of the damage itself (no internal error)."""
    script = _cpu_project(tmp_path)
    real = project.FileView.summary

    def damaged(self, path):
        s = real(self, path)
        if s is not None and path.endswith("data.py"):
            s = json.loads(json.dumps(s))
            s["functions"], s["classes"] = [], 3
        return s

    monkeypatch.setattr(project.FileView, "summary", damaged)
    result = _lint_cli(script)
    assert "internal error" not in result.output
    assert result.exit_code in (0, 1)


def test_an_engine_error_deciding_a_host_only_script_is_an_internal_error(tmp_path, monkeypatch):
    """flow.program reads this file's own syntax outside its guard of the summary reads: a bug
    there (an AttributeError) is said, not taken for a damaged summary."""
    from devicelint.flow import program

    def broken(module):
        return module.bodyy  # AttributeError

    monkeypatch.setattr(program, "_top_level_names", broken)
    result = _lint_cli(_cpu_project(tmp_path))
    assert result.exit_code == 2
    assert "internal error while linting" in result.stderr and "AttributeError" in result.stderr


def test_an_engine_error_binding_a_project_import_is_an_internal_error(tmp_path, monkeypatch):
    """names.Imports guards only the project view's reads: an error of its own while it binds
    `from models import build_model` is said (it used to leave the import unknown, and the
    DL001 of the host model was lost)."""
    from devicelint import names

    def broken(self, local, sym):
        raise AttributeError("'Imports' object has no attribute '_project_renamed'")

    monkeypatch.setattr(names.Imports, "_bind_project", broken)
    result = _lint_cli(_project(tmp_path))
    assert result.exit_code == 2
    assert "internal error while linting" in result.stderr and "AttributeError" in result.stderr
