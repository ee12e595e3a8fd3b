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


# the rules the first-look cause modules check (one program may show several of them)
FIRSTLOOK_RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]


def findings_at(code: str, rules, path: str = "train.py") -> set:
    """(code, line) of each finding of `rules` in `code` linted as `path`: what `expected` reads."""
    from devicelint.engine import lint_source  # the lint path, for the modules that lint

    return {(f.code, f.line) for f in lint_source(code, path, select=rules)}


def assert_marked(name: str, case: str, rules=FIRSTLOOK_RULES) -> None:
    """Lint the case (after PRELUDE) as `<name>.py`: exactly its `# <- DLnnn` lines are flagged."""
    code = program(case)
    got = findings_at(code, rules, f"{name}.py")
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"
