"""DL018 (optimizer-state-before-move) on the resume shapes its mutants missed (issue 23,
2026-11-26, fifth session): the torchvision references' layout that the WZMIAOMIAO and
Tianxiaomo/pytorch-YOLOv4 training scripts copy. Each program is flagged where a line ends in
`# <- DL018`, and its control (the model moved before the load, as the authors wrote it) is
silent.
"""

import textwrap

from inference_cases import expected

from devicelint.engine import lint_file, lint_source


def _found(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(textwrap.dedent(code).lstrip("\n"), "train.py", select=["DL018"])}


def _fixed(code: str) -> str:
    """The author's order: the model moved right after it is built, the resume untouched."""
    code = code.replace("; model.to(device)  # <- DL018", "")
    return code.replace("    model = create_model(num_classes=args.num_classes + 1)\n",
                        "    model = create_model(num_classes=args.num_classes + 1)\n    model.to(device)\n")


# The model is handed to the evaluation code of another package only after the resume (at the
# end of every epoch): it may be moved there, but not before the load, which decides.
_EVALUATED_AFTER = """
import argparse
import os

import torch
import torchvision
from train_utils import train_eval_utils as utils


def create_model(num_classes):
    model = torchvision.models.resnet50(weights=None)
    model.fc = torch.nn.Linear(model.fc.in_features, num_classes)
    return model


def main(args):
    device = torch.device(args.device if torch.cuda.is_available() else "cpu")
    model = create_model(num_classes=args.num_classes + 1)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.33)
    if args.resume != "":
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"]); model.to(device)  # <- DL018
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1
    for epoch in range(args.start_epoch, args.epochs):
        model.train()
        lr_scheduler.step()
        coco_info = utils.evaluate(model, None, device=device)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}, os.path.join(args.output_dir, f"model-{epoch}.pth"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--num-classes", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--resume", default="")
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--output-dir", default="./save_weights")
    main(parser.parse_args())
"""


def test_a_model_handed_to_unseen_code_only_after_the_load_is_still_flagged():
    assert _found(_EVALUATED_AFTER) == expected(textwrap.dedent(_EVALUATED_AFTER).lstrip("\n"))


def test_the_authors_order_with_the_late_evaluation_is_silent():
    assert _found(_fixed(_EVALUATED_AFTER)) == set()


# Tianxiaomo/pytorch-YOLOv4 `tool/tv_reference/train.py` (the torchvision detection reference):
# `model_without_ddp = model` names the same model twice, the wrap only under --distributed.
_REFERENCE = """
import argparse

import torch
import torchvision
from engine import evaluate, train_one_epoch


def create_model(num_classes):
    return torchvision.models.detection.__dict__["fasterrcnn_resnet50_fpn"](num_classes=num_classes)


def main(args):
    device = torch.device(args.device)
    model = create_model(num_classes=args.num_classes + 1)
    model_without_ddp = model
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
        model_without_ddp = model.module
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[16, 22], gamma=0.1)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"]); model.to(device)  # <- DL018
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
    for epoch in range(args.start_epoch, args.epochs):
        train_one_epoch(model, optimizer, None, device, epoch, 20)
        lr_scheduler.step()
        evaluate(model, None, device=device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--num-classes", type=int, default=90)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--resume", default="")
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=26)
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--gpu", type=int, default=0)
    main(parser.parse_args())
"""


def test_an_optimizer_over_the_parameters_of_an_aliased_model_is_tied_to_it():
    assert _found(_REFERENCE) == expected(textwrap.dedent(_REFERENCE).lstrip("\n"))


def test_the_reference_in_its_authors_order_is_silent():
    assert _found(_fixed(_REFERENCE)) == set()


# WZMIAOMIAO `pytorch_object_detection/faster_rcnn`: the detector is a project class whose own
# summary shows no weights (the heads are built as locals and handed to `super().__init__`, the
# base keeps `self.backbone = backbone`); it holds the host backbone it is given.
_DETECTOR = """
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU(), nn.Conv2d(64, 256, 3, 2, 1))
        self.out_channels = 256

    def forward(self, x):
        return self.body(x)


class DetectorBase(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def forward(self, images):
        return self.head(self.backbone(images).mean((2, 3)))


class Detector(DetectorBase):
    def __init__(self, backbone, num_classes=91):
        head = make_head(backbone.out_channels, num_classes)
        super().__init__(backbone, head)


def make_head(channels, num_classes):
    return nn.Linear(channels, num_classes * 5)
"""

_TRAIN = """
import argparse

import torch
from network_files import Backbone, Detector
from train_utils import train_eval_utils as utils


def create_model(num_classes):
    backbone = Backbone()
    model = Detector(backbone=backbone, num_classes=91)
    weights = torch.load("./backbone/detector_coco.pth", map_location="cpu")
    model.load_state_dict(weights, strict=False)
    return model


def main(args):
    device = torch.device(args.device if torch.cuda.is_available() else "cpu")
    model = create_model(num_classes=args.num_classes + 1)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=1e-4)
    if args.resume != "":
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"]); model.to(device)  # <- DL018
        args.start_epoch = checkpoint["epoch"] + 1
    for epoch in range(args.start_epoch, args.epochs):
        utils.train_one_epoch(model, optimizer, None, device=device, epoch=epoch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--num-classes", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--resume", default="")
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=15)
    main(parser.parse_args())
"""


def _project(root, train: str):
    files = {"pyproject.toml": "", "network_files/__init__.py": "from .detector import Backbone, Detector\n",
             "network_files/detector.py": _DETECTOR, "train_utils/__init__.py": "",
             "train_utils/train_eval_utils.py": "def train_one_epoch(model, optimizer, loader, device, epoch):\n"
                                                "    model.train()\n",
             "train.py": train}
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "train.py"


def _lint(path) -> set:
    return {(f.code, f.line) for f in lint_file(str(path)) if f.code == "DL018"}


def test_a_project_detector_holding_a_host_backbone_is_a_host_model(tmp_path):
    path = _project(tmp_path, _TRAIN)
    assert _lint(path) == expected(path.read_text())


def test_the_detector_moved_before_the_load_is_silent(tmp_path):
    assert _lint(_project(tmp_path, _fixed(_TRAIN))) == set()


def test_a_wrapper_given_a_model_already_on_the_device_stays_silent(tmp_path):
    moved = _TRAIN.replace("    backbone = Backbone()\n", "    backbone = Backbone().cuda()\n")
    assert _lint(_project(tmp_path, moved)) == set()
