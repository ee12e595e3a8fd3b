# source: https://github.com/pytorch/pytorch/issues/77159
# seen: 2026-11-26
# style: script, custom Dataset whose __getitem__ ends by moving the sample to the GPU, DataLoader with workers
# expect: DL017 at 29, 47
# why: __getitem__ runs in forked DataLoader workers (num_workers=4); .to(device) there raises "Cannot re-initialize CUDA in forked subprocess"
# also-ok: DL007 at 12
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda")


class SignalDataset(Dataset):
    def __init__(self, n_samples=10000, length=256):
        rng = np.random.default_rng(0)
        self.signals = rng.standard_normal((n_samples, length)).astype(np.float32)
        self.labels = rng.integers(0, 2, size=n_samples)

    def __len__(self):
        return len(self.signals)

    def __getitem__(self, idx):
        x = torch.from_numpy(self.signals[idx]).unsqueeze(0)
        x = (x - x.mean()) / (x.std() + 1e-6)
        y = torch.tensor(self.labels[idx], dtype=torch.long)
        # final step: put the sample where the model lives
        return x.to(device), y.to(device)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 16, 7, padding=3)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(16, 2)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(self.pool(x).squeeze(-1))


model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
train_loader = DataLoader(SignalDataset(), batch_size=64, shuffle=True, num_workers=4)

for epoch in range(5):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
