# source: https://github.com/kohya-ss/sd-scripts/pull/1894  (pin_memory passed to the DataLoader from a setting; copies then come from pinned buffers)
# expect: clean
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--pin_memory", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
unet = nn.Conv2d(4, 4, 3, padding=1).to(device)
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
train_dataloader = DataLoader(TensorDataset(torch.randn(16, 4, 32, 32)), batch_size=2, shuffle=True,
                              pin_memory=args.pin_memory)
for (latents,) in train_dataloader:
    latents = latents.to(device, non_blocking=True)
    loss = unet(latents).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
