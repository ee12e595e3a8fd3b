"""False-positive causes found by the first look of 2026-11-26 (third round, devicelint
6fe31cc, `benchmarks/firstlook/2026-11-26c.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- `nn.NLLLoss2d()`, the deprecated 2-D alias of `nn.NLLLoss`, is a loss without weights
  like every other torch loss, though its name does not end in `Loss` (a book's FCN
  segmentation notebook: `criterion = nn.NLLLoss2d()` never moved, called with CUDA
  tensors);
- a module file whose `forward` reassigns `out` through a callable it holds
  (`self.activation(out)`) in each arm of an `if`/`elif`/`else` (a course's `layers/linears.py`
  with BatchNorm before, after, or not at all): each reassignment inside an arm doubled the
  file summary's call-site descriptors, 43 MB for three layers and past the 3 GiB memory cap
  for four, so the file was reported as DL000 "not analysed" and never linted;
- a notebook cell whose first line is indented (` def get_data():` in a book's notebook):
  IPython removes that indent from the cell's lines before running it (its
  `leading_indent` cleanup), so the cell runs; it was reported as DL000 and masked, which
  also hid the findings inside it.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import json
import textwrap

import pytest
from inference_cases import FIRSTLOOK_RULES as RULES
from inference_cases import assert_marked, expected

from devicelint import summary
from devicelint.engine import lint_source

_FCN_TRAINING = """
from datetime import datetime


class FCN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stage1 = nn.Conv2d(3, 64, 3, padding=1)
        self.scores = nn.Conv2d(64, num_classes, 1)

    def forward(self, x):
        return self.scores(F.relu(self.stage1(x)))


def make_seg_loader():
    ds = TensorDataset(torch.randn(16, 3, 32, 32), torch.randint(0, 21, (16, 32, 32)))
    return DataLoader(ds, batch_size=4, shuffle=True)


net = FCN(21)
net = net.cuda()
criterion = nn.NLLLoss2d()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-2, weight_decay=1e-4)

for e in range(80):
    train_loss = 0
    prev_time = datetime.now()
    net = net.train()
    for data in make_seg_loader():
        im = data[0].cuda()
        labels = data[1].cuda()
        out = net(im)
        out = F.log_softmax(out, dim=1)
        loss = criterion(out, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
"""

# Control: given a class-weight tensor built on the host, the alias holds it like
# `NLLLoss(weight=w)` does, and calling it with CUDA tensors fails.
_FCN_TRAINING_HOST_WEIGHT = _FCN_TRAINING.replace(
    "criterion = nn.NLLLoss2d()", "criterion = nn.NLLLoss2d(weight=torch.ones(21))").replace(
    "        loss = criterion(out, labels)\n", "        loss = criterion(out, labels)  # <- DL001\n")

CASES = {
    "nllloss2d_without_weight": _FCN_TRAINING,
    "nllloss2d_with_host_weight": _FCN_TRAINING_HOST_WEIGHT,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    assert_marked(name, CASES[name])


_LAYERS_WITH_BN = """
import torch
from torch import nn
from torch.nn import functional as F


class L3LRWithBN(nn.Module):
    def __init__(self, activation=F.relu, in_features=2, hidden_dim=4, out_features=1, bias=True, bn_mode=None,
                 bn_momentum=0.1):
        super().__init__()
        self.linear1 = nn.Linear(in_features, hidden_dim, bias=bias)
        self.bn1 = nn.BatchNorm1d(hidden_dim, momentum=bn_momentum)
        self.linear2 = nn.Linear(hidden_dim, hidden_dim, bias=bias)
        self.bn2 = nn.BatchNorm1d(hidden_dim, momentum=bn_momentum)
        self.linear3 = nn.Linear(hidden_dim, hidden_dim, bias=bias)
        self.bn3 = nn.BatchNorm1d(hidden_dim, momentum=bn_momentum)
        self.linear4 = nn.Linear(hidden_dim, out_features, bias=bias)
        self.activation = activation
        self.bn_mode = bn_mode

    def forward(self, x):
        if self.bn_mode == 'pre':  # BN before the activation
            out = self.bn1(self.linear1(x))
            out = self.activation(out)
            out = self.bn2(self.linear2(out))
            out = self.activation(out)
            out = self.bn3(self.linear3(out))
            out = self.activation(out)
            out = self.linear4(out)
        elif self.bn_mode == 'post':  # BN after the activation
            out = self.linear1(x)
            out = self.activation(out)
            out = self.linear2(self.bn1(out))
            out = self.activation(out)
            out = self.linear3(self.bn2(out))
            out = self.activation(out)
            out = self.linear4(self.bn3(out))
        else:  # no BN
            out = self.linear1(x)
            out = self.activation(out)
            out = self.linear2(out)
            out = self.activation(out)
            out = self.linear3(out)
            out = self.activation(out)
            out = self.linear4(out)
        return out
"""

_TRAIN_WITH_LAYERS = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from linears import L3LRWithBN

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = L3LRWithBN(bn_mode="pre").to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.03)
loader = DataLoader(TensorDataset(torch.randn(256, 2), torch.randn(256, 1)), batch_size=32, shuffle=True)
for epoch in range(10):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.cpu().numpy())
preds = model(torch.randn(8, 2).to(device))
print(preds.numpy())  # <- DL003
"""


def test_summary_of_branchy_forward_stays_small():
    """The file summary is what every importer of the module reads (and the cache keeps):
    its size must grow with the code, not double with each reassignment in an arm."""
    s = summary.summarize(textwrap.dedent(_LAYERS_WITH_BN).encode())
    assert len(json.dumps(s)) < 200_000


def test_script_importing_branchy_layers_is_linted(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'course'\n")
    (tmp_path / "linears.py").write_text(textwrap.dedent(_LAYERS_WITH_BN))
    code = textwrap.dedent(_TRAIN_WITH_LAYERS).lstrip("\n")
    script = tmp_path / "train.py"
    script.write_text(code)
    got = {(f.code, f.line) for f in lint_source(code, str(script), select=RULES + ["DL000"])}
    assert got == expected(code)
    layers = textwrap.dedent(_LAYERS_WITH_BN)
    assert [f.code for f in lint_source(layers, str(tmp_path / "linears.py"), select=["DL000"])] == []


def _nb(*sources):
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": src.splitlines(keepends=True)} for src in sources]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 4}, indent=1)


_NB_SETUP = """\
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
device = 'cuda' if torch.cuda.is_available() else 'cpu'
"""

# The book's cell starts with one space; the lines under it keep their (deeper) indent.
_NB_INDENTED_CELL = """\
 def get_data():
     train = TensorDataset(torch.randn(64, 784), torch.randint(0, 10, (64,)))
     trn_dl = DataLoader(train, batch_size=32, shuffle=True)
     return trn_dl
 model = nn.Sequential(nn.Linear(784, 100), nn.ReLU(), nn.Linear(100, 10)).to(device)
 loss_fn = nn.CrossEntropyLoss()
 opt = torch.optim.Adam(model.parameters(), lr=1e-3)
"""

_NB_TRAIN = """\
trn_dl = get_data()
losses = []
for epoch in range(5):
    for x, y in trn_dl:
        x, y = x.to(device), y.to(device)
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
"""


def _lint_nb(text):
    return [(f.code, f.cell, f.line, f.column, f.end_column) for f in lint_source(text, "book.ipynb", select=RULES + ["DL000"])]


def test_cell_with_a_leading_indent_runs_as_ipython_runs_it():
    got = _lint_nb(_nb(_NB_SETUP, _NB_INDENTED_CELL, _NB_TRAIN))
    assert [g for g in got if g[0] == "DL000"] == []
    # `losses.append(loss)` keeps every step's graph: still found, at its own column
    assert ("DL010", 3, 10, 9, 28) in got


def test_cell_with_a_leading_indent_keeps_its_columns():
    """A finding inside the indented cell points at the text as stored, indent included."""
    cell = _NB_INDENTED_CELL.replace(" opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n",
                                     " opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
                                     " w = torch.randn(100, 10)\n"
                                     " print(model(torch.randn(2, 784).to(device)) @ w)\n")
    got = _lint_nb(_nb(_NB_SETUP, cell))
    (found,) = [g for g in got if g[0] == "DL011"]
    line = cell.splitlines()[found[2] - 1]
    assert line[found[3] - 1:found[4] - 1].startswith("model(torch.randn(2, 784).to(device)) @ w")


def test_cell_indented_unevenly_is_still_a_syntax_error():
    """Only the first line's indent goes: a later line indented less still fails in Jupyter."""
    got = _lint_nb(_nb(_NB_SETUP, "  x = torch.zeros(3)\n y = x + 1\n"))
    assert [g[:2] for g in got if g[0] == "DL000"] == [("DL000", 2)]
