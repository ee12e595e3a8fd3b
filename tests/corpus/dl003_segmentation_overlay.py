# source: https://github.com/open-mmlab/mmdetection/pull/4411  (visualisation code called .numpy() on a CUDA result tensor -> "TypeError: can't convert cuda device type tensor to numpy")
# expect: DL003 at 25
import argparse

import cv2
import numpy as np
import torch
import torch.nn as nn


class UNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(16, 1, 3, padding=1))

    def forward(self, x):
        return self.up(self.down(x))


def overlay(model, image_bgr, device, alpha=0.5):
    rgb = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB).astype(np.float32) / 255.0
    x = torch.from_numpy(rgb).permute(2, 0, 1).unsqueeze(0).to(device)
    logits = model(x)
    mask = torch.sigmoid(logits)[0, 0].detach().numpy()
    color = np.zeros_like(image_bgr)
    color[..., 2] = (mask > 0.5).astype(np.uint8) * 255
    return cv2.addWeighted(image_bgr, 1 - alpha, color, alpha, 0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("image")
    parser.add_argument("--weights", default="unet_tiny.pt")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = UNetTiny()
    net.load_state_dict(torch.load(args.weights, map_location=device))
    net.to(device).eval()
    cv2.imwrite("overlay.png", overlay(net, cv2.imread(args.image), device))
