# source: https://github.com/huggingface/trl/pull/1921  (`torch.cuda.amp.autocast()` -> `torch.amp.autocast("cuda")`: the deprecated context manager was still referenced in the trainer code)
# expect: DL005 at 11
from functools import partial

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
autocast_ctx = partial(torch.cuda.amp.autocast, enabled=use_bf16, dtype=torch.bfloat16)

reward_model = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 1)).to(device)
optimizer = torch.optim.AdamW(reward_model.parameters(), lr=1e-5)
chosen = torch.randn(512, 128)
rejected = torch.randn(512, 128)
loader = DataLoader(TensorDataset(chosen, rejected), batch_size=16, shuffle=True, pin_memory=True)

for epoch in range(2):
    for c, r in loader:
        c, r = c.to(device), r.to(device)
        with autocast_ctx():
            margin = reward_model(c) - reward_model(r)
            loss = -nn.functional.logsigmoid(margin).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
