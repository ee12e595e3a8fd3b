import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from convlstm import ConvLSTM


class NextFramePredictor(nn.Module):
    def __init__(self, size, channels, hidden):
        super().__init__()
        self.convlstm = ConvLSTM(input_dim=channels, hidden_dim=[hidden, hidden],
                                 kernel_size=(3, 3), num_layers=2, batch_first=True)
        self.head = nn.Conv2d(hidden, channels, kernel_size=1)

    def forward(self, clip):
        layer_outputs, _ = self.convlstm(clip)
        return torch.sigmoid(self.head(layer_outputs[-1][:, -1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="mnist_test_seq.npy")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    device = torch.device(args.device)

    frames = np.load(args.data).transpose(1, 0, 2, 3)[:, :, None].astype(np.float32) / 255.0
    clips = torch.from_numpy(frames[:, :10])
    targets = torch.from_numpy(frames[:, 10])
    loader = DataLoader(TensorDataset(clips, targets), batch_size=args.batch_size, shuffle=True)

    model = NextFramePredictor((64, 64), 1, 32).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCELoss()
    for epoch in range(args.epochs):
        for clip, target in loader:
            clip, target = clip.to(device), target.to(device)
            optimizer.zero_grad()
            loss = criterion(model(clip), target)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
