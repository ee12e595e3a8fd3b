# source: https://github.com/lyuwenyu/RT-DETR/pull/679  (the fix: register the fixed positional embedding as a non-persistent buffer)
# expect: clean
import torch
import torch.nn as nn


class AIFI(nn.Module):
    def __init__(self, dim=32, tokens=64):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("pos_embed", torch.randn(1, tokens, dim), persistent=False)
        self.gamma = nn.Parameter(torch.ones(dim))

    def forward(self, src):
        return self.proj(src + self.pos_embed[:, : src.size(1)]) * self.gamma


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
enc = AIFI().to(device)
print(enc(torch.randn(2, 64, 32, device=device)).shape)
