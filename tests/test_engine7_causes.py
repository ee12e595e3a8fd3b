"""Issue 20, engine misses (engine7): values from callers in other files reach the methods of a
plain class (`trainer = Trainer(); trainer.fit_epoch(model, loader, ...)`), and values meet
inside methods the engine does not enter (a model's own method we cannot see, handed a host
image or a host tensor made beside device ones). Each test fails at 56e726f; each has a
control where the linter must stay silent."""

import textwrap

from devicelint.engine import lint_file

MODELS = '''
import torch.nn as nn


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(32 * 13 * 13, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
'''

TRAINER = '''
import torch


class Trainer:
    """Runs epochs; the script hands it the model, loader, loss and optimizer."""

    def __init__(self, log_every=50):
        self.log_every = log_every
        self.history = []

    def fit_epoch(self, model, loader, criterion, optimizer):
        model.train()
        total = 0.0
        for step, (images, labels) in enumerate(loader):
            optimizer.zero_grad()
            logits = model(images)
            loss = criterion(logits, labels)
            loss.backward()
            optimizer.step()
            total += loss.item()
            if step % self.log_every == 0:
                print(f"step {step}: {loss.item():.4f}")
        self.history.append(total / len(loader))
        return total / len(loader)
'''

TRAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models import ConvNet
from trainer import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)

    model = ConvNet().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    trainer = Trainer(log_every=100)
    for epoch in range(args.epochs):
        loss = trainer.fit_epoch(model, train_loader, criterion, optimizer=optimizer)
        print(f"epoch {epoch}: {loss:.4f}")


if __name__ == "__main__":
    main()
'''

# a second entry point that fine-tunes a checkpoint it loads whole: where that model is, no
# one can tell from here
FINETUNE = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from trainer import Trainer


def finetune(path):
    model = torch.load(path)
    loader = DataLoader(datasets.MNIST("data", train=False, transform=transforms.ToTensor()), batch_size=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    trainer = Trainer()
    trainer.fit_epoch(model, loader, nn.CrossEntropyLoss(), optimizer)


if __name__ == "__main__":
    finetune("best.pt")
'''


def make(root, files: dict) -> None:
    (root / "pyproject.toml").write_text("")
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())


def found(path, codes=("DL001", "DL002", "DL011")) -> list:
    return sorted((f.code, f.line) for f in lint_file(str(path)) if f.code in codes)


def line_of(path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


# ---------------------------------------------------------------- 1. method contexts across files


def test_a_trainer_method_gets_the_moved_model_and_host_loader_its_callers_hand_in(tmp_path):
    # train.py moves the model and hands it, with a plain MNIST loader, to Trainer.fit_epoch
    # in trainer.py, which never moves its batches: DL002 there (silent at 56e726f, the
    # method's parameters were unknown)
    make(tmp_path, {"models.py": MODELS, "trainer.py": TRAINER, "train.py": TRAIN})
    trainer = tmp_path / "trainer.py"
    assert found(trainer) == [("DL002", line_of(trainer, "logits = model(images)")),
                              ("DL002", line_of(trainer, "loss = criterion(logits, labels)"))]
    assert found(tmp_path / "train.py") == []


def test_a_trainer_that_moves_its_batches_is_clean(tmp_path):
    moving = TRAINER.replace("            optimizer.zero_grad()\n",
                             "            images, labels = images.to(device), labels.to(device)\n"
                             "            optimizer.zero_grad()\n").replace(
        "def fit_epoch(self, model, loader, criterion, optimizer):",
        "def fit_epoch(self, model, loader, criterion, optimizer, device=None):\n"
        "        device = next(model.parameters()).device")
    make(tmp_path, {"models.py": MODELS, "trainer.py": moving, "train.py": TRAIN})
    assert found(tmp_path / "trainer.py") == []


def test_callers_that_disagree_leave_the_method_silent(tmp_path):
    # finetune.py hands fit_epoch a model loaded whole (place unknown): the callers disagree
    make(tmp_path, {"models.py": MODELS, "trainer.py": TRAINER, "train.py": TRAIN, "finetune.py": FINETUNE})
    assert found(tmp_path / "trainer.py") == []


def test_an_instance_kept_on_self_or_handed_on_leaves_the_method_silent(tmp_path):
    # the Trainer is stored on an object: its calls may be anywhere
    kept = TRAIN.replace("    trainer = Trainer(log_every=100)\n", "    run = argparse.Namespace()\n"
                         "    run.trainer = trainer = Trainer(log_every=100)\n")
    make(tmp_path, {"models.py": MODELS, "trainer.py": TRAINER, "train.py": kept})
    assert found(tmp_path / "trainer.py") == []


def test_a_method_the_class_also_calls_itself_stays_silent(tmp_path):
    # `self.fit_epoch(...)` from `fit` hands it values no site in train.py shows
    own = TRAINER + '''
    def fit(self, model, loader, criterion, optimizer, epochs):
        for _ in range(epochs):
            self.fit_epoch(model, loader, criterion, optimizer)
'''
    make(tmp_path, {"models.py": MODELS, "trainer.py": own, "train.py": TRAIN})
    assert found(tmp_path / "trainer.py") == []


# ---------------------------------------------------------------- 2. values meeting in unseen methods

SERFIQ = '''
from pathlib import Path

import torch
from torchvision import io, transforms

from backbones.iresnet import iresnet18


def load_image(img_path: str) -> torch.Tensor:
    image: torch.Tensor = io.read_image(img_path)
    image = image.type(torch.FloatTensor) / 255.0
    image = normalize(image)
    return image


if __name__ == "__main__":
    torch_device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    normalize = transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])
    resnet = iresnet18(dropout=0.4, num_features=512, use_se=False).to(torch_device)
    resnet.load_state_dict(torch.load("checkpoints/resnet18.pth", map_location=torch_device))
    resnet.eval()
    for img_file in sorted(Path("images").glob("*.jpg")):
        image = load_image(str(img_file)).unsqueeze(dim=0)
        scores = resnet.calculate_serfiq(image, T=10, scaling=5.0)
        print(f"{img_file.name}: {scores[0].item():.8f}")
'''


def test_an_image_read_cast_and_normalized_on_the_host_meets_the_moved_models_own_method(tmp_path):
    # read_image gives a host tensor; `.type(torch.FloatTensor)` and `Normalize` keep it there;
    # the model's method we cannot see runs its weights on it (case 112 of the bug reports)
    make(tmp_path, {"infer.py": SERFIQ})
    path = tmp_path / "infer.py"
    assert found(path) == [("DL002", line_of(path, "scores = resnet.calculate_serfiq"))]


def test_the_image_moved_first_or_cast_to_the_cuda_type_is_clean(tmp_path):
    moved = SERFIQ.replace(".unsqueeze(dim=0)", ".unsqueeze(dim=0).to(torch_device)")
    make(tmp_path, {"infer.py": moved})
    assert found(tmp_path / "infer.py") == []
    cuda_type = SERFIQ.replace("image.type(torch.FloatTensor)", "image.type(torch.cuda.FloatTensor)")
    make(tmp_path, {"infer.py": cuda_type})
    assert found(tmp_path / "infer.py") == []


A2C_EVAL = '''
import argparse

import torch

from a2c_ppo_acktr.envs import make_vec_envs
from a2c_ppo_acktr.model import Policy


def evaluate(args):
    device = torch.device("cuda:0" if args.cuda else "cpu")
    envs = make_vec_envs(args.env_name, args.seed, args.num_processes, device)
    actor_critic = Policy(envs.observation_space.shape, envs.action_space)
    actor_critic.to(device)
    obs = envs.reset()
    hidden = torch.zeros(args.num_processes, actor_critic.recurrent_hidden_state_size, device=device)
    masks = torch.zeros(args.num_processes, 1, device=device)
    rewards = []
    while len(rewards) < 10:
        with torch.no_grad():
            _, action, _, hidden = actor_critic.act(obs, hidden, masks, deterministic=True)
        obs, reward, done, infos = envs.step(action)
        masks = MASKS_LINE
        rewards.extend(info["episode"]["r"] for info in infos if "episode" in info)
    return rewards


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--env-name", default="PongNoFrameskip-v4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-processes", type=int, default=4)
    print(evaluate(parser.parse_args()))
'''


def test_a_host_mask_rebuilt_in_the_loop_meets_the_device_state_in_the_policys_method(tmp_path):
    # the masks start on the device, then are rebuilt on the host and handed back to
    # `actor_critic.act` with the device hidden state (case 118 of the bug reports)
    make(tmp_path, {"evaluate.py": A2C_EVAL.replace(
        "MASKS_LINE", "torch.FloatTensor([[0.0] if done_ else [1.0] for done_ in done])")})
    path = tmp_path / "evaluate.py"
    assert found(path) == [("DL011", line_of(path, "actor_critic.act(obs, hidden, masks"))]


def test_masks_rebuilt_on_the_device_are_clean(tmp_path):
    make(tmp_path, {"evaluate.py": A2C_EVAL.replace(
        "MASKS_LINE", "torch.tensor([[0.0] if done_ else [1.0] for done_ in done], device=device)")})
    assert found(tmp_path / "evaluate.py") == []


# ---------------------------------------------------------------- containers: a mixed list of layers

NECK = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class FPNWithContext(nn.Module):
    def __init__(self, in_channels, out_channels, num_context_convs=2):
        super().__init__()
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)
        # the added block: context convs on the top lateral output
        self.extra_convs = []
        for i in range(num_context_convs):
            self.extra_convs.append(EXTRA_LAYER)
            self.extra_convs.append(nn.ReLU(inplace=True))

    def forward(self, inputs):
        laterals = [conv(x) for conv, x in zip(self.lateral_convs, inputs)]
        top = laterals[-1]
        for layer in self.extra_convs:
            top = layer(top)
        laterals[-1] = top
        for i in range(len(laterals) - 1, 0, -1):
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], scale_factor=2, mode="nearest")
        return laterals


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, default=256)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    neck = FPNWithContext([64, 128, 256], args.channels).to(device)
    feats = [torch.randn(2, c, 64 // 2 ** i, 64 // 2 ** i, device=device) for i, c in enumerate([64, 128, 256])]
    print([f.shape for f in neck(feats)])
'''


def test_a_plain_list_filled_with_convolutions_and_activations_in_a_loop_is_not_moved(tmp_path):
    # `self.extra_convs = []` + `.append(nn.Conv2d(...))` + `.append(nn.ReLU())` in a loop: the
    # convolutions stay on the host when the neck is moved (the mmdetection report, case 142's
    # shape); at 56e726f the activation hid the convolutions (only an all-conv list was known)
    make(tmp_path, {"neck.py": NECK.replace("EXTRA_LAYER", "nn.Conv2d(out_channels, out_channels, 3, padding=1)")})
    path = tmp_path / "neck.py"
    assert found(path, ("DL001",)) == [("DL001", line_of(path, "top = layer(top)"))]


def test_a_plain_list_of_activations_only_is_clean(tmp_path):
    make(tmp_path, {"neck.py": NECK.replace("EXTRA_LAYER", "nn.Dropout(0.1)")})
    assert found(tmp_path / "neck.py", ("DL001",)) == []
