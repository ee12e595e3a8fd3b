# source: https://github.com/cfzd/Ultra-Fast-Lane-Detection-v2/issues/160  (a helper that needs CUDA tensors is called from the Dataset's __getitem__ with data.cuda() (here .to(self.device)); the loader then fails)
# expect: DL017 at 57
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--num_workers", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=10)
    return parser.parse_args()


class LaneDataset(Dataset):
    def __init__(self, n, device, h=36, w=100, num_points=18):
        self.device = device
        self.images = torch.rand(n, 3, h, w)
        self.points = torch.rand(n, 4, num_points) * w
        self.h = h

    def __len__(self):
        return len(self.images)

    def interp_lanes(self, pts):
        # resample the lane points on a fixed row grid (the helper wants CUDA tensors)
        pts = pts.to(self.device)
        grid = torch.linspace(0, 1, pts.shape[-1] * 2, device=pts.device)
        return F.interpolate(pts.unsqueeze(0), size=grid.numel(), mode="linear", align_corners=True)[0]

    def __getitem__(self, idx):
        image = self.images[idx]
        lanes = self.interp_lanes(self.points[idx])
        return image, lanes


class LaneHead(torch.nn.Module):
    def __init__(self, num_points=36):
        super().__init__()
        self.backbone = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, stride=2), torch.nn.ReLU(),
                                            torch.nn.AdaptiveAvgPool2d((4, 8)))
        self.head = torch.nn.Linear(16 * 4 * 8, 4 * num_points)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1)).view(x.size(0), 4, -1)


def main():
    args = get_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = LaneHead().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dataset = LaneDataset(512, device)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                        num_workers=args.num_workers, pin_memory=True, drop_last=True)
    for epoch in range(args.epochs):
        for images, lanes in loader:
            images = images.to(device)
            loss = F.smooth_l1_loss(model(images), lanes)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
