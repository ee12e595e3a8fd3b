"""The legacy typed constructors (`torch.FloatTensor`, `torch.ShortTensor`, `torch.cuda.HalfTensor`,
...) live in one table (`torch_core.LEGACY_TENSOR_TYPES`); the factory lists and the checks of
a `torch.<T>` / `torch.cuda.<T>` name derive from it, so every rule treats all eleven alike.
Before, `torch.ShortTensor`, `torch.CharTensor` and `torch.BFloat16Tensor` were known to DL008
but missing from the factory lists: a host mask made with one in `forward` (or data turned
into one in a training loop) met the device tensors silently, where `torch.LongTensor` was
flagged (DL011).
"""

import textwrap

import pytest

from devicelint import knowledge as kb
from devicelint.engine import lint_source

HOST_TYPES = sorted(kb.torch_core.LEGACY_TENSOR_TYPES)
CUDA_TYPES = [t for t in HOST_TYPES if t != "Tensor"]

# a module whose forward builds a host tensor from a list and multiplies device activations by it
MASKED_HEAD = '''
import argparse

import torch
import torch.nn as nn


class MaskedHead(nn.Module):
    """Keeps the classes the task scores, zeroing the others."""

    def __init__(self, in_features, keep):
        super().__init__()
        self.fc = nn.Linear(in_features, len(keep))
        self.keep = keep

    def forward(self, x):
        mask = torch.{T}(self.keep)
        return self.fc(x) * mask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", type=int, default=16)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    head = MaskedHead(args.features, [1, 0, 1, 1]).to(device)
    print(head(torch.randn(4, args.features, device=device)))


if __name__ == "__main__":
    main()
'''

# host features turned into a tensor each step, handed to a model on the device
FEATURE_LOOP = '''
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    feats = np.random.rand(8, 4)
    inputs = torch.{T}(feats)
    loss = model(inputs).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
'''

# an adversarial step drawing its noise on the host and copying it over each time
NOISE_STEP = '''
import torch


def perturb(inputs, eps):
    noise = torch.{T}(inputs.size()).uniform_(-eps, eps).cuda()
    return inputs + noise
'''


def _codes(template: str, name: str, path: str = "train.py") -> dict:
    code = textwrap.dedent(template).replace("{T}", name)
    out: dict = {}
    for f in lint_source(code, path):
        out.setdefault(f.code, []).append(code.splitlines()[f.line - 1].strip())
    return out


def test_the_factory_lists_derive_from_the_one_table():
    legacy = set(kb.torch_core.LEGACY_TENSOR_TYPES)
    assert len(legacy) == 11
    assert legacy <= kb.torch_core.TENSOR_FACTORIES
    assert legacy <= kb.torch_core.LIST_FACTORIES


@pytest.mark.parametrize("name", HOST_TYPES)
def test_a_host_typed_tensor_in_forward_meets_the_device_activations(name):
    assert _codes(MASKED_HEAD, name, "heads.py").get("DL011") == ["return self.fc(x) * mask"]


@pytest.mark.parametrize("name", CUDA_TYPES)
def test_a_cuda_typed_tensor_in_forward_is_silent(name):
    assert "DL011" not in _codes(MASKED_HEAD, "cuda." + name, "heads.py")


@pytest.mark.parametrize("name", HOST_TYPES)
def test_host_features_turned_into_a_typed_tensor_meet_the_model(name):
    assert _codes(FEATURE_LOOP, name).get("DL011") == ["loss = model(inputs).sum()"]


@pytest.mark.parametrize("name", CUDA_TYPES)
def test_features_turned_into_a_cuda_typed_tensor_are_silent(name):
    assert "DL011" not in _codes(FEATURE_LOOP, "cuda." + name)


@pytest.mark.parametrize("name", HOST_TYPES)
def test_a_typed_tensor_given_sizes_then_moved_is_a_host_allocation(name):
    assert _codes(NOISE_STEP, name, "attack.py").get("DL008") == ["noise = torch.%s(inputs.size()).uniform_(-eps, eps).cuda()" % name]


@pytest.mark.parametrize("qualname, place", [
    *[("torch." + t, "cpu") for t in HOST_TYPES],
    *[("torch.cuda." + t, "cuda") for t in CUDA_TYPES],
    ("torch.cuda.Tensor", None), ("torch.sparse.FloatTensor", None), ("torch.QTensor", None),
    ("numpy.FloatTensor", None), ("FloatTensor", None),
])
def test_the_place_of_a_legacy_type_name(qualname, place):
    assert kb.torch_core.legacy_tensor_type_place(qualname) == place
