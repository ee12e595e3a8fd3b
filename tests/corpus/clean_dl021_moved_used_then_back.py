# source: devicelint issue 23 item 5 (tempting but correct: every tensor moved to the GPU is used there before it comes back)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.randn(128, 10), torch.randint(0, 2, (128,))), batch_size=32,
                    pin_memory=torch.cuda.is_available())
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
criterion = nn.CrossEntropyLoss()

model.eval()
correct, kept = 0, []
with torch.no_grad():
    for inputs, labels in loader:
        inputs = inputs.to(device)
        labels = labels.to(device)
        logits = model(inputs)
        loss = criterion(logits, labels)
        correct += (logits.argmax(1) == labels).sum().item()
        kept.append((inputs.cpu(), labels.cpu().tolist(), loss.item()))
        state = model[0].weight.to(device)
        print(state.cpu().norm())
print(correct / 128, len(kept))
