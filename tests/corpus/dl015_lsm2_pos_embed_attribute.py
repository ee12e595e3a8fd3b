# source: https://github.com/AshleyLab/OpenMHC/issues/10  (sinusoidal pos_embed kept as a plain tensor attribute, so model.to(device) does not move it)
# expect: DL015 at 25
import math

import torch
import torch.nn as nn


def sincos_1d(length, dim):
    position = torch.arange(length).unsqueeze(1)
    div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * div)
    table[:, 1::2] = torch.cos(position * div)
    return table


class ViT1D(nn.Module):
    def __init__(self, patches=16, embed_dim=32):
        super().__init__()
        self.patch_embed = nn.Linear(8, embed_dim)
        self.pos_embed = torch.zeros(1, patches, embed_dim)

    def forward(self, x):
        x = self.patch_embed(x) + self.pos_embed
        return x.mean(dim=1)
