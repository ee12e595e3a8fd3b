# source: https://github.com/tsugumi-sys/SA-ConvLSTM-Pytorch/pull/26  (fix for "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!" in the ConvLSTM training/validation code)
# expect: DL002 at 53
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ConvLSTMCell(nn.Module):
    def __init__(self, in_ch, hid_ch, k=3):
        super().__init__()
        self.hid_ch = hid_ch
        self.conv = nn.Conv2d(in_ch + hid_ch, 4 * hid_ch, k, padding=k // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.conv(torch.cat([x, h], dim=1)).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class Seq2Seq(nn.Module):
    def __init__(self, ch=1, hid=16):
        super().__init__()
        self.cell = ConvLSTMCell(ch, hid)
        self.head = nn.Conv2d(hid, ch, 1)

    def forward(self, frames):
        b, t, c, hgt, wid = frames.shape
        h = frames.new_zeros(b, self.cell.hid_ch, hgt, wid)
        cst = torch.zeros_like(h)
        for step in range(t):
            h, cst = self.cell(frames[:, step], (h, cst))
        return torch.sigmoid(self.head(h)).unsqueeze(1)


def train_epoch(model, loader, optimizer, device):
    model.train()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = nn.functional.binary_cross_entropy(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(model, loader, device):
    model.eval()
    per_batch = []
    with torch.no_grad():
        for inputs, targets in loader:
            targets = targets.to(device)
            preds = model(inputs)
            per_batch.append(nn.functional.binary_cross_entropy(preds, targets, reduction="sum"))
    return torch.stack(per_batch).sum() / len(loader.dataset)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    frames = torch.rand(200, 10, 1, 32, 32)
    future = torch.rand(200, 1, 1, 32, 32)
    train_loader = DataLoader(TensorDataset(frames[:160], future[:160]), batch_size=8, shuffle=True, pin_memory=True)
    val_loader = DataLoader(TensorDataset(frames[160:], future[160:]), batch_size=8, pin_memory=True)
    model = Seq2Seq().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        train_epoch(model, train_loader, optimizer, device)
        print(epoch, validate(model, val_loader, device).item())
