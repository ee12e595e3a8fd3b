# source: https://github.com/mit-han-lab/efficientvit/issues/127
# seen: 2026-11-27
# style: model building blocks module (efficientvit/models/nn/ops.py style): small conv/norm helpers, a LiteMLA attention block whose ReLU linear attention runs in float32 under an `@autocast(enabled=False)` decorator imported from torch.cuda.amp, an EfficientViT block stacking it
# expect: DL005 at 9, 60
# why: `torch.cuda.amp.autocast(args...)` is deprecated (FutureWarning on every forward since torch 2.4); the decorator form imported as `from torch.cuda.amp import autocast` is the same call; use torch.autocast(device_type="cuda", enabled=False)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import autocast


def val2tuple(x, min_len=1):
    x = list(x) if isinstance(x, (list, tuple)) else [x]
    if len(x) < min_len:
        x.extend([x[-1] for _ in range(min_len - len(x))])
    return tuple(x)


def get_same_padding(kernel_size):
    return kernel_size // 2


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, groups=1, use_bias=False, norm="bn2d", act_func="relu"):
        super().__init__()
        padding = get_same_padding(kernel_size)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, groups=groups, bias=use_bias)
        self.norm = nn.BatchNorm2d(out_channels) if norm == "bn2d" else None
        self.act = nn.ReLU() if act_func == "relu" else None

    def forward(self, x):
        x = self.conv(x)
        if self.norm is not None:
            x = self.norm(x)
        if self.act is not None:
            x = self.act(x)
        return x


class LiteMLA(nn.Module):
    """Lightweight multi-scale linear attention."""

    def __init__(self, in_channels, out_channels, heads=None, heads_ratio=1.0, dim=8, scales=(5,), eps=1.0e-15):
        super().__init__()
        self.eps = eps
        heads = heads or int(in_channels // dim * heads_ratio)
        total_dim = heads * dim
        self.dim = dim
        self.qkv = ConvLayer(in_channels, 3 * total_dim, 1, norm=None, act_func=None)
        self.aggreg = nn.ModuleList([
            nn.Sequential(
                nn.Conv2d(3 * total_dim, 3 * total_dim, scale, padding=get_same_padding(scale), groups=3 * total_dim, bias=False),
                nn.Conv2d(3 * total_dim, 3 * total_dim, 1, groups=3 * heads, bias=False),
            )
            for scale in scales
        ])
        self.kernel_func = nn.ReLU()
        self.proj = ConvLayer(total_dim * (1 + len(scales)), out_channels, 1, act_func=None)

    @autocast(enabled=False)
    def relu_linear_att(self, qkv):
        B, _, H, W = list(qkv.size())
        if qkv.dtype == torch.float16:
            qkv = qkv.float()
        qkv = torch.reshape(qkv, (B, -1, 3 * self.dim, H * W))
        qkv = torch.transpose(qkv, -1, -2)
        q, k, v = qkv[..., 0:self.dim], qkv[..., self.dim:2 * self.dim], qkv[..., 2 * self.dim:]
        q = self.kernel_func(q)
        k = self.kernel_func(k)
        trans_k = k.transpose(-1, -2)
        v = F.pad(v, (0, 1), mode="constant", value=1)
        kv = torch.matmul(trans_k, v)
        out = torch.matmul(q, kv)
        out = out[..., :-1] / (out[..., -1:] + self.eps)
        out = torch.transpose(out, -1, -2)
        return torch.reshape(out, (B, -1, H, W))

    def forward(self, x):
        qkv = self.qkv(x)
        multi_scale_qkv = [qkv]
        for op in self.aggreg:
            multi_scale_qkv.append(op(qkv))
        multi_scale_qkv = torch.cat(multi_scale_qkv, dim=1)
        out = self.relu_linear_att(multi_scale_qkv)
        return self.proj(out)


class EfficientViTBlock(nn.Module):
    def __init__(self, in_channels, heads_ratio=1.0, dim=32, expand_ratio=4):
        super().__init__()
        self.context_module = LiteMLA(in_channels, in_channels, heads_ratio=heads_ratio, dim=dim)
        self.local_module = nn.Sequential(
            ConvLayer(in_channels, in_channels * expand_ratio, 1),
            ConvLayer(in_channels * expand_ratio, in_channels * expand_ratio, 3, groups=in_channels * expand_ratio),
            ConvLayer(in_channels * expand_ratio, in_channels, 1, act_func=None),
        )

    def forward(self, x):
        x = x + self.context_module(x)
        x = x + self.local_module(x)
        return x
