# source: https://github.com/yuanyuanli85/Fast_Human_Pose_Estimation_Pytorch/issues/7  (demo run with --device cuda raised "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)"; the fix added model = model.to(device))
# expect: DL001 at 44
import argparse

import numpy as np
import torch
import torch.nn as nn
from PIL import Image


class Hourglass(nn.Module):
    def __init__(self, joints=16):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.mid = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(32, joints, 4, stride=2, padding=1)

    def forward(self, x):
        return self.up(self.mid(self.down(x)))


def load_image(path, res):
    img = Image.open(path).convert("RGB").resize((res, res))
    arr = np.asarray(img, dtype=np.float32) / 255.0
    return torch.from_numpy(arr).permute(2, 0, 1).unsqueeze(0)


def main():
    parser = argparse.ArgumentParser(description="single image pose demo")
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--in_res", type=int, default=256)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)

    model = Hourglass()
    state = torch.load(args.checkpoint, map_location=device)
    model.load_state_dict(state["state_dict"])
    model.eval()

    inp = load_image(args.image, args.in_res).to(device)
    with torch.no_grad():
        heatmaps = model(inp)
    peaks = heatmaps.flatten(2).argmax(dim=-1)
    coords = torch.stack([peaks % heatmaps.size(-1), peaks // heatmaps.size(-1)], dim=-1)
    print(coords.squeeze(0).cpu().numpy())


if __name__ == "__main__":
    main()
