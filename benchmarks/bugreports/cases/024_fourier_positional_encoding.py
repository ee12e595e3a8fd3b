# source: https://github.com/jmclong/random-fourier-features-pytorch/pull/4
# seen: 2026-11-26
# style: library functional helper used by an nn.Module layer (rff/functional.py + rff/layers.py)
# expect: DL011 at 16, 18
# why: torch.arange(m) is created on the CPU regardless of v's device and multiplied with v
import numpy as np
import torch
import torch.nn as nn
from torch import Tensor


def positional_encoding(v: Tensor, sigma: float, m: int) -> Tensor:
    r"""Computes :math:`\gamma(\mathbf{v}) = (\dots, \cos{2 \pi \sigma^{(j/m)} \mathbf{v}} , \sin{2 \pi \sigma^{(j/m)} \mathbf{v}}, \dots)`
    where :math:`j \in \{0, \dots, m-1\}`
    """
    j = torch.arange(m)
    coeffs = 2 * np.pi * sigma ** (j / m)
    vp = coeffs * torch.unsqueeze(v, -1)
    vp_cat = torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
    return vp_cat.flatten(-2, -1)


class PositionalEncoding(nn.Module):
    """Layer for mapping coordinates using the positional encoding"""

    def __init__(self, sigma: float, m: int):
        super().__init__()
        self.sigma = sigma
        self.m = m

    def forward(self, v: Tensor) -> Tensor:
        return positional_encoding(v, self.sigma, self.m)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoding = PositionalEncoding(sigma=1.0, m=10)
    X = torch.randn((256, 2), device=device)
    print(encoding(X).shape)
