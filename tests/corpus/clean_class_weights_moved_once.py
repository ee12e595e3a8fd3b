# source: https://github.com/pytorch/pytorch/issues/122757  (fixed version: the CrossEntropyLoss weights are put on the device once, when the criterion is built)
# expect: clean
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
labels_np = np.random.choice(3, size=3000, p=[0.7, 0.2, 0.1])
counts = np.bincount(labels_np, minlength=3).astype(np.float32)
weights = torch.from_numpy(counts.sum() / (3 * counts)).to(device)
criterion = nn.CrossEntropyLoss(weight=weights)

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(3000, 16), torch.from_numpy(labels_np)), batch_size=50,
                    shuffle=True, pin_memory=True)

for epoch in range(5):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
