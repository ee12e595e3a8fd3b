"""Fix objects cost no more than they must: a fix inside a function is read off a rewrite of
that function, not of the whole module, and the editor's lint builds no fix until a code
action asks (`analyse(..., deferred=[])`); either way the fix is the one `--fix` applies."""

from devicelint import edits
from devicelint.engine import analyse, lint_source
from devicelint.fix import fix_source

# A training script the way users write one: argparse, a model class, a train function whose
# loop forgets to move the inputs (DL002: its fix inserts a line at the loop's top, a block
# LibCST renders at its own indentation), an eval function with `.numpy()` on a device tensor.
SCRIPT = '''"""Train a small classifier on synthetic features."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, width: int, classes: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, classes))

    def forward(self, x):
        return self.body(x)


def train(model, loader, device, epochs):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for epoch in range(epochs):
        for inputs, targets in loader:
            targets = targets.to(device)
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def evaluate(model, features, device):
    model.eval()
    with torch.no_grad():
        logits = model(features.to(device))
    return logits.argmax(dim=1).numpy()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--width", type=int, default=64)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features, labels = torch.randn(256, 32), torch.randint(0, 4, (256,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True,
                        pin_memory=torch.cuda.is_available())
    model = Classifier(args.width, 4).to(device)
    train(model, loader, device, args.epochs)
    print(evaluate(model, features, device))


if __name__ == "__main__":
    main()
'''


def apply_fix(text: str, fix: dict) -> str:
    """The text with a fix object's edits (1-based lines and character columns) applied."""
    lines = text.splitlines(keepends=True)

    def offset(line, column):
        return sum(len(x) for x in lines[:line - 1]) + column - 1

    for e in sorted(fix["edits"], key=lambda e: (e["line"], e["column"]), reverse=True):
        lo, hi = offset(e["line"], e["column"]), offset(e["end_line"], e["end_column"])
        text = text[:lo] + e["content"] + text[hi:]
    return text


def test_a_fix_inside_a_function_is_read_off_that_function_not_the_whole_module(monkeypatch):
    rewrites = []
    whole = edits.FixBuilder._by_rewrite
    monkeypatch.setattr(edits.FixBuilder, "_by_rewrite",
                        lambda self, *a: rewrites.append(a) or whole(self, *a))
    [batch] = [f for f in lint_source(SCRIPT, "train.py") if f.code == "DL002"]
    assert rewrites == []  # no codegen of the whole module for it
    assert batch.fix["applicability"] == "unsafe"
    assert batch.fix["edits"][0]["line"] == 24  # the top of the inner loop's body
    fixed = apply_fix(SCRIPT, batch.fix)
    assert fixed.encode() == fix_source(SCRIPT.encode(), "train.py", select=["DL002"], unsafe=True)[0]
    assert "        for inputs, targets in loader:\n            inputs = inputs.to(device)\n" in fixed


def test_a_deferred_lint_builds_no_fix_until_asked_and_then_the_same_one(monkeypatch):
    eager = analyse(SCRIPT, "train.py")[0]
    built = []
    build = edits.FixBuilder.build
    monkeypatch.setattr(edits.FixBuilder, "build", lambda self, *a, **k: built.append(a) or build(self, *a, **k))
    deferred = []
    pairs, _module = analyse(SCRIPT, "train.py", deferred=deferred)
    assert [f for f, _r in pairs] == [f for f, _r in eager]
    assert {f.code for f, _r in pairs} >= {"DL002", "DL003"}
    assert all(f.fix is None for f, _r in pairs) and built == []
    [fixer] = deferred
    assert [fixer(r) for _f, r in pairs] == [f.fix for f, _r in eager]
    assert any(f.fix for f, _r in eager)


def test_a_deferred_lint_of_a_clean_file_leaves_no_fixer():
    deferred = []
    clean = SCRIPT.replace("            outputs = model(inputs)", "            outputs = model(inputs.to(device))")
    clean = clean.replace(".argmax(dim=1).numpy()", ".argmax(dim=1).cpu().numpy()")
    assert analyse(clean, "train.py", deferred=deferred)[0] == [] and deferred == []


# The same warm-up loop twice, each under the same long comment (a script pasted together
# from a notebook): the fix of each finding must edit its own loop, not the nearest copy.
TWICE = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,))), batch_size=8)
model = nn.Linear(8, 2).to(device)
criterion = nn.CrossEntropyLoss()
''' + '''
# Warm-up pass over the data before the timed run. This loop is kept exactly the same as
# the one below on purpose, so that the two runs can be compared line by line afterwards.
for epoch in range(2):
    for inputs, targets in loader:
        loss = criterion(model(inputs), targets.to(device))
''' * 2


def test_each_of_two_identical_loops_gets_the_fix_of_its_own_finding():
    found = [f for f in lint_source(TWICE, "warmup.py") if f.code == "DL002"]
    assert [f.line for f in found] == [14, 20]
    for finding in found:
        [edit] = finding.fix["edits"]
        assert (edit["line"], edit["column"]) == (finding.line, 9)  # the top of its own inner loop
        assert edit["content"] == "inputs = inputs.to(device)\n        "
