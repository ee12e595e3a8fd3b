# source: https://github.com/tatp22/multidim-positional-encoding/issues/33  (workaround: move the cached encoding to the input's device before adding it)
# expect: clean
import torch
import torch.nn as nn


class PositionalEncoding1D(nn.Module):
    def __init__(self, channels, max_len=128):
        super().__init__()
        self.cached_penc = torch.randn(1, max_len, channels)
        self.channels = channels

    def forward(self, tensor):
        penc = self.cached_penc[:, : tensor.size(1)].to(tensor.device)
        return tensor + penc


class Summer(nn.Module):
    def __init__(self, penc):
        super().__init__()
        self.penc = penc

    def forward(self, tensor):
        return self.penc(tensor)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
summer = Summer(PositionalEncoding1D(16)).to(device)
print(summer(torch.randn(2, 20, 16, device=device)).shape)
