# source: https://github.com/Hzzone/pytorch-openpose/pull/16  (hand.py: output = self.model(data).numpy() failed with "can't convert CUDA tensor to numpy"; fixed with .cpu().numpy())
# expect: DL003 at 39
import cv2
import numpy as np
import torch
import torch.nn as nn


class HandPoseNet(nn.Module):
    def __init__(self, joints=22):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.stage = nn.Conv2d(128, joints, 1)

    def forward(self, x):
        return self.stage(self.features(x))


class Hand:
    def __init__(self, model_path):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = HandPoseNet()
        self.model.load_state_dict(torch.load(model_path, map_location="cpu"))
        self.model = self.model.to(self.device)
        self.model.eval()

    def __call__(self, ori_img, scales=(0.5, 1.0, 1.5)):
        stride = 8
        heatmap_avg = np.zeros((ori_img.shape[0], ori_img.shape[1], 22), dtype=np.float32)
        for scale in scales:
            img = cv2.resize(ori_img, (0, 0), fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            im = np.ascontiguousarray(np.transpose(img[:, :, :, np.newaxis], (3, 2, 0, 1)), dtype=np.float32) / 256 - 0.5
            data = torch.from_numpy(im).to(self.device)
            with torch.no_grad():
                output = self.model(data).numpy()
            heatmap = np.transpose(np.squeeze(output), (1, 2, 0))
            heatmap = cv2.resize(heatmap, (0, 0), fx=stride, fy=stride, interpolation=cv2.INTER_CUBIC)
            heatmap = cv2.resize(heatmap, (ori_img.shape[1], ori_img.shape[0]), interpolation=cv2.INTER_CUBIC)
            heatmap_avg += heatmap / len(scales)
        return heatmap_avg
