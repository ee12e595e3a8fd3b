import torch
from torch import nn


def step(model, batch):
    return model(batch)


model = nn.Linear(4, 2)
batch = torch.randn(3, 4).to("cuda")
step(model, batch)
