# source: https://github.com/pytorch/pytorch/issues/77159  (the same Dataset runs once num_workers=0: every item is moved in the main process, slower but correct)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class WindowDataset(Dataset):
    """Sliding windows over a univariate series; each window is returned on the device."""

    def __init__(self, series, window=24):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i:i + self.window].unsqueeze(-1)
        y = self.series[i + self.window]
        return x.to(device), y.to(device)


series = torch.sin(torch.linspace(0, 60, 2000)) + 0.1 * torch.randn(2000)
loader = DataLoader(WindowDataset(series), batch_size=64, shuffle=True, num_workers=0)


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.out(h[-1]).squeeze(-1)


model = Forecaster().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(5):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
