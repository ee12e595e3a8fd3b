# source: https://github.com/pytorch/pytorch/issues/2830  (an optimizer built before `model.cuda()` keeps working: Module.cuda() moves the parameters in place; only state loaded before the move stays behind)
# expect: clean
import argparse

import torch
import torch.nn as nn


class TextCNN(nn.Module):
    def __init__(self, vocab=5000, dim=64, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, 96, 5, padding=2)
        self.fc = nn.Linear(96, classes)

    def forward(self, tokens):
        h = torch.relu(self.conv(self.embed(tokens).transpose(1, 2)))
        return self.fc(h.max(dim=2).values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = TextCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)  # built on the host: fine
    model.to(device)
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])  # after the move: cast to the device

    for step in range(args.steps):
        tokens = torch.randint(0, 5000, (32, 50), device=device)
        labels = torch.randint(0, 4, (32,), device=device)
        loss = nn.functional.cross_entropy(model(tokens), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
