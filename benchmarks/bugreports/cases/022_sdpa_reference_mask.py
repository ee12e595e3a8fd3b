# source: https://github.com/InfiniTensor/llaisys/pull/11
# seen: 2026-11-26
# style: test helper (reference attention in PyTorch) called with tensors built on the device under test
# expect: DL011 at 17, 18
# why: temp_mask is created by torch.ones(...) on the CPU and applied to attn_bias on query.device
# also-ok: DL006 at 19
import argparse
import math

import torch


def torch_self_attention(query, key, value, scale):
    L, S = query.size(-2), key.size(-2)
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)

    temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S-L)
    attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
    attn_bias.to(query.dtype)

    attn_weight = query @ key.transpose(-2, -1) * scale
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value


def test(qlen, kvlen, nh, hd, dtype, device):
    q = torch.rand((nh, qlen, hd), dtype=dtype, device=device)
    k = torch.rand((nh, kvlen, hd), dtype=dtype, device=device)
    v = torch.rand((nh, kvlen, hd), dtype=dtype, device=device)
    scale = 1.0 / math.sqrt(hd)
    out = torch_self_attention(q, k, v, scale)
    print(qlen, kvlen, nh, hd, dtype, out.shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu", choices=["cpu", "nvidia"], type=str)
    args = parser.parse_args()
    device = "cuda" if args.device == "nvidia" else "cpu"
    for shape in [(2, 2, 1, 4), (5, 11, 4, 8)]:
        for dtype in [torch.float32, torch.float16]:
            test(*shape, dtype, device)
