# source: https://github.com/torchsynth/torchsynth/issues/76  ("t = tensor.rand(2,2).cuda() first creates a CPU tensor and then transfers it"; create it on the device instead)
# expect: DL008 at 19, 20
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Oscillator(nn.Module):
    def __init__(self, sample_rate=16000):
        super().__init__()
        self.sample_rate = sample_rate

    def forward(self, freq):
        return torch.sin(2 * torch.pi * freq.unsqueeze(-1) * self.time)


def render(batch_size, buffer_size):
    phase = torch.rand(batch_size, 1).to(device)
    time = torch.arange(buffer_size).float().to(device) / 16000
    freq = 440.0 * torch.ones(batch_size, device=device)
    return torch.sin(2 * torch.pi * freq.unsqueeze(-1) * time + phase)


print(render(4, 1024).shape)
