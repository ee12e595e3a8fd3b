# tempts: DL005 with the current AMP API: torch.amp.autocast("cuda"), torch.autocast(device_type=...), torch.amp.GradScaler("cuda")
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_amp = device.type == "cuda"

model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 10)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(1024, 64), torch.randint(0, 10, (1024,))),
                    batch_size=64, shuffle=True, pin_memory=True)

for epoch in range(3):
    model.train()
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast("cuda", enabled=use_amp):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

model.eval()
with torch.no_grad(), torch.autocast(device_type=device.type, dtype=torch.bfloat16):
    sample = torch.randn(16, 64, device=device)
    print(model(sample).float().softmax(-1).cpu())
