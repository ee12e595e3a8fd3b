# source: https://github.com/pytorch/benchmark/issues/887  (models still issued .to(self.device) calls inside the timed iteration instead of moving the data once in __init__)
# expect: DL004 at 36
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Denoiser(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.t_embed = nn.Embedding(1000, ch)
        self.inp = nn.Conv2d(1, ch, 3, padding=1)
        self.out = nn.Conv2d(ch, 1, 3, padding=1)

    def forward(self, x, t):
        h = F.silu(self.inp(x) + self.t_embed(t)[:, :, None, None])
        return self.out(h)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    T = 1000
    betas = torch.linspace(1e-4, 0.02, T)
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)

    model = Denoiser().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
    loader = DataLoader(TensorDataset(torch.rand(1024, 1, 28, 28) * 2 - 1), batch_size=64,
                        shuffle=True, pin_memory=True)

    for epoch in range(5):
        for (x0,) in loader:
            x0 = x0.to(device)
            t = torch.randint(0, T, (x0.size(0),), device=device)
            a_bar = alphas_cumprod.to(device)[t].view(-1, 1, 1, 1)
            noise = torch.randn_like(x0)
            xt = a_bar.sqrt() * x0 + (1 - a_bar).sqrt() * noise
            loss = F.mse_loss(model(xt, t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
