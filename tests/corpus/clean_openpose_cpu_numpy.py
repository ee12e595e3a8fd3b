# source: https://github.com/Hzzone/pytorch-openpose/pull/16  (fixed version: output = self.model(data).cpu().numpy())
# expect: clean
import numpy as np
import torch
import torch.nn as nn


class Body:
    def __init__(self, model_path):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = nn.Sequential(nn.Conv2d(3, 19, 3, padding=1))
        self.model.load_state_dict(torch.load(model_path, map_location=self.device))
        self.model.to(self.device)
        self.model.eval()

    def __call__(self, image: np.ndarray) -> np.ndarray:
        im = np.ascontiguousarray(image.transpose(2, 0, 1)[np.newaxis], dtype=np.float32) / 256 - 0.5
        data = torch.from_numpy(im).to(self.device)
        with torch.no_grad():
            output = self.model(data).cpu().numpy()
        return np.squeeze(output).transpose(1, 2, 0)
