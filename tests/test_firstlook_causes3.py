"""False-positive causes found by the first look of 2026-11-26 (third round, devicelint
6fe31cc, `benchmarks/firstlook/2026-11-26c.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- `nn.NLLLoss2d()`, the deprecated 2-D alias of `nn.NLLLoss`, is a loss without weights
  like every other torch loss, though its name does not end in `Loss` (a book's FCN
  segmentation notebook: `criterion = nn.NLLLoss2d()` never moved, called with CUDA
  tensors);

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]

_FCN_TRAINING = """
from datetime import datetime


class FCN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stage1 = nn.Conv2d(3, 64, 3, padding=1)
        self.scores = nn.Conv2d(64, num_classes, 1)

    def forward(self, x):
        return self.scores(F.relu(self.stage1(x)))


def make_seg_loader():
    ds = TensorDataset(torch.randn(16, 3, 32, 32), torch.randint(0, 21, (16, 32, 32)))
    return DataLoader(ds, batch_size=4, shuffle=True)


net = FCN(21)
net = net.cuda()
criterion = nn.NLLLoss2d()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-2, weight_decay=1e-4)

for e in range(80):
    train_loss = 0
    prev_time = datetime.now()
    net = net.train()
    for data in make_seg_loader():
        im = data[0].cuda()
        labels = data[1].cuda()
        out = net(im)
        out = F.log_softmax(out, dim=1)
        loss = criterion(out, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
"""

# Control: given a class-weight tensor built on the host, the alias holds it like
# `NLLLoss(weight=w)` does, and calling it with CUDA tensors fails.
_FCN_TRAINING_HOST_WEIGHT = _FCN_TRAINING.replace(
    "criterion = nn.NLLLoss2d()", "criterion = nn.NLLLoss2d(weight=torch.ones(21))").replace(
    "        loss = criterion(out, labels)\n", "        loss = criterion(out, labels)  # <- DL001\n")

CASES = {
    "nllloss2d_without_weight": _FCN_TRAINING,
    "nllloss2d_with_host_weight": _FCN_TRAINING_HOST_WEIGHT,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"
