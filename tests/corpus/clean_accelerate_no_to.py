# source: https://github.com/huggingface/accelerate/pull/3137  (accelerate handles device placement and the GradScaler; the training loop has no .to() and no torch.cuda.amp)
# expect: clean
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator(mixed_precision="fp16" if torch.cuda.is_available() else "no")
model = nn.Sequential(nn.Linear(20, 40), nn.ReLU(), nn.Linear(40, 2))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(640, 20), torch.randint(0, 2, (640,))), batch_size=32, shuffle=True,
                    pin_memory=True)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for epoch in range(3):
    for x, y in loader:
        with accelerator.autocast():
            loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
