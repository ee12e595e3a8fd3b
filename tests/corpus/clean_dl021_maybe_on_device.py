# source: devicelint issue 23 item 5 (tempting but correct: the tensor may already be on the device, so the move copies nothing)
# expect: clean
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 1)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        return self.proj(x) * self.scale.to(x.device)


def to_numbers(t, device):
    """Whatever device `t` is on: read it out as a list."""
    t = t.to(device)
    return t.cpu().tolist()


def run(model, batch, device):
    out = model(batch.to(device))
    moved = out.to(device)  # already on the device: `.to()` returns it, no copy
    return to_numbers(out, device), moved.cpu()


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(run(Scorer(4).to(dev), torch.randn(2, 4), dev))
