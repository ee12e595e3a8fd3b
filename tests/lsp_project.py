"""The realistic little project the language server's tests and its latency benchmark use:
a model module and a training script that imports it (argparse, a DataLoader, a loop), and a
1,000-line training script made of the fixture scripts."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODELS = '''\
"""Models for the classifier."""
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, classes),
        )

    def forward(self, x):
        return self.body(x)
'''

TRAIN = '''\
"""Train a small classifier on random features and report its accuracy."""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models import Classifier


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=32)
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = torch.randn(512, 20)
    labels = torch.randint(0, 4, (512,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=args.batch_size, shuffle=True)

    model = Classifier(20, 64, 4){move}
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    class_weights = torch.tensor([1.0, 2.0, 1.0, 1.0]).cuda()
    loss_fn = nn.CrossEntropyLoss(weight=class_weights)

    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {{epoch}}: loss {{loss.item():.4f}}")

    with torch.no_grad():
        logits = model(features.to(device))
        predictions = logits.argmax(dim=1).numpy()
    accuracy = np.mean(predictions == labels.numpy())
    print(f"accuracy: {{accuracy:.3f}}")


if __name__ == "__main__":
    main()
'''
MOVED = TRAIN.format(move=".to(device)")  # DL003 (safe fix) on line 43, DL007 (unsafe) on 29
UNMOVED = TRAIN.format(move="")  # the model is never moved: DL001 where it is called
# models.py edited so that its class places itself: the script's model is no longer unmoved
PLACED = MODELS.replace("import torch.nn as nn", "import torch\nimport torch.nn as nn").replace(
    "            nn.Linear(hidden, classes),\n        )\n",
    "            nn.Linear(hidden, classes),\n        )\n        self.to(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n")


def large_script(lines: int = 1000) -> str:
    """About `lines` lines of training code made of realistic functions: the fixture scripts'
    functions and classes as they are, each script's top-level statements wrapped in a
    function of their own (`run_<script>`), the imports gathered at the top."""
    imports, parts, total = {}, [], 0
    for path in sorted(ROOT.glob("fixtures/DL*/*.py")):
        text = path.read_text()
        if "from __future__" in text:
            continue
        src = text.splitlines()
        body = []
        for node in ast.parse(text).body:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            chunk = src[first - 1:node.end_lineno]
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.update(dict.fromkeys(chunk))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                parts.append("\n".join(chunk) + "\n\n\n")
            elif not (isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)):
                body.extend("    " + line if line.strip() else "" for line in chunk)
        if body:
            name = re.sub(r"\W", "_", f"{path.parent.name}_{path.stem}").lower()
            parts.append(f"def run_{name}():\n" + "\n".join(body) + "\n\n\n")
        total = sum(p.count("\n") for p in parts) + len(imports)
        if total >= lines:
            break
    out = "\n".join(imports) + "\n\n\n" + "".join(parts)
    compile(out, "large.py", "exec")
    return out
