"""A notebook or script that runs on the host only (it names no device and places nothing)
never moves its modules: what would break once a module is moved (DL011's and DL015's
"in `forward`, whatever the file moves" clause) cannot happen there, and saying that a tensor
"meets tensors on the device" would be false. A file of definitions may be imported by one
that moves the module: there the clause holds. First-look audit, 2026-11-26: 9 such findings
in CPU-only course notebooks and tutorial scripts."""

import json

from devicelint.engine import lint_source

RNN_CLASSIFIER = '''
import torch
import torch.nn as nn
from torch.autograd import Variable

HIDDEN_SIZE = 100
N_CHARS = 128


class RNNClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, n_layers=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.n_layers = n_layers
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, input):
        batch_size = input.size(0)
        input = input.t()
        embedded = self.embedding(input)
        hidden = self._init_hidden(batch_size)
        output, hidden = self.gru(embedded, hidden)
        return self.fc(hidden[-1])

    def _init_hidden(self, batch_size):
        hidden = torch.zeros(self.n_layers, batch_size, self.hidden_size)
        return Variable(hidden)
'''

SCRIPT_RUN = '''

names = ["adylov", "solan", "hard", "san"]
classifier = RNNClassifier(N_CHARS, HIDDEN_SIZE, 18)
optimizer = torch.optim.Adam(classifier.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    inputs = torch.randint(0, N_CHARS, (len(names), 6))
    target = torch.randint(0, 18, (len(names),))
    loss = criterion(classifier(inputs), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
'''

DEVICE_RUN = SCRIPT_RUN.replace(
    "classifier = RNNClassifier(N_CHARS, HIDDEN_SIZE, 18)",
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    "classifier = RNNClassifier(N_CHARS, HIDDEN_SIZE, 18).to(device)",
).replace("loss = criterion(classifier(inputs), target)",
          "loss = criterion(classifier(inputs.to(device)), target.to(device))")


def codes(source: str, path: str = "train.py"):
    return sorted((f.code, f.line) for f in lint_source(source.encode(), path) if f.code != "DL000")


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_a_script_that_never_names_a_device_keeps_its_modules_on_the_host():
    assert codes(RNN_CLASSIFIER + SCRIPT_RUN) == []


def test_the_same_script_moving_its_model_is_flagged_where_the_host_zeros_meet_it():
    src = RNN_CLASSIFIER + DEVICE_RUN
    assert ("DL011", _line(src, "output, hidden = self.gru(embedded, hidden)")) in codes(src)


def test_a_file_of_definitions_may_be_imported_by_one_that_moves_it():
    src = RNN_CLASSIFIER
    assert ("DL011", _line(src, "output, hidden = self.gru(embedded, hidden)")) in codes(src, "models.py")


CUSTOM_LAYER = '''import torch
from torch import nn


class MyDense(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = torch.randn(in_units, units)
        self.bias = torch.zeros(units)

    def forward(self, X):
        linear = torch.matmul(X, self.weight) + self.bias
        return torch.relu(linear)
'''


def _notebook(*cells) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": c.splitlines(keepends=True)} for c in cells],
                       "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
                       "nbformat": 4, "nbformat_minor": 5})


def test_a_course_notebook_on_the_host_keeps_its_plain_attributes_quiet():
    nb = _notebook(CUSTOM_LAYER, "dense = MyDense(5, 3)\ndense(torch.rand(2, 5))")
    assert codes(nb, "Custom_Layers.ipynb") == []


def test_a_notebook_that_moves_the_layer_is_flagged():
    nb = _notebook(CUSTOM_LAYER, 'dense = MyDense(5, 3).to("cuda")\ndense(torch.rand(2, 5, device="cuda"))')
    assert [c for c, _ in codes(nb, "Custom_Layers.ipynb")].count("DL015") >= 1
