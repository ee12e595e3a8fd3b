# source: devicelint issue 23 item 5 (targets copied to the GPU only to be read back for metrics; pattern written fresh, no single public report cited)
# expect: DL021 at 33, 36
import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import f1_score
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

features = torch.randn(512, 16)
targets = torch.randint(0, 3, (512,))
weights = torch.rand(512)
loader = DataLoader(TensorDataset(features, targets, weights), batch_size=64)

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(2):
    model.train()
    for x, y, w in loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    y_true, y_pred, seen = [], [], 0.0
    with torch.no_grad():
        for x, y, w in loader:
            y_gpu = y.to(device)
            out = model(x.to(device))
            y_pred.append(out.argmax(1).cpu().numpy())
            seen += w.to(device).detach().cpu().sum().item()
            y_true.append(y_gpu.cpu().numpy())
    print(epoch, f1_score(np.concatenate(y_true), np.concatenate(y_pred), average="macro"), seen)
