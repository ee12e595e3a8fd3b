"""Issue 20's review findings on the engine (2026-11-26): library knowledge that sat in rules and
flow/ now read from devicelint/knowledge/, each with the behaviour it changes pinned on a
realistic script.

- DL011's Lightning step test asked for the literal "LightningModule" in a base's name; it now
  asks knowledge (`kb.base_class(...).framework`, Lightning's base list) and follows the file's
  own intermediate base classes (`class Classifier(BaseModel)`, `class BaseModel(pl.LightningModule)`);
- flow/methods.py's `_JOINS` (a subset of `torch_core.JOINS`) and `_META_READS` are the
  knowledge tables `torch_core.JOINS` / `torch_core.META_READS`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from devicelint import knowledge as kb
from inference_cases import expected, findings_at

PACKAGE = Path(kb.__file__).resolve().parent.parent


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of a module's code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_rule_or_engine_module_spells_a_lightning_base_class_name():
    # which classes are Lightning's is knowledge/lightning.py's to say
    found = [f"{p.relative_to(PACKAGE)}:{line}" for p in sorted(PACKAGE.rglob("*.py"))
             if "knowledge" not in p.parts for line, s in _code_strings(p) if s == "LightningModule"]
    assert not found


def test_flow_reads_joins_and_meta_reads_from_knowledge():
    text = (PACKAGE / "flow" / "methods.py").read_text(encoding="utf-8")
    assert "_JOINS" not in text and "_META_READS" not in text
    assert {"dstack", "column_stack", "row_stack"} <= set(kb.torch_core.JOINS)
    assert {"size", "shape", "device", "dtype"} <= set(kb.torch_core.META_READS)


LIT_CLASSIFIER = '''
import argparse

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class BaseModel(pl.LightningModule):
    def __init__(self, lr):
        super().__init__()
        self.lr = lr

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Classifier(BaseModel):
    def __init__(self, n_features, n_classes, lr=1e-3):
        super().__init__(lr)
        self.net = nn.Sequential(nn.Linear(n_features, 128), nn.ReLU(), nn.Linear(128, n_classes))
        self.n_classes = n_classes

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        weights = torch.ones(self.n_classes)
        loss = F.cross_entropy(logits, y, weight=weights)  # <- DL011
        self.log("train_loss", loss)
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    data = TensorDataset(torch.randn(1024, 20), torch.randint(0, 3, (1024,)))
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=args.epochs)
    trainer.fit(Classifier(20, 3), DataLoader(data, batch_size=64, shuffle=True))


if __name__ == "__main__":
    main()
'''


def test_a_step_of_a_class_deriving_from_the_files_own_lightning_base_is_run_on_the_device():
    assert findings_at(LIT_CLASSIFIER, ["DL011"]) == expected(LIT_CLASSIFIER)


def test_control_the_same_step_on_a_plain_module_base_decides_nothing():
    src = LIT_CLASSIFIER.replace("class BaseModel(pl.LightningModule):", "class BaseModel(nn.Module):").replace(
        "  # <- DL011", "")
    assert findings_at(src, ["DL011"]) == set()


def test_control_the_step_building_its_weights_on_the_batch_device_is_clean():
    src = LIT_CLASSIFIER.replace("torch.ones(self.n_classes)", "torch.ones(self.n_classes, device=x.device)").replace(
        "  # <- DL011", "")
    assert findings_at(src, ["DL011"]) == set()
