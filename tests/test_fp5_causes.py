"""False-positive causes left by the fourth first look (benchmarks/firstlook/2026-11-26d.json,
devicelint 6d3cec3) and by the audit of the extra findings of the bug-report set
(benchmarks/bugreports/extras_audit.json), each as a realistic training script with its
control: the same script with the bug put back is still flagged. Each silence test fails on
2d4e984 and passes now; the controls pass on both.
"""

import textwrap

from devicelint.engine import lint_file, lint_source


def _write(root, files: dict):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _codes(path, code: str) -> list:
    return sorted(f.line for f in lint_file(str(path), select=[code]))


def _lines(code: str, text: str, path: str = "train.py") -> list:
    return sorted(f.line for f in lint_source(textwrap.dedent(text).lstrip("\n"), path, select=[code]))


# ---------------------------------------------------------------------------------------------
# 1. DL011 in code that never uses a device. A tutorial script whose `main()` runs under
# `__main__` and hands its model to a training helper of the project that never moves anything
# (ZZy979/pytorch-tutorial dlwizard): the LSTM's host `h0` never meets a device tensor. The
# rule's own text says so ("not in a notebook or script that names no device and runs its own
# code"); the script was read as a file of definitions because its code runs under `__main__`.

_COMMON = """
import torch
import torch.nn as nn
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST


def train_mnist(model, optimizer, view_shape=(-1, 28, 28), epochs=5):
    train_set = MNIST("data", True, transforms.ToTensor(), download=True)
    loader = DataLoader(train_set, batch_size=100, shuffle=True)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for images, labels in loader:
            images = images.view(view_shape){MOVE}
            optimizer.zero_grad()
            loss = criterion(model(images), labels{MOVE})
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.3f}")
"""

_LSTM = """
import argparse

import torch
import torch.nn as nn
import torch.optim as optim

from tutorial.common import train_mnist


class LSTM(nn.Module):
    def __init__(self, in_dim, hidden_dim, num_layers, out_dim):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.lstm = nn.LSTM(in_dim, hidden_dim, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, out_dim)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.shape[0], self.hidden_dim).requires_grad_()
        c0 = torch.zeros(self.num_layers, x.shape[0], self.hidden_dim).requires_grad_()
        out, (hn, cn) = self.lstm(x, (h0.detach(), c0.detach()))
        return self.fc(out[:, -1, :])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    model = LSTM(28, 100, 1, 10)
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    train_mnist(model, optimizer, (-1, 28, 28))


if __name__ == "__main__":
    main()
"""


def _tutorial(tmp_path, move: str = "", importer: str | None = None):
    files = {"pyproject.toml": "", "tutorial/__init__.py": "", "tutorial/common.py": _COMMON.replace("{MOVE}", move),
             "tutorial/lstm.py": _LSTM}
    if importer is not None:
        files["tutorial/compare.py"] = importer
    _write(tmp_path, files)
    return tmp_path / "tutorial" / "lstm.py"


def test_dl011_silent_in_a_script_whose_code_never_meets_a_device(tmp_path):
    assert _codes(_tutorial(tmp_path), "DL011") == []


def test_dl011_kept_when_the_training_helper_moves_the_batches(tmp_path):
    path = _tutorial(tmp_path, move=".cuda()")
    assert _codes(path, "DL011") == [21]


def test_dl011_kept_when_another_file_of_the_project_uses_the_class(tmp_path):
    importer = """
    import torch
    from tutorial.lstm import LSTM

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = LSTM(28, 100, 1, 10).to(device)
    print(model(torch.randn(4, 28, 28, device=device)).shape)
    """
    assert _codes(_tutorial(tmp_path, importer=importer), "DL011") == [21]


# ---------------------------------------------------------------------------------------------
# 2. A method of the file's own model class that trains and hands back lists of `loss.item()`
# numbers (zhiyuan8/Pytorch-tutorial): given device tensors, it still returns plain floats,
# which `plt.plot` takes as they are.

_CIRCLES = """
import matplotlib.pyplot as plt
import torch
from sklearn.datasets import make_circles
from torch import nn


class CircleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 10), nn.ReLU(), nn.Linear(10, 1))
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def forward(self, x):
        return self.net(x)

    def train_model(self, X_train, y_train, X_test, y_test, epochs=1000):
        train_losses, test_losses = [], []
        for epoch in range(epochs):
            self.train()
            loss = self.loss_fn(self(X_train).squeeze(), y_train)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            train_losses.append(loss{KEEP})
            self.eval()
            with torch.no_grad():
                test_loss = self.loss_fn(self(X_test).squeeze(), y_test)
                test_losses.append(test_loss{KEEP})
        return train_losses, test_losses


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    X, y = make_circles(1000, noise=0.03, random_state=42)
    X = torch.from_numpy(X).float().to(device)
    y = torch.from_numpy(y).float().to(device)
    model = CircleModel().to(device)
    train_losses, test_losses = model.train_model(X[:800], y[:800], X[800:], y[800:])
    plt.plot(train_losses, label="train")
    plt.plot(test_losses, label="test")
    plt.legend()
    plt.savefig("losses.png")
"""


def test_dl003_silent_on_a_methods_lists_of_item_numbers():
    assert _lines("DL003", _CIRCLES.replace("{KEEP}", ".item()")) == []


def test_dl003_kept_on_a_methods_lists_of_device_tensors():
    assert _lines("DL003", _CIRCLES.replace("{KEEP}", ".detach()")) == [40, 41]


# ---------------------------------------------------------------------------------------------
# 3. The unbound-method spelling `Tensor.cpu(loss)` / `torch.Tensor.cpu(loss)` is `loss.cpu()`
# (asun975/zero-to-mastery-pytorch-tutorial), and `Tensor.detach(x)` is `x.detach()`.

_LINEAR = """
import torch
from torch import Tensor, nn

device = "cuda" if torch.cuda.is_available() else "cpu"
weight, bias = 0.7, 0.3
X = torch.arange(0, 1, 0.02).unsqueeze(dim=1)
y = weight * X + bias
X_train, y_train, X_test, y_test = X[:40].to(device), y[:40].to(device), X[40:].to(device), y[40:].to(device)

model = nn.Linear(1, 1).to(device)
loss_fn = nn.L1Loss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
epoch_count, train_loss_values, test_loss_values = [], [], []
for epoch in range(200):
    model.train()
    loss = loss_fn(model(X_train), y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model.eval()
    with torch.inference_mode():
        test_loss = loss_fn(model(X_test), y_test)
        if epoch % 10 == 0:
            epoch_count.append(epoch)
            train_loss_values.append(Tensor.cpu(loss).detach().numpy())
            test_loss_values.append(torch.Tensor.cpu(test_loss.detach()).numpy())
            test_loss_values.append(Tensor.detach(test_loss).cpu().numpy())
            test_loss_values.append(Tensor.cpu(Tensor.detach(test_loss)).numpy())
            test_loss_values.append(Tensor.detach(test_loss).numpy())
"""


def test_dl003_reads_the_unbound_cpu_and_detach_spelling():
    # only the last line, whose value never leaves the device, is still flagged
    assert _lines("DL003", _LINEAR) == [29]


# ---------------------------------------------------------------------------------------------
# 4. A `device: str = "cpu"` parameter whose callers pass the script's CUDA-or-CPU device
# (Anikhet/pytorch-tutorial face_morphing): the default is what it holds only where no caller
# passes it.

_CONTROLLER = """
import os

import numpy as np
import torch
from torch import nn


class FaceVAE(nn.Module):
    def __init__(self, latent_dim=128):
        super().__init__()
        self.latent_dim = latent_dim
        self.decoder = nn.Sequential(nn.Linear(latent_dim, 64 * 64 * 3), nn.Sigmoid())

    def forward(self, z):
        return self.decoder(z).view(-1, 3, 64, 64)


class FaceMorphingController:
    def __init__(self, model: FaceVAE, device: str = "cpu"):
        self.model = model
        self.device = device

    def generate_random_face(self):
        with torch.no_grad():
            z = torch.randn(1, self.model.latent_dim, device=self.device)
            img = self.model(z)[0].permute(1, 2, 0).cpu().numpy()
        return np.clip(img, 0, 1), z[0].cpu().numpy()


def create_demo(checkpoint_path="pretrained/face_vae.pth"):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = FaceVAE().to(device)
    if os.path.exists(checkpoint_path):
        checkpoint = torch.load(checkpoint_path, map_location=device, weights_only=False)
        model.load_state_dict(checkpoint["model_state_dict"])
    model.eval()
    controller = FaceMorphingController({ARGS})
    return controller.generate_random_face()


if __name__ == "__main__":
    image, latent = create_demo()
    print(image.shape, latent.shape)
"""


def test_dl004_default_device_not_taken_where_callers_pass_one(tmp_path):
    path = tmp_path / "face_morphing.py"
    path.write_text(textwrap.dedent(_CONTROLLER).lstrip("\n").replace("{ARGS}", "model, device"))
    assert _codes(path, "DL004") == []


def test_dl004_default_device_kept_where_no_caller_passes_one(tmp_path):
    path = tmp_path / "face_morphing.py"
    path.write_text(textwrap.dedent(_CONTROLLER).lstrip("\n").replace("{ARGS}", "model"))
    assert _codes(path, "DL004") == [27]


# ---------------------------------------------------------------------------------------------
# 5. Dead code with an undefined `device` (Han-Adam/DRL-Pytorch-Tutorial MADDPG evaluate.py):
# `if RANDOM:` on a module toggle `RANDOM = False`, and a function nobody calls, both read a
# `device` bound nowhere in the file: each line is either never run or a NameError, no move.

_EVALUATE = """
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

RANDOM = {RANDOM}
HIDDEN = 64
{DEVICE}

class Actor(nn.Module):
    def __init__(self, state_n, action_n, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_n, hidden), nn.ReLU(), nn.Linear(hidden, action_n))

    def forward(self, s):
        return self.net(s)


def random_actions(actors, states):
    return [actor(torch.FloatTensor(s).to(device)).detach().tolist() for actor, s in zip(actors, states)]


actors = [Actor(8, 5, HIDDEN) for _ in range(3)]
for i, actor in enumerate(actors):
    actor.load_state_dict(torch.load(f"./agent{i}.pt", map_location=torch.device("cpu")))
states = [np.zeros(8, dtype=np.float32) for _ in actors]
for step in range(100):
    if RANDOM:
        a_n = [actor(torch.FloatTensor(s).to(device)).detach().tolist() for actor, s in zip(actors, states)]
    else:
        a_n = [F.softmax(actor(torch.FloatTensor(s)), dim=-1).detach().tolist() for actor, s in zip(actors, states)]
    print(step, a_n)
"""


def _evaluate(random: str, device: str) -> str:
    return _EVALUATE.replace("{RANDOM}", random).replace("{DEVICE}", device)


def test_dl001_silent_on_an_undefined_device_in_dead_code():
    assert _lines("DL001", _evaluate("False", "")) == []


def test_dl001_kept_in_a_toggled_off_branch_with_a_defined_device():
    # a module toggle is the user's to flip: the branch is still checked (a choice, not pruned)
    defined = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    assert _lines("DL001", _evaluate("False", defined)) == [29]


def test_dl001_kept_in_a_live_branch_with_a_defined_device():
    defined = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    assert _lines("DL001", _evaluate("True", defined)) == [29]


# ---------------------------------------------------------------------------------------------
# Bug-report set extras audited false (benchmarks/bugreports/extras_audit.json).
# 6. A count in a loader's batch tuple (`for batch_size, images, targets in dataloader`, a
# collate returning `len(batch)` first): a number, no host tensor (034, YOLO's solver).

_SOLVER = """
from collections import defaultdict

import torch


class ModelTrainer:
    def __init__(self, model, loss_fn, device):
        self.model = model.to(device)
        self.device = device
        self.loss_fn = loss_fn
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937)

    def train_one_batch(self, images, targets):
        images, targets = images.to(self.device), targets.to(self.device)
        self.optimizer.zero_grad()
        loss, loss_item = self.loss_fn(self.model(images), targets)
        loss.backward()
        self.optimizer.step()
        return loss_item

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0
        for {FIRST}, images, targets in dataloader:
            loss_each = self.train_one_batch(images, targets)
            for loss_name, loss_val in loss_each.items():
                total_loss[loss_name] += loss_val.detach() * {FIRST}
            total_samples += len(images)
        return {name: value / total_samples for name, value in total_loss.items()}
"""


def test_dl002_silent_on_a_count_from_the_loaders_tuple():
    assert _lines("DL002", _SOLVER.replace("{FIRST}", "batch_size"), "solver.py") == []


def test_dl002_kept_on_a_tensor_from_the_loaders_tuple():
    assert _lines("DL002", _SOLVER.replace("{FIRST}", "weight"), "solver.py") == [28]


# 7. A torchvision dataset whose transform pipeline ends in a step of the file that moves each
# image (`ToCuda()`, 105): its batches are not host data (the worker crash is DL017's bug).

_TOCUDA = """
import torch
import torch.utils.data
import torchvision


class ToCuda:
    def __init__(self):
        self.is_cuda = torch.cuda.is_available()

    def __call__(self, tensor):
        if self.is_cuda:
            tensor = tensor.cuda()
        return tensor


class Flatten:
    def __call__(self, tensor):
        return tensor.view(-1)


transform = torchvision.transforms.Compose([torchvision.transforms.ToTensor(), {STEP}()])
dataset = torchvision.datasets.MNIST("../data", transform=transform, download=True)
loader = torch.utils.data.DataLoader(dataset, batch_size=256, num_workers=0)
model = torch.nn.Linear(784, 10).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = torch.nn.CrossEntropyLoss()
for images, labels in loader:
    outputs = model(images.view(images.size(0), -1))
    loss = criterion(outputs, labels.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def test_dl002_silent_on_batches_of_a_placing_transform():
    assert _lines("DL002", _TOCUDA.replace("{STEP}", "ToCuda")) == []


def test_dl002_kept_on_batches_of_a_host_transform():
    assert _lines("DL002", _TOCUDA.replace("{STEP}", "Flatten")) == [28]
