"""The unsafe fixes that move things to the device (DL001 and friends) on training-script
code: what each rewrites, that plain `--fix` leaves it alone, that it needs a device variable
the inference trusts, and that a second `--fix --unsafe-fixes` changes nothing."""

import textwrap

from devicelint.engine import analyse
from devicelint.fix import fix_source


def fix(code: str, rule: str, unsafe: bool = True) -> str:
    src = textwrap.dedent(code).lstrip("\n")
    new, _count = fix_source(src.encode(), "train.py", select=[rule], unsafe=unsafe)
    again, count = fix_source(new, "train.py", select=[rule], unsafe=unsafe)
    assert (again, count) == (new, 0), "a second --fix changed the file again"
    return new.decode()


def changed_lines(before: str, after: str) -> list:
    b, a = textwrap.dedent(before).lstrip("\n").splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x.strip(), y.strip()) for x, y in zip(b, a) if x != y]


def findings(code: str, rule: str):
    src = textwrap.dedent(code) if isinstance(code, str) else code
    return [(f, r) for f, r in analyse(src, "train.py", select=[rule])[0] if f.code == rule]


# ----------------------------------------------------------------------------- DL001

CLASSIFIER = """
    import argparse

    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    class MLP(nn.Module):
        def __init__(self, d_in, hidden, n_classes):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

        def forward(self, x):
            return self.net(x)


    def train_epoch(model, loader, optimizer, device):
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--hidden", type=int, default=64)
        args = parser.parse_args()
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = MLP(16, args.hidden, 3)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        data = TensorDataset(torch.randn(64, 16), torch.randint(0, 3, (64,)))
        train_epoch(model, DataLoader(data, batch_size=8), optimizer, device)


    if __name__ == "__main__":
        main()
"""


def test_dl001_moves_the_model_where_it_is_built():
    after = fix(CLASSIFIER, "DL001")
    assert changed_lines(CLASSIFIER, after) == [
        ("model = MLP(16, args.hidden, 3)", "model = MLP(16, args.hidden, 3).to(device)")
    ]
    assert findings(after, "DL001") == []


def test_dl001_is_unsafe_only():
    [(_f, report)] = findings(CLASSIFIER, "DL001")
    assert report.applicability == "unsafe" and report.edit is not None
    src = textwrap.dedent(CLASSIFIER).lstrip("\n").encode()
    assert fix_source(src, "train.py", select=["DL001"]) == (src, 0)


def test_dl001_no_fix_without_a_bound_device_variable():
    # the device is chosen after the model is built, and a helper builds another one
    late = CLASSIFIER.replace(
        '        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', ""
    ).replace(
        "        model = MLP(16, args.hidden, 3)\n",
        "        model = MLP(16, args.hidden, 3)\n"
        '        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
    )
    [(_f, report)] = findings(late, "DL001")
    assert report.edit is None
    # a variable merely named `device` that holds a string option is not proof
    by_name = CLASSIFIER.replace(
        'torch.device("cuda" if torch.cuda.is_available() else "cpu")', "args.device_name"
    )
    assert all(r.edit is None for _f, r in findings(by_name, "DL001"))


# ----------------------------------------------------------------------------- DL002

FINETUNE = """
    import numpy as np
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    class Trainer:
        def __init__(self, model, device):
            self.model = model.to(device)
            self.device = device


    def run(model, train_data, val_data, device, epochs=2):
        loader = DataLoader(train_data, batch_size=16, shuffle=True)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        criterion = nn.CrossEntropyLoss()
        for epoch in range(epochs):
            for step, (images, labels) in enumerate(loader):
                logits = model(images)
                loss = criterion(logits, labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        preds, truth = [], []
        for images, labels in DataLoader(val_data, batch_size=32):
            preds.append(model(images).argmax(-1).cpu())
            truth.append(np.asarray(labels))
        return torch.cat(preds), np.concatenate(truth)


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = nn.Sequential(nn.Flatten(), nn.Linear(64, 10)).to(device)
        data = TensorDataset(torch.randn(128, 1, 8, 8), torch.randint(0, 10, (128,)))
        run(model, data, data, device)
"""


def test_dl002_moves_the_loop_batch_at_the_top_of_the_body():
    after = fix(FINETUNE, "DL002")
    lines = after.splitlines()
    top = lines.index("        for step, (images, labels) in enumerate(loader):")
    # the step counter is not a tensor: left alone
    assert lines[top + 1: top + 3] == ["            images = images.to(device)", "            labels = labels.to(device)"]
    val = lines.index("    for images, labels in DataLoader(val_data, batch_size=32):")
    # `labels` goes to NumPy in the validation loop: only the images move there
    assert lines[val + 1] == "        images = images.to(device)"
    assert lines[val + 2].strip().startswith("preds.append")
    assert findings(after, "DL002") == []


def test_dl002_is_unsafe_only_and_needs_a_device_variable():
    flagged = findings(FINETUNE, "DL002")
    assert flagged and all(r.applicability == "unsafe" and r.edit is not None for _f, r in flagged)
    src = textwrap.dedent(FINETUNE).lstrip("\n").encode()
    assert fix_source(src, "train.py", select=["DL002"]) == (src, 0)
    # the device comes from `self.device` in a helper we only see as an attribute: no variable to use
    no_var = FINETUNE.replace("def run(model, train_data, val_data, device, epochs=2):",
                              "def run(model, train_data, val_data, trainer, epochs=2):").replace(
        "run(model, data, data, device)", "run(model, data, data, Trainer(model, device))")
    assert all(r.edit is None for _f, r in findings(no_var, "DL002"))


# ----------------------------------------------------------------------------- DL011

SEQ_MODEL = """
    import math

    import torch
    import torch.nn as nn


    class Encoder(nn.Module):
        def __init__(self, vocab, dim, layers=2):
            super().__init__()
            self.dim, self.layers = dim, layers
            self.embed = nn.Embedding(vocab, dim)
            self.rnn = nn.GRU(dim, dim, num_layers=layers, batch_first=True)

        def time_features(self, t):
            half = self.dim // 2
            freqs = torch.exp(torch.arange(half) * -(math.log(10000.0) / (half - 1)))
            return t[:, None] * freqs[None, :]

        def forward(self, tokens, t):
            x = self.embed(tokens)
            h0 = torch.zeros(self.layers, tokens.size(0), self.dim)
            out, _ = self.rnn(x, h0)
            return out, self.time_features(t)


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Encoder(100, 16).to(device)
        tokens = torch.randint(0, 100, (4, 7), device=device)
        out, feats = model(tokens, torch.rand(4, device=device))
        weights = torch.linspace(0.5, 1.5, 16)
        print((out.mean(1) * weights).sum().item(), feats.shape)
"""


def test_dl011_adds_device_from_the_measured_tensor_or_the_device_variable():
    after = fix(SEQ_MODEL, "DL011")
    assert changed_lines(SEQ_MODEL, after) == [
        ("h0 = torch.zeros(self.layers, tokens.size(0), self.dim)",
         "h0 = torch.zeros(self.layers, tokens.size(0), self.dim, device=tokens.device)"),
        ("weights = torch.linspace(0.5, 1.5, 16)", "weights = torch.linspace(0.5, 1.5, 16, device=device)"),
    ]
    # `freqs` is built from `torch.arange(half)`: flagged, but nothing in scope says which device
    left = findings(after, "DL011")
    assert len(left) == 1 and left[0][1].edit is None


def test_dl011_is_unsafe_only():
    src = textwrap.dedent(SEQ_MODEL).lstrip("\n").encode()
    assert fix_source(src, "train.py", select=["DL011"]) == (src, 0)
    assert all(r.applicability == "unsafe" for _f, r in findings(SEQ_MODEL, "DL011"))
