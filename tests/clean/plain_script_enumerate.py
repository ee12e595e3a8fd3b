# tempts: DL002 via enumerate(loader) tuple unpacking (both x and y are moved) and DL010 via a running loss (uses .item())
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

features = torch.randn(2048, 32)
targets = torch.randint(0, 4, (2048,))
loader = DataLoader(TensorDataset(features, targets), batch_size=64, shuffle=True, pin_memory=True)

model = nn.Sequential(
    nn.Linear(32, 128),
    nn.ReLU(),
    nn.Dropout(0.1),
    nn.Linear(128, 4),
).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)

for epoch in range(5):
    model.train()
    loss_sum = 0.0
    for i, (x, y) in enumerate(loader):
        x = x.to(device)
        y = y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item()
    print(f"epoch {epoch}: mean loss {loss_sum / (i + 1):.4f}")
