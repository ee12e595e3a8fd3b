# source: https://github.com/thanard/causal-infogan/issues/3
# seen: 2026-11-26
# style: trainer class (trainer.py) + utils.plot_img helper; the evaluation noise is built on the GPU and the generated images are shown with plt.imshow
# expect: DL003 at 21, 66
# also-ok: DL007 at 51, 61, 62, 63, 71, 74, 76
# also-ok: DL008 at 63, 76
# why: _eval_noise() renders generator samples that live on the GPU and hands them to plot_img, whose plt.imshow converts them with np.asarray -> "can't convert CUDA tensor to numpy"
import os

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def plot_img(img, filename, vrange=(0, 1)):
    plt.figure()
    plt.imshow(img, vmin=vrange[0],
               vmax=vrange[1], cmap='gray', aspect='auto')
    plt.axis('off')
    plt.savefig(filename)
    plt.close()


class Generator(nn.Module):
    def __init__(self, c_dim=7, z_dim=4, img_size=64):
        super().__init__()
        self.img_size = img_size
        self.net = nn.Sequential(
            nn.Linear(c_dim * 2 + z_dim, 1024), nn.ReLU(),
            nn.Linear(1024, img_size * img_size), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.net(x).view(-1, self.img_size, self.img_size)


class UniformDistribution:
    def __init__(self, low=-1.0, high=1.0):
        self.low, self.high = low, high

    def sample(self, n, dim):
        return torch.rand(n, dim) * (self.high - self.low) + self.low


class Trainer:
    def __init__(self, G, P, out_dir, c_dim=7, z_dim=4, lr=2e-4, unif_range=(0, 1)):
        self.G = G.cuda()
        self.P = P
        self.c_dim = c_dim
        self.z_dim = z_dim
        self.out_dir = out_dir
        self.unif_range = unif_range
        self.g_optimizer = optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.999))
        self.eval_input = self._eval_noise()

    def _eval_noise(self, n=10):
        c = self.P.sample(n, self.c_dim).cuda()
        c_next = self.P.sample(n, self.c_dim).cuda()
        z = torch.randn(n, self.z_dim).cuda()
        x = self.G(torch.cat([c, c_next, z], 1))
        grid = torch.cat([x[i] for i in range(n)], 1).detach()
        plot_img(grid, os.path.join(self.out_dir, 'eval_noise.png'),
                 vrange=self.unif_range)
        return torch.cat([c, c_next, z], 1)

    def train(self, loader, n_epochs=100):
        bce = nn.BCELoss().cuda()
        for epoch in range(n_epochs):
            for real_o, real_o_next in loader:
                real_o, real_o_next = real_o.cuda(), real_o_next.cuda()
                fake = self.G(self.eval_input)
                g_loss = bce(fake.mean(dim=(1, 2)), torch.ones(fake.size(0)).cuda())
                self.g_optimizer.zero_grad()
                g_loss.backward()
                self.g_optimizer.step()
            print('epoch', epoch, g_loss.item())


if __name__ == '__main__':
    trainer = Trainer(Generator(), UniformDistribution(), out_dir='results')
