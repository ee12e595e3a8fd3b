"""Causes of misses of the seventh round of the blind bug-report set that need values across
the methods of a class (issue 20): a trainer class handed its loss in `__init__` and running it
in an epoch method. Each is a realistic program in the shape users write, with a control that
must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import pytest

from inference_cases import expected, findings_at

RULES = ["DL001", "DL002", "DL011"]


# --- a weighted loss on one path, a plain one on the other (case 170) ---

# A config-driven trainer: class weights are computed from the training labels only when the
# config asks for them, so the loss is `CrossEntropyLoss(weight=host tensor)` on one path and
# `CrossEntropyLoss()` on the other. A Solver keeps it on `self` in `__init__` and calls it in
# `_epoch` on the logits of the moved network. A loss without weights lives on no device, so
# on the weighted path the module holds a host tensor and the call fails on cuda.
_SOLVER = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from data import EmbeddingsDataset


def class_weights_of(labels, n_classes):
    counts = np.bincount(np.concatenate(list(labels.values())), minlength=n_classes)
    weights = counts.sum() / (n_classes * np.maximum(counts, 1))
    return torch.tensor(weights, dtype=torch.float32)


class Solver:
    def __init__(self, network, optimizer, loss_function, device, num_epochs):
        self.network = network
        self.optimizer = optimizer
        self.loss_function = loss_function
        self.device = device
        self.num_epochs = num_epochs

    def train(self, train_loader, val_loader):
        for epoch in range(self.num_epochs):
            train_loss = self._epoch(train_loader, training=True)
            val_loss = self._epoch(val_loader, training=False)
            print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f}")

    def _epoch(self, loader, training):
        self.network.train(training)
        total = 0.0
        for X, y in loader:
            X, y = X.to(self.device), y.to(self.device)
            with torch.set_grad_enabled(training):
                loss = self.loss_function(self.network(X), y)  # <- DL001
            if training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            total += loss.item()
        return total / max(len(loader), 1)


def run(config):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with open(config["labels_file"]) as f:
        labels = yaml.safe_load(f)
    n_classes = config["n_classes"]
    dataset = EmbeddingsDataset(config["embeddings_file"], labels)
    train_loader = DataLoader(dataset, batch_size=config["batch_size"], shuffle=True)
    val_loader = DataLoader(dataset, batch_size=config["batch_size"])
    network = nn.Sequential(nn.Linear(config["n_features"], 64), nn.ReLU(), nn.Linear(64, n_classes)).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=config["learning_rate"])
    if config.get("use_class_weights", False):
        loss_function = nn.CrossEntropyLoss(weight=class_weights_of(labels, n_classes))
    else:
        loss_function = nn.CrossEntropyLoss()
    Solver(network, optimizer, loss_function, device, config["num_epochs"]).train(train_loader, val_loader)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config_file")
    args = parser.parse_args()
    with open(args.config_file) as f:
        run(yaml.safe_load(f))
'''

# the fix the issue asked for: the weighted loss moved where the weights are asked for
_SOLVER_FIXED = _SOLVER.replace(
    "loss_function = nn.CrossEntropyLoss(weight=class_weights_of(labels, n_classes))",
    "loss_function = nn.CrossEntropyLoss(weight=class_weights_of(labels, n_classes)).to(device)",
).replace("  # <- DL001", "")

# the weights made on the device: nothing on the host on either path
_SOLVER_WEIGHTS_ON_DEVICE = _SOLVER.replace(
    "return torch.tensor(weights, dtype=torch.float32)",
    "return torch.tensor(weights, dtype=torch.float32, device='cuda')",
).replace("  # <- DL001", "")

CASES = {
    "solver_weighted_loss_on_one_path": _SOLVER,
    "control_solver_weighted_loss_moved": _SOLVER_FIXED,
    "control_solver_weights_made_on_device": _SOLVER_WEIGHTS_ON_DEVICE,
}


# --- a host tensor indexed by an index from a Lightning step's batch (case 175) ---

# A NeRF system in the instant-nsr-pl mould: the LightningModule loads its validation scene in
# `__init__` (images and camera poses stacked into CPU tensors, never registered as buffers),
# the dataloader yields only `{"index": i}`, and the validation step hands its batch to a
# preprocess method that slices the poses and images with it. Lightning moves the batch to the
# module's device, so the index is a cuda tensor indexing CPU tensors: "indices should be
# either on cpu or on the same device as the indexed tensor (cpu)".
_NERF_SYSTEM = """
import argparse
import os

import imageio.v2 as imageio
import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from models import NeRFModel


class Scene:
    def __init__(self, root, split):
        meta = np.load(os.path.join(root, f"transforms_{split}.npz"))
        images, poses = [], []
        for name, pose in zip(meta["files"], meta["poses"]):
            img = imageio.imread(os.path.join(root, str(name))).astype(np.float32) / 255.0
            images.append(torch.from_numpy(img[..., :3]))
            poses.append(torch.from_numpy(pose[:3, :4].astype(np.float32)))
        self.all_images = torch.stack(images, dim=0).float()
        self.all_c2w = torch.stack(poses, dim=0).float()


class IndexDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return {"index": index}


class NeRFSystem(pl.LightningModule):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = NeRFModel(config)
        self.val_scene = Scene(config["root"], "val")

    def preprocess_data(self, batch):
        index = batch["index"]
        c2w = self.val_scene.all_c2w[index][0]  # <- DL011
        rgb = self.val_scene.all_images[index].view(-1, 3)  # <- DL011
        batch.update({"c2w": c2w.to(self.device), "rgb": rgb.to(self.device)})

    def validation_step(self, batch, batch_idx):
        self.preprocess_data(batch)
        out = self.model(batch["c2w"])
        psnr = -10.0 * torch.log10(F.mse_loss(out, batch["rgb"]))
        self.log("val/psnr", psnr, prog_bar=True)
        return psnr

    def val_dataloader(self):
        return DataLoader(IndexDataset(len(self.val_scene.all_images)), batch_size=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="load/nerf_synthetic/lego")
    args = parser.parse_args()
    system = NeRFSystem({"root": args.root})
    pl.Trainer(accelerator="gpu", devices=1).validate(system)


if __name__ == "__main__":
    main()
"""

# the PR's fix: the index taken back to the host before slicing the CPU tensors
_NERF_SYSTEM_INDEX_ON_HOST = _NERF_SYSTEM.replace(
    'index = batch["index"]', 'index = batch["index"].cpu()').replace("  # <- DL011", "")

CASES.update({
    "lightning_step_index_slices_host_scene": _NERF_SYSTEM,
    "control_lightning_step_index_taken_to_host": _NERF_SYSTEM_INDEX_ON_HOST,
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_attrs7_cause(name):
    code = CASES[name]
    got = findings_at(code, RULES, "train.py")
    assert got == expected(code), f"got {sorted(got)}"
