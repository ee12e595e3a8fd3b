# source: https://github.com/matssteinweg/PIXOR/issues/6  (fixed version: after load_state_dict the detector itself is moved to the device before evaluation)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(8, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 1, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x))


def evaluate(model, loader, device):
    model.eval()
    scores = []
    with torch.no_grad():
        for grids, _ in loader:
            scores.append(model(grids.to(device)).mean())
    return torch.stack(scores).mean()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    detector = Detector()
    detector.load_state_dict(torch.load("detector.pth", map_location=device))
    detector = detector.to(device)
    loader = DataLoader(TensorDataset(torch.rand(32, 8, 20, 20), torch.zeros(32)), batch_size=8, pin_memory=True)
    print(evaluate(detector, loader, device).item())
