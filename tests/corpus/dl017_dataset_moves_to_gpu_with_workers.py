# source: https://github.com/pytorch/pytorch/issues/77159  (a custom Dataset moves each sample to the GPU as its last step; with num_workers > 0 the workers fail with "Cannot re-initialize CUDA in forked subprocess")
# expect: DL017 at 36
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
NUM_WORKERS = 4


class SpectrogramDataset(Dataset):
    def __init__(self, n_items=1000, n_mels=40, frames=100):
        rng = np.random.default_rng(0)
        self.specs = rng.standard_normal((n_items, n_mels, frames)).astype(np.float32)
        self.labels = rng.integers(0, 10, n_items)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        spec = torch.from_numpy(self.specs[idx])
        spec = (spec - spec.mean()) / (spec.std() + 1e-6)
        label = torch.tensor(self.labels[idx])
        # ready for the model: no .to() needed in the training loop
        return spec.to(DEVICE), label.to(DEVICE)


model = nn.Sequential(
    nn.Conv1d(40, 64, 5, padding=2), nn.ReLU(),
    nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, 10),
).to(DEVICE)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

train_loader = DataLoader(
    SpectrogramDataset(),
    batch_size=32,
    shuffle=True,
    num_workers=NUM_WORKERS,
)

for epoch in range(3):
    for specs, labels in train_loader:
        loss = criterion(model(specs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
