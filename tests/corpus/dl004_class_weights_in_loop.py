# source: https://github.com/pytorch/pytorch/issues/122757  (CrossEntropyLoss class weights left on the CPU caused a device error; a common "fix" moves the weights inside the training loop, copying them host-to-device on every step)
# expect: DL004 at 25
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

labels_np = np.random.choice(5, size=4000, p=[0.6, 0.2, 0.1, 0.07, 0.03])
counts = np.bincount(labels_np, minlength=5).astype(np.float32)
class_weights = torch.from_numpy(counts.sum() / (len(counts) * counts))

features = torch.randn(4000, 24)
loader = DataLoader(TensorDataset(features, torch.from_numpy(labels_np)), batch_size=64,
                    shuffle=True, pin_memory=True)
model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 5)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(10):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits, y, weight=class_weights.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
