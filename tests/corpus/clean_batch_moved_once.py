# source: https://github.com/huggingface/transformers/pull/4069  (fixed version: batch = tuple(t.to(args.device) for t in batch) is done exactly once per step)
# expect: clean
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
args = parser.parse_args()

model = nn.EmbeddingBag(5000, 2, mode="mean").to(args.device)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
data = TensorDataset(torch.randint(0, 5000, (256, 50)), torch.randint(0, 2, (256,)))
loader = DataLoader(data, batch_size=16, shuffle=True, pin_memory=True)

for step, batch in enumerate(loader):
    batch = tuple(t.to(args.device) for t in batch)
    input_ids, labels = batch
    loss = nn.functional.cross_entropy(model(input_ids), labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
