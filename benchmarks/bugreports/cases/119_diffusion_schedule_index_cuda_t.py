# source: https://github.com/modelscope/modelscope/issues/220
# seen: 2026-11-26
# style: diffusion sampling code: a beta_schedule helper, a GaussianDiffusion class that keeps its schedule tensors built from the betas, an _i(tensor, t, x) helper that indexes a schedule by the timestep tensor, a UNet denoiser moved to cuda and a DDIM sampling loop with torch.full timesteps on the device
# expect: DL011 at 17
# why: the schedule tensors (torch.tensor(betas), cumprod, sqrt ...) are built on the CPU, while t = torch.full(..., device=device) is a CUDA tensor; _i indexes tensor[t] -> "indices should be either on cpu or on the same device as the indexed tensor (cpu)"
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _i(tensor, t, x):
    r"""Index tensor using t and format the output according to x."""
    shape = (x.size(0), ) + (1, ) * (x.ndim - 1)
    return tensor[t].view(shape).to(x)


def beta_schedule(schedule, num_timesteps=1000, init_beta=None, last_beta=None):
    if schedule == 'linear':
        scale = 1000.0 / num_timesteps
        init_beta = init_beta or scale * 0.0001
        last_beta = last_beta or scale * 0.02
        return torch.linspace(init_beta, last_beta, num_timesteps, dtype=torch.float64)
    elif schedule == 'cosine':
        betas = []
        for step in range(num_timesteps):
            t1 = step / num_timesteps
            t2 = (step + 1) / num_timesteps
            fn1 = math.cos((t1 + 0.008) / 1.008 * math.pi / 2)**2
            fn2 = math.cos((t2 + 0.008) / 1.008 * math.pi / 2)**2
            betas.append(min(1.0 - fn2 / fn1, 0.999))
        return torch.tensor(betas, dtype=torch.float64)
    raise ValueError(f'Unsupported schedule: {schedule}')


class GaussianDiffusion(object):

    def __init__(self, betas, mean_type='eps', var_type='fixed_small'):
        # check input
        if not isinstance(betas, torch.DoubleTensor):
            betas = torch.tensor(betas, dtype=torch.float64)
        assert min(betas) > 0 and max(betas) <= 1
        self.betas = betas
        self.num_timesteps = len(betas)
        self.mean_type = mean_type
        self.var_type = var_type

        # alphas
        alphas = 1 - self.betas
        self.alphas_cumprod = torch.cumprod(alphas, dim=0)
        self.alphas_cumprod_prev = torch.cat([alphas.new_ones([1]), self.alphas_cumprod[:-1]])
        self.alphas_cumprod_next = torch.cat([self.alphas_cumprod[1:], alphas.new_zeros([1])])

        # q(x_t | x_{t-1})
        self.sqrt_alphas_cumprod = torch.sqrt(self.alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - self.alphas_cumprod)
        self.sqrt_recip_alphas_cumprod = torch.sqrt(1.0 / self.alphas_cumprod)
        self.sqrt_recipm1_alphas_cumprod = torch.sqrt(1.0 / self.alphas_cumprod - 1)

    def q_sample(self, x0, t, noise=None):
        noise = torch.randn_like(x0) if noise is None else noise
        return _i(self.sqrt_alphas_cumprod, t, x0) * x0 + _i(self.sqrt_one_minus_alphas_cumprod, t, x0) * noise

    @torch.no_grad()
    def ddim_sample(self, xt, t, model, model_kwargs={}, eta=0.0, ddim_timesteps=20):
        stride = self.num_timesteps // ddim_timesteps
        eps = model(xt, t, **model_kwargs)
        x0 = _i(self.sqrt_recip_alphas_cumprod, t, xt) * xt - _i(self.sqrt_recipm1_alphas_cumprod, t, xt) * eps
        x0 = x0.clamp(-1, 1)
        alphas = _i(self.alphas_cumprod, t, xt)
        alphas_prev = _i(self.alphas_cumprod, (t - stride).clamp(0), xt)
        sigmas = eta * torch.sqrt((1 - alphas_prev) / (1 - alphas) * (1 - alphas / alphas_prev))
        noise = torch.randn_like(xt)
        direction = torch.sqrt(1 - alphas_prev - sigmas**2) * eps
        mask = t.ne(0).float().view(-1, *((1, ) * (xt.ndim - 1)))
        xt_1 = torch.sqrt(alphas_prev) * x0 + direction + mask * sigmas * noise
        return xt_1, x0

    @torch.no_grad()
    def ddim_sample_loop(self, noise, model, model_kwargs={}, eta=0.0, ddim_timesteps=20):
        b = noise.size(0)
        xt = noise
        steps = (1 + torch.arange(0, self.num_timesteps, self.num_timesteps // ddim_timesteps)).clamp(0, self.num_timesteps - 1).flip(0)
        for step in steps:
            t = torch.full((b, ), step, dtype=torch.long, device=xt.device)
            xt, _ = self.ddim_sample(xt, t, model, model_kwargs, eta, ddim_timesteps)
        return xt


class TinyUNet(nn.Module):
    def __init__(self, channels=3, dim=64):
        super().__init__()
        self.time_embed = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.inp = nn.Conv2d(channels, dim, 3, padding=1)
        self.mid = nn.Conv2d(dim, dim, 3, padding=1)
        self.out = nn.Conv2d(dim, channels, 3, padding=1)

    def forward(self, x, t):
        emb = self.time_embed(t.float().unsqueeze(1) / 1000.0)[:, :, None, None]
        h = F.silu(self.inp(x) + emb)
        h = F.silu(self.mid(h))
        return self.out(h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--ckpt', type=str, default='unet.pth')
    parser.add_argument('--num', type=int, default=4)
    parser.add_argument('--size', type=int, default=64)
    parser.add_argument('--steps', type=int, default=50)
    args = parser.parse_args()

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    model = TinyUNet().to(device)
    model.load_state_dict(torch.load(args.ckpt, map_location=device))
    model.eval()

    diffusion = GaussianDiffusion(betas=beta_schedule('cosine', 1000))
    noise = torch.randn(args.num, 3, args.size, args.size, device=device)
    samples = diffusion.ddim_sample_loop(noise, model, ddim_timesteps=args.steps)
    samples = (samples.clamp(-1, 1) + 1) / 2
    torch.save(samples.cpu(), 'samples.pt')


if __name__ == '__main__':
    main()
