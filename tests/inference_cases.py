"""What the inference test modules share: a realistic script head every case is appended
to, and the `# <- DLnnn` marks that state, in a case itself, where each finding must be."""

import re
import textwrap

MARK = re.compile(r"#\s*<-\s*(DL\d{3})")

PRELUDE = """\
import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def make_loader():
    ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    return DataLoader(ds, batch_size=16, shuffle=True)
"""


def expected(code: str) -> set:
    return {(m.group(1), n) for n, line in enumerate(code.splitlines(), start=1) for m in [MARK.search(line)] if m}


def program(case: str) -> str:
    return PRELUDE + textwrap.dedent(case).lstrip("\n")
