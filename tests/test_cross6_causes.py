"""Cross-file causes of the fifth round's folder-case misses (benchmarks/README.md §8): a model
built by a factory of `models.py` and handed to a helper class of `explain.py` that runs it in
its methods (`110`'s shape). Two facts were missing across files, both in the summaries:

- a factory that forwards its `**kwargs` to a module class whose own `__init__` takes no
  `**kwargs` and no device parameter builds the model on the host (the splat cannot place it);
- a class that keeps a constructor argument as `self.model` and calls it (or a method of it)
  on a method's parameter, directly or through another method, runs that model on what the
  method is handed (summary `runs`): `explainer.saliency(images)` meets model and images.

Anything less plain (the class moves the model, hands it on, or the model is moved or rebound
by the caller) stays silent.
"""

import textwrap

from inference_cases import expected

from devicelint.engine import lint_file

MODELS = '''
import torch
import torch.nn as nn


class ConvNet(nn.Module):
    def __init__(self, num_classes=10, width=32):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(width, num_classes)

    def get_features(self, x):
        feats = self.features(x)
        return self.classifier(torch.flatten(feats, 1)), feats

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def convnet(pretrained=False, **kwargs):
    model = ConvNet(**kwargs)
    if pretrained:
        model.load_state_dict(torch.load("convnet.pth", map_location="cpu"))
    return model
'''

EXPLAIN = '''
import torch
import torch.nn.functional as F


class GradExplainer:
    """Input-gradient saliency of the model it is given."""

    def __init__(self, model, smooth=True):
        self.model = model
        self.smooth = smooth
        self.model.eval()

    def decompose(self, image, target=None):
        image = image.requires_grad_()
        out, feats = self.model.get_features(image)
        if target is None:
            target = out.argmax(1)
        score = -F.nll_loss(out, target, reduction="sum")
        (grad,) = torch.autograd.grad(score, [image])
        return grad

    def saliency(self, image, target=None):
        grad = self.decompose(image, target=target)
        cam = (grad * image).abs().sum(1, keepdim=True)
        return cam / (cam.amax(dim=(2, 3), keepdim=True) + 1e-6)
'''

SCRIPT = '''
import argparse
import os

import torch
from torchvision import datasets, transforms

from explain import GradExplainer
from models import convnet


def parse_args():
    parser = argparse.ArgumentParser(description="dump saliency maps")
    parser.add_argument("--data", default="samples/")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--out", default="results/")
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = torch.utils.data.DataLoader(
        datasets.ImageFolder(args.data, transform=transforms.ToTensor()),
        batch_size=args.batch_size, shuffle=False, pin_memory=True)
    model = convnet(pretrained=True, num_classes=1000)
    explainer = GradExplainer(model)
    os.makedirs(args.out, exist_ok=True)
    for i, (images, labels) in enumerate(loader):
        images = images.to(device)
        cams = explainer.saliency(images)  # <- DL001
        torch.save(cams.cpu(), os.path.join(args.out, f"{i}.pt"))


if __name__ == "__main__":
    main()
'''


def _project(root, script=SCRIPT, explain=EXPLAIN, models=MODELS):
    files = {"pyproject.toml": "", "models.py": models, "explain.py": explain, "dump_saliency.py": script}
    for name, text in files.items():
        p = root / name
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "dump_saliency.py"


def _lint(path) -> set:
    return {(f.code, f.line) for f in lint_file(str(path)) if f.code in ("DL001", "DL002")}


def test_a_helper_class_of_another_file_running_a_host_model_on_device_images_is_flagged(tmp_path):
    path = _project(tmp_path)
    assert _lint(path) == expected(path.read_text())


def test_the_model_moved_before_the_helper_runs_it_is_silent(tmp_path):
    fixed = SCRIPT.replace("    explainer = GradExplainer(model)\n",
                           "    model.to(device)\n    explainer = GradExplainer(model)\n")
    assert _lint(_project(tmp_path, script=fixed)) == set()


def test_the_model_moved_after_the_helper_is_built_is_silent(tmp_path):
    fixed = SCRIPT.replace("    os.makedirs(args.out", "    model = model.to(device)\n    os.makedirs(args.out")
    assert _lint(_project(tmp_path, script=fixed)) == set()


def test_a_helper_that_moves_the_model_it_keeps_is_silent(tmp_path):
    moving = EXPLAIN.replace("        self.model.eval()\n",
                             "        self.model.eval()\n        self.model.to(image_device())\n")
    assert _lint(_project(tmp_path, explain=moving)) == set()


def test_a_factory_whose_class_takes_a_device_through_the_splat_is_silent(tmp_path):
    placing = MODELS.replace("def __init__(self, num_classes=10, width=32):",
                             "def __init__(self, num_classes=10, width=32, device=None):")
    assert _lint(_project(tmp_path, models=placing)) == set()


def test_a_factory_forwarding_kwargs_to_a_class_that_takes_no_device_builds_on_the_host(tmp_path):
    direct = SCRIPT.replace("cams = explainer.saliency(images)  # <- DL001",
                            "cams = model(images)  # <- DL001")
    path = _project(tmp_path, script=direct)
    assert _lint(path) == expected(path.read_text())
