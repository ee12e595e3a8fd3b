# source: https://github.com/kohya-ss/sd-scripts/issues/1649  (FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead)
# expect: DL005 at 15
import time

import torch
import torch.nn as nn


def build_encoder():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=4).eval()


def benchmark(encoder, batch, steps=10):
    with torch.no_grad(), torch.cpu.amp.autocast(dtype=torch.bfloat16):
        encoder(batch)
        start = time.perf_counter()
        for _ in range(steps):
            out = encoder(batch)
    return out, (time.perf_counter() - start) / steps


if __name__ == "__main__":
    torch.set_num_threads(8)
    enc = build_encoder()
    tokens = torch.randn(16, 128, 256)
    out, per_step = benchmark(enc, tokens)
    print(out.dtype, f"{per_step * 1000:.1f} ms/step")
