# source: https://github.com/NVIDIA/apex/issues/316  (sync with the host only when needed: evaluation needs the predictions on the host anyway)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(16, 4).to(device)
val_loader = DataLoader(TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,))), batch_size=16, pin_memory=True)

model.eval()
preds, correct = [], 0
with torch.no_grad():
    for x, y in val_loader:
        logits = model(x.to(device))
        preds.append(logits.argmax(dim=1).cpu())
        correct += (logits.argmax(dim=1).cpu() == y).sum().item()
print(torch.cat(preds).shape, correct / len(val_loader.dataset))
