# source: https://github.com/karpathy/nanoGPT/pull/709  (fixed version: torch.amp.GradScaler('cuda', enabled=...) together with torch.amp.autocast)
# expect: clean
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
ptdtype = torch.float16
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

vocab, block, bs = 128, 32, 8
data = torch.randint(0, vocab, (50_000,))


def get_batch():
    ix = torch.randint(len(data) - block, (bs,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block] for i in ix])
    return x.to(device), y.to(device)


model = nn.Sequential(nn.Embedding(vocab, 64), nn.Linear(64, vocab)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cuda", enabled=device_type == "cuda")

for it in range(100):
    X, Y = get_batch()
    with ctx:
        logits = model(X)
        loss = F.cross_entropy(logits.view(-1, vocab), Y.view(-1))
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
