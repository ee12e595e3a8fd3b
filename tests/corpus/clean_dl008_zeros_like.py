# source: https://github.com/meta-pytorch/torchfix/issues/62  ("Use torch.*_like()": `torch.zeros_like(a)` instead of `torch.zeros(...).to(a)`)
# expect: clean
import torch


def init_state(hidden):
    h0 = torch.zeros_like(hidden)
    c0 = hidden.new_zeros(hidden.shape)
    eps = torch.randn(hidden.shape, device=hidden.device, dtype=hidden.dtype)
    steps = torch.arange(hidden.shape[0], device=hidden.device).to(hidden.dtype)
    return h0, c0, eps, steps
