"""A small bad/fixed fixture pair written on the fly, with its `expect:` header on a chosen
line: the right one, or one off (the header then disagrees with the linter)."""

from __future__ import annotations

from pathlib import Path

# A realistic little evaluation script: `.numpy()` on the output of a model on the device,
# on line FLAGGED_LINE.
BAD = """\
# devicelint-fixture
# expect: DL003 at {line}
# runtime: raises TypeError: can't convert
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def evaluate(model, batches):
    model.eval()
    preds = []
    with torch.no_grad():
        for x in batches:
            preds.append(model(x.to(device)).argmax(1))
    return preds


model = nn.Linear(4, 3).to(device)
with torch.no_grad():
    scores = model(torch.randn(8, 4, device=device)).softmax(-1).numpy()
print(scores.shape, len(evaluate(model, [torch.randn(2, 4)])))
"""
FLAGGED_LINE = 21


def make_pair(parent: Path, header_line: int = FLAGGED_LINE, folder: str = "DL003-numpy-on-cuda") -> Path:
    """`parent/folder/bad.py` + `fixed.py`; returns the folder."""
    where = Path(parent) / folder
    where.mkdir(parents=True)
    bad = BAD.format(line=header_line)
    (where / "bad.py").write_text(bad, encoding="utf-8")
    (where / "fixed.py").write_text(bad.replace(".numpy()", ".cpu().numpy()"), encoding="utf-8")
    return where
