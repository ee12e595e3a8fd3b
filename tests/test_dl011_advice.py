"""DL011's advice names what works for the call that made the host tensor: `device=` for the
factories that take it, `.to(x.device)` for the ones that do not (a legacy typed constructor
raises "legacy constructor expects device type: cpu" when handed a CUDA device, and
`torch.from_numpy` has no `device=` at all)."""

from __future__ import annotations

import textwrap

from devicelint.engine import lint_source
from devicelint import knowledge as kb

POLICY = textwrap.dedent('''
    import argparse

    import numpy as np
    import torch
    import torch.nn as nn


    class Policy(nn.Module):
        def __init__(self, n_obs, n_act):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(n_obs, 128), nn.ReLU(), nn.Linear(128, n_act))

        def forward(self, obs):
            scale = MAKE
            return self.net(obs) * scale


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cuda")
        args = parser.parse_args()
        device = torch.device(args.device)
        policy = Policy(8, 4).to(device)
        obs = torch.randn(16, 8, device=device)
        print(policy(obs).sum().item())


    if __name__ == "__main__":
        main()
''')


def _dl011_messages(make: str) -> list:
    findings = lint_source(POLICY.replace("MAKE", make), "policy.py")
    return [f.message for f in findings if f.code == "DL011"]


def test_a_factory_that_takes_device_is_told_to_take_it():
    (message,) = _dl011_messages("torch.ones(4)")
    assert message.endswith("create it with `device=x.device` (or `x.new_zeros(...)`)")


def test_a_legacy_typed_constructor_is_told_to_move_not_to_take_device():
    (message,) = _dl011_messages("torch.FloatTensor([[1.0, 0.5, 0.5, 1.0]])")
    assert "create it with" not in message
    assert "move it with `.to(x.device)`" in message


def test_a_view_of_numpy_memory_is_told_to_move():
    (message,) = _dl011_messages("torch.from_numpy(np.ones(4, dtype=np.float32))")
    assert "create it with `device=" not in message
    assert ".to(x.device)" in message


def test_which_calls_take_device():
    assert kb.torch_core.takes_device_keyword("torch.zeros")
    assert kb.torch_core.takes_device_keyword("torch.tensor")
    assert not kb.torch_core.takes_device_keyword("torch.from_numpy")
    assert not kb.torch_core.takes_device_keyword("torch.FloatTensor")
    assert not kb.torch_core.takes_device_keyword("torch.Tensor")
    assert not kb.torch_core.takes_device_keyword("numpy.zeros")


LOOP = textwrap.dedent('''
    import numpy as np
    import torch
    import torch.nn as nn

    device = torch.device("cuda")
    model = nn.Linear(4, 2).to(device)
    for step in range(10):
        x = torch.randn(8, 4, device=device)
        weights = MAKE
        out = model(x) * weights
''')


def _dl011_fixes(make: str) -> list:
    findings = lint_source(LOOP.replace("MAKE", make), "train.py")
    return [f.fix for f in findings if f.code == "DL011"]


def test_the_fix_gives_device_to_a_factory_that_takes_it():
    (fix,) = _dl011_fixes("torch.ones(2)")
    assert fix is not None and fix["edits"][0]["content"] == "torch.ones(2, device=device)"


def test_no_fix_hands_device_to_a_legacy_typed_constructor():
    # torch.FloatTensor([1.0, 2.0], device=device) raises "legacy constructor expects device
    # type: cpu" on a CUDA device: the finding stands, with no fix
    assert _dl011_fixes("torch.FloatTensor([1.0, 2.0])") == [None]
