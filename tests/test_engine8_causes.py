"""Issue 20, engine misses (engine8): the blind recall set's misses the engine did not model in
general, each rebuilt here as a different training script of the same shape. Each test fails at
13e68f2 (the start of the engine8 branch); each has a control where the linter stays silent."""

import textwrap

import libcst as cst

from devicelint.contexts import Contexts
from devicelint.engine import lint_file
from devicelint.project import FileView


def make(root, files: dict) -> None:
    (root / "pyproject.toml").write_text("")
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())


def found(path, codes=("DL001", "DL002", "DL003", "DL011")) -> list:
    return sorted((f.code, f.line) for f in lint_file(str(path)) if f.code in codes)


def line_of(path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


# ---------------------------------------------------------------- 0. method contexts: who binds what

EVALUATOR = '''
import torch


class Evaluator:
    """Scores a classifier on a loader; `accuracy` is shared with the notebooks."""

    def __init__(self, num_classes=10):
        self.num_classes = num_classes

    @staticmethod
    def accuracy(model, loader):
        correct = 0
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
        return correct / len(loader.dataset)

    @torch.no_grad()
    def evaluate(self, model, loader):
        model.eval()
        correct = 0
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
        return correct / len(loader.dataset)
'''

EVAL_MAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from evaluator import Evaluator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="mlp.pt")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    test_set = datasets.FashionMNIST("data", train=False, transform=transforms.ToTensor())
    test_loader = DataLoader(test_set, batch_size=256)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
    model.load_state_dict(torch.load(args.checkpoint, map_location=device))
    evaluator = Evaluator()
    acc = evaluator.CALLED(model, test_loader)
    print(f"test accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
'''


def method_context(path, cls_name: str, method: str) -> dict:
    module = cst.parse_module(path.read_text())
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == cls_name)
    fn = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == method)
    return Contexts(FileView(str(path))).method_context(cls, fn)


def test_a_staticmethod_has_no_self_so_its_callers_give_it_no_context(tmp_path):
    # `evaluator.accuracy(model, test_loader)` binds `model` to `model`: at 13e68f2 the
    # arguments were bound one place off (`loader` took the moved model)
    make(tmp_path, {"evaluator.py": EVALUATOR, "main.py": EVAL_MAIN.replace("CALLED", "accuracy")})
    assert method_context(tmp_path / "evaluator.py", "Evaluator", "accuracy") == {}


def test_a_grad_mode_decorated_method_keeps_its_callers_context(tmp_path):
    # `@torch.no_grad()` calls the method with the caller's arguments: the moved model and the
    # host loader meet there (DL002), as in an undecorated method
    make(tmp_path, {"evaluator.py": EVALUATOR, "main.py": EVAL_MAIN.replace("CALLED", "evaluate")})
    path = tmp_path / "evaluator.py"
    assert method_context(path, "Evaluator", "evaluate")["model"][0] == ("module", "moved", "accel")
    assert [c for c, _ in found(path)] == ["DL002"]


def test_a_wrapping_decorator_may_change_what_the_method_is_handed(tmp_path):
    wrapped = EVALUATOR.replace("    @torch.no_grad()\n", "    @log_calls\n").replace(
        "import torch\n", "import functools\n\nimport torch\n\n\ndef log_calls(fn):\n"
        "    @functools.wraps(fn)\n    def run(self, *args):\n        return fn(self, *args[1:])\n    return run\n", 1)
    make(tmp_path, {"evaluator.py": wrapped, "main.py": EVAL_MAIN.replace("CALLED", "evaluate")})
    assert method_context(tmp_path / "evaluator.py", "Evaluator", "evaluate") == {}


BASE_TRAINER = '''
class BaseTrainer:
    """The loop; subclasses say what one step is."""

    def fit(self, model, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                self.train_step(model, batch)

    def train_step(self, model, batch):
        raise NotImplementedError
'''

CLS_TRAINER = '''
import torch.nn.functional as F

from base import BaseTrainer


class ClassifierTrainer(BaseTrainer):
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def train_step(self, model, batch):
        images, labels = batch
        self.optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()
'''

CLS_MAIN = '''
import torch
import torch.nn as nn

from trainer import ClassifierTrainer


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10)).to(device)
    trainer = ClassifierTrainer(torch.optim.SGD(model.parameters(), lr=0.1))
    warmup = (torch.randn(8, 1, 28, 28, device=device), torch.randint(0, 10, (8,), device=device))
    trainer.train_step(model, warmup)


if __name__ == "__main__":
    main()
'''


def test_a_method_the_base_class_calls_through_self_has_no_context(tmp_path):
    # BaseTrainer.fit calls `self.train_step(model, batch)` with what `fit` is handed: the one
    # call site of an instance (a warm-up step) is not every call
    make(tmp_path, {"base.py": BASE_TRAINER, "trainer.py": CLS_TRAINER, "main.py": CLS_MAIN})
    assert method_context(tmp_path / "trainer.py", "ClassifierTrainer", "train_step") == {}


def test_a_class_subclassed_in_the_project_has_no_context(tmp_path):
    # the base's `train_step` is reached from a subclass's instances through `self` too
    base = BASE_TRAINER.replace("        raise NotImplementedError\n", "        images, labels = batch\n        return model(images)\n")
    sub = "from base import BaseTrainer\n\n\nclass LoggingTrainer(BaseTrainer):\n    pass\n"
    main = CLS_MAIN.replace("from trainer import ClassifierTrainer", "from base import BaseTrainer").replace(
        "ClassifierTrainer(torch.optim.SGD(model.parameters(), lr=0.1))", "BaseTrainer()")
    make(tmp_path, {"base.py": base, "sub.py": sub, "main.py": main})
    assert method_context(tmp_path / "base.py", "BaseTrainer", "train_step") == {}
