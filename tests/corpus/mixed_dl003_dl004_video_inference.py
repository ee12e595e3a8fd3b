# source: https://github.com/chaiNNer-org/chaiNNer/issues/1769  (when processing a series of images the model was sent to the device again for every image; the thread also discusses the numpy post-processing of each result)
# expect: DL003 at 29
# expect: DL004 at 25
import numpy as np
import torch
import torch.nn as nn


class Upscaler(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 48, 3, padding=1), nn.ReLU(), nn.Conv2d(48, 3 * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.shuffle(self.body(x))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = Upscaler().eval()
    clip = [np.random.randint(0, 255, (90, 160, 3), dtype=np.uint8) for _ in range(8)]
    results = []
    for frame in clip:
        net.to(device)
        x = torch.from_numpy(frame).permute(2, 0, 1).unsqueeze(0).float().div(255).to(device)
        with torch.inference_mode():
            y = net(x).clamp(0, 1)
        img = (y[0].permute(1, 2, 0).numpy() * 255).astype(np.uint8)
        results.append(img)
    print(len(results), results[0].shape)
