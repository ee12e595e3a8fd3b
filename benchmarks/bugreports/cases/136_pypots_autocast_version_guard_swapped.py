# source: https://github.com/WenjieDu/PyPOTS/issues/520
# seen: 2026-11-27
# style: package helper module (pypots/nn/functional/cuda.py) with a version-dispatching autocast() wrapper, and a local-attention layer module that decorates its float32 attention core with it; the version test is written the wrong way round
# expect: DL005 at 19
# why: the branch taken on torch >= 2.4 is the one that calls the deprecated torch.cuda.amp.autocast ("FutureWarning: torch.cuda.amp.autocast(args...) is deprecated"); the maintainer: "The conditions in the if statement should be exchanged"
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from packaging import version

TORCH_VERSION = version.parse(torch.__version__)


def autocast(**kwargs):
    """Run the wrapped code under CUDA autocast, picking the API the installed torch offers."""
    if TORCH_VERSION >= version.parse("2.4"):
        return torch.cuda.amp.autocast(**kwargs)
    else:
        return torch.amp.autocast("cuda", **kwargs)


def look_around(x, backward=1, forward=0, pad_value=-1, dim=2):
    t = x.shape[1]
    dims = (len(x.shape) - dim) * (0, 0)
    padded_x = F.pad(x, (*dims, backward, forward), value=pad_value)
    tensors = [padded_x[:, ind:(ind + t), ...] for ind in range(forward + backward + 1)]
    return torch.cat(tensors, dim=dim)


class LocalAttention(nn.Module):
    def __init__(self, window_size, look_backward=1, look_forward=0, dropout=0.0):
        super().__init__()
        self.window_size = window_size
        self.look_backward = look_backward
        self.look_forward = look_forward
        self.dropout = nn.Dropout(dropout)

    def attend(self, q, k, v):
        with autocast(enabled=False):
            q, k, v = q.float(), k.float(), v.float()
            sim = torch.einsum("b h i e, b h j e -> b h i j", q, k) / math.sqrt(q.shape[-1])
            attn = sim.softmax(dim=-1)
            attn = self.dropout(attn)
            return torch.einsum("b h i j, b h j e -> b h i e", attn, v)

    def forward(self, q, k, v):
        b, t, e = q.shape
        windows = t // self.window_size
        bq = q.reshape(b, windows, self.window_size, e)
        bk = look_around(k.reshape(b, windows, self.window_size, e), self.look_backward, self.look_forward)
        bv = look_around(v.reshape(b, windows, self.window_size, e), self.look_backward, self.look_forward)
        out = self.attend(bq, bk, bv)
        return out.reshape(b, t, e)
