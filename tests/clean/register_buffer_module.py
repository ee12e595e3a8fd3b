# tempts: DL015/DL011 with constant tensors stored via register_buffer, so model.to(device) carries them along
import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model=64, max_len=512):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class Normalizer(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean).view(1, -1, 1, 1))
        self.register_buffer("std", torch.as_tensor(std).view(1, -1, 1, 1))

    def forward(self, img):
        return (img - self.mean) / self.std


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
enc = PositionalEncoding().to(device)
norm = Normalizer([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]).to(device)
tokens = torch.randn(2, 100, 64, device=device)
images = torch.rand(2, 3, 32, 32, device=device)
print(enc(tokens).shape, norm(images).mean().item())
