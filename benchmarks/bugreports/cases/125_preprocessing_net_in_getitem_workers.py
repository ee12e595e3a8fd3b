# source: https://github.com/pytorch/pytorch/issues/2517#issuecomment-451848519
# seen: 2026-11-26
# style: training script with a preprocessing Dataset: the Dataset keeps a device and a small CNN it built and sent to the GPU, preprocesses the validation samples in __init__, and in __getitem__ sends each sample to its device to run the preprocessing net; a DataLoader with worker processes, a training loop
# expect: DL017 at 50, 79
# why: __getitem__ runs in the loader's forked workers and calls x.to(self.DEVICE) there after the main process has initialised CUDA -> "RuntimeError: CUDA error: initialization error" at `x.to(self.DEVICE)` when the loop starts iterating the loader
import argparse
import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class Preprocessor(nn.Module):
    """A tiny denoising network applied to every sample before training."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 3, 3, padding=1)

    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(x)))


class PreprocessedImages(Dataset):
    def __init__(self, folder, labels, device, preprocess_weights=None):
        self.files = sorted(glob.glob(os.path.join(folder, "*.png")))
        self.labels = labels
        self.DEVICE = torch.device(device)
        self.net = Preprocessor().to(self.DEVICE)
        if preprocess_weights is not None:
            self.net.load_state_dict(torch.load(preprocess_weights, map_location=self.DEVICE))
        self.net.eval()

    def __len__(self):
        return len(self.files)

    def load(self, i):
        img = np.asarray(Image.open(self.files[i]).convert("RGB"), dtype=np.float32) / 255.0
        return torch.from_numpy(img).permute(2, 0, 1)

    def __getitem__(self, i):
        x = self.load(i)
        with torch.no_grad():
            x = self.net(x.to(self.DEVICE).unsqueeze(0)).squeeze(0)
        return x, self.labels[i]


class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train")
    parser.add_argument("--labels", default="data/train_labels.npy")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    labels = torch.from_numpy(np.load(args.labels)).long()
    train_set = PreprocessedImages(args.data, labels, device)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)

    model = Classifier(num_classes=int(labels.max()) + 1).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for i, (data, target) in enumerate(train_loader):
            target = target.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
