"""False-positive causes left by the fifth first look (benchmarks/firstlook/2026-11-26e.json,
devicelint 2d4e984), each as a realistic training script with its control: the same script with
the bug put back is still flagged. Each silence test fails on 6e0c97d and passes now; the
controls pass on both.
"""

import textwrap

from devicelint.engine import lint_source


def _lines(code: str, text: str, path: str = "evaluate.py") -> list:
    return sorted(f.line for f in lint_source(textwrap.dedent(text).lstrip("\n"), path, select=[code]))


# ---------------------------------------------------------------------------------------------
# 1. DL002: an item of a Dataset indexed directly (`x, t = raw_test_set[i]`) is not collated: its
# label is what `__getitem__` returns (a Python int, a NumPy scalar, at most a 0-dim tensor),
# which PyTorch takes as a number when it is compared with a device tensor
# (`(prediction == t).sum()`). Only a collated batch (a DataLoader's) makes it a 1-dim host
# tensor that cannot meet device data.

_ROTATIONS = """
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset


class DigitsDataset(Dataset):
    def __init__(self, path):
        data = np.loadtxt(path)
        self.images = torch.tensor(data[:, :-1].reshape(-1, 1, 28, 28).astype(np.float32))
        self.labels = data[:, -1].astype(np.int64)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.body(x)


parser = argparse.ArgumentParser()
parser.add_argument("--data", default="mnist/mnist_test.amat")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
raw_test_set = DigitsDataset(args.data)


def accuracy_under_rotation(model, n_rotations=8, limit=2000):
    model.eval()
    accuracies = []
    with torch.no_grad():
        for r in range(n_rotations):
            correct = 0
            for i in range(limit):
                x, t = raw_test_set[i]
                x = x.rot90(r % 4, dims=(1, 2)).unsqueeze(0){MOVE}
                y = model(x)
                _, prediction = torch.max(y, 1)
                correct += (prediction == t).sum().item()
            accuracies.append(100.0 * correct / limit)
    return accuracies


model = Net().to(device)
model.load_state_dict(torch.load("net.pt", map_location=device))
print(accuracy_under_rotation(model))
"""


def test_label_of_a_dataset_indexed_directly_compared_with_device_predictions_is_silent():
    assert _lines("DL002", _ROTATIONS.replace("{MOVE}", ".to(device)")) == []


def test_image_of_a_dataset_indexed_directly_fed_to_the_device_model_is_flagged():
    # control: the image itself left on the host still reaches the moved model
    assert _lines("DL002", _ROTATIONS.replace("{MOVE}", "")) != []


def test_label_of_a_loader_batch_compared_with_device_predictions_is_still_flagged():
    # control: a DataLoader's collate makes the labels a 1-dim host tensor
    text = _ROTATIONS.replace("{MOVE}", ".to(device)").replace(
        "            for i in range(limit):\n                x, t = raw_test_set[i]\n",
        "            for x, t in torch.utils.data.DataLoader(raw_test_set, batch_size=64):\n")
    assert "DataLoader(raw_test_set" in text
    assert _lines("DL002", text) != []


# ---------------------------------------------------------------------------------------------
# 4. DL014: one batch drawn from a fresh iterator (`next(iter(loader))`) and moved once, outside
# any loop of its function (a plotting helper looking at the gradients of one batch), has no
# copy to overlap and no next batch to pin ahead: pinning only adds a host copy of its own.
# A loop over the loader's batches (the control) is what `pin_memory=True` speeds up.

_GRADIENTS = """
import matplotlib.pyplot as plt
import seaborn as sns
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision import transforms

device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
train_set = torchvision.datasets.FashionMNIST(root="data", train=True, transform=transform, download=True)
small_loader = torch.utils.data.DataLoader(train_set, batch_size=256, shuffle=False)


class BaseNetwork(nn.Module):
    def __init__(self, act_fn, input_size=784, num_classes=10, hidden_sizes=(512, 256, 256, 128)):
        super().__init__()
        layers = []
        sizes = [input_size, *hidden_sizes]
        for i in range(len(sizes) - 1):
            layers += [nn.Linear(sizes[i], sizes[i + 1]), act_fn]
        layers += [nn.Linear(sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x.view(x.size(0), -1))


def visualize_gradients(net, color="C0"):
    net.eval()
    imgs, labels = next(iter(small_loader))
    imgs, labels = imgs.to(device), labels.to(device)
    net.zero_grad()
    loss = F.cross_entropy(net(imgs), labels)
    loss.backward()
    grads = {name: p.grad.data.view(-1).cpu().clone().numpy()
             for name, p in net.named_parameters() if "weight" in name}
    net.zero_grad()
    fig, ax = plt.subplots(1, len(grads), figsize=(len(grads) * 3.5, 2.5))
    for i, key in enumerate(grads):
        sns.histplot(data=grads[key], bins=30, ax=ax[i], color=color, kde=True)
        ax[i].set_title(key)
    plt.show()
    plt.close()


for act_fn in (nn.Sigmoid(), nn.Tanh(), nn.ReLU(), nn.GELU()):
    net_actfn = BaseNetwork(act_fn=act_fn).to(device)
    visualize_gradients(net_actfn)
"""


def test_one_batch_moved_once_by_a_plotting_helper_is_not_flagged_as_unpinned():
    assert _lines("DL014", _GRADIENTS) == []


def test_batches_moved_in_a_loop_over_the_unpinned_loader_are_still_flagged():
    text = _GRADIENTS.replace(
        "    imgs, labels = next(iter(small_loader))\n    imgs, labels = imgs.to(device), labels.to(device)\n    net.zero_grad()\n    loss = F.cross_entropy(net(imgs), labels)\n    loss.backward()\n",
        "    net.zero_grad()\n    for imgs, labels in small_loader:\n        imgs, labels = imgs.to(device), labels.to(device)\n        F.cross_entropy(net(imgs), labels).backward()\n")
    assert "for imgs, labels in small_loader" in text
    assert len(_lines("DL014", text)) == 2


def test_fresh_iterator_drawn_each_step_of_a_loop_is_still_flagged():
    # control: a draw per step of a training loop is a stream of batches
    text = _GRADIENTS.replace(
        "    imgs, labels = next(iter(small_loader))\n    imgs, labels = imgs.to(device), labels.to(device)\n",
        "    for step in range(100):\n        imgs, labels = next(iter(small_loader))\n        imgs, labels = imgs.to(device), labels.to(device)\n")
    assert "for step in range(100)" in text
    assert len(_lines("DL014", text)) == 2


# ---------------------------------------------------------------------------------------------
# 2. DL011: a host tensor indexed with an element of a device tensor picked by numbers
# (`idxs2images[ranks[r, q]]`, hard-negative mining). Where that element is 0-dim PyTorch reads
# it as a number (ATen's TensorIndexing.h takes `.item()` of a 0-dim integer index), so it
# indexes a tensor on any device; its rank is unknown here, so the linter stays silent. A device
# tensor of indices (the control, `idxs2images[ranks[:, q]]`) still fails on CUDA.

_MINING = """
import torch
import torch.nn.functional as F


class HardNegativeMiner:
    def __init__(self, net, pool_size=2000, nnum=5):
        self.net = net.cuda()
        self.pool_size = pool_size
        self.nnum = nnum

    @torch.no_grad()
    def mine(self, qvecs, pool_images, clusters, qclusters):
        idxs2images = torch.randperm(len(pool_images))[:self.pool_size]
        poolvecs = torch.zeros(qvecs.size(0), len(idxs2images)).cuda()
        for i, j in enumerate(idxs2images.tolist()):
            poolvecs[:, i] = F.normalize(self.net(pool_images[j].unsqueeze(0).cuda()), dim=-1).squeeze()
        scores = torch.mm(poolvecs.t(), qvecs.cuda())
        scores, ranks = torch.sort(scores, dim=0, descending=True)
        negatives = []
        for q in range(qvecs.size(1)):
            chosen, r = [], 0
            while len(chosen) < self.nnum:
                potential = {INDEX}
                if clusters[potential] != qclusters[q]:
                    chosen.append(potential)
                r += 1
            negatives.append(chosen)
        return negatives
"""


def test_host_tensor_indexed_with_an_element_of_a_device_tensor_is_silent():
    assert _lines("DL011", _MINING.replace("{INDEX}", "idxs2images[ranks[r, q]]"), "mining.py") == []


def test_host_tensor_indexed_with_a_device_index_tensor_is_still_flagged():
    assert _lines("DL011", _MINING.replace("{INDEX}", "idxs2images[ranks[:, q]]"), "mining.py") != []

