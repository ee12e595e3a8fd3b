# source: devicelint issue 23 item 5 (a reporting helper moves host scores to the GPU and reads them straight back with .tolist(); pattern written fresh, no single public report cited)
# expect: DL021 at 14
import argparse

import torch
import torch.nn as nn

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def report(step, scores, names):
    """Log the top-scoring names of a batch."""
    order = torch.argsort(scores, descending=True)
    ranked = scores.to(DEVICE)
    values = ranked.cpu().tolist()
    return [(names[i], values[i]) for i in order[:3].tolist()], step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    model = nn.Linear(8, 1).to(DEVICE)
    names = [f"item{i}" for i in range(16)]
    for step in range(args.steps):
        batch = torch.randn(16, 8)
        with torch.no_grad():
            logits = model(batch.to(DEVICE)).squeeze(1)
        scores = torch.sigmoid(logits).cpu()
        print(report(step, scores, names))


if __name__ == "__main__":
    main()
