# source: https://github.com/pytorch/benchmark/issues/887  (fixed version: the noise schedule is prepared on the device in __init__, not moved inside the timed loop)
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class GaussianDiffusion(nn.Module):
    def __init__(self, denoiser: nn.Module, timesteps=1000):
        super().__init__()
        self.denoiser = denoiser
        self.timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))

    def loss(self, x0):
        t = torch.randint(0, self.timesteps, (x0.size(0),), device=x0.device)
        a_bar = self.alphas_cumprod[t].view(-1, 1)
        noise = torch.randn_like(x0)
        xt = a_bar.sqrt() * x0 + (1 - a_bar).sqrt() * noise
        return F.mse_loss(self.denoiser(torch.cat([xt, t.unsqueeze(1).float() / self.timesteps], dim=1)), noise)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
diffusion = GaussianDiffusion(nn.Sequential(nn.Linear(3, 64), nn.SiLU(), nn.Linear(64, 2))).to(device)
optimizer = torch.optim.Adam(diffusion.parameters(), lr=1e-3)
points = torch.randn(4096, 2, device=device)
for step in range(200):
    idx = torch.randint(0, points.size(0), (256,), device=device)
    loss = diffusion.loss(points[idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
