"""Causes of false findings and misses found by the fourth targeted first look of issue 23's
rules (2026-11-27, devicelint at 6bb5022, `benchmarks/firstlook/2026-11-27-newrules4.json`),
each as a realistic program in the shape the audited repositories write it, with its control
where the shape is a real bug and must stay flagged.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


def _check(code: str, rules, path: str = "train.py") -> None:
    got = findings_at(code, rules, path)
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


# --- DL020: the unindexed `cuda` of the arm taken when there is no local rank ---

# A torch.distributed.launch trainer: `--local_rank` is passed to each process; a helper picks
# `cuda:{local_rank}` when it is given one and the bare accelerator otherwise, and is called
# with the rank only under the process group. The bare arm is the single-process path.
_LAUNCH_TRAINER = '''
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, help="set by torch.distributed.launch")
    parser.add_argument("--epochs", type=int, default=10)
    return parser.parse_args()


def pick_device(local_rank=None):
    if torch.cuda.is_available():
        if local_rank is not None:
            device = torch.device("cuda:{}".format(local_rank))
        else:
            device = torch.device(ARM)MARK
    else:
        device = torch.device("cpu")
    return device


def main():
    args = parse()
    distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
    if distributed:
        dist.init_process_group(backend="nccl", init_method="env://")
    device = pick_device(args.local_rank if distributed else None)
    model = torchvision.models.resnet18(num_classes=10).to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[device])
    train_set = torchvision.datasets.FakeData(size=256, transform=torchvision.transforms.ToTensor())
    sampler = DistributedSampler(train_set) if distributed else None
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_bare_cuda_beside_a_rank_indexed_arm_is_the_single_process_path():
    code = _LAUNCH_TRAINER.replace("ARM", '"cuda"').replace("MARK", "")
    _check(code, ["DL020"])


def test_bare_cuda_with_no_indexed_arm_beside_it_stays_flagged():
    # control: both arms unindexed, the process group started: every rank on GPU 0
    code = (_LAUNCH_TRAINER.replace('torch.device("cuda:{}".format(local_rank))', 'torch.device("cuda")')
            .replace("ARM", '"cuda"').replace("MARK", "  # <- DL020"))
    code = code.replace('device = torch.device("cuda")\n        else:', 'device = torch.device("cuda")  # <- DL020\n        else:', 1)
    _check(code, ["DL020"])


def test_a_conditional_expression_with_a_rank_indexed_arm():
    code = '''
import os

import torch
import torch.distributed as dist


def setup(args):
    if args.distributed:
        dist.init_process_group("nccl")
    local_rank = int(os.environ.get("LOCAL_RANK", -1))
    device = torch.device(f"cuda:{local_rank}" if local_rank >= 0 else "cuda")
    model = torch.nn.Linear(16, 4).to(device)
    return model, device
'''
    _check(code, ["DL020"])


# --- DL003: a store into one element of a NumPy array converts with float() ---

# A physics-informed trainer keeps one loss per epoch in `np.zeros(epochs)`: `losses[epoch] =
# loss` stores a 0-d CUDA tensor into ONE element, which NumPy converts with `float()` (that is
# `.item()`, fine on the device). A store into a row of a 2-D array or a slice converts the
# tensor with `__array__`, which fails on the device (measured, numpy 1.26 and 2.4: see
# benchmarks/README.md §7, round 4).
_EPOCH_LOSSES = '''
import argparse

import numpy as np
import torch
import torch.nn as nn


class Surrogate(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lstm = nn.LSTM(3, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, u):
        out, _ = self.lstm(u)
        return self.head(out[:, -1])


def train(cfg, device):
    model = Surrogate(cfg.hidden).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    mse = nn.MSELoss()
    u = torch.randn(256, 20, 3, device=device)
    v = torch.randn(256, 1, device=device)
    losses = np.zeros(cfg.epochs)
    per_batch = np.zeros((cfg.epochs, 4))
    curves = np.zeros((cfg.epochs, 1))
    for epoch in range(cfg.epochs):
        for b in range(4):
            pred = model(u[b * 64:(b + 1) * 64])
            loss = torch.sqrt(mse(pred, v[b * 64:(b + 1) * 64]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            per_batch[epoch, b] = loss
        losses[epoch] = loss
        curves[epoch] = loss  # <- DL003
        losses[0:epoch] = pred[:epoch, 0]  # <- DL003
    return losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    train(parser.parse_args(), torch.device("cuda" if torch.cuda.is_available() else "cpu"))
'''


def test_a_store_into_one_element_of_an_array_is_no_conversion_to_numpy():
    _check(_EPOCH_LOSSES, ["DL003"])


# --- DL003: what an unresolved function returns is not known to be on the device ---

# A face detector: the first stage is a function of an import that does not resolve (the
# package was renamed when vendored); handed the device network, it may bring its output home
# itself (it does: it returns NumPy boxes). Converting what it returns is no known bug; the
# network's own outputs converted without `.cpu()` stay flagged.
_DETECTOR = '''
import numpy as np
import torch
from PIL import Image

from mtcnn_vendor.src.get_nets import PNet, RNet
from mtcnn_vendor.src.first_stage import run_first_stage
from mtcnn_vendor.src.box_utils import nms, get_image_boxes

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class Detector:
    def __init__(self):
        self.pnet = PNet().to(device)
        self.rnet = RNet().to(device)
        self.rnet.eval()

    def detect(self, image, scales, thresholds=(0.6, 0.7)):
        bounding_boxes = []
        with torch.no_grad():
            for s in scales:
                boxes = run_first_stage(image, self.pnet, scale=s, threshold=thresholds[0])
                bounding_boxes.append(boxes)
            bounding_boxes = [b for b in bounding_boxes if b is not None]
            bounding_boxes = np.vstack(bounding_boxes)
            keep = nms(bounding_boxes[:, 0:5], 0.7)
            img_boxes = torch.FloatTensor(get_image_boxes(bounding_boxes[keep], image, size=24)).to(device)
            output = self.rnet(img_boxes)
            probs = output[1].data.numpy()  # <- DL003
        return bounding_boxes[keep], probs


if __name__ == "__main__":
    print(Detector().detect(Image.open("face.jpg"), [0.5, 0.25]))
'''


def test_the_result_of_an_unresolved_function_handed_a_device_model_is_not_converted_blindly():
    _check(_DETECTOR, ["DL003"], "mtcnn.py")
