# source: https://github.com/CambridgeCIA/LION/issues/115  (validation loss computed without torch.no_grad: memory grows from 11 GB to 18 GB)
# expect: DL010 at 33
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class FBPConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = FBPConvNet().to(device)
loss_fcn = nn.MSELoss()
validation_loader = DataLoader(TensorDataset(torch.randn(16, 1, 64, 64), torch.randn(16, 1, 64, 64)), batch_size=4, pin_memory=True)

for epoch in range(args.epochs):
    model.eval()
    valid_loss = 0.0
    for sinogram, target_reconstruction in validation_loader:
        reconstruction = model(sinogram.to(device))
        loss = loss_fcn(reconstruction, target_reconstruction.to(device))
        valid_loss += loss
    print(f"epoch {epoch}: validation loss {valid_loss / len(validation_loader)}")
