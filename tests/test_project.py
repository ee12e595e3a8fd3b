"""Project-wide inference: models, factories and helpers imported from other files."""

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_file, lint_source

MODELS = '''
import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))) + x


class ResNetLike(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.blocks = nn.Sequential(BasicBlock(16), BasicBlock(16))
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


def build_model(cfg, device):
    model = ResNetLike(cfg.num_classes)
    model.to(device)
    return model


def build_model_on_host(cfg):
    model = ResNetLike(cfg.num_classes)
    model.eval()
    return model
'''

UTILS = '''
import torch
import torch.nn as nn
import numpy as np


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device(v, device) for v in batch]
    return batch


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def setup(model, device):
    model.to(device)
'''

TRAIN = '''
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import ResNetLike
from utils import count_parameters, get_device


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    device = get_device()
    model = ResNetLike(num_classes=10)
    print(f"{count_parameters(model)} parameters")
    data = TensorDataset(torch.randn(64, 3, 8, 8), torch.randint(0, 10, (64,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def make(root: Path, files: dict) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def found(path: Path):
    return [(f.code, f.line) for f in lint_file(str(path))]


def line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_model_class_from_models_py_never_moved_is_flagged(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN})
    train = tmp_path / "train.py"
    assert found(train) == [("DL001", line_of(train, "F.cross_entropy(model(images)"))]


def test_the_same_model_moved_is_clean(tmp_path):
    moved = TRAIN.replace("model = ResNetLike(num_classes=10)", "model = ResNetLike(num_classes=10).to(device)")
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": moved})
    assert found(tmp_path / "train.py") == []


def test_without_the_imported_file_the_model_is_unknown(tmp_path):
    infer = """
        import torch
        from models import ResNetLike

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = ResNetLike(num_classes=10)
        with torch.no_grad():
            logits = model(torch.randn(1, 3, 8, 8, device=device))
        """
    make(tmp_path, {"pyproject.toml": "", "infer.py": infer})
    # ResNetLike is something we cannot see: we stay silent
    assert found(tmp_path / "infer.py") == []
    make(tmp_path, {"models.py": MODELS})
    assert found(tmp_path / "infer.py") == [("DL001", 7)]


def test_factory_returning_a_moved_model(tmp_path):
    train = TRAIN.replace("from models import ResNetLike", "from models import build_model").replace(
        "model = ResNetLike(num_classes=10)", "model = build_model(args, device)"
    )
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": train})
    assert found(tmp_path / "train.py") == []
    # the model is on the device now: a batch that is not moved meets it
    unmoved = train.replace("            images, labels = images.to(device), labels.to(device)\n", "")
    (tmp_path / "train.py").write_text(textwrap.dedent(unmoved).lstrip("\n"))
    path = tmp_path / "train.py"
    # `model(images)` and `cross_entropy(..., labels)` both meet the device on that line
    assert set(found(path)) == {("DL002", line_of(path, "F.cross_entropy(model(images)"))}


def test_factory_returning_a_host_model_is_flagged(tmp_path):
    train = TRAIN.replace("from models import ResNetLike", "from models import build_model_on_host").replace(
        "model = ResNetLike(num_classes=10)", "model = build_model_on_host(args)"
    )
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": train})
    path = tmp_path / "train.py"
    assert found(path) == [("DL001", line_of(path, "F.cross_entropy(model(images)"))]


def test_to_device_helper_moves_the_batch(tmp_path):
    train = TRAIN.replace("from utils import count_parameters, get_device", "from utils import get_device, to_device").replace(
        '    print(f"{count_parameters(model)} parameters")\n', ""
    ).replace("images, labels = images.to(device), labels.to(device)", "images, labels = to_device((images, labels), device)")
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": train})
    path = tmp_path / "train.py"
    # the batch counts as moved, so the model that is not moved is the bug
    assert found(path) == [("DL001", line_of(path, "F.cross_entropy(model(images)"))]
    moved = train.replace("model = ResNetLike(num_classes=10)", "model = ResNetLike(num_classes=10).to(device)")
    path.write_text(textwrap.dedent(moved).lstrip("\n"))
    assert found(path) == []  # no DL002: the helper moved the batch


def test_dict_batch_through_to_device_helper(tmp_path):
    files = {
        "pyproject.toml": "",
        "utils.py": UTILS,
        "finetune.py": '''
            import torch
            from transformers import AutoModelForSequenceClassification
            from utils import to_device

            def train(loader, epochs=1):
                device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
                optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
                for _ in range(epochs):
                    for batch in loader:
                        batch = to_device(batch, device)
                        outputs = model(**batch)
                        outputs.loss.backward()
                        optimizer.step()
            ''',
    }
    make(tmp_path, files)
    path = tmp_path / "finetune.py"
    assert found(path) == [("DL001", line_of(path, "outputs = model(**batch)"))]


def test_helpers_that_read_or_move_the_model(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN})
    path = tmp_path / "train.py"
    # count_parameters only reads the model: the finding stays (see the first test); a helper
    # that moves the model silences it
    text = path.read_text().replace("from utils import count_parameters, get_device", "from utils import get_device, setup")
    text = text.replace('print(f"{count_parameters(model)} parameters")', "setup(model, device)")
    path.write_text(text)
    assert found(path) == []


def test_star_import_brings_torch_into_scope(tmp_path):
    files = {
        "pyproject.toml": "",
        "common.py": '''
            import torch
            import torch.nn as nn
            import numpy as np

            SEED = 0
            ''',
        "train.py": '''
            from common import *

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
            x = torch.randn(16, 32, device=device)
            logits = model(x)
            with torch.cuda.amp.autocast():
                loss = logits.sum()
            ''',
    }
    make(tmp_path, files)
    path = tmp_path / "train.py"
    assert found(path) == [("DL001", 6), ("DL005", 7)]


def test_relative_imports_inside_a_package(tmp_path):
    files = {
        "setup.py": "",
        "detector/__init__.py": "from .model import Detector\n",
        "detector/model.py": '''
            from torch import nn

            class Backbone(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)

            class Detector(Backbone):
                def forward(self, x):
                    return self.conv(x)
            ''',
        "detector/engine.py": '''
            import torch
            from . import model as models
            from .model import Detector

            def run(images, device):
                net = Detector()
                return net(images.to(device))

            def run_module_attr(images, device):
                net = models.Detector()
                return net(images.to(device))
            ''',
        "infer.py": '''
            import torch
            import detector.model as m
            from detector import Detector

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            a = m.Detector()
            b = Detector().to(device)
            x = torch.randn(1, 3, 32, 32, device=device)
            a(x)
            b(x)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "detector" / "engine.py") == [("DL001", 7), ("DL001", 11)]
    assert found(tmp_path / "infer.py") == [("DL001", 9)]


def test_src_layout(tmp_path):
    files = {
        "pyproject.toml": "[project]\nname = 'segment'\n",
        "src/segment/__init__.py": "",
        "src/segment/nets.py": '''
            import torch.nn as nn

            class UNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.down = nn.Conv2d(1, 4, 3)
            ''',
        "scripts/train.py": '''
            import torch
            from segment.nets import UNet

            device = "cuda" if torch.cuda.is_available() else "cpu"
            net = UNet()
            out = net(torch.zeros(1, 1, 16, 16, device=device))
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "scripts" / "train.py") == [("DL001", 6)]


def test_local_class_with_a_base_from_another_file(tmp_path):
    files = {
        "pyproject.toml": "",
        "base.py": '''
            import torch.nn as nn

            class BaseModel(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = nn.Linear(8, 8)
            ''',
        "train.py": '''
            import torch
            from base import BaseModel

            class Classifier(BaseModel):
                def forward(self, x):
                    return self.encoder(x)

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            clf = Classifier()
            clf(torch.randn(2, 8, device=device))
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == [("DL001", 10)]


def test_dataset_from_another_file_that_moves_its_items_is_not_a_host_loader(tmp_path):
    files = {
        "pyproject.toml": "",
        "data.py": '''
            import torch
            from torch.utils.data import Dataset

            class GPUDataset(Dataset):
                def __init__(self, x, device):
                    self.x = x.to(device)

                def __len__(self):
                    return len(self.x)

                def __getitem__(self, i):
                    return self.x[i]
            ''',
        "train.py": '''
            import torch
            from torch.utils.data import DataLoader
            from data import GPUDataset

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model = torch.nn.Linear(4, 2).to(device)
            loader = DataLoader(GPUDataset(torch.randn(8, 4), device), batch_size=2)
            for x in loader:
                model(x)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []


def test_import_cycle_does_not_crash(tmp_path):
    files = {
        "pyproject.toml": "",
        "a.py": '''
            import torch
            from b import *

            class A(B):
                pass

            def make():
                return make_b()
            ''',
        "b.py": '''
            import torch
            from a import *

            class B(A):
                pass

            def make_b():
                return make()
            ''',
        "train.py": '''
            import torch
            from a import A, make

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            x = torch.randn(2, 2, device=device)
            A()(x)
            make()(x)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []
    assert found(tmp_path / "a.py") == []


def test_missing_module_and_dynamic_import_are_silent(tmp_path):
    files = {
        "pyproject.toml": "",
        "train.py": '''
            import importlib
            import torch
            from nowhere import Net
            from .also_missing import Other

            models = importlib.import_module("models")
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            x = torch.randn(2, 2, device=device)
            Net()(x)
            Other()(x)
            models.Net()(x)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []


def test_syntax_error_in_an_imported_file(tmp_path):
    files = {
        "pyproject.toml": "",
        "models.py": "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self)\n        pass\n",
        "train.py": '''
            import torch
            from models import Net

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            Net()(torch.randn(2, 2, device=device))
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []
    assert [f[0] for f in found(tmp_path / "models.py")] == ["DL000"]
    r = CliRunner().invoke(cli, [str(tmp_path), "--no-cache", "--output-format", "json"])
    assert [(Path(f["path"]).name, f["code"]) for f in json.loads(r.output)] == [("models.py", "DL000")]


def _cli(args):
    r = CliRunner().invoke(cli, [*args, "--output-format", "json"], catch_exceptions=False)
    return [(Path(f["path"]).name, f["line"], f["code"]) for f in json.loads(r.output)]


def test_cache_is_invalidated_when_an_imported_file_changes(tmp_path, monkeypatch):
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN})
    monkeypatch.chdir(tmp_path)
    bug = [("train.py", line_of(tmp_path / "train.py", "F.cross_entropy(model(images)"), "DL001")]
    assert _cli(["train.py"]) == bug
    assert _cli(["train.py"]) == bug  # warm
    # the class now places itself: the importer's finding must go, warm cache or not
    models = tmp_path / "models.py"
    models.write_text(models.read_text().replace(
        "        self.head = nn.Linear(16, num_classes)\n",
        "        self.head = nn.Linear(16, num_classes)\n        self.to('cuda' if torch.cuda.is_available() else 'cpu')\n",
    ))
    assert _cli(["train.py"]) == [] == _cli(["train.py", "--no-cache"])
    # and back
    models.write_text(textwrap.dedent(MODELS).lstrip("\n"))
    assert _cli(["train.py"]) == bug
    # a module that did not exist appears: what was unknown becomes known
    (tmp_path / "helpers.py").write_text("import torch.nn as nn\nclass Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n")
    (tmp_path / "infer.py").write_text(
        "import torch\nfrom helpers2 import Head\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nHead()(torch.randn(2, 2, device=device))\n"
    )
    assert _cli(["infer.py"]) == []
    (tmp_path / "helpers.py").rename(tmp_path / "helpers2.py")
    assert _cli(["infer.py"]) == [("infer.py", 4, "DL001")] == _cli(["infer.py", "--no-cache"])


def test_an_edit_that_keeps_the_summary_keeps_the_cached_result(tmp_path, monkeypatch):
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN})
    monkeypatch.chdir(tmp_path)
    first = _cli(["train.py"])
    entries = sorted(p for p in (tmp_path / ".devicelint_cache").rglob("*.json") if "summaries" not in p.parts)
    (tmp_path / "models.py").write_text((tmp_path / "models.py").read_text() + "\n# a comment changes nothing\n")
    assert _cli(["train.py"]) == first
    after = sorted(p for p in (tmp_path / ".devicelint_cache").rglob("*.json") if "summaries" not in p.parts)
    assert after == entries  # no new result entry: the dependency key did not change


def test_one_file_alone_gives_what_the_whole_folder_gives(tmp_path, monkeypatch):
    files = {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN,
             "eval.py": TRAIN.replace("from models import ResNetLike", "from models import build_model_on_host").replace(
                 "model = ResNetLike(num_classes=10)", "model = build_model_on_host(args)")}
    make(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    whole = _cli([".", "--no-cache", "--jobs", "1"])
    assert {name for name, _, _ in whole} == {"train.py", "eval.py"}
    for name in ("train.py", "eval.py", "models.py", "utils.py"):
        alone = _cli([name, "--no-cache"])
        assert alone == [f for f in whole if f[0] == name]
        assert _cli([name]) == alone  # through the cache (pre-commit runs) too


def test_a_class_that_builds_its_layers_on_a_device_is_not_a_host_model(tmp_path):
    files = {
        "pyproject.toml": "",
        "models.py": '''
            import torch
            import torch.nn as nn

            DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

            class Probe(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 2, device=DEVICE)
            ''',
        "train.py": '''
            import torch
            from models import DEVICE, Probe

            probe = Probe()
            probe(torch.randn(4, 8, device=DEVICE))
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []


def test_damaged_summary_cache_entries_are_recomputed(tmp_path, monkeypatch):
    from devicelint import project

    monkeypatch.setattr(project, "_stores", {})  # a fresh run: summaries come from disk
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "utils.py": UTILS, "train.py": TRAIN})
    monkeypatch.chdir(tmp_path)
    first = _cli(["train.py"])
    assert first
    summaries = list((tmp_path / ".devicelint_cache" / "summaries").rglob("*.json"))
    assert len(summaries) == 3  # models.py, utils.py, and train.py itself (its call sites: contexts.py)
    for damage in ("{not json", "[]", '{"s": {"v": 1}, "h": "x"}', '{"h": 3}', '{"s": {"v": 1, "imports": 2}, "h": "y"}'):
        for p in summaries:
            p.write_text(damage)
        # the result entries go too, so the summaries are read again
        for p in (tmp_path / ".devicelint_cache").glob("??/*.json"):
            p.unlink()
        monkeypatch.setattr(project, "_stores", {})
        assert _cli(["train.py"]) == first


def test_star_imports_through_a_models_package(tmp_path):
    # the layout of many CIFAR repositories: main.py does `from models import *`, and
    # models/__init__.py re-exports every architecture with star imports
    files = {
        ".git/HEAD": "ref: refs/heads/main\n",
        "models/__init__.py": "from .vgg import *\nfrom .resnet import *\n",
        "models/vgg.py": '''
            import torch.nn as nn

            class VGG(nn.Module):
                def __init__(self, name):
                    super().__init__()
                    self.features = nn.Conv2d(3, 64, 3)
            ''',
        "models/resnet.py": '''
            import torch.nn as nn
            import torch.nn.functional as F

            __all__ = ["ResNet18"]

            class ResNet(nn.Module):
                def __init__(self, blocks):
                    super().__init__()
                    self.conv1 = nn.Conv2d(3, 64, 3)

            def ResNet18():
                return ResNet([2, 2, 2, 2])
            ''',
        "main.py": '''
            import argparse
            import torch
            import torch.nn as nn
            import models.vgg
            from models import *

            device = "cuda" if torch.cuda.is_available() else "cpu"
            net = ResNet18()
            vgg = models.vgg.VGG("VGG16")
            moved = VGG("VGG11").to(device)
            criterion = nn.CrossEntropyLoss()
            inputs = torch.randn(4, 3, 32, 32).to(device)
            outputs = net(inputs)
            features = vgg(inputs)
            logits = moved(inputs)
            hidden = ResNet([1, 1, 1, 1])
            ''',
    }
    make(tmp_path, files)
    # ResNet is not in resnet.py's __all__: the star import does not bring it
    assert [f for f in found(tmp_path / "main.py") if f[0] == "DL001"] == [("DL001", 13), ("DL001", 14)]


def test_factories_we_cannot_follow_stay_unknown(tmp_path):
    files = {
        "pyproject.toml": "",
        "models.py": MODELS + '''

REGISTRY = {}


def build_aliased():
    model = ResNetLike()
    net = model.eval()
    net.cuda()  # moves `model` too: one module, two names
    return model


def build_cached(name):
    model = ResNetLike()
    REGISTRY[name] = model  # anyone may move it later
    return model


def build_maybe_on_gpu(use_gpu):
    model = ResNetLike()
    if use_gpu:
        model.cuda()
    return model


def register(fn):
    return fn


@register
def build_registered():
    return ResNetLike()
''',
        "train.py": '''
            import torch
            from models import build_aliased, build_cached, build_maybe_on_gpu, build_registered

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            x = torch.randn(2, 3, 8, 8, device=device)
            build_aliased()(x)
            build_cached("a")(x)
            build_maybe_on_gpu(True)(x)
            build_registered()(x)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == []


def test_loader_factory_in_another_file_yields_host_batches(tmp_path):
    files = {
        "pyproject.toml": "",
        "data.py": '''
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            def make_loaders(batch_size):
                train = TensorDataset(torch.randn(64, 10), torch.randint(0, 2, (64,)))
                val = TensorDataset(torch.randn(16, 10), torch.randint(0, 2, (16,)))
                return DataLoader(train, batch_size=batch_size, shuffle=True), DataLoader(val, batch_size=batch_size)
            ''',
        "train.py": '''
            import torch
            import torch.nn as nn
            from data import make_loaders

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model = nn.Linear(10, 2).to(device)
            train_batches, val_batches = make_loaders(8)
            for x, y in train_batches:
                loss = nn.functional.cross_entropy(model(x), y.to(device))
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "train.py") == [("DL002", 9)]
    # the names alone say nothing: without the project the batches are unknown
    assert lint_source((tmp_path / "train.py").read_bytes(), "<stdin>") == []


STYLE_UTILS = '''
import torch


def load_image(filename, size=None):
    from PIL import Image
    return Image.open(filename).convert("RGB")


def normalize_batch(batch):
    # normalize using imagenet mean and std, on the batch's own device
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std
'''

STYLE_VGG = '''
import torch.nn as nn


class Vgg16(nn.Module):
    def __init__(self, requires_grad=False):
        super().__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        if not requires_grad:
            for p in self.parameters():
                p.requires_grad = False

    def forward(self, x):
        return [self.slice1(x)]
'''

STYLE_TRAIN = '''
import argparse

import torch
from torchvision import transforms

import utils
from vgg import Vgg16

parser = argparse.ArgumentParser()
parser.add_argument("--style-image", default="style.jpg")
parser.add_argument("--batch-size", type=int, default=4)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

vgg = Vgg16(requires_grad=False)
style_transform = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x.mul(255))])
style = style_transform(utils.load_image(args.style_image))
style = style.repeat(args.batch_size, 1, 1, 1).to(device)
features_style = vgg(utils.normalize_batch(style))
'''


def test_a_helper_the_summary_cannot_follow_keeps_device_inputs_on_the_device(tmp_path):
    # normalize_batch's result is arithmetic the summary does not follow; given a device batch
    # it returns one, so the never-moved VGG is called with device data
    make(tmp_path, {"pyproject.toml": "", "utils.py": STYLE_UTILS, "vgg.py": STYLE_VGG, "train.py": STYLE_TRAIN})
    train = tmp_path / "train.py"
    assert found(train) == [("DL001", line_of(train, "features_style = vgg("))]
    moved = STYLE_TRAIN.replace("vgg = Vgg16(requires_grad=False)", "vgg = Vgg16(requires_grad=False).to(device)")
    make(tmp_path, {"train.py": moved})
    assert found(train) == []


def test_loaders_among_other_results_of_a_data_helper_we_cannot_follow(tmp_path):
    # `get_data` builds its loaders from a torchtext pipeline the summary cannot follow: the
    # tuple's parts are unknown, and the loader-named ones are taken for host loaders because
    # this file's own training loop moves what such loaders yield
    files = {
        "pyproject.toml": "",
        "src/__init__.py": "",
        "src/data.py": '''
            from torch.utils.data import DataLoader
            from torchtext.datasets import Multi30k

            def get_data(opts):
                vocab = build_vocab(opts)
                train_iter = Multi30k(split="train")
                valid_iter = Multi30k(split="valid")
                collate = make_collate(vocab)
                return (DataLoader(train_iter, batch_size=opts.batch, collate_fn=collate),
                        DataLoader(valid_iter, batch_size=opts.batch, collate_fn=collate), vocab)
            ''',
        "main.py": '''
            import argparse

            import torch
            import torch.nn as nn
            from src.data import get_data

            DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


            def train(model, train_dl, loss_fn, optim):
                for src, tgt in train_dl:
                    src, tgt = src.to(DEVICE), tgt.to(DEVICE)
                    loss = loss_fn(model(src, tgt[:-1]), tgt[1:])
                    optim.zero_grad()
                    loss.backward()
                    optim.step()


            def validate(model, valid_dl, loss_fn):
                model.eval()
                total = 0.0
                for src, tgt in valid_dl:
                    src = src.to(DEVICE)
                    logits = model(src, tgt[:-1])
                    total += loss_fn(logits, tgt[1:]).item()
                return total


            def main(opts):
                train_dl, valid_dl, vocab = get_data(opts)
                model = nn.Transformer(d_model=64, nhead=4).to(DEVICE)
                optim = torch.optim.Adam(model.parameters())
                loss_fn = nn.CrossEntropyLoss()
                for _ in range(opts.epochs):
                    train(model, train_dl, loss_fn, optim)
                    print(validate(model, valid_dl, loss_fn))


            if __name__ == "__main__":
                parser = argparse.ArgumentParser()
                parser.add_argument("--batch", type=int, default=32)
                parser.add_argument("--epochs", type=int, default=10)
                main(parser.parse_args())
            ''',
    }
    make(tmp_path, files)
    main = tmp_path / "main.py"
    assert ("DL002", line_of(main, "logits = model(src, tgt[:-1])")) in found(main)
    assert all(line != line_of(main, "loss = loss_fn(model(src, tgt[:-1])") for _code, line in found(main))


ARCHITECTURES = '''
import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=16, dim=192):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class VisionTransformer(nn.Module):
    def __init__(self, patch_size=16, dim=192, num_classes=0, **kwargs):
        super().__init__()
        self.patch_embed = PatchEmbed(patch_size, dim)
        self.head = nn.Linear(dim, num_classes) if num_classes else nn.Identity()

    def forward(self, x):
        return self.head(self.patch_embed(x).mean(1))

    def get_intermediate_layers(self, x, n=1):
        return [self.patch_embed(x)]


def vit_tiny(patch_size=16, **kwargs):
    return VisionTransformer(patch_size=patch_size, dim=192, **kwargs)


def vit_small(patch_size=16, **kwargs):
    return VisionTransformer(patch_size=patch_size, dim=384, **kwargs)
'''

EXTRACT = '''
import argparse

import torch
import vision_transformer as vits


@torch.no_grad()
def extract_features(loader, model):
    feats = []
    for samples, index in loader:
        index = index.cuda(non_blocking=True)
        out = model.get_intermediate_layers(samples, n=1)[0]
        feats.append(out[:, 0].cpu())
    return torch.cat(feats)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="vit_small")
    parser.add_argument("--patch_size", type=int, default=16)
    args = parser.parse_args()
    model = vits.__dict__[args.arch](patch_size=args.patch_size, num_classes=0)
    model.cuda()
    model.eval()
    dataset = torch.utils.data.TensorDataset(torch.rand(32, 3, 224, 224), torch.arange(32))
    features = extract_features(torch.utils.data.DataLoader(dataset, batch_size=8), model)
'''


def test_architecture_registry_of_a_project_file_builds_host_models(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "vision_transformer.py": ARCHITECTURES, "extract.py": EXTRACT})
    extract = tmp_path / "extract.py"
    # the moved model's own method meets the batch the loop left on the host

    def mission():  # `.cuda()` without a fallback is DL007's business
        return [f for f in found(extract) if f[0] != "DL007"]

    assert mission() == [("DL002", line_of(extract, "model.get_intermediate_layers(samples"))]
    moved = EXTRACT.replace("out = model.get_intermediate_layers(samples", "out = model.get_intermediate_layers(samples.cuda()")
    make(tmp_path, {"extract.py": moved})
    assert mission() == []


def test_a_registry_file_whose_builders_place_the_model_is_not_a_host_registry(tmp_path):
    placing = ARCHITECTURES.replace(
        "return VisionTransformer(patch_size=patch_size, dim=384, **kwargs)",
        "return VisionTransformer(patch_size=patch_size, dim=384, **kwargs).cuda()",
    )
    unmoved = EXTRACT.replace("    model.cuda()\n", "")
    make(tmp_path, {"pyproject.toml": "", "vision_transformer.py": placing, "extract.py": unmoved})
    assert [f for f in found(tmp_path / "extract.py") if f[0] != "DL007"] == []


def test_a_project_helper_that_copies_to_the_host_is_not_assumed_to_return_device_tensors(tmp_path):
    # non_max_suppression keeps its results on the host (`to_cpu`), which its summary cannot
    # follow through the list it fills: the caller's `.numpy()` is fine
    files = {
        "pyproject.toml": "",
        "utils.py": '''
            import torch

            def to_cpu(tensor):
                return tensor.detach().cpu()

            def filter_boxes(prediction, conf_thres=0.5):
                output = [torch.zeros((0, 6))] * prediction.shape[0]
                for i, x in enumerate(prediction):
                    x = x[x[:, 4] > conf_thres]
                    output[i] = to_cpu(x)
                return output
            ''',
        "detect.py": '''
            import numpy as np
            import torch
            from utils import filter_boxes

            def detect_image(model, image):
                model.eval()
                img = torch.from_numpy(image).permute(2, 0, 1).float().unsqueeze(0) / 255.0
                if torch.cuda.is_available():
                    img = img.to("cuda")
                with torch.no_grad():
                    detections = filter_boxes(model(img))[0]
                return detections.numpy()
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "detect.py") == []


SEGMENTATION_MODELS = '''
import copy

import torch.nn as nn


class FCN8s(nn.Module):
    def __init__(self, n_classes=21):
        super().__init__()
        self.score = nn.Conv2d(3, n_classes, 1)

    def forward(self, x):
        return self.score(x)


class UNet(nn.Module):
    def __init__(self, n_classes=21, feature_scale=4):
        super().__init__()
        self.final = nn.Conv2d(3, n_classes, 1)

    def forward(self, x):
        return self.final(x)


def _get_model_instance(name):
    return {"fcn8s": FCN8s, "unet": UNet}[name]


def get_model(model_dict, n_classes):
    name = model_dict["arch"]
    model = _get_model_instance(name)
    param_dict = copy.deepcopy(model_dict)
    param_dict.pop("arch")
    return model(n_classes=n_classes, **param_dict)
'''

SEGMENTATION_TRAIN = '''
import argparse

import torch
import yaml
from torch.utils import data

from segmodels import get_model


def train(cfg):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = data.DataLoader(get_dataset(cfg), batch_size=cfg["batch_size"], shuffle=True)
    model = get_model(cfg["model"], 21)
    model = torch.nn.DataParallel(model, device_ids=range(torch.cuda.device_count()))
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    for images, labels in loader:
        model.train()
        images = images.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        outputs = model(images)
        loss = torch.nn.functional.cross_entropy(outputs, labels)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/fcn8s.yml")
    with open(parser.parse_args().config) as fp:
        train(yaml.safe_load(fp))
'''


def test_a_registry_function_that_places_nothing_builds_host_models(tmp_path):
    # `get_model(cfg["model"], n_classes)` picks a class by name from a dict: the summary cannot
    # tell which, but nothing the helper runs places anything, and DataParallel moves nothing
    make(tmp_path, {"pyproject.toml": "", "segmodels.py": SEGMENTATION_MODELS, "train.py": SEGMENTATION_TRAIN})
    train = tmp_path / "train.py"
    assert found(train) == [("DL012", line_of(train, "DataParallel(")), ("DL001", line_of(train, "outputs = model("))]
    moved = SEGMENTATION_TRAIN.replace('model = get_model(cfg["model"], 21)', 'model = get_model(cfg["model"], 21).to(device)')
    make(tmp_path, {"train.py": moved})
    assert found(train) == [("DL012", line_of(train, "DataParallel("))]


def test_a_registry_function_that_may_place_the_model_stays_unknown(tmp_path):
    # each of these lets the helper decide where the model lives: no finding for the caller
    variants = [
        ('return model(n_classes=n_classes, **param_dict)', 'return model(n_classes=n_classes, **param_dict).cuda()'),
        ('def get_model(model_dict, n_classes):', 'def get_model(model_dict, n_classes, device="cuda"):'),
        ('return model(n_classes=n_classes, **param_dict)', 'return torch.load(param_dict["checkpoint"])'),
        ('param_dict.pop("arch")', 'param_dict.pop("arch")\n    model = build_network(name)'),
    ]
    for old, new in variants:
        models = SEGMENTATION_MODELS.replace(old, new)
        assert models != SEGMENTATION_MODELS
        models = models.replace("import copy\n", "import copy\n\nimport torch\nfrom netlib import build_network\n")
        make(tmp_path, {"pyproject.toml": "", "segmodels.py": models, "train.py": SEGMENTATION_TRAIN})
        train = tmp_path / "train.py"
        assert found(train) == [("DL012", line_of(train, "DataParallel("))], new


CAPTION_MODELS = '''
import torch.nn as nn
import torchvision


class Encoder(nn.Module):
    def __init__(self, encoded_image_size=14):
        super().__init__()
        resnet = torchvision.models.resnet101(weights=None)
        modules = list(resnet.children())[:-2]
        self.resnet = nn.Sequential(*modules)
        self.adaptive_pool = nn.AdaptiveAvgPool2d((encoded_image_size, encoded_image_size))

    def forward(self, images):
        return self.adaptive_pool(self.resnet(images)).permute(0, 2, 3, 1)

    def fine_tune(self, fine_tune=True):
        for p in self.resnet.parameters():
            p.requires_grad = fine_tune
'''

CAPTION_UTILS = '''
import torch


def save_checkpoint(data_name, epoch, encoder, encoder_optimizer, is_best):
    state = {"epoch": epoch, "encoder": encoder, "encoder_optimizer": encoder_optimizer}
    filename = "checkpoint_" + data_name + ".pth.tar"
    torch.save(state, filename)
    if is_best:
        torch.save(state, "BEST_" + filename)
'''

CAPTION_TRAIN = '''
import torch
from torch.utils.data import DataLoader

from models import Encoder
from utils import save_checkpoint

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
checkpoint = None  # path to a checkpoint, None to train from scratch


def train(loader, encoder, optimizer):
    encoder.train()
    for imgs, caps in loader:
        imgs = imgs.to(device)
        features = encoder(imgs)
        loss = features.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(dataset):
    global checkpoint
    if checkpoint is None:
        encoder = Encoder()
        encoder.fine_tune(True)
        optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    else:
        checkpoint = torch.load(checkpoint)
        encoder = checkpoint["encoder"]
        optimizer = checkpoint["encoder_optimizer"]
    encoder = encoder
    loader = DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)
    for epoch in range(10):
        train(loader, encoder, optimizer)
        save_checkpoint("coco", epoch, encoder, optimizer, is_best=False)
'''


def test_a_model_built_fresh_on_one_path_and_pickled_into_a_checkpoint(tmp_path):
    # the encoder is built here when training starts from scratch (on the host: nothing moves
    # it) and restored from a pickled checkpoint otherwise; saving the checkpoint dict with
    # torch.save moves nothing, and `nn.Sequential(*modules)` holds weights
    make(tmp_path, {"pyproject.toml": "", "models.py": CAPTION_MODELS, "utils.py": CAPTION_UTILS,
                    "train.py": CAPTION_TRAIN})
    train = tmp_path / "train.py"
    assert [f for f in found(train) if f[0] != "DL009"] == [("DL001", line_of(train, "        train(loader, encoder, optimizer)"))]
    make(tmp_path, {"train.py": CAPTION_TRAIN.replace("encoder = encoder\n", "encoder = encoder.to(device)\n")})
    assert [f for f in found(train) if f[0] != "DL009"] == []


def test_a_checkpoint_dict_lets_its_models_escape_only_with_it():
    from devicelint import summary

    functions = summary.summarize(textwrap.dedent('''
        import torch

        def save_checkpoint(model, optimizer, path):
            state = {"model": model, "optimizer": optimizer}
            torch.save(state, path)

        def pack(model, optimizer):
            state = {"model": model, "optimizer": optimizer}
            return state

        def upload_checkpoint(model, path):
            state = {"model": model}
            upload(state, path)
        ''').encode())["functions"]
    assert functions["save_checkpoint"]["pure"] == ["model", "optimizer"]  # pickling moves nothing
    assert functions["pack"]["pure"] == []  # the caller gets the models back in the dict
    assert "model" not in functions["upload_checkpoint"]["pure"]  # handed on inside the dict


def test_a_loader_factory_of_the_project_is_not_taken_for_a_model_registry(tmp_path):
    """`get_loader(root, vocab, transform, ...)` places nothing, like a model registry would,
    but its name says it builds data: its batches stay host batches the loop must move."""
    data = """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class CaptionDataset(Dataset):
            def __init__(self, root, transform):
                self.root, self.transform = root, transform

            def __len__(self):
                return 100

            def __getitem__(self, i):
                return self.transform(self.root), torch.zeros(5, dtype=torch.long)


        def collate_fn(data):
            images, captions = zip(*data)
            return torch.stack(images, 0), torch.stack(captions, 0)


        def get_loader(root, transform, batch_size, shuffle):
            dataset = CaptionDataset(root=root, transform=transform)
            data_loader = DataLoader(dataset=dataset, batch_size=batch_size, shuffle=shuffle,
                                     collate_fn=collate_fn)
            return data_loader
        """
    train = """
        import torch
        import torch.nn as nn
        from torchvision import transforms

        from data_loader import get_loader

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        transform = transforms.Compose([transforms.RandomCrop(224), transforms.ToTensor()])
        data_loader = get_loader("images/", transform, batch_size=32, shuffle=True)
        encoder = nn.Sequential(nn.Flatten(), nn.LazyLinear(16)).to(device)
        for images, captions in data_loader:
            captions = captions.to(device)
            features = encoder(images)
        """
    make(tmp_path, {"pyproject.toml": "", "data_loader.py": data, "train.py": train})
    script = tmp_path / "train.py"
    assert found(script) == [("DL002", line_of(script, "features = encoder(images)"))]


DIFFUSION_MODELS = '''
import math

import torch
import torch.nn as nn


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(64, hidden), nn.SiLU(), nn.Linear(hidden, hidden))

    def forward(self, t):
        half = 32
        freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half).to(device=t.device)
        args = t[:, None].float() * freqs[None]
        return self.mlp(torch.cat([torch.cos(args), torch.sin(args)], dim=-1))


class LabelEmbedder(nn.Module):
    def __init__(self, num_classes, hidden, dropout_prob):
        super().__init__()
        self.table = nn.Embedding(num_classes + 1, hidden)
        self.num_classes = num_classes
        self.dropout_prob = dropout_prob

    def forward(self, labels, train):
        if train and self.dropout_prob > 0:
            drop = torch.rand(labels.shape[0], device=labels.device) < self.dropout_prob
            labels = torch.where(drop, self.num_classes, labels)
        return self.table(labels)


class Denoiser(nn.Module):
    def __init__(self, hidden=128, num_classes=10):
        super().__init__()
        self.t_embedder = TimestepEmbedder(hidden)
        self.y_embedder = LabelEmbedder(num_classes, hidden, 0.1)
        self.proj = nn.Linear(hidden, 16)

    def forward(self, x, t, y):
        c = self.t_embedder(t) + self.y_embedder(y, self.training)
        return x + self.proj(c)


def Denoiser_S(**kwargs):
    return Denoiser(hidden=128, **kwargs)


def Denoiser_B(**kwargs):
    return Denoiser(hidden=256, **kwargs)


DENOISERS = {"S": Denoiser_S, "B": Denoiser_B}
'''

EMA_TRAIN = '''
import argparse
from collections import OrderedDict
from copy import deepcopy

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from models import DENOISERS


@torch.no_grad()
def update_ema(ema_model, model, decay=0.9999):
    ema_params = OrderedDict(ema_model.named_parameters())
    model_params = OrderedDict(model.named_parameters())
    for name, param in model_params.items():
        ema_params[name].mul_(decay).add_(param.data, alpha=1 - decay)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def main(args):
    device = torch.device("cuda", args.local_rank)
    model = DENOISERS[args.model](num_classes=10)
    ema = deepcopy(model)
    requires_grad(ema, False)
    model = DDP(model.to(device), device_ids=[args.local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    update_ema(ema, model.module, decay=0)
    ema.eval()
    for step in range(args.steps):
        x = torch.randn(8, 16, device=device)
        t = torch.randint(0, 1000, (8,), device=device)
        y = torch.randint(0, 10, (8,), device=device)
        loss = F.mse_loss(model(x, t, y), x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        update_ema(ema, model.module)
    torch.save({"model": model.module.state_dict(), "ema": ema.state_dict()}, "last.pt")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="S")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--steps", type=int, default=100)
    main(parser.parse_args())
'''


def test_an_ema_copy_of_a_registry_model_left_on_the_host(tmp_path):
    # the forward passes make tensors on their inputs' device: that places nothing, so the
    # registry builds host models; the EMA copy is taken before the model moves, and the
    # update adds device parameters to it
    make(tmp_path, {"pyproject.toml": "", "models.py": DIFFUSION_MODELS, "train.py": EMA_TRAIN})
    train = tmp_path / "train.py"

    def mission():  # a DDP script's `torch.device("cuda", rank)` is DL007's business
        return [f for f in found(train) if f[0] != "DL007"]

    assert mission() == [("DL001", line_of(train, "update_ema(ema, model.module, decay=0)")),
                         ("DL001", line_of(train, "        update_ema(ema, model.module)"))]
    make(tmp_path, {"train.py": EMA_TRAIN.replace("ema = deepcopy(model)", "ema = deepcopy(model).to(device)")})
    assert mission() == []
    # copied after the move, the copy is on the device too
    after = EMA_TRAIN.replace("    ema = deepcopy(model)\n    requires_grad(ema, False)\n", "").replace(
        "    opt = torch", "    ema = deepcopy(model.module)\n    requires_grad(ema, False)\n    opt = torch")
    make(tmp_path, {"train.py": after})
    assert mission() == []


def test_a_pooler_that_stores_only_numbers_has_no_weights(tmp_path):
    # detectron2-style: the layers it keeps are parameter-free pooling ops from another file,
    # and the settings it stores are numbers computed with int() and math
    files = {
        "pyproject.toml": "",
        "layers.py": '''
            import torch.nn as nn
            from torchvision.ops import roi_align

            class ROIAlign(nn.Module):
                def __init__(self, output_size, spatial_scale, sampling_ratio):
                    super().__init__()
                    self.output_size = output_size
                    self.spatial_scale = spatial_scale
                    self.sampling_ratio = sampling_ratio

                def forward(self, x, rois):
                    return roi_align(x, rois, self.output_size, self.spatial_scale, self.sampling_ratio)
            ''',
        "poolers.py": '''
            import math
            import torch
            import torch.nn as nn
            from layers import ROIAlign

            class ROIPooler(nn.Module):
                def __init__(self, output_size, scales, sampling_ratio):
                    super().__init__()
                    self.level_poolers = nn.ModuleList(
                        ROIAlign(output_size, spatial_scale=s, sampling_ratio=sampling_ratio) for s in scales
                    )
                    self.min_level = int(-math.log2(scales[0]))
                    self.max_level = int(-math.log2(scales[-1]))

                def forward(self, x, rois):
                    return torch.cat([p(f, rois) for p, f in zip(self.level_poolers, x)])
            ''',
        "test_poolers.py": '''
            import torch
            from poolers import ROIPooler

            def check(device):
                features = [torch.rand(2, 4, 10, 8, device=device)]
                rois = torch.tensor([[0, 1.0, 1.0, 5.0, 5.0]], device=device)
                pooler = ROIPooler(7, (1.0 / 16,), 0)
                out = pooler(features, rois)
                scripted = torch.jit.script(pooler)(features, rois)
                assert torch.equal(out, scripted)
            ''',
    }
    make(tmp_path, files)
    assert found(tmp_path / "test_poolers.py") == []


DATASETS = '''
import numpy as np
import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    """Sliding windows over a series; casts to float, never places anything."""

    def __init__(self, series, window=24):
        self.series = torch.from_numpy(np.asarray(series)).to(torch.float32)
        self.window = window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i:i + self.window].to(dtype=torch.float32)
        return x.unsqueeze(-1), self.series[i + self.window]


class GpuWindowDataset(WindowDataset):
    """The same windows, handed out already on the GPU."""

    def __getitem__(self, i):
        x, y = super().__getitem__(i)
        return x.cuda(), y.cuda()
'''

FORECAST = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, random_split

from data import {cls}

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
series = np.sin(np.linspace(0, 100, 5000))
train_set, val_set = random_split({cls}(series), [4000, 976])
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
model = nn.LSTM(1, 32, batch_first=True).to(device)
head = nn.Linear(32, 1).to(device)
for epoch in range(args.epochs):
    for x, y in train_loader:
        out, _ = model(x)
        pred = head(out[:, -1]).squeeze(-1)
'''


def test_an_imported_dataset_that_only_casts_yields_host_batches(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "data.py": DATASETS, "train.py": FORECAST.format(cls="WindowDataset")})
    train = tmp_path / "train.py"
    assert found(train) == [("DL002", line_of(train, "out, _ = model(x)"))]


def test_an_imported_dataset_that_places_its_items_yields_no_host_batches(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "data.py": DATASETS, "train.py": FORECAST.format(cls="GpuWindowDataset")})
    assert found(tmp_path / "train.py") == []
