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


# ---------------------------------------------------------------- 1. dict batches moved key by key

RETRIEVAL = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from transformers import AutoModel, AutoTokenizer

from captions import CaptionImageDataset


class DualEncoder(nn.Module):
    def __init__(self, text_name, embed_dim=256):
        super().__init__()
        self.text = AutoModel.from_pretrained(text_name)
        self.image = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.text_proj = nn.Linear(self.text.config.hidden_size, embed_dim)
        self.image_proj = nn.Linear(32, embed_dim)

    def forward(self, batch):
        tokens = batch["caption"]
        pixels = batch["image"]
        t = self.text_proj(self.text(**tokens).last_hidden_state[:, 0])
        v = self.image_proj(self.image(pixels))
        return F.normalize(t, dim=-1), F.normalize(v, dim=-1)


def contrastive(t, v, temperature=0.07):
    logits = t @ v.t() / temperature
    target = torch.arange(len(t), device=t.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2


class BaseTrainer:
    def __init__(self, model, optimizer):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.optimizer = optimizer


class Trainer(BaseTrainer):
    def __init__(self, model, optimizer, tokenizer, train_loader, val_loader):
        super().__init__(model, optimizer)
        self.tokenizer = tokenizer
        self.train_loader = train_loader
        self.val_loader = val_loader

    def train_epoch(self):
        self.model.train()
        for batch in self.train_loader:
            if self.tokenizer is not None:
                batch["caption"] = self.tokenizer(batch["caption"], return_tensors="pt", padding=True)
            batch["caption"] = {k: x.to(self.device) for k, x in batch["caption"].items()}
            batch["image"] = batch["image"].to(self.device)
            t, v = self.model(batch)
            loss = contrastive(t, v)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for batch in self.val_loader:
            if self.tokenizer is not None:
                batch["caption"] = self.tokenizer(batch["caption"], return_tensors="pt", padding=True)
            batch["caption"] = {k: x.to(self.device) for k, x in batch["caption"].items()}
            t, v = self.model(batch)
            total += contrastive(t, v).item()
        return total / len(self.val_loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--text-model", default="bert-base-uncased")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.text_model)
    train_loader = DataLoader(CaptionImageDataset("train"), batch_size=64, shuffle=True)
    val_loader = DataLoader(CaptionImageDataset("val"), batch_size=64)
    model = DualEncoder(args.text_model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    trainer = Trainer(model, optimizer, tokenizer, train_loader, val_loader)
    for epoch in range(args.epochs):
        trainer.train_epoch()
        print(epoch, trainer.validate())


if __name__ == "__main__":
    main()
'''

VALIDATE_CALL = "            t, v = self.model(batch)\n            total +="


def test_a_dict_batch_whose_forward_reads_a_key_left_on_the_host_meets_the_model(tmp_path):
    # validate() moves batch["caption"] only; DualEncoder.forward reads batch["image"] too, and
    # the model was moved in the base class's __init__ (reached through super().__init__):
    # DL002 at the call (silent at 13e68f2: a batch with one key rebound was unknown, and
    # super().__init__ was not followed, so self.model was unknown)
    make(tmp_path, {"train.py": RETRIEVAL})
    path = tmp_path / "train.py"
    assert found(path) == [("DL002", line_of(path, "total += contrastive") - 1)]


def test_the_batch_moved_key_by_key_everywhere_is_clean(tmp_path):
    fixed = RETRIEVAL.replace(VALIDATE_CALL, "            batch[\"image\"] = batch[\"image\"].to(self.device)\n" + VALIDATE_CALL)
    make(tmp_path, {"train.py": fixed})
    assert found(tmp_path / "train.py") == []


def test_a_forward_that_hands_the_dict_on_leaves_the_call_silent(tmp_path):
    # which keys `self.encode` reads we do not follow: the partly moved dict stays unknown
    handed = RETRIEVAL.replace('''    def forward(self, batch):
        tokens = batch["caption"]''', '''    def forward(self, batch):
        return self.encode(batch)

    def encode(self, batch):
        tokens = batch["caption"]''')
    make(tmp_path, {"train.py": handed})
    assert found(tmp_path / "train.py") == []


def test_a_forward_that_moves_what_it_reads_or_reads_lengths_leaves_the_call_silent(tmp_path):
    moves = RETRIEVAL.replace('        pixels = batch["image"]\n', '        pixels = batch["image"].to(self.image_proj.weight.device)\n')
    make(tmp_path, {"train.py": moves})
    assert found(tmp_path / "train.py") == []
    lengths = RETRIEVAL.replace('batch["image"]', 'batch["image_lengths"]')
    make(tmp_path, {"train.py": lengths})
    assert found(tmp_path / "train.py") == []


PAIRS = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from pairs import PairDataset


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    query_net = nn.Linear(16, 8).to(device)
    doc_net = nn.Linear(32, 8).to(device)
    loader = DataLoader(PairDataset("train.jsonl"), batch_size=32, shuffle=True)
    optimizer = torch.optim.Adam([*query_net.parameters(), *doc_net.parameters()], lr=1e-3)
    for batch in loader:
        batch["query"] = batch["query"].to(device)
        q = query_net(batch["query"])
        d = doc_net(batch["doc"])
        loss = -torch.log_softmax(q @ d.t(), dim=1).diag().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(batch["id"], loss.item())


if __name__ == "__main__":
    main()
'''


def test_a_key_read_after_another_key_was_moved_is_still_the_host_batch(tmp_path):
    make(tmp_path, {"train.py": PAIRS})
    path = tmp_path / "train.py"
    assert found(path) == [("DL002", line_of(path, 'd = doc_net(batch["doc"])'))]
    both = PAIRS.replace('        batch["query"] = batch["query"].to(device)\n',
                         '        batch["query"] = batch["query"].to(device)\n        batch["doc"] = batch["doc"].to(device)\n')
    make(tmp_path, {"train.py": both})
    assert found(path) == []


# ---------------------------------------------------------------- 2. super() in plain classes


def test_super_init_of_a_plain_base_class_sets_what_the_subclass_reads(tmp_path):
    # the model moved in BaseTrainer.__init__ is the one train_epoch meets: a loader that is
    # never moved meets it (DL002); at 13e68f2 `self.model` was unknown there
    unmoved = RETRIEVAL.replace('            batch["image"] = batch["image"].to(self.device)\n', "").replace(
        '            batch["caption"] = {k: x.to(self.device) for k, x in batch["caption"].items()}\n', "")
    make(tmp_path, {"train.py": unmoved})
    path = tmp_path / "train.py"
    calls = [i for i, ln in enumerate(path.read_text().splitlines(), 1) if "t, v = self.model(batch)" in ln]
    assert [ln for code, ln in found(path) if code == "DL002"] == calls


# ---------------------------------------------------------------- 3. where a replaced layer is reported

FINETUNE = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def train_epoch(model, loader, criterion, optimizer, device):
    model.train()
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="flowers/train")
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
    loader = DataLoader(datasets.ImageFolder(args.data, transform=tf), batch_size=32, shuffle=True)
    model = models.resnet50(weights="IMAGENET1K_V2").to(device)
    model.fc = nn.Linear(model.fc.in_features, 102)
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(args.epochs):
        train_epoch(model, loader, nn.CrossEntropyLoss(), optimizer, device)


if __name__ == "__main__":
    main()
'''


def test_a_layer_replaced_after_the_move_is_reported_where_the_model_runs(tmp_path):
    # the model handed to train_epoch was moved: what fails is the call that runs the new
    # host layer (at 13e68f2 the finding sat on the `train_epoch(...)` call that hands it in)
    make(tmp_path, {"finetune.py": FINETUNE})
    path = tmp_path / "finetune.py"
    assert found(path) == [("DL001", line_of(path, "loss = criterion(model(images), labels)"))]
    before = FINETUNE.replace("    model = models.resnet50(weights=\"IMAGENET1K_V2\").to(device)\n"
                              "    model.fc = nn.Linear(model.fc.in_features, 102)\n",
                              "    model = models.resnet50(weights=\"IMAGENET1K_V2\")\n"
                              "    model.fc = nn.Linear(model.fc.in_features, 102)\n    model.to(device)\n")
    make(tmp_path, {"finetune.py": before})
    assert found(path) == []


# ---------------------------------------------------------------- 4. layers in a plain list, in a library's module

NECK = '''
"""Feature pyramid neck for the detector; built from the config by the training tools."""
import torch.nn as nn
import torch.nn.functional as F


class ContextFPN(nn.Module):
    def __init__(self, in_channels, out_channels, num_context_convs=2):
        super().__init__()
        self.lateral_convs = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])
        self.output_convs = nn.ModuleList([nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels])
        self.context = []
        for _ in range(num_context_convs):
            self.context.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))
            self.context.append(nn.ReLU(inplace=True))

    def forward(self, features):
        laterals = [conv(f) for conv, f in zip(self.lateral_convs, features)]
        top = laterals[-1]
        for layer in self.context:
            top = layer(top)
        laterals[-1] = top
        for i in range(len(laterals) - 1, 0, -1):
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], scale_factor=2, mode="nearest")
        return [conv(x) for conv, x in zip(self.output_convs, laterals)]
'''


def test_layers_kept_in_a_plain_list_by_a_module_nobody_builds_here(tmp_path):
    # a library module (the training tools build and move it): the plain list's layers stay
    # behind when it is moved (at 13e68f2 only a file that moved the module itself was flagged)
    make(tmp_path, {"necks.py": NECK})
    path = tmp_path / "necks.py"
    assert found(path) == [("DL001", line_of(path, "top = layer(top)"))]


def test_a_plain_list_module_built_and_run_on_the_host_here_is_silent(tmp_path):
    script = NECK + '''

if __name__ == "__main__":
    import torch

    neck = ContextFPN([64, 128], 32)
    outs = neck([torch.randn(1, 64, 32, 32), torch.randn(1, 128, 16, 16)])
    print([o.shape for o in outs])
'''
    make(tmp_path, {"necks.py": script})
    assert found(tmp_path / "necks.py") == []
