# source: https://github.com/facebookresearch/fairseq/issues/4420  (a fixed table held as a plain attribute is not moved to the device with the model)
# expect: DL015 at 19
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedSelfAttention(nn.Module):
    def __init__(self, dim=32, max_len=64):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.bias = torch.tril(torch.ones(max_len, max_len))
        self.scale = dim ** -0.5

    def forward(self, x):
        T = x.size(1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = q @ k.transpose(-2, -1) * self.scale
        att = att.masked_fill(self.bias[:T, :T] == 0, float("-inf"))
        return F.softmax(att, dim=-1) @ v


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
layer = MaskedSelfAttention().to(device)
out = layer(torch.randn(2, 10, 32, device=device))
