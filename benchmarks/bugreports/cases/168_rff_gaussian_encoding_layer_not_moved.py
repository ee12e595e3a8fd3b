# source: https://github.com/jmclong/random-fourier-features-pytorch/issues/2
# seen: 2026-11-27
# style: Fourier-feature image fitting script (the reporter's use of the library): argparse, an image turned into a coordinate grid and RGB targets on the device, rff.layers.GaussianEncoding built next to an MLP, the MLP moved with .to(device), an Adam loop that encodes the coordinates and regresses the pixels, PSNR printed and the reconstruction saved
# expect: DL001 at 50, 56
# also-ok: DL013 at 64
# why: the coordinates are on cuda and the MLP is moved, but the GaussianEncoding layer (its random matrix b sampled with torch.randn on the CPU) is never moved -> the matmul in gaussian_encoding fails with a device mismatch (the maintainer's reading: "x = x.to('cuda'); f = rff.layers.GaussianEncoding(1, 1, 1); f(x)"); moving the encoding layer with the model (or building it inside the model) fixes it
import argparse

import imageio.v3 as iio
import numpy as np
import rff
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden=256, out_features=3, depth=4):
        super().__init__()
        layers = [nn.Linear(in_features, hidden), nn.ReLU()]
        for _ in range(depth - 2):
            layers += [nn.Linear(hidden, hidden), nn.ReLU()]
        layers += [nn.Linear(hidden, out_features), nn.Sigmoid()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def image_to_grid(path, device):
    img = iio.imread(path).astype(np.float32) / 255.0
    h, w = img.shape[:2]
    ys, xs = torch.meshgrid(torch.linspace(0, 1, h), torch.linspace(0, 1, w), indexing="ij")
    coords = torch.stack([xs, ys], dim=-1).reshape(-1, 2).to(device)
    target = torch.from_numpy(img[..., :3]).reshape(-1, 3).to(device)
    return coords, target, (h, w)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image", default="data/fox.jpg")
    parser.add_argument("--sigma", type=float, default=10.0)
    parser.add_argument("--encoded-size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    coords, target, (h, w) = image_to_grid(args.image, device)

    encoding = rff.layers.GaussianEncoding(sigma=args.sigma, input_size=2, encoded_size=args.encoded_size)
    model = MLP(2 * args.encoded_size).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()

    for step in range(args.steps):
        features = encoding(coords)
        pred = model(features)
        loss = criterion(pred, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            psnr = -10 * torch.log10(loss.detach())
            print(f"step {step}: loss {loss.item():.5f} psnr {psnr.item():.2f}")

    with torch.no_grad():
        out = model(encoding(coords)).reshape(h, w, 3).cpu().numpy()
    iio.imwrite("reconstruction.png", (out * 255).astype(np.uint8))


if __name__ == "__main__":
    main()
