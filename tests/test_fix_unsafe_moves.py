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


# ----------------------------------------------------------------------------- DL001: helpers

BUILT_BY_HELPER = """
    import argparse

    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    def build_model(args):
        layers = [nn.Conv2d(3, args.width, 3, padding=1), nn.ReLU()]
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(args.width, 10)]
        return nn.Sequential(*layers)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--width", type=int, default=16)
        args = parser.parse_args()
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = build_model(args)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(3):
            images = torch.randn(8, 3, 32, 32).to(device)
            labels = torch.randint(0, 10, (8,)).to(device)
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def test_dl001_moves_a_model_where_the_helper_that_builds_it_is_called():
    after = fix(BUILT_BY_HELPER, "DL001")
    assert changed_lines(BUILT_BY_HELPER, after) == [("model = build_model(args)", "model = build_model(args).to(device)")]
    [(_f, report)] = findings(BUILT_BY_HELPER, "DL001")
    assert report.applicability == "unsafe"


def test_dl001_no_helper_fix_when_two_models_come_from_it_or_the_device_comes_later():
    # a teacher from the same helper: which call's model to move is not for us to guess
    twice = BUILT_BY_HELPER.replace("        model = build_model(args)\n",
                                    "        model = build_model(args)\n        teacher = build_model(args)\n")
    flagged = findings(twice, "DL001")
    assert flagged and all(r.edit is None for _f, r in flagged)
    late = BUILT_BY_HELPER.replace(
        '        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', "").replace(
        "        optimizer = torch.optim", '        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
        "        optimizer = torch.optim")
    flagged = findings(late, "DL001")
    assert flagged and all(r.edit is None for _f, r in flagged)


# ----------------------------------------------------------------------------- DL002: dict batches

DICT_BATCH = """
    import numpy as np
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader


    class Tagger(nn.Module):
        def __init__(self, vocab=100, dim=16, tags=5):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.head = nn.Linear(dim, tags)

        def forward(self, input_ids):
            return self.head(self.embed(input_ids))


    def collate(items):
        return {"input_ids": torch.stack([i[0] for i in items]), "tags": torch.stack([i[1] for i in items]),
                "text": [i[2] for i in items]}


    class Runner:
        def __init__(self, model, device):
            self.device = device
            self.model = model.to(device)
            self.optimizer = torch.optim.Adam(self.model.parameters())

        def train_step(self, batch):
            input_ids = batch["input_ids"].to(self.device)
            logits = self.model(input_ids)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), batch["tags"].flatten())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            return loss.item(), batch["text"][0]


    def evaluate(model, loader, device):
        correct = 0
        for batch in loader:
            logits = model(batch["input_ids"].to(device))
            correct += (logits.argmax(-1) == batch["tags"]).sum().item()
        return correct


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        data = [(torch.randint(0, 100, (7,)), torch.randint(0, 5, (7,)), "a sentence") for _ in range(16)]
        loader = DataLoader(data, batch_size=4, collate_fn=collate)
        runner = Runner(Tagger(), device)
        for batch in loader:
            runner.train_step(batch)
        print(evaluate(runner.model, loader, device))
"""


def test_dl002_moves_only_the_flagged_entries_where_the_batch_is_prepared():
    after = fix(DICT_BATCH, "DL002")
    lines = after.splitlines()
    # in the step method: after the code's own move of `input_ids`, to the same `self.device`
    at = lines.index('        input_ids = batch["input_ids"].to(self.device)')
    assert lines[at + 1] == '        batch["tags"] = batch["tags"].to(self.device)'
    # in the evaluation loop: after the loop's own move of `input_ids`
    top = lines.index("    for batch in loader:")
    assert lines[top + 2] == '        batch["tags"] = batch["tags"].to(device)'
    # the strings of the batch are never touched
    assert "batch[\"text\"] = " not in after
    assert findings(after, "DL002") == []
    flagged = findings(DICT_BATCH, "DL002")
    assert len(flagged) == 2 and all(r.applicability == "unsafe" for _f, r in flagged)


def test_dl002_never_moves_a_dict_as_if_it_were_a_tensor():
    # the loader's collate function is out of the inference's sight: `batch` is subscripted
    # with keys, so it is a dict (which has no `.to()`), not a tensor to move whole
    assert "batch = batch.to(device)" not in fix(DICT_BATCH, "DL002")


def test_dl002_entry_at_the_top_of_the_loop_with_the_proven_device_variable():
    # no entry is moved before the flagged line: the top of the loop, `device` proven a device
    plain = DICT_BATCH.replace('            logits = model(batch["input_ids"].to(device))\n'
                               '            correct += (logits.argmax(-1) == batch["tags"]).sum().item()\n',
                               '            correct += (model(batch["input_ids"].to(device)).argmax(-1) == batch["tags"]).sum().item()\n')
    lines = fix(plain, "DL002").splitlines()
    top = lines.index("    for batch in loader:")
    assert lines[top + 1] == '        batch["tags"] = batch["tags"].to(device)'


def test_dl002_no_entry_fix_when_the_entry_goes_to_numpy_or_no_device_is_known():
    numpy = DICT_BATCH.replace("            correct += (logits.argmax(-1) == batch[\"tags\"]).sum().item()\n",
                               "            correct += (logits.argmax(-1) == batch[\"tags\"]).sum().item()\n"
                               "            np.save(\"tags.npy\", np.asarray(batch[\"tags\"]))\n")
    after = fix(numpy, "DL002")
    assert 'batch["tags"] = batch["tags"].to(device)' not in after
    # the step method moves no other entry before the flagged line: `self.device` is not
    # known to be a device there, nor that it can be read at the top of the method
    unmoved = DICT_BATCH.replace('            input_ids = batch["input_ids"].to(self.device)\n', "").replace(
        "            logits = self.model(input_ids)\n", "").replace(
        "cross_entropy(logits.flatten(0, 1),", 'cross_entropy(self.model(batch["input_ids"].to(self.device)).flatten(0, 1),')
    assert findings(unmoved, "DL002")
    after = fix(unmoved, "DL002")
    assert 'batch["tags"] = batch["tags"].to(self.device)' not in after


def test_dl001_a_device_chosen_by_if_else_is_bound_after_it():
    # pytorch/examples style: the device comes from an if/else, bound on both branches
    branches = BUILT_BY_HELPER.replace(
        '        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
        "        if torch.cuda.is_available():\n"
        '            device = torch.device("cuda")\n'
        "        else:\n"
        '            device = torch.device("cpu")\n')
    assert "model = build_model(args).to(device)" in fix(branches, "DL001")
    # bound on one branch only: a run without CUDA has no `device` at the model
    one_branch = branches.replace("        else:\n" '            device = torch.device("cpu")\n', "")
    assert all(r.edit is None for _f, r in findings(one_branch, "DL001"))
