# source: https://github.com/MIC-DKFZ/nnUNet/pull/2684  (fixed version: GradScaler/autocast imported from torch.amp and given the device type, so the names look like the deprecated ones but are not)
# expect: clean
import torch
import torch.nn as nn
from torch.amp import GradScaler, autocast
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv3d(8, 2, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.99, nesterov=True)
grad_scaler = GradScaler(device.type, enabled=device.type == "cuda")
loader = DataLoader(TensorDataset(torch.rand(16, 1, 32, 32, 32), torch.randint(0, 2, (16, 32, 32, 32))),
                    batch_size=2, shuffle=True, pin_memory=True)

for epoch in range(2):
    for data, target in loader:
        data = data.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with autocast(device.type, enabled=device.type == "cuda"):
            output = model(data)
            loss = nn.functional.cross_entropy(output, target)
        grad_scaler.scale(loss).backward()
        grad_scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 12)
        grad_scaler.step(optimizer)
        grad_scaler.update()
