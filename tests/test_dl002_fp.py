"""DL002 (batch-not-moved) false positives, each as a realistic training script with its
control, the same script with the bug put back, which must still be flagged.

- a loss module whose `forward` moves the labels itself through a local made from them
  (`label = torch.cat((nlabel, alabel), 0)` then `label = label.cuda()`, RTFM's train.py) or
  through a helper method of its class (`self._to_device(target)`): the host batch handed to
  it is moved before it meets device tensors.
"""



from devicelint.engine import lint_source

RTFM_TRAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self, n_features=2048):
        super().__init__()
        self.fc1 = nn.Linear(n_features, 512)
        self.fc2 = nn.Linear(512, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x)))).squeeze(-1)


class RankingLoss(nn.Module):
    def __init__(self, alpha, margin):
        super().__init__()
        self.alpha = alpha
        self.margin = margin
        self.criterion = nn.BCELoss()

    def forward(self, score_normal, score_abnormal, nlabel, alabel):
        label = torch.cat((nlabel, alabel), 0)
        score = torch.cat((score_normal, score_abnormal), 0)
        LABEL_MOVE
        loss_cls = self.criterion(score, label)
        return loss_cls + self.alpha * torch.relu(self.margin - score_abnormal.mean())


def train(nloader, aloader, model, optimizer, device):
    model.train()
    ninput, nlabel = next(nloader)
    ainput, alabel = next(aloader)
    inputs = torch.cat((ninput, ainput), 0).to(device)
    scores = model(inputs)
    score_normal, score_abnormal = scores[:ninput.size(0)], scores[ninput.size(0):]
    loss_criterion = RankingLoss(0.0001, 100)
    cost = loss_criterion(score_normal, score_abnormal, nlabel, alabel)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    return cost.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    normal = TensorDataset(torch.randn(512, 2048), torch.zeros(512))
    abnormal = TensorDataset(torch.randn(512, 2048), torch.ones(512))
    nloader = DataLoader(normal, batch_size=args.batch_size, shuffle=True, drop_last=True)
    aloader = DataLoader(abnormal, batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = Scorer().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        if step % len(nloader) == 0:
            niter, aiter = iter(nloader), iter(aloader)
        loss = train(niter, aiter, model, optimizer, device)
        print(f"step {step}: {loss:.4f}")


if __name__ == "__main__":
    main()
'''


def dl002_lines(code: str) -> list:
    return [f.line for f in lint_source(code, "train.py", select=["DL002"])]


def line_of(code: str, needle: str) -> int:
    return next(i for i, ln in enumerate(code.splitlines(), 1) if needle in ln)


def test_a_loss_that_moves_a_local_made_from_its_labels_takes_host_labels():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.cuda()")
    assert dl002_lines(code) == []


def test_a_loss_that_moves_its_labels_by_to_device_on_a_chain():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.float().to(score.device)")
    assert dl002_lines(code) == []


def test_a_loss_that_moves_its_labels_through_a_helper_method():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = self._on_device(label)").replace(
        "    def forward(self, score_normal,",
        "    def _on_device(self, t):\n        return t.cuda() if torch.cuda.is_available() else t\n\n"
        "    def forward(self, score_normal,")
    assert dl002_lines(code) == []


def test_control_a_loss_that_never_moves_its_labels_is_still_flagged():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.float()")
    assert dl002_lines(code) == [line_of(code, "cost = loss_criterion(")]


def test_control_a_helper_that_does_not_move_leaves_the_finding():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = self._smooth(label)").replace(
        "    def forward(self, score_normal,",
        "    def _smooth(self, t):\n        return t * 0.9 + 0.05\n\n"
        "    def forward(self, score_normal,")
    assert dl002_lines(code) == [line_of(code, "cost = loss_criterion(")]

