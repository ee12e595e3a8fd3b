# source: https://github.com/rosinality/style-based-gan-pytorch/pull/50  (each item() call synchronises with the GPU; call it less often)
# expect: DL013 at 27, 28, 29, 30
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train(args, loader, generator, discriminator, g_optim, d_optim, device):
    for real_image, _ in loader:
        real_image = real_image.to(device)
        d_optim.zero_grad()
        real_predict = discriminator(real_image).mean()
        z = torch.randn(real_image.size(0), 16, device=device)
        fake_predict = discriminator(generator(z).detach()).mean()
        d_loss = fake_predict - real_predict
        d_loss.backward()
        d_optim.step()

        g_optim.zero_grad()
        predict = discriminator(generator(z)).mean()
        gen_loss = -predict
        gen_loss.backward()
        g_optim.step()

        disc_loss_val = d_loss.item()
        gen_loss_val = gen_loss.item()
        grad_loss_val = real_predict.detach().cpu()
        print(fake_predict)
        print(f"G {gen_loss_val:.3f} D {disc_loss_val:.3f} {grad_loss_val}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    generator = nn.Sequential(nn.Linear(16, 48), nn.Tanh()).to(device)
    discriminator = nn.Sequential(nn.Linear(48, 1)).to(device)
    g_optim = torch.optim.Adam(generator.parameters(), lr=1e-3)
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.randn(64, 48), torch.zeros(64)), batch_size=args.batch, pin_memory=True)
    train(args, loader, generator, discriminator, g_optim, d_optim, device)
